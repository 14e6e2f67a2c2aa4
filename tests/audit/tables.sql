-- tests/audit/tables.sql — the neighbouring tables of the empirical audit (tests/audit).
-- Each table holds both datasets: side 0 is D, side 1 is D'; they differ in one row
-- replaced (dpobj's neighbour relation, docs/PRIVACY.md "Neighbours").

-- canary: a single row, x = (1) (the largest norm the audits' R = 1 allows), whose label
-- is flipped: true in D, false in D'.  With one row nothing else dilutes the canary: every
-- halfspace on the grid {-1, 0, 1} changes its 0/1 loss, the Huber gradient at |theta| <
-- 1 - h moves by the full 2 L R, and the fixed model w = (1) moves the row from TP to FP.
CREATE TABLE canary AS
  SELECT s AS side, ARRAY[1.0]::float8[] AS x, s = 0 AS y
    FROM generate_series(0, 1) s;
