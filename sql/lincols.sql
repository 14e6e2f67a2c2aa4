-- dp_linear_regression_cols and dp_passglm_cols: the features as separate float8
-- arguments (VARIADIC "any", no array per row), the array aggregates' state, combine and
-- final functions -- the same model under one seed, serially and in parallel workers,
-- the same rows dropped on the sealed path and the same errors on the direct path; and
-- dpobj.train() runs them for 'linear' and 'passglm'.
CREATE SCHEMA regress_lc;
GRANT USAGE ON SCHEMA regress_lc TO PUBLIC;
CREATE TABLE regress_lc.pts AS
SELECT i, ((i * 37) % 101) / 101.0::float8 - 0.5 AS a, ((i * 53) % 97) / 97.0::float8 - 0.5 AS b,
       (i % 13)::float8 / 26 AS c, (i * 7) % 5 AS k,
       1.0 + 2.0 * (((i * 37) % 101) / 101.0 - 0.5) - (((i * 53) % 97) / 97.0 - 0.5)
         + 0.1 * ((i % 11) - 5) AS y
  FROM generate_series(1, 4000) i;
ALTER TABLE regress_lc.pts ALTER COLUMN y TYPE float8, ADD COLUMN yb boolean;
UPDATE regress_lc.pts SET yb = y > 1;
-- the rows a sealed run drops: NULL, NaN or an infinity in a feature or the label, each
-- 300 times (kept, they would move the model far)
CREATE TABLE regress_lc.bad AS SELECT * FROM regress_lc.pts;
INSERT INTO regress_lc.bad (i, a, b, c, k, y, yb)
SELECT i, a, b, c, 1, y, yb FROM (VALUES
  (-1, NULL::float8, 0::float8, 0::float8, 5::float8, true), (-2, 0.4, 'NaN', 0, 5, true), (-3, 0.4, 0, 'Infinity', 5, true),
  (-4, 0.4, 0, 0, NULL, NULL), (-5, 0.4, 0, 0, '-Infinity', NULL), (-6, 0.4, 0.1, NULL, 5, NULL))
  v(i, a, b, c, y, yb), generate_series(1, 300);

-- run AGG over REL with OPTS (:'lo' linear, :'go' passglm); the model as text in :NAME
\set lo '{"R": 1, "y_min": -1, "y_max": 3}'
\set go '{"R": 1}'
\set los '{"R": 1, "y_min": -1, "y_max": 3, "sealed": true}'
\set gos '{"R": 1, "sealed": true}'
\set lin_arr 'dpobj.dp_linear_regression(ARRAY[a, b, c], y, 1, 1e-6, '
\set lin_cols 'dpobj.dp_linear_regression_cols(y, 1, 1e-6, '
\set glm_arr 'dpobj.dp_passglm(ARRAY[a, b, c], yb, 1, 1e-6, '
\set glm_cols 'dpobj.dp_passglm_cols(yb, 1, 1e-6, '
SET dpobj.seed = 11;
SELECT :lin_arr :'lo')::text AS la, :lin_cols :'lo', a, b, c)::text AS lc,
       :glm_arr :'go')::text AS ga, :glm_cols :'go', a, b, c)::text AS gc FROM regress_lc.pts \gset
-- the same model text under one seed (and not a constant: another seed, another model)
SELECT :'lc' = :'la' AS lin_same, :'gc' = :'ga' AS glm_same;
SET dpobj.seed = 3;
SELECT :lin_cols :'lo', a, b, c)::text <> :'la' AS lin_seeds_differ,
       :glm_cols :'go', a, b, c)::text <> :'ga' AS glm_seeds_differ FROM regress_lc.pts;
SET dpobj.seed = 11;
-- ... with the other options (SSP without intercept; passglm's ridge)
SELECT :lin_cols '{"R": 1, "y_min": -1, "y_max": 3, "method": "ssp", "intercept": false}', a, b, c)::text
     = :lin_arr '{"R": 1, "y_min": -1, "y_max": 3, "method": "ssp", "intercept": false}')::text AS ssp_same,
       :glm_cols '{"R": 1, "ridge": 0.5}', a, b, c)::text = :glm_arr '{"R": 1, "ridge": 0.5}')::text AS ridge_same
  FROM regress_lc.pts;
-- in parallel workers (the partial aggregates' plan): the same again
SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0; SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT :lin_cols :'lo', a, b, c) FROM regress_lc.pts;
SELECT :lin_cols :'lo', a, b, c)::text = :'la' AS lin_parallel_same,
       :glm_cols :'go', a, b, c)::text = :'ga' AS glm_parallel_same FROM regress_lc.pts;

-- sealed (the protected path's options): the bad rows dropped as the array aggregate
-- drops them, so the model is the clean table's -- serial and parallel
SELECT :lin_cols :'los', a, b, c)::text AS lcs, :glm_cols :'gos', a, b, c)::text AS gcs
  FROM regress_lc.pts \gset
SELECT :lin_cols :'los', a, b, c)::text = :'lcs' AS lin_same_par,
       :lin_arr :'los')::text = :'lcs' AS lin_array_par,
       :glm_cols :'gos', a, b, c)::text = :'gcs' AS glm_same_par,
       :glm_arr :'gos')::text = :'gcs' AS glm_array_par FROM regress_lc.bad;
RESET parallel_setup_cost; RESET parallel_tuple_cost; RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
SELECT :lin_cols :'los', a, b, c)::text = :'lcs' AS lin_same,
       :lin_arr :'los')::text = :'lcs' AS lin_array,
       :glm_cols :'gos', a, b, c)::text = :'gcs' AS glm_same,
       :glm_arr :'gos')::text = :'gcs' AS glm_array FROM regress_lc.bad;
-- only bad rows: the same (a non-finite row is dropped after the state's first checks)
SELECT :lin_cols :'los', a, b, c)::text = :lin_arr :'los')::text AS lin_bad_only,
       :glm_cols :'gos', a, b, c)::text = :glm_arr :'gos')::text AS glm_bad_only
  FROM regress_lc.bad WHERE i < 0;
RESET dpobj.seed;

-- the direct path: every bad row is the array aggregate's error
SELECT * FROM regress.err($$SELECT dpobj.dp_linear_regression_cols(y, 1, 1e-6, '{"R": 1, "y_min": -1, "y_max": 3}', a, b, c) FROM regress_lc.bad WHERE i IN (1, -1)$$);
SELECT * FROM regress.err($$SELECT dpobj.dp_linear_regression(ARRAY[a, b, c], y, 1, 1e-6, '{"R": 1, "y_min": -1, "y_max": 3}') FROM regress_lc.bad WHERE i IN (1, -1)$$);
SELECT * FROM regress.err($$SELECT dpobj.dp_linear_regression_cols(y, 1, 1e-6, '{"R": 1, "y_min": -1, "y_max": 3}', a, b, c) FROM regress_lc.bad WHERE i IN (1, -4)$$);
SELECT * FROM regress.err($$SELECT dpobj.dp_linear_regression(ARRAY[a, b, c], y, 1, 1e-6, '{"R": 1, "y_min": -1, "y_max": 3}') FROM regress_lc.bad WHERE i IN (1, -4)$$);
SELECT * FROM regress.err($$SELECT dpobj.dp_passglm_cols(yb, 1, 1e-6, '{"R": 1}', a, b, c) FROM regress_lc.bad WHERE i IN (1, -6)$$);
SELECT * FROM regress.err($$SELECT dpobj.dp_passglm(ARRAY[a, b, c], yb, 1, 1e-6, '{"R": 1}') FROM regress_lc.bad WHERE i IN (1, -6)$$);
SELECT * FROM regress.err($$SELECT dpobj.dp_passglm_cols(yb, 1, 1e-6, '{"R": 1}', a, b, c) FROM regress_lc.bad WHERE i IN (1, -2)$$);
SELECT * FROM regress.err($$SELECT dpobj.dp_passglm(ARRAY[a, b, c], yb, 1, 1e-6, '{"R": 1}') FROM regress_lc.bad WHERE i IN (1, -2)$$);
SELECT * FROM regress.err($$SELECT dpobj.dp_linear_regression_cols(y, 1, 1e-6, '{"R": 1, "y_min": -1, "y_max": 3}', a, b, c) FROM regress_lc.bad WHERE i IN (1, -5)$$);
SELECT * FROM regress.err($$SELECT dpobj.dp_linear_regression(ARRAY[a, b, c], y, 1, 1e-6, '{"R": 1, "y_min": -1, "y_max": 3}') FROM regress_lc.bad WHERE i IN (1, -5)$$);
-- ... and the run's own errors: the same options on every row, the options checked
SELECT * FROM regress.err($$SELECT dpobj.dp_linear_regression_cols(y, 1, 1e-6, jsonb_build_object('R', 1, 'y_min', -1, 'y_max', 3 + i % 2), a, b) FROM regress_lc.pts$$);
SELECT * FROM regress.err($$SELECT dpobj.dp_linear_regression_cols(y, 1, 1e-6, '{"y_min": -1, "y_max": 3}', a, b) FROM regress_lc.pts$$);
SELECT * FROM regress.err($$SELECT dpobj.dp_passglm_cols(yb, NULL, 1e-6, '{"R": 1}', a) FROM regress_lc.pts$$);
-- the arguments: float8 only, one by one (no VARIADIC array), at least one
SELECT * FROM regress.err($$SELECT dpobj.dp_linear_regression_cols(y, 1, 1e-6, '{"R": 1, "y_min": -1, "y_max": 3}', a, k) FROM regress_lc.pts$$);
SELECT * FROM regress.err($$SELECT dpobj.dp_passglm_cols(yb, 1, 1e-6, '{"R": 1}', a, 0.5) FROM regress_lc.pts$$);
SELECT * FROM regress.err($$SELECT dpobj.dp_passglm_cols(yb, 1, 1e-6, '{"R": 1}', VARIADIC ARRAY[a, b]) FROM regress_lc.pts$$);
SELECT * FROM regress.err($$SELECT dpobj.dp_passglm_cols(yb, 1, 1e-6, '{"R": 1}') FROM regress_lc.pts$$);
SELECT * FROM regress.err($$SELECT dpobj.dp_passglm_cols(yb, 1, 1e-6, '{"R": 1}', a) OVER () FROM regress_lc.pts$$);
-- no rows, direct path: NULL
SELECT dpobj.dp_passglm_cols(yb, 1, 1e-6, '{"R": 1}', a, b) IS NULL AS empty FROM regress_lc.pts WHERE false;

-- dpobj.train(): 'linear' and 'passglm' run the *_cols aggregates over the same rows as
-- the array aggregates (bad rows dropped; an integer feature cast): at epsilon 1e6 the
-- models stay within 0.01 of the direct one at 1e9 (at most 0.002 apart in 20 runs of
-- each; 300 kept bad rows would move them by more), unseeded: train() refuses a seed
CREATE FUNCTION regress_lc.close(a float8[], b float8[]) RETURNS boolean
LANGUAGE sql AS $$ SELECT cardinality(a) = cardinality(b) AND
    bool_and(abs(x - y) < 0.01) FROM unnest(a, b) u(x, y) $$;
CREATE ROLE regress_lc_alice;
SELECT dpobj.protect('regress_lc.bad');
SELECT granted_epsilon FROM dpobj.grant_budget('regress_lc.bad', 'regress_lc_alice', 1e7, 0.5);
-- a privacy unit of one row each: every row is kept
CREATE TABLE regress_lc.units AS SELECT * FROM regress_lc.bad;
SELECT dpobj.protect('regress_lc.units', privacy_unit => 'i', max_rows_per_unit => 1);
SELECT granted_epsilon FROM dpobj.grant_budget('regress_lc.units', 'regress_lc_alice', 1e7, 0.5);
SELECT (dpobj.dp_linear_regression(ARRAY[a, b, c, k], y, 1e9, 1e-6, :'lo')).weights AS lw,
       (dpobj.dp_passglm(ARRAY[a, b, c, k], yb, 1e9, 1e-6, :'go')).weights AS gw
  FROM regress_lc.pts \gset
SET ROLE regress_lc_alice;
SELECT regress_lc.close((dpobj.train('regress_lc.bad', 'linear', ARRAY['a', 'b', 'c', 'k'], 'y', 1e6, 1e-6, :'lo')).weights, :'lw') AS lin_close,
       regress_lc.close((dpobj.train('regress_lc.bad', 'passglm', ARRAY['a', 'b', 'c', 'k'], 'yb', 1e6, 1e-6, :'go')).weights, :'gw') AS glm_close,
       regress_lc.close((dpobj.train('regress_lc.units', 'linear', ARRAY['a', 'b', 'c', 'k'], 'y', 1e6, 1e-6, :'lo')).weights, :'lw') AS lin_units_close,
       regress_lc.close((dpobj.train('regress_lc.units', 'passglm', ARRAY['a', 'b', 'c', 'k'], 'yb', 1e6, 1e-6, :'go')).weights, :'gw') AS glm_units_close;
-- ... and not the array aggregates: without dp_linear_regression_cols the query fails
RESET ROLE;
BEGIN;
ALTER AGGREGATE dpobj.dp_linear_regression_cols(float8, float8, float8, jsonb, VARIADIC "any") RENAME TO regress_lc_gone;
SET ROLE regress_lc_alice;
SELECT * FROM regress.err($$SELECT dpobj.train('regress_lc.bad', 'linear', ARRAY['a', 'b'], 'y', 1, 1e-6, '{"R": 1, "y_min": -1, "y_max": 3}')$$);
ROLLBACK;
RESET ROLE;
-- more features than an aggregate's arguments allow (95): the array aggregate, so 96
-- features train without dp_passglm_cols and 95 do not
DO $$ BEGIN
EXECUTE (SELECT format('CREATE TABLE regress_lc.wide AS SELECT g %% 3 = 0 AS yb, %s FROM generate_series(1, 50) g',
                       string_agg(format('sin(g * %s)::float8 / 10 AS x%s', j, j), ', '))
           FROM generate_series(1, 96) j);
END $$;
SELECT dpobj.protect('regress_lc.wide');
SELECT granted_epsilon FROM dpobj.grant_budget('regress_lc.wide', 'regress_lc_alice', 10, 0.5);
BEGIN;
ALTER AGGREGATE dpobj.dp_passglm_cols(boolean, float8, float8, jsonb, VARIADIC "any") RENAME TO regress_lc_gone;
SET ROLE regress_lc_alice;
SELECT cardinality((dpobj.train('regress_lc.wide', 'passglm', (SELECT array_agg('x' || j) FROM generate_series(1, 96) j),
                                'yb', 1, 1e-6, '{"R": 1}')).weights) AS d96;
SELECT sqlstate FROM regress.err($$SELECT dpobj.train('regress_lc.wide', 'passglm', (SELECT array_agg('x' || j) FROM generate_series(1, 95) j),
                                                      'yb', 1, 1e-6, '{"R": 1}')$$);
ROLLBACK;
RESET ROLE;
SET ROLE regress_lc_alice;
SELECT cardinality((dpobj.train('regress_lc.wide', 'passglm', (SELECT array_agg('x' || j) FROM generate_series(1, 95) j),
                                'yb', 1, 1e-6, '{"R": 1}')).weights) AS d95;
RESET ROLE;

-- a bad feature column and a bad label: train() names the feature first,
-- with the column aggregates as with the array aggregates
SET ROLE regress_lc_alice;
SELECT * FROM regress.err($$SELECT dpobj.train('regress_lc.wide', 'linear', ARRAY['x1', 'no_such_x'], 'no_such_y', 1, 1e-6, '{"R": 1, "y_min": -1, "y_max": 1}')$$);
SELECT * FROM regress.err($$SELECT dpobj.train('regress_lc.wide', 'logistic', ARRAY['x1', 'no_such_x'], 'no_such_y', 1, 1e-6, '{"R": 1}')$$);
RESET ROLE;

DROP SCHEMA regress_lc CASCADE;
DROP ROLE regress_lc_alice;
