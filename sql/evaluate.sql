-- Private evaluation: dpobj.dp_evaluate (direct) and dpobj.evaluate (protected path)
-- release a confusion matrix (and, for the ROC AUC, the scores' histograms), each at
-- half of epsilon, with exact discrete Laplace noise of scale 2/(epsilon/2),
-- charged like any run; train() and submit() refuse the mechanism.
CREATE SCHEMA regress_eval;
CREATE ROLE regress_eval_alice;
CREATE TABLE regress_eval.pts AS
SELECT i, (i % 7) / 7.0 - 0.4 AS a, ((i * 3) % 5) / 5.0 - 0.3 AS b,
       (i % 7) / 7.0 - 0.4 + 0.3 * (((i * 3) % 5) / 5.0 - 0.3) > 0 AS y
  FROM generate_series(1, 500) i;
CREATE TEMP TABLE m AS
SELECT ROW('logistic', ARRAY[1.0, 1.0]::float8[], 0.05, 1, 1e-6, '{}')::dpobj.model AS m;
SET dpobj.seed = 11;

-- the true confusion matrix, by dpobj.predict
SELECT count(*) FILTER (WHERE p AND y) AS tp, count(*) FILTER (WHERE p AND NOT y) AS fp,
       count(*) FILTER (WHERE NOT p AND NOT y) AS tn, count(*) FILTER (WHERE NOT p AND y) AS fn
  FROM (SELECT dpobj.predict(m, ARRAY[a, b]::float8[]) AS p, y FROM regress_eval.pts, m) s;
-- at epsilon = 2048 the noise (scale 1/1024) is almost surely 0: the same counts
SELECT e->'tp' AS tp, e->'fp' AS fp, e->'tn' AS tn, e->'fn' AS fn, e->'positives' AS pos,
       e->'accuracy'->'estimate' AS acc, e->'noise' AS noise
  FROM (SELECT dpobj.dp_evaluate(ARRAY[a, b]::float8[], y, 2048, 1e-6, jsonb_build_object('model', m::text)) e
          FROM regress_eval.pts, m) s;
-- at epsilon = 1: noisy counts, intervals around the estimates
SELECT jsonb_object_keys(e) AS key
  FROM (SELECT dpobj.dp_evaluate(ARRAY[a, b]::float8[], y, 1, 1e-6, jsonb_build_object('model', m::text)) e
          FROM regress_eval.pts, m) s ORDER BY 1;
SELECT (e->'accuracy'->'ci95'->>0)::float8 <= (e->'accuracy'->>'estimate')::float8
       AND (e->'accuracy'->>'estimate')::float8 <= (e->'accuracy'->'ci95'->>1)::float8 AS in_interval,
       (e->'noise'->>'scale')::float8 AS scale
  FROM (SELECT dpobj.dp_evaluate(ARRAY[a, b]::float8[], y, 1, 1e-6, jsonb_build_object('model', m::text)) e
          FROM regress_eval.pts, m) s;
-- balanced accuracy: (recall + specificity) / 2, its interval from theirs (independent
-- counts: half the root of the sum of their squared half-widths, before clamping to [0, 1];
-- a seed whose recall interval stays below 1)
SET dpobj.seed = 12;
SELECT jsonb_typeof(e->'balanced_accuracy'->'ci95') AS ci95,
       (e->'balanced_accuracy'->'ci95'->>0)::float8 <= (e->'balanced_accuracy'->>'estimate')::float8
       AND (e->'balanced_accuracy'->>'estimate')::float8 <= (e->'balanced_accuracy'->'ci95'->>1)::float8 AS in_interval,
       abs((e->'balanced_accuracy'->>'estimate')::float8 -
           ((e->'recall'->>'estimate')::float8 + (e->'specificity'->>'estimate')::float8) / 2) < 1e-5 AS mean,
       abs(((e->'balanced_accuracy'->'ci95'->>1)::float8 - (e->'balanced_accuracy'->'ci95'->>0)::float8) -
           sqrt(((e->'recall'->'ci95'->>1)::float8 - (e->'recall'->'ci95'->>0)::float8) ^ 2 +
                ((e->'specificity'->'ci95'->>1)::float8 - (e->'specificity'->'ci95'->>0)::float8) ^ 2) / 2)
         < 1e-4 AS width,
       (e->'balanced_accuracy'->'ci95'->>1)::float8 - (e->'balanced_accuracy'->'ci95'->>0)::float8 > 0.01 AS noisy
  FROM (SELECT dpobj.dp_evaluate(ARRAY[a, b]::float8[], y, 1, 1e-6, jsonb_build_object('model', m::text)) e
          FROM regress_eval.pts, m) s;
SET dpobj.seed = 11;
-- delta 0: the release is epsilon-DP
SELECT e->'delta' AS delta, e ? 'tp' AS released
  FROM (SELECT dpobj.dp_evaluate(ARRAY[a, b]::float8[], y, 1, 0, jsonb_build_object('model', m::text)) e
          FROM regress_eval.pts, m) s;
-- public-ground errors
SELECT dpobj.dp_evaluate(ARRAY[a, b]::float8[], y, 1, 1e-6, '{}') FROM regress_eval.pts;
-- NULL options: the same refusal for each label type's overload (never a crash)
SELECT sqlstate, message FROM regress.err($$SELECT dpobj.dp_evaluate(ARRAY[a, b]::float8[], y, 1, 1e-6, NULL) FROM regress_eval.pts$$);
SELECT sqlstate, message FROM regress.err($$SELECT dpobj.dp_evaluate(ARRAY[a, b]::float8[], a, 1, 1e-6, NULL) FROM regress_eval.pts$$);
SELECT sqlstate, message FROM regress.err($$SELECT dpobj.dp_evaluate(ARRAY[a, b]::float8[], y::text, 1, 1e-6, NULL) FROM regress_eval.pts$$);
SELECT dpobj.dp_evaluate(ARRAY[a]::float8[], y, 1, 1e-6, jsonb_build_object('model', m::text)) FROM regress_eval.pts, m;
SELECT dpobj.dp_evaluate(ARRAY[a, b]::float8[], y, 1, 1e-6, jsonb_build_object('model', m::text, 'R', 1)) FROM regress_eval.pts, m;
SELECT dpobj.dp_evaluate(ARRAY[a, b]::float8[], y, 1e-7, 1e-6, jsonb_build_object('model', m::text)) FROM regress_eval.pts, m;

-- the protected path (it refuses dpobj.seed; at epsilon 2000 the noise is 0 anyway)
RESET dpobj.seed;
SELECT dpobj.protect('regress_eval.pts');
SELECT granted_epsilon FROM dpobj.grant_budget('regress_eval.pts', 'regress_eval_alice', 2003, 0.0001);
GRANT SELECT ON m TO regress_eval_alice;
GRANT USAGE ON SCHEMA regress_eval TO regress_eval_alice;
SET ROLE regress_eval_alice;
SELECT e->'tp' AS tp, e->'fp' AS fp, e->'tn' AS tn, e->'fn' AS fn
  FROM dpobj.evaluate('regress_eval.pts', (SELECT m FROM m), ARRAY['a', 'b'], 'y', 2000, 0.00001) e;
SELECT dpobj.evaluate('regress_eval.pts', (SELECT m FROM m), ARRAY['a', 'b'], 'y', 1, 0.00001,
                      '{"filter": [{"column": "i", "op": "<=", "value": 100}]}') IS NOT NULL AS released;
SELECT spent_epsilon FROM dpobj.my_budgets;
SELECT mechanism, epsilon, outcome FROM dpobj.ledger WHERE relation = 'regress_eval.pts' ORDER BY id;
-- refused before anything is charged
SELECT dpobj.evaluate('regress_eval.pts', (SELECT m FROM m), ARRAY['a'], 'y', 1, 0.00001);
SELECT dpobj.evaluate('regress_eval.pts', (SELECT m FROM m), ARRAY['a', 'b'], 'y', 1, 0.00001, '{"model": "x"}');
SELECT dpobj.evaluate('regress_eval.pts', NULL, ARRAY['a', 'b'], 'y', 1, 0.00001);
SELECT dpobj.train('regress_eval.pts', 'evaluate', ARRAY['a', 'b'], 'y', 1, 0.00001);
SELECT dpobj.submit('regress_eval.pts', 'evaluate', ARRAY['a', 'b'], 'y', 1, 0.00001);
SELECT dpobj.evaluate('regress_eval.pts', (SELECT m FROM m), ARRAY['a', 'b'], 'y', 1, -1e-9);
SELECT dpobj.evaluate('regress_eval.pts', (SELECT m FROM m), ARRAY['a', 'b'], 'y', 1, 0.00001) ?& ARRAY['tp', 'fp', 'tn', 'fn'] AS released;
SELECT spent_epsilon FROM dpobj.my_budgets;
-- epsilon-DP: delta defaults to 0, charged as 0 (kind pure); spent_delta does not move
SELECT spent_delta AS d0 FROM dpobj.my_budgets \gset
SELECT dpobj.evaluate('regress_eval.pts', (SELECT m FROM m), ARRAY['a', 'b'], 'y', 0.5)->'delta' AS delta;
SELECT mechanism, epsilon, delta, kind, accounted, outcome FROM dpobj.ledger
 WHERE relation = 'regress_eval.pts' ORDER BY id DESC LIMIT 1;
SELECT spent_epsilon, spent_delta = :d0 AS delta_unchanged FROM dpobj.my_budgets;
RESET ROLE;
RESET dpobj.seed;
DROP TABLE regress_eval.pts;
DROP SCHEMA regress_eval;
DROP TABLE m;
DROP ROLE regress_eval_alice;
