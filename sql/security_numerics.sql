-- Numerics of the calibrations and the noise seed on the protected path:
--   * every calibration search is bounded and refuses what it cannot compute (an
--     (epsilon, delta) with no zCDP level looped for ever, uncancellable);
--   * the SQL calibration helpers never return 0, NaN or Infinity as a noise scale;
--   * dpobj.seed (superuser only) makes noise predictable: protected runs refuse it
--     before the charge.
CREATE SCHEMA regress_num;
GRANT USAGE ON SCHEMA regress_num TO PUBLIC;

-- ---- bounded searches: refused at once (the old zCDP search never ended) ------------
SET statement_timeout = '60s';
SELECT (regress.err(q)).* FROM (VALUES
  ($$SELECT dpobj.glm_calibration(1e-6, 1e-9, '{"R": 1, "method": "output"}')$$),
  ($$SELECT dpobj.glm_calibration('Infinity', 1e-6, '{"R": 1, "method": "output"}')$$),
  ($$SELECT dpobj.glm_calibration(1e-320, 1e-6, '{"R": 1, "method": "cms"}')$$),
  ($$SELECT dpobj.glm_calibration(1e-320, 1e-6, '{"R": 1, "method": "objective"}')$$)
) v(q);
-- just above the conversion's floor a level exists
SELECT (dpobj.glm_calibration(1e-4, 1e-9, '{"R": 1, "method": "output"}')->>'rho')::float8 > 0 AS rho_positive;

-- ---- calibration helpers: denormal, huge and zero inputs; never 0, NaN or Infinity ---
SELECT (regress.err(q)).* FROM (VALUES
  ($$SELECT dpobj.analytic_gauss_sigma(1000, 5e-324, 5e-324)$$),
  ($$SELECT dpobj.analytic_gauss_sigma(2, 1e-6, 5e-324)$$),
  ($$SELECT dpobj.analytic_gauss_sigma(0.5, 5e-324, 1)$$),
  ($$SELECT dpobj.analytic_gauss_sigma(0.5, 1e-6, 1e308)$$),
  ($$SELECT dpobj.opdisc_sigma(1e-320, 1e-6, 3, 3, 'sound')$$),
  ($$SELECT dpobj.opdisc_sigma(1, 5e-324, 3, 3, 'sound')$$),
  ($$SELECT dpobj.rspm_sigma(5e-324, 1e-6, 3, 'paper')$$),
  ($$SELECT dpobj.opdisc_sigma(5e-324, 1e-6, 3)$$),
  ($$SELECT dpobj.noisysgd_sigma(5e-324, 1e-6, 100, 1)$$),
  ($$SELECT dpobj.noisysgd_sigma(1, 5e-324, 100, 1)$$),
  ($$SELECT dpobj.opsamp_calibration(1e-320, 0.1, 100, 2, 1, 0.05, true)$$),
  ($$SELECT dpobj.opsamp_calibration(1e-200, 1e-300, 100, 2, 1, 0.05, true)$$),
  ($$SELECT dpobj.opsamp_calibration(1e-310, 1e-320, 100, 2, 1, 0.05, true)$$)
) v(q);
-- ordinary inputs still work, and the results are positive and finite
SELECT dpobj.analytic_gauss_sigma(2, 1e-6, 1) BETWEEN 1 AND 3 AS agm_ok,
       dpobj.analytic_gauss_sigma(1000, 1e-300, 1) > 0 AS agm_extreme_ok,
       dpobj.opdisc_sigma(1, 1e-6, 3, 3, 'sound') > 0 AS opdisc_ok,
       dpobj.noisysgd_sigma(1, 1e-6, 100, 1) > 0 AS sgd_ok,
       dpobj.expmech_grid_size(3, 1, 3) AS grid;

-- ---- the direct aggregates refuse the same, before any charge ------------------------
CREATE TABLE regress_num.pts AS
  SELECT i, (i % 7) / 4.0 - 0.75 AS a, (i % 5) / 4.0 - 0.5 AS b, (i % 7) > 3 AS y
    FROM generate_series(1, 60) i;
SELECT count(*) AS ledger_before FROM dpobj.ledger \gset
SELECT (regress.err(q)).* FROM (VALUES
  ($$SELECT dpobj.dp_logistic(ARRAY[a, b]::float8[], y, 1e-6, 1e-9, '{"R": 1, "method": "output"}') FROM regress_num.pts$$),
  ($$SELECT dpobj.dp_noisysgd(ARRAY[a, b]::float8[], y, 1e-6, 1e-9, '{"R": 1}') FROM regress_num.pts$$)
) v(q);
SELECT count(*) - :ledger_before AS new_ledger_rows FROM dpobj.ledger;

-- ---- dpobj.seed: protected runs refuse it, before the charge -------------------------
CREATE TABLE regress_num.m AS
  SELECT dpobj.dp_halfspace(ARRAY[a, b]::float8[], y, 1, 1e-6) AS m FROM regress_num.pts;
CREATE ROLE regress_num_owner;
CREATE ROLE regress_num_alice;
GRANT SELECT ON regress_num.m TO regress_num_alice;
GRANT CREATE ON SCHEMA regress_num TO regress_num_owner;
ALTER TABLE regress_num.pts OWNER TO regress_num_owner;
SET ROLE regress_num_owner;
REVOKE ALL ON regress_num.pts FROM PUBLIC;
SELECT dpobj.protect('regress_num.pts');
SELECT 1 FROM dpobj.grant_budget('regress_num.pts', 'regress_num_alice', 10, 0.001);
RESET ROLE;
SELECT count(*) AS ledger_before FROM dpobj.ledger \gset
-- a superuser's SET in the analyst's session
SET dpobj.seed = 5;
SET ROLE regress_num_alice;
SELECT (regress.err(q)).* FROM (VALUES
  ($$SELECT dpobj.train('regress_num.pts', 'opdisc', ARRAY['a', 'b'], 'y', 0.5, 1e-5)$$),
  ($$SELECT dpobj.train('regress_num.pts', 'logistic', ARRAY['a', 'b'], 'y', 0.5, 1e-5, '{"R": 1}')$$),
  ($$SELECT dpobj.submit('regress_num.pts', 'opdisc', ARRAY['a', 'b'], 'y', 0.5, 1e-5)$$),
  ($$SELECT dpobj.evaluate('regress_num.pts', (SELECT m FROM regress_num.m), ARRAY['a', 'b'], 'y', 0.5, 1e-5)$$)
) v(q);
SELECT spent_epsilon, spent_delta FROM dpobj.my_budgets;
RESET ROLE;
RESET dpobj.seed;
-- ALTER DATABASE (and so the jobs' worker, which reads the same setting)
SELECT current_database() AS db \gset
ALTER DATABASE :"db" SET dpobj.seed = 5;
\c
SET ROLE regress_num_alice;
SHOW dpobj.seed;
SELECT (regress.err(q)).* FROM (VALUES
  ($$SELECT dpobj.train('regress_num.pts', 'opdisc', ARRAY['a', 'b'], 'y', 0.5, 1e-5)$$)
) v(q);
SELECT spent_epsilon, spent_delta FROM dpobj.my_budgets;
RESET ROLE;
ALTER DATABASE :"db" RESET dpobj.seed;
\c
SELECT count(*) - :ledger_before AS new_ledger_rows, count(*) FILTER (WHERE outcome = 'charged') AS charged
  FROM dpobj.ledger;
SELECT count(*) AS jobs FROM dpobj.jobs;
-- without the seed the same run is charged and released
SET ROLE regress_num_alice;
SELECT mechanism, cardinality(weights) AS d
  FROM dpobj.train('regress_num.pts', 'opdisc', ARRAY['a', 'b'], 'y', 0.5, 1e-5);
SELECT spent_epsilon FROM dpobj.my_budgets;
RESET ROLE;

-- direct aggregates keep the seed (tests need determinism): same seed, same model
SET dpobj.seed = 9;
SELECT (SELECT dpobj.dp_halfspace(ARRAY[a, b, 1]::float8[], y, 1, 1e-6) FROM regress_num.pts)
     = (SELECT dpobj.dp_halfspace(ARRAY[a, b, 1]::float8[], y, 1, 1e-6) FROM regress_num.pts) AS same;
RESET dpobj.seed;

SELECT dpobj.unprotect('regress_num.pts');
DROP SCHEMA regress_num CASCADE;
DROP ROLE regress_num_owner;
DROP ROLE regress_num_alice;
