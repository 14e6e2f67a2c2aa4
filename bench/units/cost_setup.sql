-- bench/units/cost_setup.sql — the data of bench/units' cost measurement (run.sh).
-- bu.cost: 1,000,000 synthetic rows, 100,000 units: person = 1 + (a hash of id) mod 100000
-- (unit sizes about Binomial(10^6, 10^-5), mean 10), five features in {0, .25, .5, .75, 1}
-- and a label, all from md5 of the id: a fixed, reproducible table whose 6 250 distinct
-- (features, label) pairs keep the mechanism's state small, so a run's time is the scan's.
-- bu.cost_row is protected at row level, bu.cost_unit with privacy_unit = person and
-- max_rows_per_unit = 10: the same rows.  Two more unit shapes of the same rows, also
-- k = 10: bu.cost_u10k (10 000 units of 100 rows: 100 000 rows kept) and bu.cost_u1m (one
-- unit per row: 1 000 000 units, every row kept).
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
DROP TABLE IF EXISTS bu.cost_row, bu.cost_unit, bu.cost_u10k, bu.cost_u1m;
CREATE TABLE bu.cost_row AS
WITH h AS (SELECT id, decode(md5('cost:' || id), 'hex') AS b FROM generate_series(1, 1000000) id)
SELECT id,
       1 + (('x' || encode(substr(b, 1, 4), 'hex'))::bit(32)::bigint % 100000)::int AS person,
       (get_byte(b, 4) % 5) / 4.0::float8 AS f1, (get_byte(b, 5) % 5) / 4.0::float8 AS f2,
       (get_byte(b, 6) % 5) / 4.0::float8 AS f3, (get_byte(b, 7) % 5) / 4.0::float8 AS f4,
       (get_byte(b, 8) % 5) / 4.0::float8 AS f5,
       (get_byte(b, 4) % 5) + (get_byte(b, 5) % 5) + (get_byte(b, 9) % 4) > 5 AS y
  FROM h;
CREATE TABLE bu.cost_unit AS SELECT * FROM bu.cost_row;
CREATE TABLE bu.cost_u10k AS SELECT id, 1 + (person % 10000) AS person, f1, f2, f3, f4, f5, y FROM bu.cost_row;
CREATE TABLE bu.cost_u1m AS SELECT id, id AS person, f1, f2, f3, f4, f5, y FROM bu.cost_row;
VACUUM ANALYZE bu.cost_row;
VACUUM ANALYZE bu.cost_unit;
VACUUM ANALYZE bu.cost_u10k;
VACUUM ANALYZE bu.cost_u1m;
SELECT dpobj.protect('bu.cost_row');
SELECT dpobj.protect(t, privacy_unit => 'person', max_rows_per_unit => 10)
  FROM unnest(ARRAY['bu.cost_unit', 'bu.cost_u10k', 'bu.cost_u1m']) t;
SELECT dpobj.grant_budget(t, 'bu_analyst', 100000, 0.5)
  FROM unnest(ARRAY['bu.cost_row', 'bu.cost_unit', 'bu.cost_u10k', 'bu.cost_u1m']) t;
