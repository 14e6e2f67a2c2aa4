-- One-pass logistic regression (dp_passglm; docs/PRIVACY.md "One-pass logistic
-- regression (passglm)"): the direct aggregate, its post-processing against an
-- independent computation of the same closed form, train(..., 'passglm') on the
-- protected path charged in zCDP, the stored model with predict/probability, and every
-- refusal with its SQLSTATE.
CREATE SCHEMA regress_pg;
-- 4000 points, label = a + b > 0.1 except every 9th point (noise in the labels)
CREATE TABLE regress_pg.pts AS
SELECT i, ((i * 37) % 101) / 101.0 - 0.5 AS a, ((i * 53) % 97) / 97.0 - 0.5 AS b,
       ((((i * 37) % 101) / 101.0 + ((i * 53) % 97) / 97.0 - 1.0 > 0.1) <> (i % 9 = 0)) AS y
  FROM generate_series(1, 4000) i;

-- at a huge epsilon the noise is negligible: the release is the closed form
--   w = s (A + ridge I)^-1 b, u = (a, b, 1) / sqrt(R^2 + 1), v = +-1,
--   A = sum u u^T, b = sum u v, s = -b1 / (2 b2) of the Chebyshev fit (3.0612 for r = 4),
-- computed here independently in SQL (Cramer's rule on the 3 x 3 system; R = 1 clips
-- nothing: every |(a, b)| < 0.71)
CREATE TEMP TABLE ref AS
WITH u AS (SELECT a / sqrt(2) AS u1, b / sqrt(2) AS u2, 1 / sqrt(2) AS u3,
                  CASE WHEN y THEN 1.0 ELSE -1.0 END AS v FROM regress_pg.pts),
s AS (SELECT sum(u1*u1) + 1 AS a11, sum(u1*u2) AS a12, sum(u1*u3) AS a13,
             sum(u2*u2) + 1 AS a22, sum(u2*u3) AS a23, sum(u3*u3) + 1 AS a33,
             sum(u1*v) AS b1, sum(u2*v) AS b2, sum(u3*v) AS b3 FROM u),
d AS (SELECT *, a11*(a22*a33 - a23*a23) - a12*(a12*a33 - a23*a13) + a13*(a12*a23 - a22*a13) AS det FROM s)
SELECT (b1*(a22*a33 - a23*a23) - a12*(b2*a33 - a23*b3) + a13*(b2*a23 - a22*b3)) / det AS p1,
       (a11*(b2*a33 - a23*b3) - b1*(a12*a33 - a23*a13) + a13*(a12*b3 - b2*a13)) / det AS p2,
       (a11*(a22*b3 - b2*a23) - a12*(a12*b3 - b2*a13) + b1*(a12*a23 - a22*a13)) / det AS p3
  FROM d;
SET dpobj.seed = 7;
CREATE TEMP TABLE big AS
SELECT dpobj.dp_passglm(ARRAY[a, b]::float8[], y, 1e4, 1e-6, '{"R": 1, "ridge": 1, "metric": "accuracy"}') AS m
  FROM regress_pg.pts;
SELECT (m).mechanism, (m).params->>'loss' AS loss, (m).params->>'ridge' AS ridge,
       (m).params->>'chebyshev_radius' AS r, (m).params->>'noise' AS noise
  FROM big;
-- weights = s p_j / sqrt(2), bias = s p_3 / sqrt(2)
SELECT abs((m).weights[1] - 3.0612 * p1 / sqrt(2)) < 0.01 AS w1,
       abs((m).weights[2] - 3.0612 * p2 / sqrt(2)) < 0.01 AS w2,
       abs((m).bias - 3.0612 * p3 / sqrt(2)) < 0.01 AS bias,
       (m).weights[1] > 1 AND (m).weights[2] > 1 AS direction
  FROM big, ref;
-- the model classifies: predict, score and the logistic probability
SELECT round(avg((dpobj.predict(m, ARRAY[a, b]::float8[]) = y)::int), 2) >= 0.85 AS accurate,
       bool_and(abs(dpobj.probability(m, ARRAY[a, b]::float8[])
                    - 1 / (1 + exp(-dpobj.score(m, ARRAY[a, b]::float8[])))) < 1e-12) AS probability
  FROM big, regress_pg.pts;
-- the same seed gives the same release whatever the row order (exact sums)
SET dpobj.seed = 7;
SELECT (SELECT dpobj.dp_passglm(ARRAY[a, b]::float8[], y, 1e4, 1e-6, '{"R": 1, "ridge": 1, "metric": "accuracy"}'
                                ORDER BY i DESC) FROM regress_pg.pts) = m AS order_free
  FROM big;
-- the default ridge is the noise scale sigma sqrt(p) in the normalised units (public)
SELECT abs(((m).params->>'ridge')::float8
           - ((m).params->>'sigma_xx')::float8 / 2 * sqrt(3)) < 1e-9 AS default_ridge
  FROM (SELECT dpobj.dp_passglm(ARRAY[a, b]::float8[], y, 1, 1e-6, '{"R": 1}') AS m
          FROM regress_pg.pts) s;
RESET dpobj.seed;

-- refusals of the direct aggregate (public, before any charge)
SELECT * FROM regress.err($$SELECT dpobj.dp_passglm(ARRAY[a, b]::float8[], y, 1, 1e-6, NULL) FROM regress_pg.pts$$);
SELECT * FROM regress.err($$SELECT dpobj.dp_passglm(ARRAY[a, b]::float8[], y, 1, 1e-6, '{}') FROM regress_pg.pts$$);
SELECT * FROM regress.err($$SELECT dpobj.dp_passglm(ARRAY[a, b]::float8[], y, 1, 1e-6, '{"R": 1, "y_min": 0}') FROM regress_pg.pts$$);
SELECT * FROM regress.err($$SELECT dpobj.dp_passglm(ARRAY[a, b]::float8[], y, 1, 1e-6, '{"R": 1, "ridge": -1}') FROM regress_pg.pts$$);
SELECT * FROM regress.err($$SELECT dpobj.dp_passglm(ARRAY[a, b]::float8[], y, 1, 1e-6, '{"R": 0}') FROM regress_pg.pts$$);
SELECT * FROM regress.err($$SELECT dpobj.dp_passglm(ARRAY[a, b]::float8[], y, 1, 1e-6, '{"R": 1, "class_weight": "balanced"}') FROM regress_pg.pts$$);
SELECT * FROM regress.err($$SELECT dpobj.dp_passglm(ARRAY[a, b]::float8[], y, 0, 1e-6, '{"R": 1}') FROM regress_pg.pts$$);
SELECT * FROM regress.err($$SELECT dpobj.dp_passglm(ARRAY[a, b]::float8[], y, 1, 0, '{"R": 1}') FROM regress_pg.pts$$);
SELECT * FROM regress.err($$SELECT dpobj.dp_passglm_finalfn(NULL)$$);
-- the two aggregates share a state type, not states: an aggregate that hands
-- dp_linear_regression's state to dp_passglm's final function is refused
CREATE AGGREGATE regress_pg.mixed(float8[], float8, float8, float8, jsonb) (
    SFUNC = dpobj.dp_linear_regression_transfn, STYPE = dpobj.linreg_state,
    FINALFUNC = dpobj.dp_passglm_finalfn);
SELECT * FROM regress.err($$SELECT regress_pg.mixed(ARRAY[a, b]::float8[], 1, 1, 1e-6, '{"R": 1, "y_min": 0, "y_max": 1}') FROM regress_pg.pts$$);

-- the protected path: train(..., 'passglm'), charged in zCDP at the rho it calibrates to
CREATE ROLE regress_pg_alice;
SELECT dpobj.protect('regress_pg.pts');
SELECT granted_epsilon FROM dpobj.grant_budget('regress_pg.pts', 'regress_pg_alice', 10, 1e-3);
GRANT USAGE ON SCHEMA regress_pg TO regress_pg_alice;
SET ROLE regress_pg_alice;
CREATE TEMP TABLE tm AS
SELECT dpobj.train('regress_pg.pts', 'passglm', ARRAY['a', 'b'], 'y', 4, 1e-6, '{"R": 1}') m;
SELECT (m).mechanism, (m).params->>'loss' AS loss, (m).weights[1] > 0 AS w1_positive,
       (m).weights[2] > 0 AS w2_positive
  FROM tm;
SELECT * FROM regress.err($$SELECT dpobj.train('regress_pg.pts', 'passglm', ARRAY['a', 'b'], 'y', 1, 1e-6, '{}')$$);
SELECT * FROM regress.err($$SELECT dpobj.train('regress_pg.pts', 'passglm', ARRAY['a', 'b'], 'y', 1, 1e-6, '{"R": 1, "class_weight": "balanced"}')$$);
SELECT * FROM regress.err($$SELECT dpobj.train('regress_pg.pts', 'passglm', ARRAY['a'], 'b', 1, 1e-6, '{"R": 1}')$$);
RESET ROLE;
-- the recorded rho is the calibration's (the model's params), rounded up
SELECT l.mechanism, l.outcome, l.kind, l.rho >= ((tm.m).params->>'rho')::numeric AS rho_rounded_up,
       l.rho < ((tm.m).params->>'rho')::numeric * 1.000000001 AS by_a_hair
  FROM dpobj.ledger l, tm WHERE l.mechanism = 'passglm' AND l.budget_id IS NOT NULL ORDER BY l.id;
DROP TABLE tm;
DROP SCHEMA regress_pg CASCADE;
DROP ROLE regress_pg_alice;
