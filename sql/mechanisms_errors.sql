-- Every bad input of the new mechanisms gives a clear error with an
-- SQLSTATE and a hint, never a row value; nothing is charged for them.
CREATE SCHEMA regress_mecherr;
CREATE TABLE regress_mecherr.t (x float8[], y boolean);
INSERT INTO regress_mecherr.t VALUES (ARRAY[0.5, -0.25], true), (ARRAY[-0.5, 0.25], false);
SELECT count(*) AS ledger_before FROM dpobj.ledger \gset

-- options of the continuous mechanisms
SELECT (regress.err(q)).* FROM (VALUES
  ($$SELECT dpobj.dp_logistic(x, y, 1, 1e-6, NULL) FROM regress_mecherr.t$$),
  ($$SELECT dpobj.dp_logistic(x, y, 1, 1e-6, '{}') FROM regress_mecherr.t$$),
  ($$SELECT dpobj.dp_logistic(x, y, 1, 1e-6, '[1]') FROM regress_mecherr.t$$),
  ($$SELECT dpobj.dp_logistic(x, y, 1, 1e-6, '{"R": 0}') FROM regress_mecherr.t$$),
  ($$SELECT dpobj.dp_logistic(x, y, 1, 1e-6, '{"R": -1}') FROM regress_mecherr.t$$),
  ($$SELECT dpobj.dp_logistic(x, y, 1, 1e-6, '{"R": "1"}') FROM regress_mecherr.t$$),
  ($$SELECT dpobj.dp_logistic(x, y, 1, 1e-6, '{"R": 1, "method": "magic"}') FROM regress_mecherr.t$$),
  ($$SELECT dpobj.dp_logistic(x, y, 1, 1e-6, '{"R": 1, "method": 3}') FROM regress_mecherr.t$$),
  ($$SELECT dpobj.dp_logistic(x, y, 1, 1e-6, '{"R": 1, "loss": "hinge"}') FROM regress_mecherr.t$$),
  ($$SELECT dpobj.dp_logistic(x, y, 1, 1e-6, '{"R": 1, "lambda": 0}') FROM regress_mecherr.t$$),
  ($$SELECT dpobj.dp_logistic(x, y, 1, 1e-6, '{"R": 1, "lambda": 0.1}') FROM regress_mecherr.t$$),
  ($$SELECT dpobj.dp_logistic(x, y, 1, 1e-6, '{"R": 1, "intercept": 1}') FROM regress_mecherr.t$$),
  ($$SELECT dpobj.dp_logistic(x, y, 1, 1e-6, '{"R": 1, "h": 0}') FROM regress_mecherr.t$$),
  ($$SELECT dpobj.dp_logistic(x, y, 1, 1e-6, '{"R": 1, "T": 10}') FROM regress_mecherr.t$$),
  ($$SELECT dpobj.dp_noisysgd(x, y, 1, 1e-6, '{"R": 1, "T": 0}') FROM regress_mecherr.t$$),
  ($$SELECT dpobj.dp_noisysgd(x, y, 1, 1e-6, '{"R": 1, "T": 1.5}') FROM regress_mecherr.t$$),
  ($$SELECT dpobj.dp_noisysgd(x, y, 1, 1e-6, '{"R": 1, "radius": 0}') FROM regress_mecherr.t$$),
  ($$SELECT dpobj.dp_noisysgd(x, y, 1, 1e-6, '{"R": 1, "method": "output"}') FROM regress_mecherr.t$$),
  ($$SELECT dpobj.dp_opsamp(x, y, 1, 1e-6, '{"R": 1, "beta": 2}') FROM regress_mecherr.t$$),
  ($$SELECT dpobj.dp_opsamp(x, y, 1, 1e-6, '{"R": 1, "loss": "logistic"}') FROM regress_mecherr.t$$),
  ($$SELECT dpobj.dp_opsamp(x, y, 1e-9, 1e-300, '{"R": 1}') FROM regress_mecherr.t$$)
) v(q);

-- privacy parameters, rows (the same rules as dp_halfspace)
SELECT (regress.err(q)).* FROM (VALUES
  ($$SELECT dpobj.dp_logistic(x, y, 0, 1e-6, '{"R": 1}') FROM regress_mecherr.t$$),
  ($$SELECT dpobj.dp_logistic(x, y, 'NaN', 1e-6, '{"R": 1}') FROM regress_mecherr.t$$),
  ($$SELECT dpobj.dp_noisysgd(x, y, 1, 1, '{"R": 1}') FROM regress_mecherr.t$$),
  ($$SELECT dpobj.dp_opsamp(x, y, 1, NULL, '{"R": 1}') FROM regress_mecherr.t$$),
  ($$SELECT dpobj.dp_logistic(NULL::float8[], true, 1, 1e-6, '{"R": 1}')$$),
  ($$SELECT dpobj.dp_logistic(ARRAY[1.0], NULL, 1, 1e-6, '{"R": 1}')$$),
  ($$SELECT dpobj.dp_logistic(ARRAY[]::float8[], true, 1, 1e-6, '{"R": 1}')$$),
  ($$SELECT dpobj.dp_logistic(ARRAY[[1.0]], true, 1, 1e-6, '{"R": 1}')$$),
  ($$SELECT dpobj.dp_logistic(ARRAY[1.0, NULL], true, 1, 1e-6, '{"R": 1}')$$),
  ($$SELECT dpobj.dp_noisysgd(ARRAY[1.0, 'NaN'], true, 1, 1e-6, '{"R": 1}')$$),
  ($$SELECT dpobj.dp_opsamp(ARRAY['-Infinity']::float8[], true, 1, 1e-6, '{"R": 1}')$$),
  ($$SELECT dpobj.dp_logistic(x, y, 1, 1e-6, '{"R": 1}') FROM (VALUES (ARRAY[1.0], true), (ARRAY[1.0, 2.0], false)) v(x, y)$$),
  ($$SELECT dpobj.dp_logistic(x, y, e, 1e-6, '{"R": 1}') FROM (VALUES (ARRAY[1.0], true, 1.0), (ARRAY[1.0], false, 2.0)) v(x, y, e)$$),
  ($$SELECT dpobj.dp_logistic(x, y, 1, 1e-6, o) FROM (VALUES (ARRAY[1.0], true, '{"R": 1}'::jsonb), (ARRAY[1.0], false, '{"R": 2}')) v(x, y, o)$$),
  ($$SELECT dpobj.dp_logistic(array_fill(0.5::float8, ARRAY[1025]), true, 1, 1e-6, '{"R": 1}')$$),
  ($$SELECT dpobj.dp_logistic(x, y, 1, 1e-6, '{"R": 1}') OVER () FROM regress_mecherr.t$$)
) v(q);

-- RSPM: fixed grid; exponential mechanism: small grids only
SELECT (regress.err(q)).* FROM (VALUES
  ($$SELECT dpobj.dp_halfspace_rspm(x, y, 1, 1e-6, '{"B": 2}') FROM regress_mecherr.t$$),
  ($$SELECT dpobj.dp_halfspace_rspm(x, y, 1, 1e-6, '{"D2": 1}') FROM regress_mecherr.t$$),
  ($$SELECT dpobj.dp_halfspace_rspm(x, y, 1, 1e-6, '{"bogus": 1}') FROM regress_mecherr.t$$),
  ($$SELECT dpobj.dp_halfspace_rspm(x, y, -1, 1e-6) FROM regress_mecherr.t$$),
  ($$SELECT dpobj.dp_halfspace_rspm(ARRAY[1.0, NULL], true, 1, 1e-6)$$),
  ($$SELECT dpobj.dp_expmech(array_fill(0.5::float8, ARRAY[16]), true, 1, 1e-6, '{"B": 4, "D2": 16}')$$),
  ($$SELECT dpobj.dp_expmech(ARRAY[0.5, 0.5, 0.5, 0.5], true, 1, 1e-6, '{"B": 30, "D2": 4096}')$$),
  ($$SELECT dpobj.dp_expmech(ARRAY['NaN']::float8[], true, 1, 1e-6)$$),
  ($$SELECT dpobj.dp_halfspace_rspm(x, y, 1, 1e-6, '{"calibration": "exact"}') FROM regress_mecherr.t$$),
  ($$SELECT dpobj.dp_halfspace(x, y, 1, 1e-6, '{"calibration": 1}') FROM regress_mecherr.t$$),
  ($$SELECT dpobj.opdisc_sigma(1, 1e-6, 3, 3, 'exact')$$),
  ($$SELECT dpobj.rspm_sigma(1, 1e-6, 0, 'sound')$$),
  ($$SELECT dpobj.rspm_sigma(0, 0.5, 2)$$),
  ($$SELECT dpobj.rspm_sigma(1, 1e-6, 0)$$),
  ($$SELECT dpobj.expmech_grid_size(0, 1, 1)$$),
  ($$SELECT dpobj.noisysgd_sigma(1, 1e-6, 0, 1)$$),
  ($$SELECT dpobj.opsamp_calibration(1, 1e-6, 10, 2, 0, 0.05, false)$$),
  ($$SELECT dpobj.analytic_gauss_sigma(1, 2, 1)$$),
  ($$SELECT dpobj.glm_calibration(1, 1e-6, '{"R": 1, "lambda": 0.01}')$$),
  ($$SELECT dpobj.probability(ROW('rspm', ARRAY[1.0, 1.0], 0, 1, 1e-6, '{"loss": "zero_one", "Q": 64}')::dpobj.model, ARRAY[1.0, 1.0])$$)
) v(q);

-- dpobj.train() checks the same arguments before it scans (and before any charge), once
-- the table is protected and the caller has a budget on it (checked first)
SELECT dpobj.protect('regress_mecherr.t');
SELECT granted_epsilon FROM dpobj.grant_budget('regress_mecherr.t', current_user::regrole, 10, 0.01);
SELECT (regress.err(q)).* FROM (VALUES
  ($$SELECT dpobj.train('regress_mecherr.t', 'magic', ARRAY['x'], 'y', 1, 1e-6, '{}')$$),
  ($$SELECT dpobj.train('regress_mecherr.t', 'logistic', ARRAY['y'], 'y', 1, 1e-6, '{}')$$),
  ($$SELECT dpobj.train('regress_mecherr.t', 'rspm', ARRAY['y'], 'y', 1, 1e-6, '{"B": 3}')$$),
  ($$SELECT dpobj.train('regress_mecherr.t', 'expmech', array_fill('y'::text, ARRAY[16]), 'y', 1, 1e-6, '{"B": 4, "D2": 16}')$$),
  ($$SELECT dpobj.train('regress_mecherr.t', 'opsamp', ARRAY['y'], 'y', 1, 1e-6, '{"R": 1, "beta": 0}')$$)
) v(q);

-- none of the above charged anything (the RSPM runs with grid options are
-- refused after their rows were read, but before the charge)
SELECT count(*) - :ledger_before AS new_ledger_rows FROM dpobj.ledger;
DROP SCHEMA regress_mecherr CASCADE;
