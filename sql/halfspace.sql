-- dp_halfspace end to end on small synthetic data, with reproducible
-- noise (dpobj.seed, superuser only).
SET dpobj.seed = 7;

-- 400 rows with features on the lattice (1/64)Z (so that the SQL brute
-- force below sees exactly the quantised data); labels from a noisy
-- halfspace.  setseed makes the data identical on every run.
SELECT setseed(0.25);
CREATE TABLE train AS
SELECT ARRAY[x1, x2, 1.0]::float8[] AS f,
       (x1 - 0.5 * x2 + 0.1 * (random() - 0.5) > 0.05) AS y
  FROM (SELECT (floor(random() * 129) - 64) / 64.0 AS x1,
               (floor(random() * 129) - 64) / 64.0 AS x2
          FROM generate_series(1, 400)) s;

-- defaults: tau = 1, B = floor(sqrt(3)) = 1, D2 = 3, Q = 64
SELECT (m).mechanism, (m).weights, (m).bias, (m).epsilon, (m).delta, (m).params
  FROM (SELECT dpobj.dp_halfspace(f, y, 1.0, 1e-6) AS m FROM train) s;

-- the same seed gives the same model, and both exact oracles agree (on 60
-- rows: the GLPK MIP needs minutes for the 400 distinct rows of train)
CREATE TABLE train_small AS SELECT * FROM train LIMIT 60;
SELECT (dpobj.dp_halfspace(f, y, 1.0, 1e-6, '{"oracle": "mip"}')).weights AS mip,
       (dpobj.dp_halfspace(f, y, 1.0, 1e-6, '{"oracle": "search"}')).weights AS search,
       (dpobj.dp_halfspace(f, y, 1.0, 1e-6)).weights AS auto
  FROM train_small;

-- overriding the grid: B = 3, D2 = 9 (the model records the public parameters)
SELECT (m).weights, (m).params->'B' AS b, (m).params->'D2' AS d2, (m).params->'sigma' AS sigma
  FROM (SELECT dpobj.dp_halfspace(f, y, 5.0, 1e-6, '{"B": 3, "D2": 9}') AS m FROM train) s;

-- with a very large epsilon the model is the non-private optimum: its
-- training errors equal the minimum over the whole grid (enumerated here)
CREATE TABLE fit AS
SELECT dpobj.dp_halfspace(f, y, 1e9, 1e-6, '{"B": 2, "D2": 12}') AS m FROM train;
WITH grid AS (
  SELECT ARRAY[a, b, c]::float8[] AS w
    FROM generate_series(-2, 2) a, generate_series(-2, 2) b, generate_series(-2, 2) c
   WHERE a * a + b * b + c * c <= 12),
errs AS (
  SELECT w, sum(((w[1] * f[1] + w[2] * f[2] + w[3] * f[3] > 0) <> y)::int) AS errors
    FROM grid, train GROUP BY w)
SELECT (SELECT min(errors) FROM errs) AS best_errors_on_grid,
       (SELECT count(*) FILTER (WHERE dpobj.predict(m, f) <> y) FROM train, fit) AS model_errors;

-- store a model, use it later
CREATE TABLE my_models AS
SELECT 'v1'::text AS name, dpobj.dp_halfspace(f, y, 2.0, 1e-6) AS model FROM train;
SELECT name, (model).weights, count(*) FILTER (WHERE dpobj.predict(model, f) = y) AS correct
  FROM my_models, train GROUP BY name, model;

-- GROUP BY trains one model per group (each one a charged run)
SELECT f[1] > 0 AS half, (dpobj.dp_halfspace(f, y, 1.0, 1e-6)).weights
  FROM train GROUP BY 1 ORDER BY 1;

-- empty input: no mechanism runs, NULL, nothing charged
SELECT count(*) AS ledger_before FROM dpobj.ledger \gset
SELECT dpobj.dp_halfspace(f, y, 1.0, 1e-6) IS NULL AS is_null FROM train WHERE false;
SELECT count(*) - :ledger_before AS new_ledger_rows FROM dpobj.ledger;

-- duplicate rows and a feature vector of zeros (always predicts -1)
SELECT (dpobj.dp_halfspace(f, y, 1e9, 1e-6)).weights
  FROM (SELECT '{0, 0}'::float8[] AS f, true AS y FROM generate_series(1, 5)
        UNION ALL SELECT '{0.5, 0}', true FROM generate_series(1, 3)
        UNION ALL SELECT '{-0.5, 0.25}', false FROM generate_series(1, 4)) s;

-- every run above is in the ledger, with the source table when known
SELECT mechanism, epsilon, delta, relation, outcome, detail, count(*)
  FROM dpobj.ledger GROUP BY 1, 2, 3, 4, 5, 6 ORDER BY 2, 3, 4, 6;

-- solver detail (node counts, objective values, GLPK's log) depends on the
-- data: it never reaches the client, whatever client_min_messages says
SET client_min_messages = debug1;
SELECT (dpobj.dp_halfspace(f, y, 1.0, 1e-6, '{"oracle": "mip"}')).weights AS mip_quiet,
       (dpobj.dp_halfspace(f, y, 1.0, 1e-6, '{"oracle": "search"}')).weights AS search_quiet
  FROM train_small;
RESET client_min_messages;

RESET dpobj.seed;
