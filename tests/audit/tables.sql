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

-- canary3: the canary repeated three times on each side, one privacy unit of k = 3 rows
-- ("rows_per_unit": 3) whose labels all flip: the unit moves the gradient sum by 3 * 2 L R.
CREATE TABLE canary3 AS
  SELECT s AS side, ARRAY[1.0]::float8[] AS x, s = 0 AS y
    FROM generate_series(0, 1) s CROSS JOIN generate_series(1, 3) i;

-- canary_mc: the canary of the multi-class mechanisms, its class 'a' in D and 'b' in D':
-- class a's and class b's one-vs-rest views both flip their label.
CREATE TABLE canary_mc AS
  SELECT s AS side, ARRAY[1.0]::float8[] AS x, CASE WHEN s = 0 THEN 'a' ELSE 'b' END AS y
    FROM generate_series(0, 1) s;

-- canary_agg: dp_aggregate's canary, an encoded row of group a in D and of group b in D'
-- (one-hot over the levels a, b and "other"): its count moves from one cell to the other.
CREATE TABLE canary_agg AS
  SELECT s AS side, CASE WHEN s = 0 THEN ARRAY[1.0, 0, 0] ELSE ARRAY[0, 1.0, 0] END::float8[] AS x,
         true AS y
    FROM generate_series(0, 1) s;

-- canary_agg3: canary_agg three times on each side, one privacy unit of k = 3 rows.
CREATE TABLE canary_agg3 AS
  SELECT side, x, y FROM canary_agg CROSS JOIN generate_series(1, 3) i;

-- canary_keys: canary_agg with its key, a in D and b in D' (dp_aggregate_keys).
CREATE TABLE canary_keys AS
  SELECT side, x, CASE WHEN side = 0 THEN 'a' ELSE 'b' END AS k FROM canary_agg;

-- canary_aggq: canary_agg with a value v = 1 (hi on [-1, 1]) after the one-hot of g: the
-- row, and its rank, moves from cell a to cell b.
CREATE TABLE canary_aggq AS
  SELECT side, x || ARRAY[1.0]::float8[] AS x, y FROM canary_agg;

-- canary_sum: a value at hi = 1 in D and lo = -1 in D' (encoded as itself on [-1, 1]):
-- the sum moves by its full sensitivity, 2 x 2^14 lattice units.
CREATE TABLE canary_sum AS
  SELECT s AS side, ARRAY[1.0 - 2 * s]::float8[] AS x, true AS y
    FROM generate_series(0, 1) s;

-- canary_sum3: canary_sum three times on each side, one privacy unit of k = 3 rows.
CREATE TABLE canary_sum3 AS
  SELECT side, x, y FROM canary_sum CROSS JOIN generate_series(1, 3) i;

-- linreg: 200 public rows x = (1), y = 0 on both sides and one canary row x = (1) whose
-- label is y_max = 1 in D and y_min = -1 in D': only X'y moves (by its full sensitivity),
-- X'X is the same, so AdaSSP's coefficient is nearly affine in X'y's noise.
CREATE TABLE linreg AS
  SELECT s AS side, ARRAY[1.0]::float8[] AS x, 0.0::float8 AS y
    FROM generate_series(0, 1) s CROSS JOIN generate_series(1, 200) i
  UNION ALL
  SELECT s, ARRAY[1.0]::float8[], CASE WHEN s = 0 THEN 1.0 ELSE -1.0 END
    FROM generate_series(0, 1) s;

-- linreg3: the same with a privacy unit of k = 3 canary rows ("rows_per_unit": 3): X'y
-- moves by 3 times its row sensitivity; 600 public rows keep X'X's (3 times larger) noise
-- small against it, so the coefficient stays nearly affine in X'y's noise.
CREATE TABLE linreg3 AS
  SELECT s AS side, ARRAY[1.0]::float8[] AS x, 0.0::float8 AS y
    FROM generate_series(0, 1) s CROSS JOIN generate_series(1, 600) i
  UNION ALL
  SELECT s, ARRAY[1.0]::float8[], CASE WHEN s = 0 THEN 1.0 ELSE -1.0 END
    FROM generate_series(0, 1) s CROSS JOIN generate_series(1, 3) i;

-- passglm: 200 public rows x = (1), half labelled true and half false (their X'y is 0),
-- and one canary row x = (1) true in D, false in D': X'y moves by its full sensitivity
-- 2, X'X is the same, and with 200 rows behind X'X the coefficient is nearly affine in
-- X'y's noise.  passglm3: the canary three times, one unit of k = 3 rows.
CREATE TABLE passglm AS
  SELECT s AS side, ARRAY[1.0]::float8[] AS x, i % 2 = 0 AS y
    FROM generate_series(0, 1) s CROSS JOIN generate_series(1, 200) i
  UNION ALL
  SELECT s, ARRAY[1.0]::float8[], s = 0 FROM generate_series(0, 1) s;
CREATE TABLE passglm3 AS
  SELECT s AS side, ARRAY[1.0]::float8[] AS x, i % 2 = 0 AS y
    FROM generate_series(0, 1) s CROSS JOIN generate_series(1, 600) i
  UNION ALL
  SELECT s, ARRAY[1.0]::float8[], s = 0
    FROM generate_series(0, 1) s CROSS JOIN generate_series(1, 3) i;

-- mcmodel: a fixed one-vs-rest model for the audit of a multi-class evaluation on canary_mc
-- (one charged run here; whichever class it predicts for x = (1), the canary moves one
-- count from row a to row b of that column of the confusion matrix).
CREATE TABLE mcmodel AS
  SELECT dpobj.dp_logistic_multiclass(x, y, 4, 1e-5,
           '{"classes":["a","b"],"R":1,"intercept":false,"loss":"huber","lambda":16,"method":"output"}') AS m
    FROM canary_mc WHERE side = 0;

-- halfspace: the canary of the exact-oracle mechanisms (OPDisc, RSPM) on the grid
-- {-1, 0, 1}.  All rows are positive; 51 at x = (1) and 50 at x = (-1) in D, one row moved
-- to x = (-1) in D' (a replaced row).  w = 0 predicts every row negative (sgn(0) = -1):
-- loss 101, far behind w = 1 and w = -1 (losses 50 and 51 in D, 51 and 50 in D').  So the
-- output is w = 1 exactly when the noise favours it over w = -1 by more than
-- L(1) - L(-1): a Gaussian threshold that the replaced row moves by 2 loss units, the
-- largest move one row can make.
CREATE TABLE halfspace AS
  SELECT s AS side, ARRAY[1.0]::float8[] AS x, true AS y
    FROM generate_series(0, 1) s CROSS JOIN generate_series(1, 50) i
  UNION ALL
  SELECT s, ARRAY[-1.0]::float8[], true
    FROM generate_series(0, 1) s CROSS JOIN generate_series(1, 50) i
  UNION ALL
  SELECT s, ARRAY[CASE WHEN s = 0 THEN 1.0 ELSE -1.0 END]::float8[], true
    FROM generate_series(0, 1) s;

-- opsamp: 10 positive rows x = (1) and the canary x = (1), true in D and false in D'.  Each
-- LP's minimiser is w = 1 on both sides (the hinge losses of the positive rows fall until
-- w = 1, the canary's slope 1/2 is smaller than theirs, and the exponential noise only
-- pushes w up), so the average is exactly 1 and the release minus 1 is the Laplace noise.
CREATE TABLE opsamp AS
  SELECT s AS side, ARRAY[1.0]::float8[] AS x, true AS y
    FROM generate_series(0, 1) s CROSS JOIN generate_series(1, 10) i
  UNION ALL
  SELECT s, ARRAY[1.0]::float8[], s = 0 FROM generate_series(0, 1) s;

-- privr: the private norm bound ("R": "private", "R_quantile" 0.5) on 100 rows of one
-- feature, 50 at norm 1 (the candidate R = 1) and 50 at norm 1.1 (the next candidate,
-- 2^(1/4)) in D; one row moved from 1 to 1.1 in D'.  t = 50: in D the 50th smallest norm
-- is in R = 1's bracket (loss 0 there, 1 at 2^(1/4)), in D' in 2^(1/4)'s (loss 1 and 0);
-- every other candidate has a loss of 49 or more.  So the draw is nearly a randomised
-- response between the two, whose ln-ratio is gamma = eps_R / 2, the most one row moves it.
CREATE TABLE privr AS
  SELECT s AS side, ARRAY[CASE WHEN i <= 50 - s THEN 1.0 ELSE 1.1 END]::float8[] AS x, i % 2 = 0 AS y
    FROM generate_series(0, 1) s CROSS JOIN generate_series(1, 100) i;

-- ebm: 1000 public rows x = (1), half of them true, on both sides, and the canary x = (1)
-- true in D, false in D'.  With one numeric term of 2 bins over [0, 1] and one round at
-- margin 0, every residual is +-1/2 (residual_clip 1/2): the canary moves bin 1's sum by
-- its full sensitivity 2c = 1, and the model's margin at x = (1), bias + weights[2], is
-- that noisy sum over the noisy count (1001, its noise sd about 6: nearly affine).
CREATE TABLE ebm AS
  SELECT s AS side, ARRAY[1.0]::float8[] AS x, i % 2 = 0 AS y
    FROM generate_series(0, 1) s CROSS JOIN generate_series(1, 1000) i
  UNION ALL
  SELECT s, ARRAY[1.0]::float8[], s = 0
    FROM generate_series(0, 1) s;

-- ebm_edges: ebm's private edges on a grid of 2 cells of [0, 1] (one level, no root): 100
-- public rows at x = 0.25 (cell 0) and 100 at 0.75 (cell 1) on both sides, and the canary at
-- 0.25 in D, 0.75 in D'.  With 2 bins the one cut exists iff cell 0's noisy count reaches
-- cell 1's, h0 - h1 = +-1 + N(0, 2 s^2): the canary moves that threshold by 2 / (sqrt 2 s),
-- the full sqrt(2 rho_b) of the trees' share.
CREATE TABLE ebm_edges AS
  SELECT s AS side, ARRAY[CASE WHEN i <= 100 THEN 0.25 ELSE 0.75 END]::float8[] AS x, i % 2 = 0 AS y
    FROM generate_series(0, 1) s CROSS JOIN generate_series(1, 200) i
  UNION ALL
  SELECT s, ARRAY[CASE WHEN s = 0 THEN 0.25 ELSE 0.75 END]::float8[], true
    FROM generate_series(0, 1) s;
