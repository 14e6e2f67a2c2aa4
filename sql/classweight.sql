-- The option "class_weight" of dp_logistic and dp_noisysgd (docs/PRIVACY.md, "Class
-- weights"): a public loss weight per label in (0, 1].
--   * a weight of at most 1 keeps every per-row bound, so the calibration -- lambda,
--     sigma, the lattice -- is the unweighted run's, and the weights are recorded in the
--     model's public parameters;
--   * down-weighting the majority class moves the decision boundary: on a table with
--     about 1 positive in 5 the weighted model predicts more positives and recalls more
--     of them (seeded runs, so the comparison is exact);
--   * every malformed weight is refused before anything runs, also through train();
--   * opsamp and the multi-class mechanisms refuse it (not calibrated for it).
CREATE SCHEMA regress_cw;
GRANT USAGE ON SCHEMA regress_cw TO PUBLIC;
-- 3000 rows, label true for about one row in five, driven by the first feature
CREATE TABLE regress_cw.pts AS
  SELECT i, ((i * 37) % 101) / 100.0 AS a, ((i * 53) % 97) / 96.0 AS b,
         ((i * 37) % 101) / 100.0 + 0.3 * (((i * 53) % 97) / 96.0) > 0.95 AS y
    FROM generate_series(1, 3000) i;
CREATE VIEW regress_cw.v AS SELECT ARRAY[a, b]::float8[] AS x, y FROM regress_cw.pts;
SELECT round(avg(y::int), 3) AS positives FROM regress_cw.pts;
SET dpobj.seed = 11;

-- ---- the calibration is the unweighted run's; the weights are public parameters ----
-- ("none": no weights and no balance estimate, "metric": "accuracy"; with the weights the
-- default metric is theirs, "weighted_accuracy", whose cut-off is the weighted model's 0)
CREATE TEMP TABLE m AS
SELECT w, dpobj.dp_logistic(x, y, 1, 1e-6, o) AS m
  FROM regress_cw.v,
       (VALUES ('none', '{"R": 1.5, "metric": "accuracy"}'::jsonb),
               ('0.2', '{"R": 1.5, "class_weight": {"false": 0.2}}'),
               ('both', '{"R": 1.5, "class_weight": {"true": 0.5, "false": 0.1}}')) c(w, o)
 GROUP BY w, o;
SELECT w, (m).params->>'lambda' AS lambda, (m).params->>'sigma' AS sigma,
       (m).params->>'class_weight_true' AS w_true, (m).params->>'class_weight_false' AS w_false
  FROM m ORDER BY w;
-- the weighted model predicts more positives and recalls more of them
SELECT w, sum(dpobj.predict(m, x)::int) AS predicted_positive,
       round(avg(dpobj.predict(m, x)::int) FILTER (WHERE y), 2) AS recall
  FROM m, regress_cw.v GROUP BY w ORDER BY w;
SELECT (SELECT sum(dpobj.predict(m, x)::int) FROM m, regress_cw.v WHERE w = '0.2') >
       (SELECT sum(dpobj.predict(m, x)::int) FROM m, regress_cw.v WHERE w = 'none')
       AS weighted_predicts_more;
-- the same for noisy gradient descent (its noise from R, T and epsilon only)
CREATE TEMP TABLE sgd AS
SELECT 'none' w, dpobj.dp_noisysgd(x, y, 1, 1e-6, '{"R": 1.5, "T": 100, "metric": "accuracy"}') m FROM regress_cw.v
UNION ALL
SELECT '0.2', dpobj.dp_noisysgd(x, y, 1, 1e-6, '{"R": 1.5, "T": 100, "class_weight": {"false": 0.2}}')
  FROM regress_cw.v
UNION ALL
SELECT '0.2 unclipped', dpobj.dp_noisysgd(x, y, 1, 1e-6, '{"R": 1.5, "T": 100, "class_weight": {"false": 0.2}, "gradient_clip": 1}')
  FROM regress_cw.v
UNION ALL
SELECT '0.2 no prior', dpobj.dp_noisysgd(x, y, 1, 1e-6, '{"R": 1.5, "T": 100, "class_weight": {"false": 0.2}, "adagrad_prior": 0}')
  FROM regress_cw.v;
-- the weights change the noise only through the default clip (a quarter with weights)
SELECT w, (m).params->>'gradient_clip' AS clip, (m).params->>'adagrad_prior' AS prior,
       (m).params->>'sigma' = (SELECT (dpobj.dp_noisysgd(x, y, 1, 1e-6, jsonb_build_object('R', 1.5, 'T', 100,
                                         'gradient_clip', ((m).params->>'gradient_clip')::float8, 'metric', 'accuracy'))).params->>'sigma'
                                    FROM regress_cw.v) AS same_sigma,
       sum(dpobj.predict(m, x)::int) AS predicted_positive,
       round(avg(dpobj.predict(m, x)::int) FILTER (WHERE y), 2) AS recall
  FROM sgd, regress_cw.v
 GROUP BY w, m ORDER BY w;
SELECT (SELECT sum(dpobj.predict(m, x)::int) FROM sgd, regress_cw.v WHERE w = '0.2') >
       (SELECT sum(dpobj.predict(m, x)::int) FROM sgd, regress_cw.v WHERE w = 'none')
       AS weighted_predicts_more;

-- "gradient_clip" c: a row's loss derivative clipped to [-c, c], the noise for 2 c R_eff
-- (its lattice a power of two set by the noise: sigma scales by exactly c)
SELECT c, round((((SELECT (dpobj.dp_noisysgd(x, y, 1, 1e-6, jsonb_build_object('R', 1.5, 'gradient_clip', c, 'metric', 'accuracy'))).params->>'sigma'
                     FROM regress_cw.v))::numeric
              / ((SELECT (dpobj.dp_noisysgd(x, y, 1, 1e-6, '{"R": 1.5, "metric": "accuracy"}')).params->>'sigma' FROM regress_cw.v))::numeric), 6)
         AS sigma_ratio
  FROM (VALUES (0.5), (0.25), (0.125)) v(c);
SELECT o, e.* FROM (VALUES
    ('{"R": 1, "gradient_clip": 0}'),
    ('{"R": 1, "gradient_clip": 1.5}'),
    ('{"R": 1, "gradient_clip": "0.5"}')) v(o),
  LATERAL regress.err(format('SELECT dpobj.dp_noisysgd(x, y, 1, 1e-6, %L) FROM regress_cw.v', o)) e;
SELECT e.* FROM regress.err($$SELECT dpobj.dp_logistic(x, y, 1, 1e-6, '{"R": 1, "gradient_clip": 0.5}') FROM regress_cw.v$$) e;
-- "adagrad_prior" m: AdaGrad's accumulators start at m sigma^2 (post-processing: the noise
-- is the same); the default is 64 with class weights and no "n", else 0; refused with "n"
SELECT o, (m).params->>'adagrad_prior' AS prior, (m).params->>'sigma' = (SELECT (dpobj.dp_noisysgd(x, y, 1, 1e-6,
         '{"R": 1.5, "class_weight": {"false": 0.2}, "adagrad_prior": 0}')).params->>'sigma' FROM regress_cw.v) AS same_sigma
  FROM (SELECT o, (SELECT dpobj.dp_noisysgd(x, y, 1, 1e-6, o::jsonb) FROM regress_cw.v) m
          FROM (VALUES ('{"R": 1.5, "class_weight": {"false": 0.2}}'),
                       ('{"R": 1.5, "class_weight": {"false": 0.2}, "adagrad_prior": 1000}')) v(o)) s;
SELECT (dpobj.dp_noisysgd(x, y, 1, 1e-6, '{"R": 1.5, "class_weight": {"false": 0.2}, "n": 100}')).params->>'adagrad_prior' AS prior_with_n
  FROM regress_cw.v;
SELECT o, e.* FROM (VALUES
    ('{"R": 1, "adagrad_prior": -1}'),
    ('{"R": 1, "adagrad_prior": 1e7}'),
    ('{"R": 1, "adagrad_prior": 4, "n": 100}')) v(o),
  LATERAL regress.err(format('SELECT dpobj.dp_noisysgd(x, y, 1, 1e-6, %L) FROM regress_cw.v', o)) e;

-- ---- malformed weights are refused before anything runs ----
SELECT o, e.* FROM (VALUES
    ('{"R": 1, "class_weight": 0.5}'),
    ('{"R": 1, "class_weight": [1, 0.5]}'),
    ('{"R": 1, "class_weight": {"yes": 0.5}}'),
    ('{"R": 1, "class_weight": {"false": 0}}'),
    ('{"R": 1, "class_weight": {"false": 1.5}}'),
    ('{"R": 1, "class_weight": {"false": "0.5"}}'),
    ('{"R": 1, "class_weight": {"true": -1}}')) v(o),
  LATERAL regress.err(format('SELECT dpobj.dp_logistic(x, y, 1, 1e-6, %L) FROM regress_cw.v', o)) e;
SELECT e.* FROM regress.err($$SELECT dpobj.dp_opsamp(x, y, 1, 1e-6, '{"R": 1, "class_weight": {"false": 0.5}}') FROM regress_cw.v$$) e;
SELECT e.* FROM regress.err($$SELECT dpobj.dp_logistic_multiclass(x, y::int, 1, 1e-6, '{"R": 1, "classes": [0, 1], "class_weight": {"false": 0.5}}') FROM regress_cw.v$$) e;
RESET dpobj.seed;

-- ---- train() on a protected table: the weights travel in the options ----
CREATE ROLE regress_cw_alice;
SELECT dpobj.protect('regress_cw.pts');
SELECT granted_epsilon FROM dpobj.grant_budget('regress_cw.pts', 'regress_cw_alice', 5, 1e-5);
SET ROLE regress_cw_alice;
SELECT (m).mechanism, (m).params->>'class_weight_false' AS w_false, (m).params->>'lambda' AS lambda
  FROM (SELECT dpobj.train('regress_cw.pts', 'objective', ARRAY['a', 'b'], 'y', 1, 1e-6,
                           '{"R": 1.5, "class_weight": {"false": 0.2}}') m) s;
-- refused before the charge: a malformed weight
SELECT dpobj.train('regress_cw.pts', 'logistic', ARRAY['a', 'b'], 'y', 1, 1e-6,
                   '{"R": 1.5, "class_weight": {"false": 2}}');
SELECT spent_epsilon FROM dpobj.my_budgets WHERE relation = 'regress_cw.pts'::regclass;
RESET ROLE;
DROP SCHEMA regress_cw CASCADE;
DROP ROLE regress_cw_alice;
