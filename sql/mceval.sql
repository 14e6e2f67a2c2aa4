-- Private evaluation of a one-vs-rest multi-class model: the text-label overload of
-- dpobj.dp_evaluate (K x K noisy confusion counts) and dpobj.evaluate() on a protected
-- table with a text or integer label column.
CREATE SCHEMA regress_mce;
-- three classes around (1, 0), (-1, 0) and (0, 1); every 10th row carries the next label
CREATE TABLE regress_mce.pts AS
SELECT i, (ARRAY[1, -1, 0])[c + 1] + 0.3 * sin(i) AS a,
       (ARRAY[0, 0, 1])[c + 1] + 0.3 * cos(i) AS b,
       (ARRAY['red', 'green', 'blue'])[(c + CASE WHEN i % 10 = 0 THEN 1 ELSE 0 END) % 3 + 1] AS colour,
       (c + CASE WHEN i % 10 = 0 THEN 1 ELSE 0 END) % 3 AS k, i % 2 = 0 AS flag
  FROM generate_series(1, 9000) i, LATERAL (SELECT i % 3 AS c) s;
-- a public model: scores a, -a, b for red, green, blue (a forged model is a public input)
CREATE TABLE regress_mce.m AS
SELECT ROW('logistic', ARRAY[1, 0, -1, 0, 0, 1]::float8[], 0, 1, 1e-6,
           '{"classes": ["red", "green", "blue"], "dims": [3, 2]}')::dpobj.model AS m;
CREATE TABLE regress_mce.mk AS
SELECT ROW('logistic', ARRAY[1, 0, -1, 0, 0, 1]::float8[], 0, 1, 1e-6,
           '{"classes": ["0", "1", "2"], "dims": [3, 2]}')::dpobj.model AS m;
-- the exact confusion counts, for comparison
CREATE TEMP TABLE exact AS
SELECT colour, dpobj.predict_class(m, ARRAY[a, b]::float8[]) AS pred, count(*)::float8 AS n
  FROM regress_mce.pts, regress_mce.m GROUP BY 1, 2;
SELECT colour, pred, n FROM exact ORDER BY 1, 2;
CREATE TEMP TABLE exact_acc AS
SELECT sum(n) FILTER (WHERE colour = pred) / sum(n) AS acc FROM exact;
SELECT acc FROM exact_acc;

-- at epsilon 1: every noisy count is close, the intervals cover the exact metrics
SET dpobj.seed = 11;
CREATE TEMP TABLE e1 AS
SELECT dpobj.dp_evaluate(ARRAY[a, b]::float8[], colour, 1, 1e-6,
                         jsonb_build_object('model', m::text)) e
  FROM regress_mce.pts, regress_mce.m;
SELECT jsonb_array_length(e->'confusion') AS rows, abs((e->>'n')::float8 - 9000) < 100 AS n_close,
       e->'noise'->>'mechanism' AS noise, (e->'noise'->>'scale')::float8 AS scale,
       (e->'noise'->>'epsilon_used')::float8 AS eps_used, e->'epsilon' AS eps
  FROM e1;
-- cell (i, j) is true class i, predicted class j, in the model's declared order
SELECT bool_and(abs((e->'confusion'->(t.i - 1)->>(p.j - 1))::float8 -
                    coalesce((SELECT n FROM exact x WHERE x.colour = (ARRAY['red', 'green', 'blue'])[t.i]
                                AND x.pred = (ARRAY['red', 'green', 'blue'])[p.j]), 0)) < 30)
       AS counts_close
  FROM e1, generate_series(1, 3) t(i), generate_series(1, 3) p(j);
SELECT (e->'accuracy'->'ci95'->>0)::float8 <= acc AND acc <= (e->'accuracy'->'ci95'->>1)::float8
       AS accuracy_covered,
       round((e->'accuracy'->>'estimate')::numeric, 2) AS accuracy,
       round((e->'macro_recall'->>'estimate')::numeric, 2) AS macro_recall,
       round((e->'majority_baseline'->>'estimate')::numeric, 2) AS baseline
  FROM e1, exact_acc;
SELECT i - 1 AS class, round((c->>'support')::numeric, -2) AS support,
       round((c->'recall'->>'estimate')::numeric, 2) AS recall,
       round((c->'precision'->>'estimate')::numeric, 2) AS precision,
       (c->'recall'->'ci95'->>1)::float8 - (c->'recall'->'ci95'->>0)::float8 < 0.05 AS narrow
  FROM e1, jsonb_array_elements(e->'per_class') WITH ORDINALITY pc(c, i) ORDER BY i;
-- at epsilon 0.001 the noise dominates: the intervals widen with it and still cover
SET dpobj.seed = 12;
SELECT (e->'accuracy'->'ci95'->>0)::float8 <= acc AND acc <= (e->'accuracy'->'ci95'->>1)::float8
       AS covered,
       (e->'accuracy'->'ci95'->>1)::float8 - (e->'accuracy'->'ci95'->>0)::float8 > 0.01 AS wider,
       (e->'noise'->>'scale')::float8 AS scale
  FROM (SELECT dpobj.dp_evaluate(ARRAY[a, b]::float8[], colour, 0.001, 1e-6,
                                 jsonb_build_object('model', m::text)) e
          FROM regress_mce.pts, regress_mce.m) s, exact_acc;
-- a privacy unit of up to 4 rows: the noise is for epsilon / 4
SELECT (e->'noise'->>'scale')::float8 AS scale, (e->'noise'->>'epsilon_used')::float8 AS eps_used
  FROM (SELECT dpobj.dp_evaluate(ARRAY[a, b]::float8[], colour, 1, 1e-6,
                                 jsonb_build_object('model', m::text, 'rows_per_unit', 4)) e
          FROM regress_mce.pts, regress_mce.m) s;
-- no row: nothing runs
SELECT dpobj.dp_evaluate(ARRAY[a, b]::float8[], colour, 1, 1e-6, jsonb_build_object('model', m::text))
  FROM regress_mce.pts, regress_mce.m WHERE false;
RESET dpobj.seed;

-- the direct aggregate reports a bad row, naming no value
SELECT dpobj.dp_evaluate(ARRAY[a, b]::float8[], 'purple', 1, 1e-6, jsonb_build_object('model', m::text))
  FROM regress_mce.pts, regress_mce.m WHERE i < 3;
SELECT dpobj.dp_evaluate(ARRAY[a, b]::float8[], NULL::text, 1, 1e-6, jsonb_build_object('model', m::text))
  FROM regress_mce.pts, regress_mce.m WHERE i < 3;
SELECT dpobj.dp_evaluate(ARRAY[a, 'NaN']::float8[], colour, 1, 1e-6, jsonb_build_object('model', m::text))
  FROM regress_mce.pts, regress_mce.m WHERE i < 3;
-- the label's type must fit the model
SELECT dpobj.dp_evaluate(ARRAY[a, b]::float8[], colour, 1, 1e-6,
       jsonb_build_object('model', ROW('forged', ARRAY[1, 1]::float8[], 0, 1, 1e-6, '{}')::dpobj.model::text))
  FROM regress_mce.pts WHERE i < 3;
SELECT dpobj.dp_evaluate(ARRAY[a, b]::float8[], k > 0, 1, 1e-6, jsonb_build_object('model', m::text))
  FROM regress_mce.pts, regress_mce.m WHERE i < 3;
SELECT dpobj.dp_evaluate(ARRAY[a, b]::float8[], k::float8, 1, 1e-6, jsonb_build_object('model', m::text))
  FROM regress_mce.pts, regress_mce.m WHERE i < 3;
-- public grounds: features against the model, too many classes, a malformed model
SELECT dpobj.dp_evaluate(ARRAY[a]::float8[], colour, 1, 1e-6, jsonb_build_object('model', m::text))
  FROM regress_mce.pts, regress_mce.m WHERE i < 3;
SELECT dpobj.dp_evaluate(ARRAY[a, b]::float8[], colour, 1, 1e-6, jsonb_build_object('model',
         ROW('forged', array_fill(0::float8, ARRAY[65 * 2]), 0, 1, 1e-6,
             jsonb_build_object('classes', (SELECT jsonb_agg(g::text) FROM generate_series(1, 65) g),
                                'dims', jsonb_build_array(65, 2)))::dpobj.model::text))
  FROM regress_mce.pts WHERE i < 3;
SELECT dpobj.dp_evaluate(ARRAY[a, b]::float8[], colour, 1, 1e-6, jsonb_build_object('model',
         ROW('forged', ARRAY[1, 0, -1]::float8[], 0, 1, 1e-6,
             '{"classes": ["red", "green", "blue"], "dims": [3, 2]}')::dpobj.model::text))
  FROM regress_mce.pts WHERE i < 3;
-- the state is the aggregate's own: a forged one is refused
SELECT dpobj.dp_evaluate_multiclass_finalfn(ARRAY[1, 1e-6, 2, 1, 3, 0]::float8[]);

-- the protected path: a text or an integer label column; a NULL or undeclared class is
-- dropped, never reported
CREATE ROLE regress_mce_analyst;
INSERT INTO regress_mce.pts VALUES (9001, 0.1, 0.2, NULL, NULL, true),
                                   (9002, 0.1, 0.2, 'purple', 7, true), (9003, 'NaN', 0.2, 'red', 0, true);
SELECT dpobj.protect('regress_mce.pts');
SELECT granted_epsilon FROM dpobj.grant_budget('regress_mce.pts', 'regress_mce_analyst', 10, 0.001);
GRANT USAGE ON SCHEMA regress_mce TO regress_mce_analyst;
GRANT SELECT ON regress_mce.m, regress_mce.mk TO regress_mce_analyst;
SET ROLE regress_mce_analyst;
SELECT jsonb_array_length(e->'confusion') AS rows, abs((e->>'n')::float8 - 9000) < 100 AS n_close,
       (e->'accuracy'->>'estimate')::float8 > 0.8 AS accurate
  FROM regress_mce.m, dpobj.evaluate('regress_mce.pts', m, ARRAY['a', 'b'], 'colour', 1, 1e-6, '{}') e;
SELECT jsonb_array_length(e->'per_class') AS classes, abs((e->>'n')::float8 - 9000) < 100 AS n_close
  FROM regress_mce.mk, dpobj.evaluate('regress_mce.pts', m, ARRAY['a', 'b'], 'k', 1, 1e-6, '{}') e;
-- an empty selection releases too (noise only), charged like any run
SELECT jsonb_array_length(e->'confusion') AS rows
  FROM regress_mce.m, dpobj.evaluate('regress_mce.pts', m, ARRAY['a', 'b'], 'colour', 1, 1e-6,
                                     '{"filter": [{"column": "i", "op": "<", "value": 0}]}') e;
-- refused before the charge, on public grounds: a boolean label for a multi-class
-- model, too many features, too many classes
SELECT dpobj.evaluate('regress_mce.pts', m, ARRAY['a', 'b'], 'flag', 1, 1e-6, '{}')
  FROM regress_mce.m;
SELECT dpobj.evaluate('regress_mce.pts', m, ARRAY['a', 'b', 'i'], 'colour', 1, 1e-6, '{}')
  FROM regress_mce.m;
SELECT dpobj.evaluate('regress_mce.pts',
         ROW('forged', array_fill(0::float8, ARRAY[65 * 2]), 0, 1, 1e-6,
             jsonb_build_object('classes', (SELECT jsonb_agg(g::text) FROM generate_series(1, 65) g),
                                'dims', jsonb_build_array(65, 2)))::dpobj.model,
         ARRAY['a', 'b'], 'colour', 1, 1e-6, '{}');
RESET ROLE;
SELECT mechanism, epsilon, outcome FROM dpobj.ledger
 WHERE relation = 'regress_mce.pts' ORDER BY id;
SELECT dpobj.unprotect('regress_mce.pts');
DROP SCHEMA regress_mce CASCADE;
DROP ROLE regress_mce_analyst;
