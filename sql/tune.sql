-- Private hyperparameter tuning: dp_noisysgd's option "tune" (src/families/glm/noisysgdtune.c,
-- src/core/tunecalib.c; docs/PRIVACY.md "Private hyperparameter tuning").
CREATE SCHEMA regress_tune;
CREATE TABLE regress_tune.pts AS SELECT * FROM regress.points(2000);
CREATE VIEW regress_tune.v AS SELECT ARRAY[a, b]::float8[] AS x, y FROM regress_tune.pts;
GRANT USAGE ON SCHEMA regress_tune TO PUBLIC;
\pset format unaligned

-- refused on public grounds, before any row: the grid's shape, keys and values, options
-- it does not combine with, and a budget too small to calibrate
SELECT sqlstate, message, hint FROM regress.err($$SELECT dpobj.dp_noisysgd(x, y, 1, 1e-6, '{"R": 1, "tune": [10, 30]}') FROM regress_tune.v$$);
SELECT sqlstate, message, hint FROM regress.err($$SELECT dpobj.dp_noisysgd(x, y, 1, 1e-6, '{"R": 1, "tune": {}}') FROM regress_tune.v$$);
SELECT sqlstate, message, hint FROM regress.err($$SELECT dpobj.dp_noisysgd(x, y, 1, 1e-6, '{"R": 1, "tune": {"lambda": [1, 2]}}') FROM regress_tune.v$$);
SELECT sqlstate, message, hint FROM regress.err($$SELECT dpobj.dp_noisysgd(x, y, 1, 1e-6, '{"R": 1, "tune": {"T": 30}}') FROM regress_tune.v$$);
SELECT sqlstate, message, hint FROM regress.err($$SELECT dpobj.dp_noisysgd(x, y, 1, 1e-6, '{"R": 1, "tune": {"T": []}}') FROM regress_tune.v$$);
SELECT sqlstate, message, hint FROM regress.err($$SELECT dpobj.dp_noisysgd(x, y, 1, 1e-6, '{"R": 1, "tune": {"T": [1, 2, 3, 4, 5, 6, 7, 8, 9]}}') FROM regress_tune.v$$);
SELECT sqlstate, message, hint FROM regress.err($$SELECT dpobj.dp_noisysgd(x, y, 1, 1e-6, '{"R": 1, "tune": {"T": [10.5]}}') FROM regress_tune.v$$);
SELECT sqlstate, message, hint FROM regress.err($$SELECT dpobj.dp_noisysgd(x, y, 1, 1e-6, '{"R": 1, "tune": {"T": [0]}}') FROM regress_tune.v$$);
SELECT sqlstate, message, hint FROM regress.err($$SELECT dpobj.dp_noisysgd(x, y, 1, 1e-6, '{"R": 1, "tune": {"radius": ["a"]}}') FROM regress_tune.v$$);
SELECT sqlstate, message, hint FROM regress.err($$SELECT dpobj.dp_noisysgd(x, y, 1, 1e-6, '{"tune": {"T": [1, 2, 3, 4, 5, 6, 7, 8], "R": [0.5, 1, 2], "radius": [1, 10, 100]}}') FROM regress_tune.v$$);
SELECT sqlstate, message, hint FROM regress.err($$SELECT dpobj.dp_noisysgd(x, y, 1, 1e-6, '{"R": 1, "T": 30, "tune": {"T": [10, 30]}}') FROM regress_tune.v$$);
SELECT sqlstate, message, hint FROM regress.err($$SELECT dpobj.dp_noisysgd(x, y, 1, 1e-6, '{"R": 1, "radius": 5, "tune": {"radius": [1, 10]}}') FROM regress_tune.v$$);
SELECT sqlstate, message, hint FROM regress.err($$SELECT dpobj.dp_noisysgd(x, y, 1, 1e-6, '{"R": 1, "tune": {"R": [0.5, 2]}}') FROM regress_tune.v$$);
SELECT sqlstate, message, hint FROM regress.err($$SELECT dpobj.dp_noisysgd(x, y, 1, 1e-6, '{"tune": {"T": [10, 30]}}') FROM regress_tune.v$$);
SELECT sqlstate, message, hint FROM regress.err($$SELECT dpobj.dp_noisysgd(x, y, 1, 1e-6, '{"R": "private", "tune": {"T": [10, 30]}}') FROM regress_tune.v$$);
SELECT sqlstate, message, hint FROM regress.err($$SELECT dpobj.dp_noisysgd(x, y, 1, 1e-6, '{"R": 1, "class_weight": {"false": 0.0005}, "tune": {"T": [10, 30]}}') FROM regress_tune.v$$);
SELECT sqlstate, message, hint FROM regress.err($$SELECT dpobj.dp_noisysgd(x, y, 1, 1e-6, '{"R": 1, "tune": {"T": [10, 30]}, "tune_metric": "recall"}') FROM regress_tune.v$$);
SELECT sqlstate, message, hint FROM regress.err($$SELECT dpobj.dp_noisysgd(x, y, 1, 1e-6, '{"R": 1, "tune": {"T": [10, 30]}, "tune_metric": 1}') FROM regress_tune.v$$);
SELECT sqlstate, message, hint FROM regress.err($$SELECT dpobj.dp_noisysgd(x, y, 1, 1e-6, '{"R": 1, "class_weight": {"false": 0.2}, "tune_metric": "accuracy"}') FROM regress_tune.v$$);
SELECT sqlstate, message, hint FROM regress.err($$SELECT dpobj.dp_noisysgd(x, y, 1, 1e-6, '{"R": 1, "tune_gamma": 0.5}') FROM regress_tune.v$$);
SELECT sqlstate, message, hint FROM regress.err($$SELECT dpobj.dp_noisysgd(x, y, 1, 1e-6, '{"R": 1, "tune": {"T": [10, 30]}, "tune_gamma": 0}') FROM regress_tune.v$$);
SELECT sqlstate, message, hint FROM regress.err($$SELECT dpobj.dp_noisysgd(x, y, 1, 1e-6, '{"R": 1, "tune": {"T": [10, 30]}, "tune_gamma": 1.5}') FROM regress_tune.v$$);
SELECT sqlstate, message, hint FROM regress.err($$SELECT dpobj.dp_noisysgd(x, y, 1, 1e-6, '{"R": 1, "tune": {"T": [10, 30]}, "tune_score_share": 1}') FROM regress_tune.v$$);
SELECT sqlstate, message, hint FROM regress.err($$SELECT dpobj.dp_noisysgd(x, y, 1e-7, 1e-6, '{"R": 1, "tune": {"T": [10, 30]}}') FROM regress_tune.v$$);
SELECT sqlstate, message, hint FROM regress.err($$SELECT dpobj.dp_logistic(x, y, 1, 1e-6, '{"R": 1, "tune": {"T": [10, 30]}}') FROM regress_tune.v$$);
SELECT sqlstate, message, hint FROM regress.err($$SELECT dpobj.dp_auto(x, y, 1, 1e-6, '{"R": 1, "tune": {"T": [10, 30]}}') FROM regress_tune.v$$);

\pset format aligned
-- a seeded direct run over 3 x 3 points: the model names its grid point (a DP output:
-- point i has T = T[i mod 3], R = R[i div 3]) and the public tuning parameters; the
-- default gamma keeps the expected gradient passes within 2.5 x 30 (mean T + 1 = 143/3,
-- gamma = (143/3) / 75 rounded up to a multiple of 2^-20), and the steps' rho is
-- (1 - 0.1) of tune_rho
SET dpobj.seed = 11;
SELECT (m).mechanism, (m).epsilon, (m).delta, cardinality((m).weights) AS d,
       ((m).params->>'T')::int = (ARRAY[10, 30, 100])[((m).params->>'tune_point')::int % 3 + 1] AS point_T,
       ((m).params->>'R')::float8 = (ARRAY[0.5, 1, 2])[((m).params->>'tune_point')::int / 3 + 1] AS point_R,
       (m).params->>'radius' AS radius,
       (m).params->>'tune_grid_points' AS points,
       ((m).params->>'tune_gamma')::float8 AS gamma,
       ((m).params->>'tune_gamma')::float8 * 2^20 = ceil(143.0 / 3 / 75 * 2^20) AS gamma_default,
       (m).params->>'tune_max_runs' AS max_runs,
       (m).params->>'tune_delta_truncation' AS delta_t,
       (m).params->>'tune_score_share' AS score_share,
       abs(((m).params->>'rho')::float8 / ((m).params->>'tune_rho')::float8 - 0.9) < 1e-12 AS rho_split,
       ((m).params->>'tune_rho')::float8 < 0.0243 AS dearer_than_one_run,
       (m).params->>'noise' AS noise
  FROM (SELECT dpobj.dp_noisysgd(x, y, 1, 1e-6,
                                 '{"tune": {"T": [10, 30, 100], "R": [0.5, 1, 2]}}') m
          FROM regress_tune.v) s;
-- the grid's R values at most the declared R; gamma and the score share as given; one run
-- when gamma = 1 (the tuning's rho is then nearly one run's: 0.02435 at eps 1, 1e-6)
SELECT (m).params->>'tune_gamma' AS gamma, (m).params->>'tune_max_runs' AS max_runs,
       (m).params->>'tune_score_share' AS score_share,
       ((m).params->>'tune_rho')::float8 BETWEEN 0.02 AND 0.0244 AS rho_near_one_run,
       (m).params->>'R' IN ('0.5', '1') AS r_in_grid
  FROM (SELECT dpobj.dp_noisysgd(x, y, 1, 1e-6,
                                 '{"R": 1, "tune": {"R": [0.5, 1]}, "tune_gamma": 1, "tune_score_share": 0.2}') m
          FROM regress_tune.v) s;
SELECT (m).params->>'tune_gamma' AS gamma, (m).params->>'tune_max_runs' AS max_runs,
       (m).params->>'T' AS t
  FROM (SELECT dpobj.dp_noisysgd(x, y, 1, 1e-6,
                                 '{"R": 1, "tune": {"radius": [1, 10]}, "tune_gamma": 0.25, "T": 20}') m
          FROM regress_tune.v) s;
-- reproducible under the seed; every released point is in the grid; the models predict
SELECT (SELECT dpobj.dp_noisysgd(x, y, 1, 1e-6, '{"tune": {"T": [10, 30], "R": [0.5, 2]}}') FROM regress_tune.v) =
       (SELECT dpobj.dp_noisysgd(x, y, 1, 1e-6, '{"tune": {"T": [10, 30], "R": [0.5, 2]}}') FROM regress_tune.v) AS same;
SELECT count(*) AS runs,
       bool_and(((m).params->>'T')::int IN (10, 30) AND ((m).params->>'R')::float8 IN (0.5, 2)) AS in_grid,
       count(DISTINCT (m).params->>'tune_point') > 1 AS several_points,
       avg(acc) > 0.6 AS accurate
  FROM generate_series(1, 12) g,
       LATERAL (SELECT dpobj.dp_noisysgd(x, y, 0.5 + g / 4.0, 1e-6,
                       '{"tune": {"T": [10, 30], "R": [0.5, 2]}}') m FROM regress_tune.v) s,
       LATERAL (SELECT avg((dpobj.predict(m, x) = y)::int) acc FROM regress_tune.v) p;
-- "class_weight": the runs train with the weights and the score sums round(2^10 w) over
-- the rows classified right (sensitivity 2^10) unless "tune_metric" says accuracy; the
-- score's noise, reported in rows, is then the unweighted count's, sqrt(1 / (2 rho_score))
-- (its variance in score units 2^20 times larger; rounded up: within 1 %); the params name
-- the metric and the weights.  balanced_accuracy: a private estimate of the label balance at
-- 0.05 epsilon, once before the runs (its weights, a DP output, in the params), the
-- tuning calibrated at the remaining 0.95 epsilon (a smaller tune_rho); "tune_metric"
-- follows "metric", balanced accuracy by default
WITH plain AS (SELECT (u).params FROM (SELECT dpobj.dp_noisysgd(x, y, 1, 1e-6, '{"R": 1, "tune": {"T": [10, 30]}, "tune_metric": "accuracy"}') u
                                         FROM regress_tune.v) s0)
SELECT (m).params->>'tune_metric' AS metric,
       (m).params->>'class_weight_false' AS w_false,
       ((m).params->>'T')::int IN (10, 30) AS in_grid,
       abs(((m).params->>'tune_score_sigma')::float8 /
           sqrt(1 / (2 * 0.1 * ((m).params->>'tune_rho')::float8)) - 1) < 0.01 AS sigma_in_rows,
       (m).params->>'tune_balance_epsilon' AS eps_b,
       ((m).params->>'balance_weight_true')::float8 BETWEEN 1.0 / 64 AND 1 AND
       ((m).params->>'balance_weight_false')::float8 BETWEEN 1.0 / 64 AND 1 AS balance_weights,
       ((m).params->>'tune_rho')::float8 < (SELECT (params->>'tune_rho')::float8 FROM plain) AS smaller_rho
  FROM (SELECT dpobj.dp_noisysgd(x, y, 1, 1e-6, o::jsonb) m
          FROM regress_tune.v,
               (VALUES ('{"R": 1, "class_weight": {"false": 0.2}, "tune": {"T": [10, 30]}}'),
                       ('{"R": 1, "class_weight": {"false": 0.2}, "tune": {"T": [10, 30]}, "tune_metric": "accuracy"}'),
                       ('{"R": 1, "class_weight": {"false": 0.2}, "tune": {"T": [10, 30]}, "tune_metric": "balanced_accuracy"}'),
                       ('{"R": 1, "tune": {"T": [10, 30]}, "tune_metric": "balanced_accuracy"}'),
                       ('{"R": 1, "tune": {"T": [10, 30]}, "tune_metric": "weighted_accuracy"}'),
                       ('{"R": 1, "tune": {"T": [10, 30]}}')) opts(o)
         GROUP BY o) s
 ORDER BY 1, 2;
-- the estimated weights weigh a design built in blocks as a whole one: under one seed the
-- same model with the design whole and in blocks (dpobj.max_state_memory 64kB: about 120
-- rows a block), with class weights and with balanced_accuracy
CREATE TABLE regress_tune.blocks (k text, o text, m dpobj.model);
DO $$
DECLARE
  o text;
  mem text := current_setting('dpobj.max_state_memory');
BEGIN
  FOREACH o IN ARRAY ARRAY['{"R": 1, "tune_metric": "balanced_accuracy", "tune": {"T": [10, 30], "R": [0.5, 1]}}',
                           '{"R": 1, "class_weight": {"false": 0.3}, "tune": {"T": [10, 30], "R": [0.5, 1]}}'] LOOP
    PERFORM set_config('dpobj.seed', '5', true);
    INSERT INTO regress_tune.blocks SELECT 'whole', o, dpobj.dp_noisysgd(x, y, 1, 1e-6, o::jsonb) FROM regress_tune.v;
    PERFORM set_config('dpobj.seed', '5', true);
    PERFORM set_config('dpobj.max_state_memory', '64kB', true);
    INSERT INTO regress_tune.blocks SELECT 'blocks', o, dpobj.dp_noisysgd(x, y, 1, 1e-6, o::jsonb) FROM regress_tune.v;
    PERFORM set_config('dpobj.max_state_memory', mem, true);
  END LOOP;
END $$;
SELECT a.o, a.m = b.m AS same FROM regress_tune.blocks a JOIN regress_tune.blocks b USING (o)
 WHERE a.k = 'whole' AND b.k = 'blocks' ORDER BY 1;
-- no rows: nothing runs off the protected path
SELECT dpobj.dp_noisysgd(x, y, 1, 1e-6, '{"R": 1, "tune": {"T": [10, 30]}}') IS NULL AS empty
  FROM regress_tune.v WHERE false;
RESET dpobj.seed;

-- the protected path: one ledger row charging the requested (eps, delta) as approximate DP
SELECT coalesce(max(id), 0) AS before FROM dpobj.ledger \gset
CREATE ROLE regress_tune_analyst;
SELECT dpobj.protect('regress_tune.pts');
SELECT granted_epsilon FROM dpobj.grant_budget('regress_tune.pts', 'regress_tune_analyst', 10, 0.001);
GRANT USAGE ON SCHEMA regress_tune TO regress_tune_analyst;
SET ROLE regress_tune_analyst;
SELECT dpobj.runs_left('regress_tune.pts', 'noisysgd', 1, 1e-6, '{"R": 1, "tune": {"T": [10, 30]}}') AS runs_left_tuned,
       dpobj.runs_left('regress_tune.pts', 'noisysgd', 1, 1e-6, '{"R": 1}') AS runs_left_plain;
SELECT (m).mechanism, (m).epsilon, (m).delta, (m).params->>'T' IN ('10', '30') AS in_grid
  FROM dpobj.train('regress_tune.pts', 'noisysgd', ARRAY['a', 'b'], 'y', 1, 1e-6,
                   '{"R": 1, "tune": {"T": [10, 30]}}') m;
\pset format unaligned
SELECT sqlstate, message, hint FROM regress.err($$SELECT dpobj.train('regress_tune.pts', 'noisysgd', ARRAY['a', 'b'], 'y', 1, 1e-6, '{"R": 1, "tune": {"T": [10, 30], "R": [2]}}')$$);
SELECT sqlstate, message, hint FROM regress.err($$SELECT dpobj.train('regress_tune.pts', 'noisysgd_multiclass', ARRAY['a', 'b'], 'person', 1, 1e-6, '{"R": 1, "classes": [0, 1, 2], "tune": {"T": [10, 30]}}')$$);
\pset format aligned
RESET ROLE;
SELECT mechanism, epsilon, delta, kind, rho IS NULL AS no_rho, outcome FROM dpobj.ledger
 WHERE relation = 'regress_tune.pts' AND id > :before ORDER BY id;
SELECT dpobj.unprotect('regress_tune.pts');

-- privacy units of k rows: every run's noise, the score's (sensitivity k 2^b) and the
-- balance estimate's (each count moved by k) are calibrated for k; the rest is unchanged
SET dpobj.seed = 3;
SELECT o AS options,
       ((m).params->>'rows_per_unit')::int AS k,
       round((((m).params->>'tune_score_sigma')::float8 /
              sqrt(1 / (2 * 0.1 * ((m).params->>'tune_rho')::float8)))::numeric, 2) AS score_sigma_over_k1
  FROM (SELECT o, dpobj.dp_noisysgd(x, y, 1, 1e-6, o::jsonb) m
          FROM regress_tune.v,
               (VALUES ('{"R": 1, "rows_per_unit": 4, "tune": {"T": [10, 30]}}'),
                       ('{"R": 1, "rows_per_unit": 4, "tune": {"T": [10, 30]}, "tune_metric": "balanced_accuracy"}')) opts(o)
         GROUP BY o) s
 ORDER BY 1;
RESET dpobj.seed;
-- through train() on a table with a privacy unit: k from the table, charged once
SELECT coalesce(max(id), 0) AS before FROM dpobj.ledger \gset
SELECT dpobj.protect('regress_tune.pts', privacy_unit => 'person', max_rows_per_unit => 40);
SELECT granted_epsilon FROM dpobj.grant_budget('regress_tune.pts', 'regress_tune_analyst', 10, 0.001);
SET ROLE regress_tune_analyst;
SELECT (m).mechanism, (m).params->>'rows_per_unit' AS k, (m).params->>'T' IN ('10', '30') AS in_grid
  FROM dpobj.train('regress_tune.pts', 'noisysgd', ARRAY['a', 'b'], 'y', 1, 1e-6,
                   '{"R": 1, "tune": {"T": [10, 30]}}') m;
RESET ROLE;
SELECT mechanism, kind, rows_per_unit, outcome FROM dpobj.ledger
 WHERE relation = 'regress_tune.pts' AND id > :before ORDER BY id;
SELECT dpobj.unprotect('regress_tune.pts');
DROP SCHEMA regress_tune CASCADE;
DROP ROLE regress_tune_analyst;
