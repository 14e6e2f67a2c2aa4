-- dp_logistic never fails after the charge for the rows' sake: where Newton does not
-- reach the gradient tolerance, the accelerated descent (src/core/glmdescent.c) ends
-- within the public radius of the argmin, and the release's noise covers that radius
-- (approximate minima perturbation, docs/PRIVACY.md "Approximate minimisers").
--   * dpobj.glm_skip_newton (tests only) forces the fallback: superuser only to set
--     and to read;
--   * with it, train() on a protected table releases a model for every method and the
--     ledger says 'released' (the old solver raised DP001 'not_certified' where Newton
--     failed);
--   * the descent's point is within the public radius of Newton's: with the same seed
--     the direct aggregate's models differ by at most one lattice unit;
--   * the calibration's approximate-minima terms, by hand.
CREATE SCHEMA regress_glm;
GRANT USAGE ON SCHEMA regress_glm TO PUBLIC;
CREATE FUNCTION regress_glm.err(q text)
RETURNS TABLE (sqlstate text, message text)
LANGUAGE plpgsql AS $$
DECLARE s text; m text;
BEGIN
    EXECUTE q;
    RETURN QUERY SELECT 'ok'::text, NULL::text;
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS s = RETURNED_SQLSTATE, m = MESSAGE_TEXT;
    RETURN QUERY SELECT s, m;
END $$;
CREATE TABLE regress_glm.pts AS
  SELECT i, (i % 7) / 4.0 - 0.75 AS a, (i % 5) / 4.0 - 0.5 AS b, (i % 7) > 3 AS y
    FROM generate_series(1, 60) i;

-- ---- the calibration: r = 2e-6 L R_eff / (Lambda + Delta), eps2 = 1 % of eps --------
-- (Objective-Gauss) or of the noise's share eps' (CMS)
-- Objective-Gauss, R = 1 with an intercept, eps = 1: Lambda = 2 (1/4) 2 / 1 = 1; the
-- calibration helper takes d = 1, so p = 2; its b is rounded to the lattice
-- g = 2^(floor(log2 sigma) - 27), which moves the argmin by up to g sqrt(p) / (2 Lambda)
SELECT abs((c->>'amp_radius')::float8 /
           (2e-6 * sqrt(2) / 1 + 2::float8 ^ (floor(ln((c->>'sigma')::float8) / ln(2)) - 27) * sqrt(2) / 2) - 1)
         < 1e-12 AS radius_ok,
       (c->>'amp_epsilon')::float8 = 0.01 AS share_ok,
       (c->>'amp_laplace_scale')::float8 >= 2 * (c->>'amp_radius')::float8 * sqrt(2) / 0.01 AS covers_l1,
       (c->>'amp_laplace_scale')::float8 <= 1.001 * (2 * (c->>'amp_radius')::float8 * sqrt(2) / 0.01)
         + 2 * 2 * (c->>'amp_laplace_scale')::float8 / 65536 / 0.01 AS tight,
       (c->>'amp_laplace_scale')::float8 < 1e-4 * (c->>'sigma')::float8 / (c->>'lambda')::float8 AS negligible
  FROM dpobj.glm_calibration(1, 1e-6, '{"R": 1, "metric": "accuracy"}') c;
-- CMS pays 1 % of eps' (eps' + eps2 is the old eps'); Output-Gauss has no extra noise
-- (its sensitivity has 2 r)
SELECT c->>'method' AS method,
       abs((c->>'amp_epsilon')::float8 / (0.01 / 0.99 * (c->>'epsilon_prime')::float8) - 1) < 1e-12 AS share_ok,
       abs((c->>'amp_radius')::float8 / (2e-6 * sqrt(2) / ((c->>'lambda')::float8 + (c->>'Delta')::float8)) - 1) < 1e-12 AS radius_ok
  FROM dpobj.glm_calibration(2, 1e-6, '{"R": 1, "method": "cms", "metric": "accuracy"}') c;
SELECT c ? 'amp_epsilon' AS has_amp,
       abs((c->>'sensitivity')::float8 / (2 * sqrt(2) / 5 + 2 * (2e-6 * sqrt(2) / 5)) - 1) < 1e-12 AS sensitivity_has_2r
  FROM dpobj.glm_calibration(1, 1e-6, '{"R": 1, "method": "output", "lambda": 5, "metric": "accuracy"}') c;

-- ---- the switch: superuser only, to set and to read ----------------------------------
CREATE ROLE regress_glm_owner;
CREATE ROLE regress_glm_alice;
GRANT CREATE ON SCHEMA regress_glm TO regress_glm_owner;
ALTER TABLE regress_glm.pts OWNER TO regress_glm_owner;
SET ROLE regress_glm_alice;
-- (the messages' wording differs between server versions: the SQLSTATE and the name)
SELECT e.sqlstate, e.message LIKE '%"dpobj.glm_skip_newton"%' AS names_it
  FROM (VALUES
  ($$SET dpobj.glm_skip_newton = on$$),
  ($$SHOW dpobj.glm_skip_newton$$),
  ($$SELECT current_setting('dpobj.glm_skip_newton')$$)
) v(q), LATERAL regress_glm.err(q) e;
SELECT count(*) AS listed FROM pg_settings WHERE name = 'dpobj.glm_skip_newton';
RESET ROLE;

-- ---- protected runs release through the fallback -------------------------------------
SET ROLE regress_glm_owner;
REVOKE ALL ON regress_glm.pts FROM PUBLIC;
SELECT dpobj.protect('regress_glm.pts');
SELECT 1 FROM dpobj.grant_budget('regress_glm.pts', 'regress_glm_alice', 10, 0.001);
RESET ROLE;
SELECT count(*) AS ledger_before FROM dpobj.ledger \gset
-- a superuser's SET in the analyst's session
SET dpobj.glm_skip_newton = on;
SET ROLE regress_glm_alice;
SELECT m, mechanism, cardinality(weights) AS d,
       (SELECT bool_and(w = w AND abs(w) < 1e6) FROM unnest(weights) w) AS finite
  FROM (VALUES ('objective'), ('output'), ('cms')) v(m),
       LATERAL dpobj.train('regress_glm.pts', 'logistic', ARRAY['a', 'b'], 'y', 0.5, 1e-5,
                           jsonb_build_object('R', 1, 'method', m, 'lambda', 5)) t
 ORDER BY m;
SELECT spent_epsilon, spent_delta FROM dpobj.my_budgets;
RESET ROLE;
RESET dpobj.glm_skip_newton;
SELECT mechanism, outcome, detail FROM dpobj.ledger ORDER BY id OFFSET :ledger_before;

-- ---- the descent's point is Newton's, to the public radius ---------------------------
-- same seed, same noise: the models differ by the two points' distance (at most 2 r,
-- far below the lattice), so by at most one lattice unit per coordinate
CREATE FUNCTION regress_glm.fit(method text, skip boolean) RETURNS dpobj.model
LANGUAGE plpgsql AS $$
DECLARE m dpobj.model;
BEGIN
    PERFORM set_config('dpobj.seed', '11', true);
    PERFORM set_config('dpobj.glm_skip_newton', skip::text, true);
    m := (SELECT dpobj.dp_logistic(ARRAY[a, b]::float8[], y, 1, 1e-6,
                                   jsonb_build_object('R', 1, 'method', method, 'lambda', 5))
            FROM regress_glm.pts);
    RETURN m;
END $$;
SELECT method,
       (SELECT max(abs(x - y)) FROM unnest((n).weights || (n).bias, (s).weights || (s).bias) u(x, y))
         <= ((n).params->>'lattice')::float8 AS within_one_unit
  FROM (VALUES ('objective'), ('output'), ('cms')) v(method),
       LATERAL (SELECT regress_glm.fit(method, false) AS n, regress_glm.fit(method, true) AS s) f
 ORDER BY method;

SELECT dpobj.unprotect('regress_glm.pts');
DROP SCHEMA regress_glm CASCADE;
DROP ROLE regress_glm_owner;
DROP ROLE regress_glm_alice;
