-- One-vs-rest multi-class: dp_logistic_multiclass, dp_noisysgd_multiclass,
-- predict_class, and train()'s logistic_multiclass / noisysgd_multiclass.
-- Bad rows are errors on the direct aggregates and dropped on the protected path.
CREATE SCHEMA regress_mc;
CREATE TABLE regress_mc.pts AS
SELECT g AS id,
       round(cos(g * 2 * pi() / 3 + (g % 7) * 0.05)::numeric, 3) AS a,
       round(sin(g * 2 * pi() / 3 + (g % 5) * 0.05)::numeric, 3)::float8 AS b,
       (ARRAY['red', 'green', 'blue'])[g % 3 + 1] AS colour,
       g % 3 AS k
  FROM generate_series(1, 600) g;
CREATE VIEW regress_mc.v AS SELECT ARRAY[a, b]::float8[] AS x, colour, k FROM regress_mc.pts;
SET dpobj.seed = 7;

-- the model: K x p weights, bias 0, public params
SELECT (m).mechanism, cardinality((m).weights) AS n, (m).bias, (m).epsilon,
       (m).params->'classes' AS classes, (m).params->'dims' AS dims,
       (m).params->>'class_epsilon' AS class_eps, (m).params->>'class_delta' AS class_delta
  FROM (SELECT dpobj.dp_logistic_multiclass(x, colour, 3, 1e-6,
               '{"classes": ["red", "green", "blue"], "R": 1.5}') m FROM regress_mc.v) s;
-- integer labels match "classes" given as numbers or strings
SELECT (m).mechanism, (m).params->'classes' AS classes
  FROM (SELECT dpobj.dp_logistic_multiclass(x, k, 3, 1e-6,
               '{"classes": [0, 1, 2], "R": 1.5, "method": "cms"}') m FROM regress_mc.v) s;
SELECT (m).mechanism, (m).params->>'class_rho' AS class_rho, (m).params->'dims' AS dims
  FROM (SELECT dpobj.dp_noisysgd_multiclass(x, k, 3, 1e-6,
               '{"classes": ["0", "1", "2"], "R": 1.5, "T": 200, "intercept": false}') m FROM regress_mc.v) s;
-- "gradient_clip" c: each class's noise for 2 c R_eff (default 1: no class weights here)
SELECT c, (m).params->>'gradient_clip' AS clip,
       round(((m).params->>'sigma')::numeric / ((SELECT (dpobj.dp_noisysgd_multiclass(x, k, 3, 1e-6,
               '{"classes": [0, 1, 2], "R": 1.5}')).params->>'sigma' FROM regress_mc.v))::numeric, 6) AS sigma_ratio
  FROM (SELECT c, (SELECT dpobj.dp_noisysgd_multiclass(x, k, 3, 1e-6,
               jsonb_build_object('classes', '[0, 1, 2]'::jsonb, 'R', 1.5, 'gradient_clip', c)) FROM regress_mc.v) m
          FROM (VALUES (1), (0.5)) v(c)) s;
-- Output-Gauss composes in rho: rho / K per class
SELECT abs(((m).params->>'rho')::float8 * 3 /
           (dpobj.glm_calibration(3, 1e-6, '{"R": 1.5, "method": "output", "metric": "accuracy"}')->>'rho')::float8 - 1)
         < 1e-12 AS rho_split
  FROM (SELECT dpobj.dp_logistic_multiclass(x, colour, 3, 1e-6,
               '{"classes": ["red", "green", "blue"], "R": 1.5, "method": "output"}') m FROM regress_mc.v) s;

-- predict_class: these classes are separable, so the seeded models are accurate
CREATE TABLE regress_mc.models AS
SELECT 'objective' AS method, dpobj.dp_logistic_multiclass(x, colour, 3, 1e-6,
       '{"classes": ["red", "green", "blue"], "R": 1.5}') m FROM regress_mc.v
UNION ALL
SELECT 'noisysgd', dpobj.dp_noisysgd_multiclass(x, colour, 3, 1e-6,
       '{"classes": ["red", "green", "blue"], "R": 1.5, "T": 300}') FROM regress_mc.v;
SELECT method, avg((dpobj.predict_class(m, x) = colour)::int) > 0.9 AS accurate
  FROM regress_mc.models, regress_mc.v GROUP BY method ORDER BY method;
-- argmax, ties to the first class
SELECT dpobj.predict_class(ROW('x', ARRAY[1, 0, 0, 1, 0, 0], 0, 1, 1e-6,
         '{"classes": ["p", "q"], "dims": [2, 3], "intercept": true}')::dpobj.model,
       ARRAY[2, 5]) AS tie,
       dpobj.predict_class(ROW('x', ARRAY[1, 0, 0, 1, 0, 0.5], 0, 1, 1e-6,
         '{"classes": ["p", "q"], "dims": [2, 3], "intercept": true}')::dpobj.model,
       ARRAY[2, 5]) AS second;
-- a multi-class model has no single margin; a binary model no classes
\set VERBOSITY default
SELECT dpobj.predict(m, ARRAY[0.1, 0.2]) FROM regress_mc.models WHERE method = 'objective';
SELECT dpobj.score(m, ARRAY[0.1, 0.2]) FROM regress_mc.models WHERE method = 'objective';
SELECT dpobj.predict_class(ROW('x', ARRAY[1, 2], 0, 1, 1e-6, '{}')::dpobj.model, ARRAY[1, 2]);
SELECT dpobj.predict_class(ROW('x', ARRAY[1, 2], 0, 1, 1e-6,
         '{"classes": ["p", "q"], "dims": [2, 3]}')::dpobj.model, ARRAY[1, 2]);
SELECT dpobj.predict_class(m, ARRAY[0.1]) FROM regress_mc.models WHERE method = 'objective';
SELECT dpobj.predict_class(m, ARRAY[0.1, 'NaN']) FROM regress_mc.models WHERE method = 'objective';

-- errors on the direct aggregates: bad rows
SELECT dpobj.dp_logistic_multiclass(x, CASE WHEN k = 2 THEN 'purple' ELSE colour END, 1, 1e-6,
       '{"classes": ["red", "green", "blue"], "R": 1}') FROM regress_mc.v;
SELECT dpobj.dp_logistic_multiclass(x, NULLIF(colour, 'red'), 1, 1e-6,
       '{"classes": ["red", "green", "blue"], "R": 1}') FROM regress_mc.v;
SELECT dpobj.dp_noisysgd_multiclass(x, k + 1, 1, 1e-6,
       '{"classes": [0, 1, 2], "R": 1}') FROM regress_mc.v;
-- errors: bad options
SELECT dpobj.dp_logistic_multiclass(x, colour, 1, 1e-6, '{"R": 1}') FROM regress_mc.v;
SELECT dpobj.dp_logistic_multiclass(x, colour, 1, 1e-6, '{"classes": ["red"], "R": 1}') FROM regress_mc.v;
SELECT dpobj.dp_logistic_multiclass(x, colour, 1, 1e-6, '{"classes": ["red", "red"], "R": 1}') FROM regress_mc.v;
SELECT dpobj.dp_logistic_multiclass(x, k, 1, 1e-6, '{"classes": [0, "0"], "R": 1}') FROM regress_mc.v;
SELECT dpobj.dp_logistic_multiclass(x, colour, 1, 1e-6, '{"classes": "red", "R": 1}') FROM regress_mc.v;
SELECT dpobj.dp_logistic_multiclass(x, colour, 1, 1e-6, '{"classes": ["red", 1.5], "R": 1}') FROM regress_mc.v;
SELECT dpobj.dp_logistic_multiclass(x, colour, 1, 1e-6, '{"classes": ["red", ""], "R": 1}') FROM regress_mc.v;
SELECT dpobj.dp_logistic_multiclass(x, colour, 1, 1e-6,
       jsonb_build_object('classes', (SELECT jsonb_agg(g) FROM generate_series(1, 65) g), 'R', 1))
  FROM regress_mc.v;
SELECT dpobj.dp_logistic_multiclass(x, colour, 1, 1e-6,
       '{"classes": ["red", "green", "blue"], "R": 1, "T": 5}') FROM regress_mc.v;
SELECT dpobj.dp_noisysgd_multiclass(x, colour, 1, 1e-6,
       '{"classes": ["red", "green", "blue"], "R": 1, "method": "cms"}') FROM regress_mc.v;
-- a user lambda must meet the objective bound at epsilon / K
SELECT dpobj.dp_logistic_multiclass(x, colour, 1, 1e-6,
       '{"classes": ["red", "green", "blue"], "R": 1, "lambda": 1}') FROM regress_mc.v;
-- binary aggregates know no classes
SELECT dpobj.dp_logistic(x, k > 0, 1, 1e-6, '{"classes": [0, 1], "R": 1}') FROM regress_mc.v;
RESET dpobj.seed;

-- the protected path: a text or integer label column; a NULL or undeclared class is
-- dropped, not reported
CREATE ROLE regress_mc_analyst;
INSERT INTO regress_mc.pts VALUES (601, 0.1, 0.2, NULL, NULL), (602, 0.1, 0.2, 'purple', 7);
SELECT dpobj.protect('regress_mc.pts');
SELECT granted_epsilon FROM dpobj.grant_budget('regress_mc.pts', 'regress_mc_analyst', 10, 0.001);
GRANT USAGE ON SCHEMA regress_mc TO regress_mc_analyst;
SET ROLE regress_mc_analyst;
SELECT (m).mechanism, (m).params->'classes' AS classes, cardinality((m).weights) AS n
  FROM dpobj.train('regress_mc.pts', 'logistic_multiclass', ARRAY['a', 'b'], 'colour', 1, 1e-6,
                   '{"classes": ["red", "green", "blue"], "R": 1.5}', 'regress_mc_model') m;
SELECT (m).mechanism, (m).params->'classes' AS classes
  FROM dpobj.train('regress_mc.pts', 'noisysgd_multiclass', ARRAY['a', 'b'], 'k', 1, 1e-6,
                   '{"classes": [0, 1, 2], "R": 1.5, "T": 100}') m;
SELECT name, mechanism, params->'dims' AS dims FROM dpobj.models WHERE name = 'regress_mc_model';
-- refused before the charge: a boolean label, a missing class set, a binary mechanism
-- on a text label
SELECT dpobj.train('regress_mc.pts', 'logistic_multiclass', ARRAY['a', 'b'], 'a', 1, 1e-6,
                   '{"classes": [0, 1], "R": 1}');
SELECT dpobj.train('regress_mc.pts', 'logistic_multiclass', ARRAY['a', 'b'], 'colour', 1, 1e-6,
                   '{"R": 1}');
SELECT dpobj.train('regress_mc.pts', 'logistic', ARRAY['a', 'b'], 'colour', 1, 1e-6, '{"R": 1}');
-- evaluated privately on its integer label (sql/mceval.sql tests the release)
SELECT jsonb_array_length(e->'confusion') AS k, jsonb_array_length(e->'per_class') AS classes
  FROM dpobj.models, dpobj.evaluate('regress_mc.pts', model, ARRAY['a', 'b'], 'k', 1, 1e-6, '{}') e
 WHERE name = 'regress_mc_model';
SELECT dpobj.drop_model('regress_mc_model');
RESET ROLE;
SELECT mechanism, epsilon, outcome FROM dpobj.ledger
 WHERE relation = 'regress_mc.pts' ORDER BY id;
SELECT dpobj.unprotect('regress_mc.pts');
DROP SCHEMA regress_mc CASCADE;
DROP ROLE regress_mc_analyst;
