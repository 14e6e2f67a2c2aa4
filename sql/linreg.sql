-- Private linear regression: dpobj.dp_linear_regression (AdaSSP by default, SSP by
-- option) on exact sufficient statistics; its errors, parallel and text states, and
-- dpobj.train(..., 'linear') on the protected path.
CREATE SCHEMA regress_lin;
CREATE TABLE regress_lin.pts AS
SELECT i, ((i * 37) % 101) / 101.0 - 0.5 AS a, ((i * 53) % 97) / 97.0 - 0.5 AS b,
       3.0 + 2.0 * (((i * 37) % 101) / 101.0 - 0.5) - 1.0 * (((i * 53) % 97) / 97.0 - 0.5)
         + 0.01 * ((i % 11) - 5) AS y
  FROM generate_series(1, 20000) i;
SET dpobj.seed = 5;

-- the non-private least-squares fit, for comparison: y ~ 3 + 2a - b
SELECT round(regr_intercept(y, a)::numeric, 1) AS intercept_a FROM regress_lin.pts;

-- AdaSSP (default) and SSP at epsilon = 1: close to (2, -1), intercept 3
SELECT (m).mechanism, round((m).weights[1]::numeric, 1) AS w1, round((m).weights[2]::numeric, 1) AS w2,
       round((m).bias::numeric, 1) AS bias, (m).params->>'method' AS method,
       (m).params->>'intercept' AS intercept, (m).params ? 'sigma_lambda_min' AS has_lmin
  FROM (SELECT dpobj.dp_linear_regression(ARRAY[a, b], y, 1, 1e-6,
               '{"R": 1, "y_min": 0, "y_max": 6}') m FROM regress_lin.pts) s;
SELECT (m).mechanism, round((m).weights[1]::numeric, 1) AS w1, round((m).weights[2]::numeric, 1) AS w2,
       round((m).bias::numeric, 1) AS bias, (m).params ? 'sigma_lambda_min' AS has_lmin
  FROM (SELECT dpobj.dp_linear_regression(ARRAY[a, b], y, 1, 1e-6,
               '{"R": 1, "y_min": 0, "y_max": 6, "method": "ssp"}') m FROM regress_lin.pts) s;
-- the public params: nothing computed from the rows
SELECT jsonb_object_keys((m).params) AS key
  FROM (SELECT dpobj.dp_linear_regression(ARRAY[a, b], y, 1, 1e-6,
               '{"R": 1, "y_min": 0, "y_max": 6}') m FROM regress_lin.pts) s ORDER BY 1;
-- without an intercept the bias is 0
SELECT (m).bias, (m).params->>'intercept' AS intercept
  FROM (SELECT dpobj.dp_linear_regression(ARRAY[a, b], y, 1, 1e-6,
               '{"R": 1, "y_min": 0, "y_max": 6, "intercept": false}') m FROM regress_lin.pts) s;
-- the same seed gives the same model whatever the row order (exact integer sums)
SET dpobj.seed = 9;
CREATE TEMP TABLE fwd AS SELECT dpobj.dp_linear_regression(ARRAY[a, b], y, 0.5, 1e-6,
       '{"R": 1, "y_min": 0, "y_max": 6}') m FROM (SELECT * FROM regress_lin.pts ORDER BY i) s;
SET dpobj.seed = 9;
CREATE TEMP TABLE bwd AS SELECT dpobj.dp_linear_regression(ARRAY[a, b], y, 0.5, 1e-6,
       '{"R": 1, "y_min": 0, "y_max": 6}') m FROM (SELECT * FROM regress_lin.pts ORDER BY i DESC) s;
SELECT (fwd.m).weights = (bwd.m).weights AND (fwd.m).bias = (bwd.m).bias AS same FROM fwd, bwd;
-- parallel aggregation combines states: the same model as the serial run
SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET dpobj.seed = 9;
CREATE TEMP TABLE par AS SELECT dpobj.dp_linear_regression(ARRAY[a, b], y, 0.5, 1e-6,
       '{"R": 1, "y_min": 0, "y_max": 6}') m FROM regress_lin.pts;
SELECT (fwd.m).weights = (par.m).weights AND (fwd.m).bias = (par.m).bias AS same FROM fwd, par;
RESET parallel_setup_cost; RESET parallel_tuple_cost; RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
-- score is the regression's value <w, x> + bias
SELECT round(dpobj.score(m, ARRAY[0.1, -0.2]::float8[])::numeric, 1) AS yhat FROM fwd;
-- no rows, direct path: NULL, nothing runs
SELECT dpobj.dp_linear_regression(ARRAY[a, b], y, 1, 1e-6, '{"R": 1, "y_min": 0, "y_max": 6}')
  FROM regress_lin.pts WHERE false;

-- the state's text form round-trips; forged states are refused
CREATE AGGREGATE regress_lin.state_only(float8[], float8, float8, float8, jsonb) (
    SFUNC = dpobj.dp_linear_regression_transfn, STYPE = dpobj.linreg_state);
CREATE TEMP TABLE st AS SELECT regress_lin.state_only(ARRAY[a, b], y, 1, 1e-6,
       '{"R": 1, "y_min": 0, "y_max": 6}') s FROM regress_lin.pts;
SELECT s::text::dpobj.linreg_state::text = s::text AS roundtrip, length(s::text) AS text_length
  FROM st;
-- the count n sits after magic, d, epsilon, delta and the options' text: with n
-- unchanged the state is accepted, with n = 1 its sums are impossible and refused
SELECT translate(encode(overlay(decode(s::text, 'base64') PLACING int8send(20000)
       FROM 27 + length('{"R": 1, "y_max": 6, "y_min": 0}')), 'base64'), E'\n', '')::dpobj.linreg_state::text = s::text
       AS same_count FROM st;
SELECT translate(encode(overlay(decode(s::text, 'base64') PLACING int8send(1)
       FROM 27 + length('{"R": 1, "y_max": 6, "y_min": 0}')), 'base64'), E'\n', '')::dpobj.linreg_state
  FROM st;
SELECT 'AAAA'::dpobj.linreg_state;
SELECT 'not base64!'::dpobj.linreg_state;

-- errors: bounds, NULLs, dimensions, privacy parameters (no value is quoted)
SELECT dpobj.dp_linear_regression(ARRAY[a, b], y, 1, 1e-6, '{"R": 1}') FROM regress_lin.pts;
SELECT dpobj.dp_linear_regression(ARRAY[a, b], y, 1, 1e-6, '{"y_min": 0, "y_max": 1}') FROM regress_lin.pts;
SELECT dpobj.dp_linear_regression(ARRAY[a, b], y, 1, 1e-6, '{"R": 1, "y_min": 5, "y_max": 5}') FROM regress_lin.pts;
SELECT dpobj.dp_linear_regression(ARRAY[a, b], y, 1, 1e-6, '{"R": 0, "y_min": 0, "y_max": 1}') FROM regress_lin.pts;
SELECT dpobj.dp_linear_regression(ARRAY[a, b], y, 1, 1e-6, '{"R": 1, "y_min": 0, "y_max": "1"}') FROM regress_lin.pts;
SELECT dpobj.dp_linear_regression(ARRAY[a, b], y, 1, 1e-6, '{"R": 1, "y_min": 0, "y_max": 1, "method": "ols"}') FROM regress_lin.pts;
SELECT dpobj.dp_linear_regression(ARRAY[a, b], y, 1, 1e-6, '{"R": 1, "y_min": 0, "y_max": 1, "lambda": 1}') FROM regress_lin.pts;
SELECT dpobj.dp_linear_regression(ARRAY[a, b], y, 1, 1e-6, NULL) FROM regress_lin.pts;
SELECT dpobj.dp_linear_regression(ARRAY[a, b], NULL, 1, 1e-6, '{"R": 1, "y_min": 0, "y_max": 1}') FROM regress_lin.pts;
SELECT dpobj.dp_linear_regression(NULL, y, 1, 1e-6, '{"R": 1, "y_min": 0, "y_max": 1}') FROM regress_lin.pts;
SELECT dpobj.dp_linear_regression(ARRAY[a, NULL], y, 1, 1e-6, '{"R": 1, "y_min": 0, "y_max": 1}') FROM regress_lin.pts;
SELECT dpobj.dp_linear_regression(ARRAY[a, 'NaN'], y, 1, 1e-6, '{"R": 1, "y_min": 0, "y_max": 1}') FROM regress_lin.pts;
SELECT dpobj.dp_linear_regression(ARRAY[a, b], 'Infinity', 1, 1e-6, '{"R": 1, "y_min": 0, "y_max": 1}') FROM regress_lin.pts;
SELECT dpobj.dp_linear_regression(CASE WHEN i = 7 THEN ARRAY[a] ELSE ARRAY[a, b] END, y, 1, 1e-6,
       '{"R": 1, "y_min": 0, "y_max": 1}') FROM regress_lin.pts;
SELECT dpobj.dp_linear_regression('{}'::float8[], y, 1, 1e-6, '{"R": 1, "y_min": 0, "y_max": 1}') FROM regress_lin.pts;
SELECT dpobj.dp_linear_regression(ARRAY[a, b], y, 0, 1e-6, '{"R": 1, "y_min": 0, "y_max": 1}') FROM regress_lin.pts;
SELECT dpobj.dp_linear_regression(ARRAY[a, b], y, 1, 1, '{"R": 1, "y_min": 0, "y_max": 1}') FROM regress_lin.pts;
SELECT dpobj.dp_linear_regression(ARRAY[a, b], y, 'NaN', 1e-6, '{"R": 1, "y_min": 0, "y_max": 1}') FROM regress_lin.pts;
SELECT dpobj.dp_linear_regression(ARRAY[a, b], y, 1e-300, 1e-6, '{"R": 1, "y_min": 0, "y_max": 1}') FROM regress_lin.pts;
SELECT dpobj.dp_linear_regression(ARRAY[a, b], y, CASE WHEN i = 9 THEN 2 ELSE 1 END, 1e-6,
       '{"R": 1, "y_min": 0, "y_max": 1}') FROM regress_lin.pts;
SELECT dpobj.dp_linear_regression(ARRAY[a, b], y, 1, 1e-6, '{"R": 1, "y_min": 0, "y_max": 1}')
       OVER () FROM regress_lin.pts LIMIT 1;
SELECT dpobj.dp_linear_regression_finalfn(NULL);

-- the protected path: train(..., 'linear'); bad rows dropped silently
RESET dpobj.seed;
CREATE ROLE regress_lin_alice;
ALTER TABLE regress_lin.pts ADD COLUMN t text;
INSERT INTO regress_lin.pts VALUES (-1, 'NaN', 0, 1), (-2, 0, 0, 'Infinity'), (-3, NULL, 0, 1), (-4, 0, 0, NULL);
SELECT dpobj.protect('regress_lin.pts');
SELECT granted_epsilon FROM dpobj.grant_budget('regress_lin.pts', 'regress_lin_alice', 10, 1e-3);
GRANT USAGE ON SCHEMA regress_lin TO regress_lin_alice;
SET ROLE regress_lin_alice;
-- (no seed here: 300 unseeded runs of the same release gave weights with spread 0.049 and
-- a bias with spread 0.004 (Gaussian noise), so a rounding boundary 0.5 away is over 10
-- spreads off: a correct release rounds differently with probability below 1e-20)
SELECT (m).mechanism, round((m).weights[1]::numeric, 0) AS w1, round((m).weights[2]::numeric, 0) AS w2,
       round((m).bias::numeric, 0) AS bias
  FROM (SELECT dpobj.train('regress_lin.pts', 'linear', ARRAY['a', 'b'], 'y', 1, 1e-6,
               '{"R": 1, "y_min": 0, "y_max": 6}') m) s;
-- public refusals before the charge: options, label type
SELECT dpobj.train('regress_lin.pts', 'linear', ARRAY['a', 'b'], 'y', 1, 1e-6, '{"R": 1}');
SELECT dpobj.train('regress_lin.pts', 'linear', ARRAY['a', 'b'], 'y', 1, 1e-6,
       '{"R": 1, "y_min": 1, "y_max": 0}');
SELECT dpobj.train('regress_lin.pts', 'linear', ARRAY['a', 'b'], 't', 1, 1e-6,
       '{"R": 1, "y_min": 0, "y_max": 6}');
SELECT dpobj.train('regress_lin.pts', 'linear', ARRAY['a', 'b'], 'y', 1, 1e-6,
       '{"R": 1, "y_min": 0, "y_max": 6, "calibration": "paper"}');
RESET ROLE;
SELECT mechanism, outcome FROM dpobj.ledger WHERE mechanism IN ('adassp', 'ssp')
   AND relation = 'regress_lin.pts' ORDER BY id;
DROP SCHEMA regress_lin CASCADE;
DROP ROLE regress_lin_alice;
