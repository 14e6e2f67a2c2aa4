-- A binary classifier's operating point (docs/PRIVACY.md, "Operating point";
-- src/mechanisms/operating.c): option "metric" (balanced_accuracy by default,
-- weighted_accuracy with "class_weight", accuracy on request) sets the model's cut-off,
-- params "threshold": predict() is score > threshold; score(), probability() and the *_raw
-- forms keep the margin, a log-odds without the class weights the rows trained with.
-- Balanced accuracy's cut-off comes from noisy label counts released in the same charge.
-- And evaluate()'s ROC AUC with its interval.
CREATE SCHEMA regress_op;
GRANT USAGE ON SCHEMA regress_op TO PUBLIC;
-- 2000 rows, about 1 positive in 4, driven by a, b and c
CREATE TABLE regress_op.pts AS
  SELECT i, ((i * 37) % 101) / 100.0 AS a, ((i * 53) % 97) / 96.0 AS b,
         (ARRAY['u', 'v', 'w'])[1 + i % 3] AS c,
         ((i * 37) % 101) / 100.0 + 0.3 * (((i * 53) % 97) / 96.0) + 0.2 * (i % 3 = 0)::int
           + 0.25 * sin(i * 1.7) > 0.95 AS y
    FROM generate_series(1, 2000) i;
CREATE VIEW regress_op.v AS SELECT ARRAY[a, b]::float8[] AS x, y FROM regress_op.pts;
SELECT round(avg(y::int), 2) AS positives FROM regress_op.pts;
SELECT coalesce(max(id), 0) AS ledger_start FROM dpobj.ledger \gset
SET dpobj.seed = 3;

-- ---- every binary kind: the default metric, its cut-off and the balance estimate ----
CREATE TEMP TABLE m AS
SELECT 'objective' AS k, dpobj.dp_logistic(x, y, 1, 1e-6, '{"R": 1.5}') AS m FROM regress_op.v
UNION ALL SELECT 'output', dpobj.dp_logistic(x, y, 1, 1e-6, '{"R": 1.5, "method": "output"}') FROM regress_op.v
UNION ALL SELECT 'cms', dpobj.dp_logistic(x, y, 1, 1e-6, '{"R": 1.5, "method": "cms"}') FROM regress_op.v
UNION ALL SELECT 'noisysgd', dpobj.dp_noisysgd(x, y, 1, 1e-6, '{"R": 1.5}') FROM regress_op.v
UNION ALL SELECT 'noisysgd_privr', dpobj.dp_noisysgd(x, y, 1, 1e-6, '{"R": "private"}') FROM regress_op.v
UNION ALL SELECT 'ebm', dpobj.dp_ebm(x, y, 1, 1e-6, '{"lo": 0, "hi": 1}') FROM regress_op.v
UNION ALL SELECT 'passglm', dpobj.dp_passglm(x, y, 1, 1e-6, '{"R": 1.5}') FROM regress_op.v
UNION ALL SELECT 'auto', dpobj.dp_auto(x, y, 1, 1e-6, '{"R": 1.5}') FROM regress_op.v
UNION ALL SELECT 'tune', dpobj.dp_noisysgd(x, y, 1, 1e-6, '{"R": 1.5, "tune": {"T": [10, 30]}, "tune_gamma": 0.5}') FROM regress_op.v;
-- the metric, the balance estimate's public form, and the cut-off: the log-odds of the
-- estimated base rate, ln(w_false / w_true) of its weights (the minority's weight 1)
SELECT k, coalesce((m).params->>'metric', (m).params->>'tune_metric') AS metric,
       (m).params->>'balance_noise' AS noise,
       coalesce((m).params->>'balance_rho', (m).params->>'balance_epsilon',
                (m).params->>'tune_balance_epsilon') AS share,
       abs(((m).params->>'threshold')::float8 - ln(((m).params->>'balance_weight_false')::float8 /
                                                    ((m).params->>'balance_weight_true')::float8)) < 1e-12 AS cut_of_weights,
       ((m).params->>'threshold')::float8 BETWEEN ln(0.15 / 0.85) AND ln(0.3 / 0.7) AS near_base_rate
  FROM m ORDER BY k;
-- the counts (a DP output) near the true ones; their noise sd is public
SELECT k, abs(((m).params->'balance_counts'->>0)::float8 - (SELECT count(*) FILTER (WHERE y) FROM regress_op.pts))
            < 6 * ((m).params->>'balance_sd')::float8 AS positives_near,
       abs(((m).params->'balance_counts'->>1)::float8 - (SELECT count(*) FILTER (WHERE NOT y) FROM regress_op.pts))
            < 6 * ((m).params->>'balance_sd')::float8 AS negatives_near
  FROM m WHERE (m).params ? 'balance_sd' ORDER BY k;
-- one charge per run: the balance estimate is part of the run's (epsilon, delta)
SELECT mechanism, kind, epsilon, count(*) FROM dpobj.ledger WHERE id > :ledger_start
 GROUP BY 1, 2, 3 ORDER BY 1, 2;
-- noisy GD and ebm train with the estimated weights (noisy GD's weighted clip and prior),
-- the logistic methods without: the same lambda, at 0.95 of epsilon
SELECT k, (m).params->>'gradient_clip' AS clip, (m).params->>'adagrad_prior' AS prior,
       (m).params->>'lambda' AS lambda
  FROM m WHERE k IN ('noisysgd', 'objective', 'cms') ORDER BY k;

-- ---- predict() applies the cut-off; score(), probability() do not ----
SELECT k, bool_and(dpobj.predict(m, x) = (dpobj.score(m, x) > ((m).params->>'threshold')::float8)) AS predict_is_cut,
       bool_and(abs(dpobj.probability(m, x) - 1 / (1 + exp(-dpobj.score(m, x)))) < 1e-12) AS probability_of_score
  FROM m, regress_op.v GROUP BY k ORDER BY k;
-- the cut-off catches the minority class: balanced accuracy's recall against accuracy's
CREATE TEMP TABLE acc AS
SELECT 'objective' AS k, dpobj.dp_logistic(x, y, 1, 1e-6, '{"R": 1.5, "metric": "accuracy"}') AS m FROM regress_op.v
UNION ALL SELECT 'noisysgd', dpobj.dp_noisysgd(x, y, 1, 1e-6, '{"R": 1.5, "metric": "accuracy"}') FROM regress_op.v
UNION ALL SELECT 'ebm', dpobj.dp_ebm(x, y, 1, 1e-6, '{"lo": 0, "hi": 1, "metric": "accuracy"}') FROM regress_op.v;
SELECT a.k, (a.m).params->>'threshold' AS accuracy_cut, (a.m).params ? 'balance_counts' AS estimated,
       round(avg(dpobj.predict(b.m, x)::int) FILTER (WHERE y), 2) >
       round(avg(dpobj.predict(a.m, x)::int) FILTER (WHERE y), 2) AS more_recall,
       0.5 * (avg(dpobj.predict(b.m, x)::int) FILTER (WHERE y) + avg((NOT dpobj.predict(b.m, x))::int) FILTER (WHERE NOT y)) >
       0.5 * (avg(dpobj.predict(a.m, x)::int) FILTER (WHERE y) + avg((NOT dpobj.predict(a.m, x))::int) FILTER (WHERE NOT y))
         AS more_balanced
  FROM acc a JOIN m b USING (k), regress_op.v GROUP BY a.k, a.m ORDER BY a.k;
-- with class weights the metric is theirs: the cut-off the weighted model's 0, the margin
-- without the weights' odds (bias less ln(w_true / w_false)), no estimate
CREATE TEMP TABLE cw AS
SELECT dpobj.dp_logistic(x, y, 1, 1e-6, '{"R": 1.5, "class_weight": {"false": 0.25}}') AS m,
       dpobj.dp_logistic(x, y, 1, 1e-6, '{"R": 1.5, "class_weight": {"false": 0.25}, "metric": "accuracy"}') AS a
  FROM regress_op.v;
SELECT (m).params->>'metric' AS metric, ((m).params->>'threshold')::float8 = ln(0.25) AS cut,
       (m).params ? 'balance_counts' AS estimated, ((a).params->>'threshold')::float8 AS accuracy_cut,
       abs((m).bias - (a).bias) < 1e-12 AS same_margin
  FROM cw;

-- ---- explain() shows the cut-off, with its metric ----
SELECT k, e.feature, e.level, e.contribution = ((m).params->>'threshold')::float8 AS is_cut, e.importance
  FROM m, dpobj.explain(m) e WHERE e.feature = '(threshold)' AND k IN ('ebm', 'objective', 'auto') ORDER BY k;

-- ---- models without a threshold predict as before: score > 0 ----
SELECT dpobj.predict(ROW('logistic', ARRAY[1.0], -0.5, 1, 1e-6, '{"loss": "logistic"}')::dpobj.model, ARRAY[0.6]) AS old_model,
       dpobj.predict(ROW('logistic', ARRAY[1.0], -0.5, 1, 1e-6, '{"loss": "logistic", "threshold": 0.2}')::dpobj.model, ARRAY[0.6]) AS with_cut,
       dpobj.probability(ROW('logistic', ARRAY[1.0], -0.5, 1, 1e-6, '{"loss": "logistic", "threshold": 0.2}')::dpobj.model, ARRAY[0.6])
         = dpobj.probability(ROW('logistic', ARRAY[1.0], -0.5, 1, 1e-6, '{"loss": "logistic"}')::dpobj.model, ARRAY[0.6]) AS probability_same;
-- a threshold only on a linear or additive classifier, a finite number
\pset format unaligned
SELECT e.* FROM regress.err($$SELECT dpobj.predict(ROW('logistic', ARRAY[1.0], 0, 1, 1e-6, '{"threshold": "0.5"}')::dpobj.model, ARRAY[1.0])$$) e;
SELECT e.* FROM regress.err($$SELECT dpobj.predict(ROW('opdisc', ARRAY[1.0], 0, 1, 1e-6, '{"Q": 64, "threshold": 1}')::dpobj.model, ARRAY[1.0])$$) e;
SELECT e.* FROM regress.err($$SELECT dpobj.score(ROW('adassp', ARRAY[1.0], 0, 1, 1e-6, '{"y_min": 0, "y_max": 1, "threshold": 1}')::dpobj.model, ARRAY[1.0])$$) e;

-- ---- refused before any row ----
SELECT e.* FROM regress.err($$SELECT dpobj.dp_logistic(x, y, 1, 1e-6, '{"R": 1, "metric": "f1"}') FROM regress_op.v$$) e;
SELECT e.* FROM regress.err($$SELECT dpobj.dp_opsamp(x, y, 1, 1e-6, '{"R": 1, "n": 100, "metric": "accuracy"}') FROM regress_op.v$$) e;
SELECT e.* FROM regress.err($$SELECT dpobj.dp_logistic_multiclass(x, y::int, 1, 1e-6, '{"R": 1, "classes": [0, 1], "metric": "accuracy"}') FROM regress_op.v$$) e;
SELECT e.* FROM regress.err($$SELECT dpobj.dp_ebm(x, y::int::float8, 1, 1e-6, '{"y_min": 0, "y_max": 1, "metric": "accuracy"}') FROM regress_op.v$$) e;
SELECT e.* FROM regress.err($$SELECT dpobj.dp_passglm(x, y, 1, 1e-6, '{"R": 1, "intercept": false, "metric": "balanced_accuracy"}') FROM regress_op.v$$) e;
SELECT e.* FROM regress.err($$SELECT dpobj.dp_noisysgd(x, y, 1, 1e-6, '{"R": 1, "class_weight": {"false": 0.0001}, "metric": "balanced_accuracy"}') FROM regress_op.v$$) e;
SELECT e.* FROM regress.err($$SELECT dpobj.dp_noisysgd(x, y, 1, 1e-6, '{"R": 1, "metric": "accuracy", "tune": {"T": [10, 30]}, "tune_metric": "balanced_accuracy"}') FROM regress_op.v$$) e;
-- passglm without an intercept: accuracy by default, its cut-off 0
SELECT (dpobj.dp_passglm(x, y, 1, 1e-6, '{"R": 1, "intercept": false}')).params->>'threshold' AS cut FROM regress_op.v;
\pset format aligned

-- ---- evaluate(): ROC AUC with a 95 % interval, from the scores' noisy histograms ----
-- the true AUC of the ebm model (pairs ordered right, ties a half)
CREATE TEMP TABLE truth AS
SELECT (count(*) FILTER (WHERE p.s > q.s) + 0.5 * count(*) FILTER (WHERE p.s = q.s))::float8 / count(*) AS auc
  FROM (SELECT dpobj.score(m, x) s FROM m, regress_op.v WHERE k = 'ebm' AND y) p,
       (SELECT dpobj.score(m, x) s FROM m, regress_op.v WHERE k = 'ebm' AND NOT y) q;
SELECT round(auc::numeric, 2) AS true_auc FROM truth;
-- at epsilon 2048 the noise is about nil: the estimate is the binned AUC, within half the
-- tied pairs of the truth, and the interval holds the truth
SELECT abs((e->'auc'->>'estimate')::float8 - t.auc) < 0.03 AS near,
       (e->'auc'->'ci95'->>0)::float8 <= t.auc AND t.auc <= (e->'auc'->'ci95'->>1)::float8 AS covers,
       e->'noise'->'auc' AS auc_noise, e->'noise'->>'epsilon_used' AS counts_epsilon
  FROM (SELECT dpobj.dp_evaluate(x, y, 2048, 0, jsonb_build_object('model', m::text)) e
          FROM m, regress_op.v WHERE k = 'ebm' GROUP BY m) s, truth t;
-- at epsilon 1 (the histograms at 1/2): a wider interval about the truth (a 95 % interval,
-- unbiased: over 200 seeds it held the truth in 97.5 % of the runs; seed 5 is one of them)
SET dpobj.seed = 5;
SELECT (e->'auc'->'ci95'->>0)::float8 <= t.auc AND t.auc <= (e->'auc'->'ci95'->>1)::float8 AS covers,
       (e->'auc'->'ci95'->>1)::float8 - (e->'auc'->'ci95'->>0)::float8 BETWEEN 0.02 AND 0.4 AS width_ok
  FROM (SELECT dpobj.dp_evaluate(x, y, 1, 0, jsonb_build_object('model', m::text)) e
          FROM m, regress_op.v WHERE k = 'ebm' GROUP BY m) s, truth t;
-- a constant model ranks nothing: AUC 1/2
SELECT round((e->'auc'->>'estimate')::numeric, 2) AS constant_auc
  FROM (SELECT dpobj.dp_evaluate(x, y, 2048, 0, jsonb_build_object('model',
               ROW('logistic', ARRAY[0.0, 0.0], 0, 1, 1e-6, '{}')::dpobj.model::text)) e
          FROM regress_op.v) s;
-- below 2^-19 (each half at least 2^-20) a classifier's evaluation is refused
\pset format unaligned
SELECT e.* FROM regress.err($$SELECT dpobj.dp_evaluate(x, y, 1.5e-6, 0, jsonb_build_object('model', (SELECT m FROM m WHERE k = 'ebm')::text)) FROM regress_op.v$$) e;
\pset format aligned
RESET dpobj.seed;

-- ---- train() on declared domains: predict_raw() applies the cut-off, probability_raw() not ----
CREATE ROLE regress_op_alice;
SELECT dpobj.protect('regress_op.pts');
SELECT dpobj.declare_domain('regress_op.pts', 'c', ARRAY['u', 'v', 'w']);
SELECT dpobj.declare_domain('regress_op.pts', 'a', 0, 1);
SELECT granted_epsilon FROM dpobj.grant_budget('regress_op.pts', 'regress_op_alice', 10, 1e-5);
SET ROLE regress_op_alice;
CREATE TEMP TABLE tm AS
SELECT dpobj.train('regress_op.pts', 'ebm', ARRAY['c', 'a'], 'y', 1, 1e-6) AS m;
RESET ROLE;
SELECT (m).params->>'metric' AS metric,
       bool_and(dpobj.predict_raw(m, to_jsonb(p)) = (dpobj.score_raw(m, to_jsonb(p)) > ((m).params->>'threshold')::float8)) AS predict_raw_is_cut,
       bool_and(abs(dpobj.probability_raw(m, to_jsonb(p)) - 1 / (1 + exp(-dpobj.score_raw(m, to_jsonb(p))))) < 1e-12) AS probability_raw_of_score
  FROM tm, regress_op.pts p GROUP BY m;
-- evaluate() through train()'s sealed path, on the raw columns
SET ROLE regress_op_alice;
SELECT e ? 'auc' AS has_auc, jsonb_typeof(e->'auc'->'ci95') AS ci95
  FROM tm, dpobj.evaluate('regress_op.pts', m, ARRAY['c', 'a'], 'y', 1) e;
RESET ROLE;
DROP TABLE tm;
DROP SCHEMA regress_op CASCADE;
DROP ROLE regress_op_alice;
