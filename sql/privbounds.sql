-- "R": "private" of dp_logistic and dp_noisysgd (docs/PRIVACY.md, "Private norm bound"): R-hat, a
-- quantile of the rows' norms drawn by the exact exponential mechanism over the public
-- grid 2^(k/4), k = -64 .. 80, at R_share of the budget; the rows clipped to it; the
-- mechanism at the rest.
--   * every malformed option is refused before anything runs, with its SQLSTATE;
--   * on a table whose norms are known, R-hat is the candidate nearest the quantile
--     (seeded runs), for all three methods and noisy GD;
--   * the params carry R-hat, R_source, R_quantile, R_share, R_epsilon (and R_rho for
--     Output-Gauss), and the calibration is that of a declared R equal to R-hat at the
--     budget left;
--   * through train() on a protected table: the ledger charges the requested epsilon
--     and delta once (Output-Gauss: rho as for a declared R), and a run on no
--     rows still releases.
CREATE SCHEMA regress_pb;
GRANT USAGE ON SCHEMA regress_pb TO PUBLIC;
-- 5000 rows of norm i / 500 (0.002 .. 10): the q-quantile of the norms is 10 q
CREATE TABLE regress_pb.pts AS
  SELECT i, (i / 500.0) * cos(i) AS a, (i / 500.0) * sin(i) AS b, (i % 3 = 0) AS y
    FROM generate_series(1, 5000) i;
CREATE VIEW regress_pb.v AS SELECT ARRAY[a, b]::float8[] AS x, y FROM regress_pb.pts;

-- ---- refused before anything runs ----
SELECT o, e.sqlstate, e.message, e.hint
  FROM (VALUES ('{"R": "privat"}'::jsonb),
               ('{"R": "private", "R_quantile": 0}'),
               ('{"R": "private", "R_quantile": 1}'),
               ('{"R": "private", "R_quantile": "0.5"}'),
               ('{"R": "private", "R_share": 0}'),
               ('{"R": "private", "R_share": 1}'),
               ('{"R": 1, "R_quantile": 0.5}'),
               ('{"R": 1, "R_share": 0.2}'),
               ('{"R": "private", "lambda": 10}')) v(o),
  LATERAL regress.err(format('SELECT dpobj.dp_logistic(x, y, 1, 1e-6, %L) FROM regress_pb.v', o)) e;
SELECT e.* FROM regress.err($$SELECT dpobj.dp_noisysgd_multiclass(x, y::int, 1, 1e-6, '{"R": "private", "classes": [0, 1]}') FROM regress_pb.v$$) e;
SELECT e.* FROM regress.err($$SELECT dpobj.dp_auto(x, y, 1, 1e-6, '{"R": "private"}') FROM regress_pb.v$$) e;
SELECT e.* FROM regress.err($$SELECT dpobj.dp_noisysgd(x, y, 1, 1e-6, '{"R": "big"}') FROM regress_pb.v$$) e;
SELECT e.* FROM regress.err($$SELECT dpobj.dp_noisysgd(x, y, 1, 1e-6, '{"R": 1, "R_quantile": 0.5}') FROM regress_pb.v$$) e;
SELECT e.* FROM regress.err($$SELECT dpobj.dp_opsamp(x, y, 1, 1e-6, '{"R": "private"}') FROM regress_pb.v$$) e;
SELECT e.* FROM regress.err($$SELECT dpobj.dp_logistic_multiclass(x, y::int, 1, 1e-6, '{"R": "private", "classes": [0, 1]}') FROM regress_pb.v$$) e;
SELECT e.* FROM regress.err($$SELECT dpobj.glm_calibration(1, 1e-6, '{"R": "private"}')$$) e;
-- a declared lambda that holds for every candidate (R up to 2^20) is accepted
SELECT (dpobj.dp_logistic(x, y, 1, 1e-6, '{"R": "private", "lambda": 1e12}')).params->>'lambda' AS lambda
  FROM regress_pb.v;

-- ---- R-hat near the quantile (seeded) ----
SET dpobj.seed = 5;
CREATE TEMP TABLE m AS
SELECT meth, q, dpobj.dp_logistic(x, y, 1, 1e-6, o || '{"metric": "accuracy"}') AS m
  FROM regress_pb.v,
       (VALUES ('objective', 0.9, '{"R": "private"}'::jsonb),
               ('output', 0.9, '{"R": "private", "method": "output"}'),
               ('cms', 0.9, '{"R": "private", "method": "cms"}'),
               ('objective', 0.5, '{"R": "private", "R_quantile": 0.5}'),
               ('objective', 0.25, '{"R": "private", "R_quantile": 0.25, "R_share": 0.2}')) c(meth, q, o)
 GROUP BY meth, q, o;
INSERT INTO m
SELECT 'noisysgd', q, dpobj.dp_noisysgd(x, y, 1, 1e-6, o || '{"metric": "accuracy"}')
  FROM regress_pb.v,
       (VALUES (0.9, '{"R": "private"}'::jsonb),
               (0.5, '{"R": "private", "R_quantile": 0.5, "n": 5000}')) c(q, o)
 GROUP BY q, o;
-- the true quantile 10 q and the grid's candidates around it
SELECT meth, q, 10 * q AS true_quantile, ((m).params->>'R')::float8 AS r_hat,
       round((ln(((m).params->>'R')::float8 / (10 * q)) / ln(2))::numeric, 2) AS log2_ratio,
       abs(ln(((m).params->>'R')::float8 / (10 * q)) / ln(2)) <= 0.25 AS within_one_step
  FROM m ORDER BY meth, q;
-- the public parameters: nothing else from the rows
SELECT meth, q, (m).params->>'R_source' AS source, (m).params->>'R_quantile' AS r_quantile,
       (m).params->>'R_share' AS r_share, (m).params->>'R_epsilon' AS r_epsilon,
       (m).params->>'R_rho' AS r_rho, (m).epsilon, (m).delta
  FROM m ORDER BY meth, q;
SELECT meth, q, array(SELECT jsonb_object_keys((m).params) ORDER BY 1) AS keys FROM m ORDER BY meth, q;
-- the calibration is that of R-hat declared, at the budget left (these models without the
-- operating point's balance estimate, "metric": "accuracy"): Objective-Gauss and CMS
-- at epsilon (1 - R_share) (rounded down in the last bit so that the parts sum to at most
-- epsilon), Output-Gauss and noisy GD at rho (1 - R_share)
SELECT meth, q,
       abs(((m).params->>'sigma')::float8 /
           (dpobj.glm_calibration(1 - ((m).params->>'R_share')::float8, 1e-6,
                jsonb_build_object('R', (m).params->'R', 'method', meth, 'metric', 'accuracy'))->>'sigma')::float8 - 1)
         < 1e-9 AS same_sigma
  FROM m WHERE meth = 'objective' ORDER BY q;
SELECT abs(((m).params->>'epsilon_prime')::float8 /
           (dpobj.glm_calibration(0.9, 1e-6,
                jsonb_build_object('R', (m).params->'R', 'method', 'cms', 'metric', 'accuracy'))->>'epsilon_prime')::float8 - 1)
         < 1e-9 AS same_eps_prime
  FROM m WHERE meth = 'cms';
SELECT meth, q, abs(((m).params->>'rho')::float8 + ((m).params->>'R_rho')::float8
           - (dpobj.glm_calibration(1, 1e-6, '{"R": 1, "method": "output", "metric": "accuracy"}')->>'rho')::float8) < 1e-15 AS rho_split,
       abs(((m).params->>'R_rho')::float8 - 0.1 * (dpobj.glm_calibration(1, 1e-6, '{"R": 1, "method": "output", "metric": "accuracy"}')->>'rho')::float8) < 1e-15 AS r_rho_is_share,
       ((m).params->>'R_epsilon')::float8 ^ 2 / 8 <= ((m).params->>'R_rho')::float8 AS bounded_range
  FROM m WHERE meth IN ('output', 'noisysgd') ORDER BY meth, q;
-- the model predicts like a model: better than the majority class on its own rows
SELECT meth, q, avg((dpobj.predict(m, x) = y)::int) > 0.5 AS beats_coin
  FROM m, regress_pb.v GROUP BY meth, q ORDER BY meth, q;

-- rows beyond the largest candidate count as its: R-hat is 2^20
SELECT ((dpobj.dp_logistic(ARRAY[1e9, 0]::float8[], y, 1, 1e-6, '{"R": "private"}')).params->>'R')::float8 AS r_hat
  FROM regress_pb.pts;
-- all-zero rows: R-hat is the smallest candidate, 2^-16 (its bracket holds every row)
SELECT ((dpobj.dp_logistic(ARRAY[0, 0]::float8[], y, 1, 1e-6, '{"R": "private"}')).params->>'R')::float8
         = 2 ^ -16 AS smallest
  FROM regress_pb.pts;
-- a gap in the norms: 90 % of the rows at norm 3, 10 % at 30; q = 0.5 picks the bracket
-- of 3 (2^(7/4) = 3.36), not a candidate in the gap
SELECT ((dpobj.dp_logistic(CASE WHEN i % 10 = 0 THEN ARRAY[18, 24] ELSE ARRAY[1.8, 2.4] END::float8[],
                           y, 1, 1e-6, '{"R": "private", "R_quantile": 0.5}')).params->>'R')::float8 AS r_hat
  FROM regress_pb.pts;
-- privacy units of 3 rows: gamma / 3, the mechanism calibrated for 3 rows
SELECT ((m).params->>'R')::float8 AS r_hat, (m).params->>'rows_per_unit' AS k
  FROM (SELECT dpobj.dp_logistic(x, y, 1, 1e-6, '{"R": "private", "rows_per_unit": 3}') m
          FROM regress_pb.v) s;
RESET dpobj.seed;

-- ---- through train() on a protected table ----
CREATE ROLE regress_pb_alice;
SELECT dpobj.protect('regress_pb.pts');
SELECT granted_epsilon FROM dpobj.grant_budget('regress_pb.pts', 'regress_pb_alice', 10, 1e-5);
SET ROLE regress_pb_alice;
SELECT (m).mechanism, (m).params->>'R_source' AS source, (m).params->>'method' AS method,
       abs(ln(((m).params->>'R')::float8 / 9) / ln(2)) <= 0.5 AS r_hat_near_9
  FROM (SELECT dpobj.train('regress_pb.pts', mech, ARRAY['a', 'b'], 'y', 0.5, 1e-6,
                           '{"R": "private"}') m
          FROM unnest(ARRAY['logistic', 'objective', 'cms', 'output', 'noisysgd']) mech) s;
-- refused before the charge: a malformed option
SELECT e.sqlstate, e.message FROM regress.err($$SELECT dpobj.train('regress_pb.pts', 'logistic', ARRAY['a', 'b'], 'y', 0.5, 1e-6, '{"R": "private", "R_share": 1.5}')$$) e;
-- a run on no rows (a filter no row passes) still releases, at the same charge
SELECT (m).params->>'R_source' AS source, (m).params->>'R' IS NOT NULL AS has_r
  FROM (SELECT dpobj.train('regress_pb.pts', 'logistic', ARRAY['a', 'b'], 'y', 0.5, 1e-6,
                           '{"R": "private", "filter": [{"column": "i", "op": "<", "value": 0}]}') m) s;
-- the ledger: one charge per run, the requested epsilon and delta (and the zCDP rho)
SELECT mechanism, kind, epsilon, delta, rho IS NOT NULL AS has_rho, outcome, count(*)
  FROM dpobj.ledger WHERE relation = 'regress_pb.pts'
 GROUP BY 1, 2, 3, 4, 5, 6 ORDER BY 1, 2;
SELECT l.rho::float8 >= (dpobj.glm_calibration(0.5, 1e-6, '{"R": 1, "method": "output"}')->>'rho')::float8 AS rho_covers
  FROM dpobj.ledger l WHERE relation = 'regress_pb.pts' AND kind = 'zcdp';
SELECT spent_epsilon, spent_delta FROM dpobj.my_budgets WHERE relation = 'regress_pb.pts'::regclass;
RESET ROLE;
DROP SCHEMA regress_pb CASCADE;
DROP ROLE regress_pb_alice;
