-- dpobj.model values: prediction with sgn(0) = -1, the lattice rounding of
-- halfspace models, storage in tables, readable output.
CREATE TABLE models (name text PRIMARY KEY, m dpobj.model);
INSERT INTO models VALUES
  ('halfspace', ROW('opdisc', '{2,-1,0}', 0, 1, 1e-6, '{"Q": 64, "B": 2, "D2": 4}')::dpobj.model),
  ('linear',    ROW('logistic', '{0.5,-0.25}', 0.125, 1, 1e-6, '{}')::dpobj.model);

-- stored and printed like any composite
SELECT name, (m).mechanism, (m).weights, (m).bias, (m).params FROM models ORDER BY name;
SELECT to_jsonb(m) FROM models WHERE name = 'halfspace';

-- halfspace: +1 iff <w, x> > 0; a zero margin predicts -1
SELECT x, dpobj.score(m, x), dpobj.predict(m, x)
  FROM models, (VALUES ('{1, 2, 5}'::float8[]), ('{1, 1, 5}'), ('{0.5, 1, -3}'),
                       ('{0.5, 0.984375, 0}'), ('{-1, 0, 0}')) v(x)
 WHERE name = 'halfspace';

-- features are rounded to multiples of 1/Q = 1/64 exactly as in training:
-- 0.007 rounds to 0, so <w, x> = 0.014 > 0 in floats but the model says -1;
-- 0.008 rounds to 1/64
SELECT x, dpobj.score(m, x), dpobj.predict(m, x)
  FROM models, (VALUES ('{0.007, 0, 0}'::float8[]), ('{0.008, 0, 0}'), ('{-0.0078125, 0, 0}')) v(x)
 WHERE name = 'halfspace';

-- other models: float margin <w, x> + bias
SELECT x, dpobj.score(m, x), dpobj.predict(m, x)
  FROM models, (VALUES ('{1, 1}'::float8[]), ('{0, 0.5}'), ('{-1, 0}')) v(x)
 WHERE name = 'linear';

-- predict over a table: agrees with sgn(<w, x>) computed in SQL
SELECT count(*) FILTER (WHERE dpobj.predict(m, x) = (2 * x[1] - x[2] > 0)) AS agree,
       count(*) AS total
  FROM models,
       (SELECT ARRAY[(i % 17) / 16.0 - 0.5, (i % 13) / 8.0 - 0.75, i]::float8[] AS x
          FROM generate_series(1, 1000) i) v
 WHERE name = 'halfspace';

-- strict: NULL in, NULL out
SELECT dpobj.predict(NULL::dpobj.model, '{1}') IS NULL AS null_model,
       dpobj.predict(m, NULL) IS NULL AS null_features
  FROM models WHERE name = 'linear';

-- errors
SELECT dpobj.predict(m, '{1, 2}') FROM models WHERE name = 'halfspace';
SELECT dpobj.predict(m, '{1, NULL, 2}') FROM models WHERE name = 'halfspace';
SELECT dpobj.predict(m, '{1, NaN, 2}') FROM models WHERE name = 'halfspace';
SELECT dpobj.score(m, '{Infinity, 0}') FROM models WHERE name = 'linear';
SELECT dpobj.predict(m, '{{1, 2}, {3, 4}}') FROM models WHERE name = 'linear';
SELECT dpobj.predict(ROW('opdisc', '{0.5, 1}', 0, 1, 1e-6, '{"Q": 64}')::dpobj.model, '{1, 1}');
SELECT dpobj.predict(ROW('opdisc', NULL, 0, 1, 1e-6, '{}')::dpobj.model, '{1, 1}');
SELECT dpobj.predict(ROW('opdisc', '{1, NULL}', 0, 1, 1e-6, '{}')::dpobj.model, '{1, 1}');
