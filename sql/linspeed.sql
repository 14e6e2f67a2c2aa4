-- dp_linear_regression's transition is exact: the sums in the state's text form and
-- the seeded models, printed in full, are the same bit for bit whatever the per-row
-- code (fixed-point rounding, scratch buffers, the per-call options check); the
-- options must still be the same on every row when they are computed per row.
SET extra_float_digits = 3;
CREATE SCHEMA regress_linspeed;
-- d = 10: unclipped rows, rows far outside R (clipped), tiny and subnormal products
CREATE TABLE regress_linspeed.pts AS
SELECT i, i % 4 AS g,
       ARRAY(SELECT (((i * (31 + 2 * k)) % (97 + k))::float8 / (97 + k) - 0.5)
                    * CASE WHEN i % 7 = 0 THEN 3.0 WHEN i % 13 = 0 THEN 1e-155 ELSE 0.3 END
               FROM generate_series(1, 10) k) AS x,
       ((i * 53) % 89)::float8 / 89 * 14 - 5 AS y
  FROM generate_series(1, 5000) i;
CREATE AGGREGATE regress_linspeed.state_only(float8[], float8, float8, float8, jsonb) (
    SFUNC = dpobj.dp_linear_regression_transfn, STYPE = dpobj.linreg_state);

-- the exact sums (md5 of the state's text form) for several runs' parameters
SELECT md5(regress_linspeed.state_only(x, y, 1, 1e-6, '{"R": 1, "y_min": -4, "y_max": 8}')::text)
  FROM regress_linspeed.pts;
SELECT md5(regress_linspeed.state_only(x, y, 1, 1e-6,
           '{"R": 0.5, "y_min": -1, "y_max": 2, "intercept": false, "method": "ssp"}')::text)
  FROM regress_linspeed.pts;
-- one state per group, rows interleaved
SELECT g, md5(regress_linspeed.state_only(x, y, 1, 1e-6, '{"R": 2, "y_min": -9, "y_max": 9}')::text)
  FROM regress_linspeed.pts GROUP BY g ORDER BY g;
-- options computed per row but equal on every row: the same sums as the constant
SELECT md5(regress_linspeed.state_only(x, y, 1, 1e-6,
           jsonb_build_object('R', 1, 'y_min', -4, 'y_max', 8 + 0 * i))::text)
  FROM regress_linspeed.pts;

-- seeded models in full: weights and bias bit for bit
SET dpobj.seed = 11;
SELECT (m).weights, (m).bias
  FROM (SELECT dpobj.dp_linear_regression(x, y, 1, 1e-6, '{"R": 1, "y_min": -4, "y_max": 8}') m
          FROM regress_linspeed.pts) s;
SET dpobj.seed = 11;
SELECT (m).weights, (m).bias
  FROM (SELECT dpobj.dp_linear_regression(x, y, 0.5, 1e-6,
               '{"R": 1, "y_min": -4, "y_max": 8, "method": "ssp"}') m
          FROM regress_linspeed.pts) s;
RESET dpobj.seed;

-- options that change from one row to the next are refused, whichever row changes
SELECT dpobj.dp_linear_regression(x, y, 1, 1e-6,
       jsonb_build_object('R', 1, 'y_min', -4, 'y_max', CASE WHEN i = 4000 THEN 9 ELSE 8 END))
  FROM (SELECT * FROM regress_linspeed.pts ORDER BY i) s;
SELECT dpobj.dp_linear_regression(x, y, 1, 1e-6,
       jsonb_build_object('R', 1, 'y_min', -4, 'y_max', CASE WHEN i = 2 THEN 9 ELSE 8 END))
  FROM (SELECT * FROM regress_linspeed.pts ORDER BY i) s;
-- in groups too
SELECT g, dpobj.dp_linear_regression(x, y, 1, 1e-6,
       jsonb_build_object('R', 1, 'y_min', -4, 'y_max', CASE WHEN i = 4001 THEN 9 ELSE 8 END))
  FROM (SELECT * FROM regress_linspeed.pts ORDER BY i) s GROUP BY g;
RESET extra_float_digits;
DROP SCHEMA regress_linspeed CASCADE;
