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

-- canary10: the canary repeated ten times on each side, one privacy unit of k = 10 rows
-- ("rows_per_unit": 10) whose labels all flip: the unit moves the gradient sum by 10 * 2 L R.
-- (k = 10: the units mutant's k / f rounds to 8 at f = 1.25 and 9 at 1.1, src/core/auditmutant.h)
CREATE TABLE canary10 AS
  SELECT s AS side, ARRAY[1.0]::float8[] AS x, s = 0 AS y
    FROM generate_series(0, 1) s CROSS JOIN generate_series(1, 10) i;

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

-- canary_agg10: canary_agg ten times on each side, one privacy unit of k = 10 rows.
CREATE TABLE canary_agg10 AS
  SELECT side, x, y FROM canary_agg CROSS JOIN generate_series(1, 10) i;

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

-- canary_sum10: canary_sum ten times on each side, one privacy unit of k = 10 rows.
CREATE TABLE canary_sum10 AS
  SELECT side, x, y FROM canary_sum CROSS JOIN generate_series(1, 10) i;

-- linreg: 200 public rows x = (1), y = 0 on both sides and one canary row x = (1) whose
-- label is y_max = 1 in D and y_min = -1 in D': only X'y moves (by its full sensitivity),
-- X'X is the same, so AdaSSP's coefficient is nearly affine in X'y's noise.
CREATE TABLE linreg AS
  SELECT s AS side, ARRAY[1.0]::float8[] AS x, 0.0::float8 AS y
    FROM generate_series(0, 1) s CROSS JOIN generate_series(1, 200) i
  UNION ALL
  SELECT s, ARRAY[1.0]::float8[], CASE WHEN s = 0 THEN 1.0 ELSE -1.0 END
    FROM generate_series(0, 1) s;

-- linreg10: the same with a privacy unit of k = 10 canary rows ("rows_per_unit": 10): X'y
-- moves by 10 times its row sensitivity; 2000 public rows keep X'X's (10 times larger)
-- noise small against it, so the coefficient stays nearly affine in X'y's noise.
CREATE TABLE linreg10 AS
  SELECT s AS side, ARRAY[1.0]::float8[] AS x, 0.0::float8 AS y
    FROM generate_series(0, 1) s CROSS JOIN generate_series(1, 2000) i
  UNION ALL
  SELECT s, ARRAY[1.0]::float8[], CASE WHEN s = 0 THEN 1.0 ELSE -1.0 END
    FROM generate_series(0, 1) s CROSS JOIN generate_series(1, 10) i;

-- passglm: 200 public rows x = (1), half labelled true and half false (their X'y is 0),
-- and one canary row x = (1) true in D, false in D': X'y moves by its full sensitivity
-- 2, X'X is the same, and with 200 rows behind X'X the coefficient is nearly affine in
-- X'y's noise.  passglm10: the canary ten times, one unit of k = 10 rows.
CREATE TABLE passglm AS
  SELECT s AS side, ARRAY[1.0]::float8[] AS x, i % 2 = 0 AS y
    FROM generate_series(0, 1) s CROSS JOIN generate_series(1, 200) i
  UNION ALL
  SELECT s, ARRAY[1.0]::float8[], s = 0 FROM generate_series(0, 1) s;
CREATE TABLE passglm10 AS
  SELECT s AS side, ARRAY[1.0]::float8[] AS x, i % 2 = 0 AS y
    FROM generate_series(0, 1) s CROSS JOIN generate_series(1, 2000) i
  UNION ALL
  SELECT s, ARRAY[1.0]::float8[], s = 0
    FROM generate_series(0, 1) s CROSS JOIN generate_series(1, 10) i;

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

-- The noise-law rows (audit.py's kinds lap, gauss, em, bern) read a release minus its
-- true value, which these tables fix; background rows keep every released count far from
-- 0, so a clamp at 0 (post-processing) never touches the noise.

-- sides: one row per side, for the rows whose call reads a table of its own per side
CREATE TABLE sides AS SELECT s AS side FROM generate_series(0, 1) s;

-- canary_stats: 100 public rows at v = -0.5, 100 at 0.5 and the canary at v = 1 in D, -1
-- in D' (on [-1, 1], lattice 2^-14): count 201; sum +-1 (+-16 384 lattice units); sum of
-- squares 51 (835 584 units of 2^-14); 2 bins (100, 101) in D, (101, 100) in D'.
CREATE TABLE canary_stats AS
  SELECT s AS side, ARRAY[CASE WHEN i <= 100 THEN -0.5 ELSE 0.5 END]::float8[] AS x, true AS y
    FROM generate_series(0, 1) s CROSS JOIN generate_series(1, 200) i
  UNION ALL
  SELECT side, x, y FROM canary_sum;

-- canary_aggbg: canary_agg behind 100 public rows in each of the cells a, b and other:
-- (101, 100, 100) in D, (100, 101, 100) in D'; canary_aggbg10: the canary ten times.
CREATE TABLE agg_public AS
  SELECT s AS side, ARRAY[(l = 0)::int, (l = 1)::int, 0]::float8[] AS x, true AS y
    FROM generate_series(0, 1) s CROSS JOIN generate_series(0, 2) l
         CROSS JOIN generate_series(1, 100) i;
CREATE TABLE canary_aggbg AS SELECT * FROM agg_public UNION ALL SELECT * FROM canary_agg;
CREATE TABLE canary_aggbg10 AS SELECT * FROM agg_public UNION ALL SELECT * FROM canary_agg10;

-- synth_points: a value v on [-1, 1] (the synthesizer's points lo, 0, hi) in 100 public
-- rows each, and a canary at lo in D, at 0 in D': the points' counts (101, 100, 100) in D,
-- (100, 101, 100) in D'.
CREATE TABLE synth_points AS
  SELECT s AS side, ARRAY[v]::float8[] AS x, true AS y
    FROM generate_series(0, 1) s CROSS JOIN (VALUES (-1.0), (0.0), (1.0)) p(v)
         CROSS JOIN generate_series(1, 100) i
  UNION ALL SELECT s, ARRAY[s - 1.0]::float8[], true FROM generate_series(0, 1) s;

-- canary_eval: the canary behind 100 public rows in each cell of the fixed model w = (1)'s
-- confusion matrix (x = 1 or -1, true or false): tp, fp, tn, fn = 101, 100, 100, 100 in D,
-- 100, 101, 100, 100 in D'; canary_eval10: the canary ten times.
CREATE TABLE eval_public AS
  SELECT s AS side, ARRAY[x]::float8[] AS x, y
    FROM generate_series(0, 1) s CROSS JOIN (VALUES (1.0), (-1.0)) a(x)
         CROSS JOIN (VALUES (true), (false)) b(y) CROSS JOIN generate_series(1, 100) i;
CREATE TABLE canary_eval AS SELECT * FROM eval_public UNION ALL SELECT * FROM canary;
CREATE TABLE canary_eval10 AS SELECT * FROM eval_public UNION ALL SELECT * FROM canary10;

-- canary_mcbg: canary_mc behind 100 public rows of each class at x = 1 and at x = -1:
-- mcmodel (no intercept) predicts one class c at 1 and the other at -1, so every cell of
-- the confusion matrix is 100 but (side's class, c), 101; mcpred: c's index.
CREATE TABLE canary_mcbg AS
  SELECT s AS side, ARRAY[x]::float8[] AS x, y
    FROM generate_series(0, 1) s CROSS JOIN (VALUES (1.0), (-1.0)) a(x)
         CROSS JOIN (VALUES ('a'), ('b')) b(y) CROSS JOIN generate_series(1, 100) i
  UNION ALL SELECT * FROM canary_mc;
CREATE TABLE mcpred AS
  SELECT (dpobj.predict_class(m, ARRAY[1.0]) = 'b')::int AS c FROM mcmodel;

-- evalreg: 400 public rows x = (1), y = 0 and a canary y = 1 in D, -1 in D' (a
-- regression's evaluation: its count 401, 16 noise scales from 0 at eps 0.2); lrmodel: a
-- fixed model.
CREATE TABLE evalreg AS
  SELECT s AS side, ARRAY[1.0]::float8[] AS x, 0.0::float8 AS y
    FROM generate_series(0, 1) s CROSS JOIN generate_series(1, 400) i
  UNION ALL
  SELECT s, ARRAY[1.0]::float8[], CASE WHEN s = 0 THEN 1.0 ELSE -1.0 END
    FROM generate_series(0, 1) s;
CREATE TABLE lrmodel AS
  SELECT dpobj.dp_linear_regression(x, y, 4, 1e-5, '{"R":1,"y_min":-1,"y_max":1,"intercept":false}') AS m
    FROM linreg WHERE side = 0;

-- keys_bg: keys '0' .. '3' of 100 rows each at v = -1 (a sum of -1 638 400 lattice
-- units), always released and sorted before the canary's key, 'a' in D and 'b' in D'.
CREATE TABLE keys_bg AS
  SELECT s AS side, ARRAY[-1.0]::float8[] AS x, key::text AS k
    FROM generate_series(0, 1) s CROSS JOIN generate_series(0, 3) key
         CROSS JOIN generate_series(1, 100) i
  UNION ALL
  SELECT s, ARRAY[0.5]::float8[], CASE WHEN s = 0 THEN 'a' ELSE 'b' END
    FROM generate_series(0, 1) s;

-- keys_lone: 50 public keys 'l0' .. 'l49' of one row each, and the canary's, 'a' in D and
-- 'b' in D'.
CREATE TABLE keys_lone AS
  SELECT s AS side, ARRAY[0.5]::float8[] AS x, 'l' || i AS k
    FROM generate_series(0, 1) s CROSS JOIN generate_series(0, 49) i
  UNION ALL
  SELECT s, ARRAY[0.5]::float8[], CASE WHEN s = 0 THEN 'a' ELSE 'b' END
    FROM generate_series(0, 1) s;

-- ebm_bins: ebm's public rows with a canary true on both sides at x = (1) in D and (0)
-- in D' (bins 2 over [0, 1]): the counts' truth is (0, 1001) in D and (1, 1000) in D'.
CREATE TABLE ebm_bins AS
  SELECT s AS side, ARRAY[1.0]::float8[] AS x, i % 2 = 0 AS y
    FROM generate_series(0, 1) s CROSS JOIN generate_series(1, 1000) i
  UNION ALL
  SELECT s, ARRAY[1.0 - s]::float8[], true FROM generate_series(0, 1) s;

-- desc0 (D), desc1 (D'): describe()'s tables, one column v declared on [-1, 1]: 58, 39
-- and 59 rows at -1, 0 and 1 (bins 0, 500 and 999 of the quartiles' 1000) in D, the
-- canary moved from 1 to -1 in D' (59, 39, 58).  Each quartile's rank loss is 0 at its
-- cluster's bin and about 20 at the nearest other bins (n = 156, ranks 39, 78, 117), where
-- its gamma eps / 54 makes the draw most informative at eps about 19.  With "bins": 2 the
-- histogram is (58, 98) and (59, 97).
CREATE TABLE desc0 AS
  SELECT v::float8 AS v FROM (VALUES (-1, 58), (0, 39), (1, 59)) c(v, n), generate_series(1, n);
CREATE TABLE desc1 AS
  SELECT v::float8 AS v FROM (VALUES (-1, 59), (0, 39), (1, 58)) c(v, n), generate_series(1, n);
DO $$
BEGIN
  PERFORM dpobj.declare_domain(t, 'v', -1, 1), dpobj.protect(t),
          dpobj.grant_budget(t, current_user::regrole, 1e9, 0.5)
     FROM unnest(ARRAY['desc0', 'desc1']::regclass[]) t;
END $$;

-- unitk0 (D), unitk1 (D'): "rows_per_unit": "private"'s draw of k' over 1, 2, 4, ..., 128
-- (declared k = 128): units of 1 row (10, the canary among them), of 2 rows (10) and one
-- of 3 in D; the canary unit holds 128 rows in D'.  Its bins (9 + 1, 10, 1, 0 ...) and
-- (9, 10, 1, 0, ..., 1): the rank losses (9, 0, 2, 3, ..., 3) and (10, 0, 1, 2, ..., 2), each
-- moved by the sensitivity 1, up for k' = 1 and down for every k' >= 4 (the ln-ratio of
-- k' = 1 is 0.83 of the 2 gamma allowed at eps 10).
CREATE TABLE unitk0 AS
  SELECT u AS unit, 'a'::text AS g
    FROM generate_series(1, 21) u, generate_series(1, CASE WHEN u <= 10 THEN 1 WHEN u <= 20 THEN 2 ELSE 3 END) r;
CREATE TABLE unitk1 AS
  SELECT * FROM unitk0 WHERE unit <> 1 UNION ALL SELECT 1, 'a' FROM generate_series(1, 128);
DO $$
BEGIN
  PERFORM dpobj.declare_domain(t, 'g', ARRAY['a']), dpobj.protect(t, 'unit', 128),
          dpobj.grant_budget(t, current_user::regrole, 1e9, 0.5)
     FROM unnest(ARRAY['unitk0', 'unitk1']::regclass[]) t;
END $$;
