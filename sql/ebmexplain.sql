-- dpobj.explain()'s rows column: an additive model keeps each level's or bin's released
-- noisy count (params "counts", aligned with the weights); explain shows it clamped at 0
-- and rounded, and weighs the feature's importance by it: the rows-weighted mean
-- |contribution - m|, m the rows-weighted mean (all rows 0: plain means).  Without
-- counts (other kinds, older models) rows is NULL and the importance max - min.
CREATE SCHEMA regress_ebmx;
-- a hand-made model with counts: edu's "other" and age's [30, 40) noisy below 0.5
CREATE TABLE regress_ebmx.m AS
SELECT ROW('ebm', '{0.5, -0.5, 0, -1, 0, 1, 2}'::float8[], -0.1, 1, 1e-6,
    '{"link": "logit", "encoding": [{"column": "edu", "levels": ["BA", "HS"]}, {"column": "age", "lo": 20, "hi": 60}],
      "terms": [{"type": "categorical", "index": 0, "size": 3}, {"type": "numeric", "index": 3, "lo": -1, "hi": 1, "bins": 4}],
      "counts": [30, 10.4, -2.6, 20, 0.3, 19.6, -0.4]}')::dpobj.model AS m;
-- edu: m = (30 0.5 + 10 (-0.5)) / 40 = 0.25, importance (30 0.25 + 10 0.75) / 40 = 0.375;
-- age: m = 0, importance (20 + 20) / 40 = 1 (max - min would be 1 and 3)
SELECT * FROM dpobj.explain((SELECT m FROM regress_ebmx.m));
-- every count 0: plain means (edu 1/3, age 1)
SELECT feature, level, rows, round(importance::numeric, 6) AS importance
  FROM regress_ebmx.m, dpobj.explain(ROW((m).mechanism, (m).weights, (m).bias, (m).epsilon, (m).delta,
                                         jsonb_set((m).params, '{counts}', '[0, 0, -1, 0, 0.2, 0, 0]'))::dpobj.model);
-- a forged model's huge counts weigh as their ratios (edu 0.5, age 0.5), no overflow
SELECT DISTINCT feature, importance
  FROM regress_ebmx.m, dpobj.explain(ROW((m).mechanism, (m).weights, (m).bias, (m).epsilon, (m).delta,
                                         jsonb_set((m).params, '{counts}', '[1e308, 1e308, 0, 1e308, 1e308, 0, 0]'))::dpobj.model)
 ORDER BY feature;
-- a model without counts (as 0.5.0 released them): rows NULL, importance max - min,
-- the same scores; counts do not change a prediction
SELECT feature, level, contribution, importance, rows
  FROM regress_ebmx.m, dpobj.explain(ROW((m).mechanism, (m).weights, (m).bias, (m).epsilon, (m).delta,
                                         (m).params - 'counts')::dpobj.model);
SELECT bool_and(dpobj.score(m, x) = dpobj.score(ROW((m).mechanism, (m).weights, (m).bias, (m).epsilon, (m).delta,
                                                    (m).params - 'counts')::dpobj.model, x)) AS same_scores
  FROM regress_ebmx.m, (VALUES ('{1, 0, 0, -0.9}'::float8[]), ('{0, 0, 1, 0.1}'), ('{0, 1, 0, 0.7}')) v(x);
-- malformed counts: refused by explain
SELECT o, e.* FROM (VALUES ('[1, 2]'), ('[1, 2, 3, 4, 5, 6, "7"]'), ('{"a": 1}'), ('[1, 2, 3, 4, 5, 6, 1e400]')) v(o),
  LATERAL regress.err(format('SELECT * FROM dpobj.explain(ROW(%L, %L::float8[], 0, 1, 1e-6, %L)::dpobj.model)',
                             (SELECT (m).mechanism FROM regress_ebmx.m), (SELECT (m).weights FROM regress_ebmx.m),
                             (SELECT jsonb_set((m).params, '{counts}', o::jsonb) FROM regress_ebmx.m))) e;

-- a trained model: c declares a level "w" no row has (and "other"), a's declared [0, 2]
-- holds rows in [0, 1) only: those levels' and (equal-width) bins' rows are noise around 0
CREATE TABLE regress_ebmx.pts AS
SELECT i, ((i * 37) % 101) / 101.0 AS a, (ARRAY['x', 'y', 'z'])[1 + i % 3] AS c,
       ((i * 37) % 101) / 101.0 > 0.6 OR i % 3 = 2 AS y
  FROM generate_series(1, 3000) i;
CREATE ROLE regress_ebmx_alice;
GRANT USAGE ON SCHEMA regress_ebmx TO regress_ebmx_alice;
SELECT dpobj.protect('regress_ebmx.pts');
SELECT dpobj.declare_domain('regress_ebmx.pts', 'c', ARRAY['w', 'x', 'y', 'z']);
SELECT dpobj.declare_domain('regress_ebmx.pts', 'a', 0, 2);
SELECT granted_epsilon FROM dpobj.grant_budget('regress_ebmx.pts', 'regress_ebmx_alice', 10, 1e-5);
SET ROLE regress_ebmx_alice;
-- ("metric": "accuracy": no balance weights, so the counts are the rows')
SELECT (dpobj.train('regress_ebmx.pts', 'ebm', ARRAY['c', 'a'], 'y', 4, 1e-6, '{"bins": 4, "binning": "uniform", "metric": "accuracy"}',
                    model_name => 'regress_ebmx_m')).mechanism;
RESET ROLE;
CREATE TABLE regress_ebmx.e AS
SELECT e.*, (SELECT (model).params->>'count_sigma' FROM dpobj.models WHERE name = 'regress_ebmx_m')::float8 AS sd
  FROM (SELECT 1) s, LATERAL (SELECT * FROM dpobj.models WHERE name = 'regress_ebmx_m') mm,
       dpobj.explain(mm.model) e;
-- the counts are one per weight
SELECT jsonb_array_length((model).params->'counts') = cardinality((model).weights) AS aligned
  FROM dpobj.models WHERE name = 'regress_ebmx_m';
-- each level's and bin's rows: within 5 noise sds of the table's (0 for the empty ones);
-- the intercept has none
SELECT e.feature, e.level, t.n AS true_rows, e.rows >= 0 AND abs(e.rows - t.n) <= 5 * e.sd + 0.5 AS within_noise
  FROM regress_ebmx.e e
  LEFT JOIN (SELECT 'c' AS feature, l AS level, count(p.i) AS n
               FROM unnest('{w,x,y,z,other}'::text[]) l LEFT JOIN regress_ebmx.pts p ON p.c = l GROUP BY l
             UNION ALL
             SELECT 'a', l, count(p.i)
               FROM unnest('{"[0, 0.5)","[0.5, 1)","[1, 1.5)","[1.5, 2]"}'::text[]) WITH ORDINALITY b(l, k)
               LEFT JOIN regress_ebmx.pts p ON floor(p.a * 2) = k - 1 GROUP BY l) t
    ON t.feature = e.feature AND t.level = e.level
 ORDER BY e.feature, e.level;
-- the noise is small against these counts
SELECT max(sd) BETWEEN 1 AND 50 AS small_noise FROM regress_ebmx.e;
-- the importance as defined, from the rows shown
SELECT feature, abs(importance - (SELECT sum(rows * abs(contribution - m)) / sum(rows)
                                    FROM regress_ebmx.e e2 WHERE e2.feature = w.feature)) < 1e-9 AS weighted_importance
  FROM (SELECT feature, min(importance) AS importance, sum(rows * contribution) / sum(rows) AS m
          FROM regress_ebmx.e WHERE rows IS NOT NULL GROUP BY feature) w
 ORDER BY feature;
-- by name, the same rows
SET ROLE regress_ebmx_alice;
SELECT count(*) AS explained, count(rows) AS with_rows FROM dpobj.explain('regress_ebmx_m');
SELECT dpobj.drop_model('regress_ebmx_m');
RESET ROLE;
DROP SCHEMA regress_ebmx CASCADE;
DROP ROLE regress_ebmx_alice;
