-- Model kinds (linear, regression, halfspace, multiclass, additive): one dispatch
-- for predict/score/probability/evaluate, dpobj.model_kind() and dpobj.explain()
CREATE SCHEMA regress_kinds;
CREATE FUNCTION regress_kinds.err(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE s text; m text; h text;
BEGIN
    EXECUTE q;
    RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS s = RETURNED_SQLSTATE, m = MESSAGE_TEXT, h = PG_EXCEPTION_HINT;
    RETURN s || ': ' || m || ' | ' || h;
END $$;
-- an additive model with a logit link: x[1] in 4 bins over [-1, 1], x[2..4] one-hot
CREATE TABLE regress_kinds.m AS
SELECT ROW('ebm', '{-2, -1, 1, 2, 0.25, -0.25, 0}'::float8[], 0.5, 1, 1e-6,
           '{"link": "logit", "d": 4, "terms": [
              {"type": "numeric", "index": 0, "lo": -1, "hi": 1, "bins": 4},
              {"type": "categorical", "index": 1, "size": 3}]}')::dpobj.model AS m;
SELECT dpobj.model_kind(m) FROM regress_kinds.m;
-- bins clamp outside [lo, hi]; bin 2 starts at 0: 0.5 + bin score + level score
SELECT x, dpobj.score(m, ARRAY[x, 0, 1, 0]) AS score, dpobj.predict(m, ARRAY[x, 0, 1, 0]) AS predict,
       round(dpobj.probability(m, ARRAY[x, 0, 1, 0])::numeric, 6) AS probability
  FROM regress_kinds.m, unnest('{-5, -1, -0.5, -0.01, 0, 0.49, 0.5, 1, 1e308}'::float8[]) x;
SELECT dpobj.score(m, '{0, 1, 0, 0}') AS level0, dpobj.score(m, '{0, 0, 0, 1}') AS level2
  FROM regress_kinds.m;
-- feature vectors it cannot evaluate: errors with the direct functions
SELECT regress_kinds.err($$SELECT dpobj.score(m, '{0, 1, 1, 0}') FROM regress_kinds.m$$);
SELECT regress_kinds.err($$SELECT dpobj.predict(m, '{0, 0, 0, 0}') FROM regress_kinds.m$$);
SELECT regress_kinds.err($$SELECT dpobj.predict(m, '{0, 0.5, 0.5, 0}') FROM regress_kinds.m$$);
SELECT regress_kinds.err($$SELECT dpobj.predict(m, '{NaN, 0, 1, 0}') FROM regress_kinds.m$$);
SELECT regress_kinds.err($$SELECT dpobj.predict(m, '{0, 0, 1}') FROM regress_kinds.m$$);
-- the private evaluation predicts as dpobj.predict (epsilon 2048: noise almost surely 0)
SET dpobj.seed = 5;
CREATE TABLE regress_kinds.pts AS
SELECT (i % 9) / 4.0 - 1 AS a, (i % 3) AS c, i % 2 = 0 AS y FROM generate_series(1, 60) i;
SELECT count(*) FILTER (WHERE p AND y) AS tp, count(*) FILTER (WHERE p AND NOT y) AS fp,
       count(*) FILTER (WHERE NOT p AND NOT y) AS tn, count(*) FILTER (WHERE NOT p AND y) AS fn
  FROM (SELECT dpobj.predict(m, ARRAY[a, (c = 0)::int, (c = 1)::int, (c = 2)::int]::float8[]) AS p, y
          FROM regress_kinds.pts, regress_kinds.m) s;
SELECT e->'tp' AS tp, e->'fp' AS fp, e->'tn' AS tn, e->'fn' AS fn
  FROM (SELECT dpobj.dp_evaluate(ARRAY[a, (c = 0)::int, (c = 1)::int, (c = 2)::int]::float8[], y,
                                 2048, 1e-6, jsonb_build_object('model', m::text)) e
          FROM regress_kinds.pts, regress_kinds.m) s;
-- an identity link predicts a value: no probability; evaluated on a float8 label
CREATE TABLE regress_kinds.r AS
SELECT ROW('ebm', '{1, 2, 3}'::float8[], 10, 1, 1e-6,
           '{"link": "identity", "y_min": 0, "y_max": 20,
             "terms": [{"type": "numeric", "index": 1, "lo": 0, "hi": 3, "bins": 3}]}')::dpobj.model AS m;
SELECT dpobj.model_kind(m), dpobj.score(m, '{100, 2.5}') AS score FROM regress_kinds.r;
SELECT regress_kinds.err($$SELECT dpobj.probability(m, '{0, 1}') FROM regress_kinds.r$$);
SELECT regress_kinds.err($$SELECT dpobj.dp_evaluate(ARRAY[a, a], y, 1, 1e-6, jsonb_build_object('model', m::text))
                             FROM regress_kinds.pts, regress_kinds.r$$);
-- forged additive models: refused before any feature vector, 22023 with a hint
SELECT f, regress_kinds.err(format($$SELECT dpobj.model_kind(ROW('ebm', %L::float8[], 0, 1, 1e-6, %L)::dpobj.model)$$, w, p))
  FROM (VALUES
    ('sizes', '{1, 2}', '{"link": "logit", "terms": [{"type": "numeric", "index": 0, "lo": 0, "hi": 1, "bins": 3}]}'),
    ('bins 0', '{1}', '{"link": "logit", "terms": [{"type": "numeric", "index": 0, "lo": 0, "hi": 1, "bins": 0}]}'),
    ('bins 4097', '{1}', '{"link": "logit", "terms": [{"type": "numeric", "index": 0, "lo": 0, "hi": 1, "bins": 4097}]}'),
    ('lo = hi', '{1}', '{"link": "logit", "terms": [{"type": "numeric", "index": 0, "lo": 1, "hi": 1, "bins": 1}]}'),
    ('hi - lo', '{1}', '{"link": "logit", "terms": [{"type": "numeric", "index": 0, "lo": -1e308, "hi": 1e308, "bins": 1}]}'),
    ('index', '{1}', '{"link": "logit", "terms": [{"type": "numeric", "index": -1, "lo": 0, "hi": 1, "bins": 1}]}'),
    ('d', '{1, 2}', '{"link": "logit", "d": 2, "terms": [{"type": "categorical", "index": 1, "size": 2}]}'),
    ('type', '{1}', '{"link": "logit", "terms": [{"type": "spline", "index": 0}]}'),
    ('terms', '{1}', '{"link": "logit", "terms": []}'),
    ('link', '{1}', '{"link": "probit", "terms": [{"type": "categorical", "index": 0, "size": 1}]}'),
    ('no link', '{1}', '{"terms": [{"type": "categorical", "index": 0, "size": 1}]}'),
    ('weights', '{NaN}', '{"link": "logit", "terms": [{"type": "categorical", "index": 0, "size": 1}]}'),
    ('ok', '{1}', '{"link": "logit", "terms": [{"type": "categorical", "index": 0, "size": 1}]}')) v(f, w, p);
-- the kind: the params' shape ("classes", "Q", "terms"), else the registry's for the
-- mechanism (adassp, ssp: regression), else linear
SELECT m, dpobj.model_kind(m::dpobj.model) FROM (VALUES
    ('(objective_gauss,{1},0,1,1e-6,"{}")'), ('(adassp,{1},0,1,1e-6,"{}")'), ('(opdisc,{1},0,1,1e-6,"{""Q"": 4}")'),
    ('(cms_ovr,"{1,2}",0,1,1e-6,"{""classes"": [""a"", ""b""], ""dims"": [2, 1]}")'),
    ('(adassp,{1},0,1,1e-6,"{""link"": ""identity"", ""terms"": [{""type"": ""categorical"", ""index"": 0, ""size"": 1}]}")'),
    ('(objective_gauss,{1},0,1,1e-6,"{""Q"": 4}")'), ('(handmade,{1},0,1,1e-6,"{}")')) v(m);
-- probability: a logistic linear model, as before
SELECT round(dpobj.probability(ROW('objective_gauss', '{2}', 0, 1, 1e-6, '{"loss": "logistic"}')::dpobj.model, '{0.5}')::numeric, 6);
SELECT regress_kinds.err($$SELECT dpobj.probability(ROW('objective_gauss', '{2}', 0, 1, 1e-6, '{}')::dpobj.model, '{0.5}')$$);

-- explain: every kind's rows; without counts (params "counts") rows is NULL and
-- importance = max - min of the feature's term
SELECT * FROM dpobj.explain((SELECT m FROM regress_kinds.m));
SELECT * FROM dpobj.explain(ROW('objective_gauss', '{0.5, -2}', 0.25, 1, 1e-6, '{}')::dpobj.model);
SELECT * FROM dpobj.explain(ROW('opdisc', '{3, -1}', 0, 1, 1e-6, '{"Q": 8}')::dpobj.model);
SELECT * FROM dpobj.explain(ROW('cms_ovr', '{1, 2, 0.5, -1, 0, 3}', 0, 1, 1e-6,
    '{"classes": ["a", "b"], "dims": [2, 3], "intercept": true}')::dpobj.model);
-- named by the encoding: column and level, numeric columns with their declared range;
-- an additive model's bins on the declared scale
SELECT * FROM dpobj.explain(ROW('objective_gauss', '{0.5, -0.5, 0, 1.5}', 0, 1, 1e-6,
    '{"encoding": [{"column": "edu", "levels": ["BA", "HS"]}, {"column": "age", "lo": 20, "hi": 60}]}')::dpobj.model);
SELECT * FROM dpobj.explain(ROW('ebm', '{0.5, -0.5, 0, -1, 0, 1, 2}', -0.1, 1, 1e-6,
    '{"link": "logit", "encoding": [{"column": "edu", "levels": ["BA", "HS"]}, {"column": "age", "lo": 20, "hi": 60}],
      "terms": [{"type": "categorical", "index": 0, "size": 3}, {"type": "numeric", "index": 3, "lo": -1, "hi": 1, "bins": 4}]}')::dpobj.model);
SELECT regress_kinds.err($$SELECT * FROM dpobj.explain(ROW('ebm', '{1}', 0, 1, 1e-6, '{"terms": []}')::dpobj.model)$$);
-- by name: the caller's own stored models only, as dpobj.get_model
SELECT dpobj.save_model('regress_kinds_m', m) FROM regress_kinds.m;
SELECT feature, level, contribution FROM dpobj.explain('regress_kinds_m') WHERE feature = 'x[1]';
CREATE ROLE regress_kinds_bob;
GRANT USAGE ON SCHEMA regress_kinds TO regress_kinds_bob;
SET ROLE regress_kinds_bob;
SELECT regress_kinds.err($$SELECT * FROM dpobj.explain('regress_kinds_m')$$);
RESET ROLE;
SELECT feature FROM dpobj.explain('regress_kinds_m') LIMIT 1;
SELECT dpobj.drop_model('regress_kinds_m');
DROP SCHEMA regress_kinds CASCADE;
DROP ROLE regress_kinds_bob;
