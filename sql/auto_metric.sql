-- 'auto''s option "metric" (src/families/glm/glmauto.c, docs/PRIVACY.md "Private model
-- selection (auto)"): validation, the default that follows "class_weight", and that the
-- selection's score weighs each validation row by its class weight; "balanced_accuracy",
-- whose weights come from a private estimate of the label balance.
CREATE SCHEMA regress_autom;
-- one binary feature: group A (x = 1, 600 rows, 30 % positives) and group B (x = 0,
-- 6000 rows, 5 % positives), 7.3 % positives in all.  With "class_weight" {"false": 0.15}:
--   - objective perturbation, near the weighted optimum, predicts A positive, B negative;
--   - noisy GD with a huge public "n" takes tiny steps, so its model is a small multiple of
--     the weighted gradient at 0, which predicts every row negative (the majority class):
--     0.195 n_A - 0.046 n_B < 0 in A.
-- On a validation part of ~2200 rows (~200 in A) "all negative" is right on ~80 more rows
-- (accuracy wins by far more than the noise scale 2 / eps_s = 0.4), but carries less
-- weight: 0.15 x 0.7 per A row against 1 x 0.3 (weighted accuracy loses by ~40 000 units
-- of 2^-10 against a scale of 410).
CREATE TABLE regress_autom.pts AS
SELECT ARRAY[(g % 11 = 0)::int]::float8[] AS x,
       CASE WHEN g % 11 = 0 THEN (g / 11) % 10 < 3 ELSE g % 20 = 1 END AS y
  FROM generate_series(1, 6600) g;
\pset format unaligned

-- refused before any row: an unknown metric, a non-string
SELECT sqlstate, message, hint FROM regress.err($$SELECT dpobj.dp_auto(x, y, 1, 1e-6, '{"R": 1, "metric": "recall"}') FROM regress_autom.pts$$);
SELECT sqlstate, message, hint FROM regress.err($$SELECT dpobj.dp_auto(x, y, 1, 1e-6, '{"R": 1, "metric": 1}') FROM regress_autom.pts$$);
-- not an option of OPSamp (its hinge loss's own cut-off) nor of the multi-class kinds
SELECT sqlstate, message FROM regress.err($$SELECT dpobj.dp_opsamp(x, y, 1, 1e-6, '{"R": 1, "n": 100, "metric": "accuracy"}') FROM regress_autom.pts$$);
\pset format aligned

-- the default metric and candidates follow "class_weight" (objective and noisy GD with
-- weights, objective and CMS without); explicit ones win; the Laplace scale is reported
-- in rows (2 / eps_s = 20) whatever the score's integer units
SET dpobj.seed = 5;
SELECT o AS options, (m).params->>'metric' AS metric, (m).params->'candidates' AS candidates,
       (m).params->>'select_laplace_scale' AS laplace_scale
  FROM (VALUES ('{"R": 1}'), ('{"R": 1, "class_weight": {"false": 0.15}}'),
               ('{"R": 1, "class_weight": {"false": 0.15}, "metric": "accuracy"}'),
               ('{"R": 1, "class_weight": {"false": 0.15}, "candidates": ["objective", "cms"]}'),
               ('{"R": 1, "metric": "weighted_accuracy"}')) v(o),
       LATERAL (SELECT dpobj.dp_auto(x, y, 1, 1e-6, v.o::jsonb) AS m FROM regress_autom.pts) s;

-- the score uses the weights: the same seeds and candidates (so the same candidate
-- models), only the metric differs; accuracy picks the majority-only noisy GD, weighted
-- accuracy objective perturbation, in every one of 10 seeded runs
SELECT metric, count(*) FILTER (WHERE sel = 'objective') AS objective,
       count(*) FILTER (WHERE sel = 'noisysgd') AS noisysgd
  FROM (VALUES ('accuracy'), ('weighted_accuracy')) v(metric), generate_series(1, 10) g,
       LATERAL (SELECT set_config('dpobj.seed', g::text, false) AS c) z,
       LATERAL (SELECT (dpobj.dp_auto(x, y, 10, 1e-6,
                         jsonb_build_object('R', 1, 'class_weight', '{"false": 0.15}'::jsonb,
                                            'metric', v.metric, 'n', 1e9, 'select_share', 0.5,
                                            'candidates', '["objective", "noisysgd"]'::jsonb)))
                       .params->>'selected' AS sel
                  FROM regress_autom.pts WHERE z.c IS NOT NULL) s
 GROUP BY metric ORDER BY metric;

-- balanced accuracy: the score's weights are estimated (noisy counts of the labels, 480
-- positives and 6120 negatives: the negatives' weight near 480 / 6120 = 0.078); with the
-- user's "class_weight" fixed, only the metric differs from the runs above, and like
-- weighted accuracy it picks objective perturbation, never the majority-only noisy GD
SELECT count(*) FILTER (WHERE sel = 'objective') AS objective,
       count(*) FILTER (WHERE sel = 'noisysgd') AS noisysgd,
       min(wt) = 1 AND max(wt) = 1 AS minority_weight_1,
       count(DISTINCT wf) > 1 AS estimated, min(wf) > 0.06 AND max(wf) < 0.1 AS near_0078,
       min(cf) = 0.15 AND max(cf) = 0.15 AS trained_with_given_weights,
       min(u) = 'score' AND max(u) = 'score' AS balance_weights_score_only
  FROM generate_series(1, 10) g,
       LATERAL (SELECT set_config('dpobj.seed', g::text, false) AS c) z,
       LATERAL (SELECT (m).params->>'selected' AS sel,
                       ((m).params->>'balance_weight_true')::float8 AS wt,
                       ((m).params->>'balance_weight_false')::float8 AS wf,
                       ((m).params->>'class_weight_false')::float8 AS cf,
                       (m).params->>'balance_weight_use' AS u
                  FROM (SELECT dpobj.dp_auto(x, y, 10, 1e-6,
                         '{"R": 1, "class_weight": {"false": 0.15}, "metric": "balanced_accuracy",
                           "n": 1e9, "select_share": 0.5,
                           "candidates": ["objective", "noisysgd"]}') AS m
                          FROM regress_autom.pts WHERE z.c IS NOT NULL) q) s;

-- without "class_weight" the estimated weights also train the candidates and the final
-- model (the weighted defaults: objective and noisy GD); the estimate takes 5 % of the
-- final epsilon, 0.045: two counts, each moved by one row, scale 2 / 0.045 rounded up
SET dpobj.seed = 7;
SELECT (m).params->>'metric' AS metric, (m).params->'candidates' AS candidates,
       (m).params->>'select_laplace_scale' AS laplace_scale,
       (m).params->>'balance_epsilon' AS balance_eps,
       (m).params->>'balance_laplace_scale' AS balance_scale,
       (m).params->>'final_epsilon' AS final_eps,
       (m).params->>'balance_weight_use' AS balance_weight_use,
       (m).params ? 'class_weight_false' AS options_weights
  FROM (SELECT dpobj.dp_auto(x, y, 1, 1e-6, '{"R": 1, "metric": "balanced_accuracy"}') AS m
          FROM regress_autom.pts) s;
-- the released model of accuracy-scored, unweighted 'auto' calls every row negative
-- (balanced accuracy 0.5 on this table); balanced accuracy's finds group A's positives
SELECT v.metric, round(avg(ba)::numeric, 1) AS balanced_accuracy
  FROM (VALUES ('accuracy'), ('balanced_accuracy')) v(metric), generate_series(1, 5) g,
       LATERAL (SELECT set_config('dpobj.seed', g::text, false) AS c) z,
       LATERAL (SELECT dpobj.dp_auto(x, y, 1, 1e-6, jsonb_build_object('R', 1, 'metric', v.metric)) AS m
                  FROM regress_autom.pts WHERE z.c IS NOT NULL) q,
       LATERAL (SELECT (avg((dpobj.predict(q.m, x))::int) FILTER (WHERE y) +
                        avg((NOT dpobj.predict(q.m, x))::int) FILTER (WHERE NOT y)) / 2 AS ba
                  FROM regress_autom.pts) b
 GROUP BY v.metric ORDER BY v.metric;
-- the noisy max's scale 2^10 * 2 / eps_s must be in the exact sampler's range (2^31), as
-- for weighted accuracy: eps_s = 4.5e-7 (the default share 0.05) is not; refused before any row
\pset format unaligned
SELECT sqlstate, message, hint FROM regress.err($$SELECT dpobj.dp_auto(x, y, 9e-6, 1e-6, '{"R": 1, "metric": "balanced_accuracy"}') FROM regress_autom.pts$$);
\pset format aligned
RESET dpobj.seed;

-- on the protected path a bad metric is refused before the charge: the ledger rows are
-- the good runs'
SELECT coalesce(max(id), 0) AS before FROM dpobj.ledger \gset
CREATE ROLE regress_autom_analyst;
CREATE TABLE regress_autom.t AS SELECT x[1] AS a, y FROM regress_autom.pts;
SELECT dpobj.protect('regress_autom.t');
SELECT granted_epsilon FROM dpobj.grant_budget('regress_autom.t', 'regress_autom_analyst', 10, 0.001);
GRANT USAGE ON SCHEMA regress_autom TO regress_autom_analyst;
SET ROLE regress_autom_analyst;
\pset format unaligned
SELECT sqlstate, message, hint FROM regress.err($$SELECT dpobj.train('regress_autom.t', 'auto', ARRAY['a'], 'y', 1, 1e-6, '{"R": 1, "class_weight": {"false": 0.15}, "metric": "f1"}')$$);
\pset format aligned
SELECT (m).params->>'metric' AS metric
  FROM dpobj.train('regress_autom.t', 'auto', ARRAY['a'], 'y', 1, 1e-6, '{"R": 1, "class_weight": {"false": 0.15}}') m;
-- balanced accuracy through train(): charged once, its (eps, delta), as any 'auto' run
SELECT (m).params->>'metric' AS metric
  FROM dpobj.train('regress_autom.t', 'auto', ARRAY['a'], 'y', 1, 1e-6, '{"R": 1, "metric": "balanced_accuracy"}') m;
RESET ROLE;
SELECT count(*) AS charged FROM dpobj.ledger WHERE relation = 'regress_autom.t' AND id > :before;
SELECT mechanism, epsilon, delta, kind, outcome FROM dpobj.ledger
 WHERE relation = 'regress_autom.t' AND id > :before ORDER BY id;
SELECT dpobj.unprotect('regress_autom.t');
DROP SCHEMA regress_autom CASCADE;
DROP ROLE regress_autom_analyst;
