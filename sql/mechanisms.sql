-- The mechanism family.  Calibrations against hand-computed values,
-- seeded runs of every mechanism, the public params of each model, predict /
-- score / probability, the ledger, and every mechanism through dpobj.train().
CREATE SCHEMA regress_mech;
SET dpobj.seed = 7;
SET extra_float_digits = 0;
SELECT coalesce(max(id), 0) AS ledger_start FROM dpobj.ledger \gset

-- ---- calibrations ----------------------------------------------------
-- RSPM (Algorithm 3): sigma = 7 sqrt(m ln(1/delta)) / eps, m = 2d
SELECT round(dpobj.rspm_sigma(1, 1e-8, 4)::numeric, 6) AS rspm,
       round((7 * sqrt(8 * ln(1e8)))::numeric, 6) AS by_hand;
SELECT round(dpobj.rspm_sigma(0.1, 1.0 / 15682^2, 23)::numeric, 4) AS rspm_d23_eps01,
       round((7 * sqrt(46 * ln(15682^2)) / 0.1)::numeric, 4) AS by_hand;
-- OPDisc and RSPM default to the sound calibration (docs/PRIVACY.md): the smallest
-- sigma whose radial-shift bound is <= delta.  Adult d = 23, delta = 1/n^2: sound
-- vs the paper's sigma, for OPDisc (shift 4 D2) and RSPM (shift 2 sqrt(2d)).
SELECT e AS eps,
       round(dpobj.opdisc_sigma(e, 1.0 / 15682^2, 23, 23, 'sound')::numeric, 1) AS opdisc_sound,
       round(dpobj.opdisc_sigma(e, 1.0 / 15682^2, 23, 23, 'paper')::numeric, 1) AS opdisc_paper,
       round(dpobj.rspm_sigma(e, 1.0 / 15682^2, 23, 'sound')::numeric, 1) AS rspm_sound,
       round(dpobj.rspm_sigma(e, 1.0 / 15682^2, 23, 'paper')::numeric, 1) AS rspm_paper
  FROM (VALUES (0.1), (1.0), (5.0)) v(e);
-- the 0.1.0 functions keep giving the paper's sigma
SELECT dpobj.opdisc_sigma(1, 1e-6, 5) = dpobj.opdisc_sigma(1, 1e-6, 9, 5, 'paper') AS same_opdisc,
       dpobj.rspm_sigma(1, 1e-6, 5) = dpobj.rspm_sigma(1, 1e-6, 5, 'paper') AS same_rspm;
-- the model says which calibration made it
SELECT (m).params->>'calibration' AS calibration, (m).params->>'sigma' = dpobj.opdisc_sigma(1, 1e-6, 1, 1, 'paper')::text AS paper_sigma
  FROM (SELECT dpobj.dp_halfspace(ARRAY[x], x > 0, 1, 1e-6, '{"calibration": "paper"}') AS m
          FROM (VALUES (0.5), (-0.5)) t(x)) s;
-- exponential mechanism grid sizes: {-1,0,1}^2 = 9; with ||w||^2 <= 1: 5
SELECT dpobj.expmech_grid_size(2, 1, 2) AS g9, dpobj.expmech_grid_size(2, 1, 1) AS g5,
       dpobj.expmech_grid_size(3, 1, 3) AS g27, dpobj.expmech_grid_size(4, 2, 4) AS g_d4;
-- Objective-Gauss, no intercept, R = 1, eps = 1, delta = 1e-6: lambda = 2 (1/4) 1 / 1 = 0.5.
-- Replace-one neighbours move the gradient by up to zeta = 2 L R, in the plane of the two
-- rows; sigma is calibrated numerically (docs/PRIVACY.md, tests/unit/test_calibrate.c):
-- above KST12's add/remove value (zeta = L R), below simply doubling it.
SELECT c->>'method' AS method, (c->>'lambda')::float8 AS lambda,
       round((c->>'sigma')::numeric, 6) AS sigma,
       (c->>'sigma')::float8 > sqrt(8 * ln(2e6) + 4) AS above_add_remove,
       (c->>'sigma')::float8 < 2 * sqrt(8 * ln(2e6) + 4) AS below_doubled
  FROM dpobj.glm_calibration(1, 1e-6, '{"R": 1, "intercept": false, "metric": "accuracy"}') c;
-- with the intercept R_eff^2 = R^2 + 1; Huber h = 0.5: beta = 1; eps = 0.5: lambda = 2 * 1 * (4 + 1) / 0.5 = 20
SELECT (c->>'lambda')::float8 AS lambda, round((c->>'sigma')::numeric, 6) AS sigma,
       (c->>'sigma')::float8 > sqrt(5 * (8 * ln(2e6) + 2)) / 0.5 AS above_add_remove,
       (c->>'sigma')::float8 < 2 * sqrt(5 * (8 * ln(2e6) + 2)) / 0.5 AS below_doubled
  FROM dpobj.glm_calibration(0.5, 1e-6, '{"R": 2, "loss": "huber", "metric": "accuracy"}') c;
-- the minimum lambda rounds up, never below 2 beta R^2 / epsilon: at eps = 3, 0.5 / 3 to
-- nearest is 0.16666666666666666, whose 3-fold is below 0.5 (its next double's is above);
-- extra_float_digits = 1: the params carry the shortest exact text of each double
SET extra_float_digits = 1;
SELECT c->>'lambda' AS lambda, (c->>'lambda')::numeric * 3 >= 0.5 AS at_least_minimum
  FROM dpobj.glm_calibration(3, 1e-6, '{"R": 1, "intercept": false, "metric": "accuracy"}') c;
SET extra_float_digits = 0;
SELECT (regress.err($$SELECT dpobj.glm_calibration(3, 1e-6,
  '{"R": 1, "intercept": false, "lambda": 0.16666666666666666, "metric": "accuracy"}')$$)).*;
-- zCDP to (eps, delta) (docs/PRIVACY.md): the eps that rho-zCDP gives at delta = 1e-6,
-- minimised here over the Renyi orders alpha = 1 + 10^(k/64) (every order is a valid bound)
CREATE FUNCTION regress_mech.zcdp_eps(rho float8, delta float8) RETURNS float8 LANGUAGE sql AS $$
  SELECT min(a * rho + (ln(1 / delta) + (a - 1) * ln(1 - 1 / a) - ln(a)) / (a - 1))
    FROM (SELECT 1 + 10 ^ (k / 64.0) AS a FROM generate_series(-192, 384) k) s $$;
-- Output-Gauss: sensitivity 2 L R (1 + 2e-6) / lambda = 1.000002 (the released point is
-- within 1e-6 L R / lambda of the argmin); snapped discrete Gaussian: lattice g = 2^(0 - 12),
-- integer shift S/g + sqrt(p) (p = 1), variance ceil((S/g + 1)^2 / (2 rho)) lattice units,
-- rho the largest that converts to eps = 0.5; more
-- than Bun-Steinke's rho (closed form), so less noise than that conversion would need
SELECT (c->>'sensitivity')::float8 AS sensitivity, round((c->>'sigma')::numeric, 9) AS sigma,
       (c->>'sensitivity')::float8 = 1 + 2e-6 AS sensitivity_ok,
       abs((c->>'sigma')::float8 / (sqrt(ceil(((c->>'sensitivity')::float8 * 4096 + 1)^2 / (2 * (c->>'rho')::float8))) / 4096) - 1) < 1e-12 AS sigma_ok,
       regress_mech.zcdp_eps((c->>'rho')::float8, 1e-6) <= 0.5 * (1 + 1e-9) AS rho_within_eps,
       regress_mech.zcdp_eps((c->>'rho')::float8 * 1.001, 1e-6) > 0.5 AS rho_largest,
       (c->>'rho')::float8 > 0.25 / (sqrt(ln(1e6) + 0.5) + sqrt(ln(1e6)))^2 AS above_bun_steinke,
       (c->>'lattice')::float8 = 2 ^ -12 AS lattice_ok, c->>'noise' AS noise
  FROM dpobj.glm_calibration(0.5, 1e-6, '{"R": 1, "intercept": false, "method": "output", "lambda": 2, "metric": "accuracy"}') c;
-- dpobj.analytic_gauss_sigma: for eps > 1 below the classical formula
SELECT dpobj.analytic_gauss_sigma(1, 1e-5, 1) = sqrt(2 * ln(1.25e5)) AS classical_at_1,
       dpobj.analytic_gauss_sigma(2, 1e-5, 1) < sqrt(2 * ln(1.25e5)) / 2 AS analytic_tighter,
       dpobj.analytic_gauss_sigma(4, 1e-5, 1) < dpobj.analytic_gauss_sigma(2, 1e-5, 1) AS decreasing;
-- CMS: eps' = 0.99 (eps - ln(1 + 2c/L + (c/L)^2)), c = 1/4, L = 1 (the other 1 % of the
-- noise's share pays the approximate minimiser's output noise); Delta = 0
SELECT round((c->>'epsilon_prime')::numeric, 12) AS eps_prime,
       round((0.99 * (1 - ln(1.5625)))::numeric, 12) AS by_hand, (c->>'Delta')::float8 AS "Delta"
  FROM dpobj.glm_calibration(1, 1e-6, '{"R": 1, "intercept": false, "method": "cms", "lambda": 1, "metric": "accuracy"}') c;
-- lambda = 0.1: eps' <= 0, so Delta = c/(e^(eps/4) - 1) - lambda and eps' = 0.99 eps/2
SELECT (c->>'epsilon_prime')::float8 AS eps_prime, round((c->>'Delta')::numeric, 12) AS "Delta",
       round((0.25 / (exp(0.25) - 1) - 0.1)::numeric, 12) AS by_hand
  FROM dpobj.glm_calibration(1, 1e-6, '{"R": 1, "intercept": false, "method": "cms", "lambda": 0.1, "metric": "accuracy"}') c;
-- noisy SGD: sigma^2 = 32 L^2 n^2 ln(n/delta) ln(1/delta) / eps^2
SELECT round(dpobj.noisysgd_sigma(1, 1e-6, 1000, 1)::numeric, 6) AS sgd,
       round(sqrt(32 * 1000.0^2 * ln(1e9) * ln(1e6))::numeric, 6) AS by_hand;
-- a scale num / eps rounds up: the float quotient or the next double above, never below
SELECT count(*) FILTER (WHERE g > n) > 0 AS gauss_raised, count(*) FILTER (WHERE s > m) > 0 AS sgd_raised,
       bool_and(g >= n AND g <= n + n * 2.0 ^ -52 AND s >= m AND s <= m + m * 2.0 ^ -52) AS within_an_ulp
  FROM (SELECT dpobj.analytic_gauss_sigma(e, d, 3) AS g, 3 * sqrt(2 * ln(1.25 / d)) / e AS n,
               dpobj.noisysgd_sigma(e, d, 1000, 0.7) AS s,
               sqrt(32 * l * l * k * k * ln(k / d) * ln(1 / d)) / e AS m
          FROM (SELECT i / 97::float8 AS e, 1e-5::float8 AS d, 0.7::float8 AS l, 1000::float8 AS k
                  FROM generate_series(1, 97) i) x) y;
-- OPSamp, p = 4, R = 1 (R_1 = 1), n = 10000, eps = 1, delta = 1e-6, beta = 0.05:
--   G = 1/2, D_2 = 4, D_inf = 2, gamma = sqrt(1e-4) 4^(5/4) 2, m = ceil(ln(8e6)/(2 gamma^2)),
--   eta = sqrt(4 sqrt(8) / (250 (1/4) 16 4 (1 + ln 40) 1e4)),
--   lambda = 2 p D_inf gamma + 250 eta (1/2) 16 4 = 16 gamma + ... (the paper's 4 D_inf gamma = 8 gamma
--   misses the factor p/2; docs/PRIVACY.md), Laplace scale lambda / (eps + ln(1 - delta))
WITH c AS (SELECT dpobj.opsamp_calibration(1, 1e-6, 10000, 4, 1, 0.05, false) c),
     h AS (SELECT 0.01 * 4^1.25 * 2 AS gamma,
                  sqrt(4 * sqrt(8) / (250 * 0.25 * 16 * 4 * (1 + ln(40)) * 1e4)) AS eta)
SELECT (c->>'G')::float8 AS "G",
       round((c->>'gamma')::numeric, 12) = round(h.gamma::numeric, 12) AS gamma_ok,
       (c->>'m')::bigint AS m, ceil(ln(8e6) / (2 * h.gamma^2)) AS m_by_hand,
       round((c->>'eta')::numeric, 12) = round(h.eta::numeric, 12) AS eta_ok,
       round((c->>'lambda')::numeric, 9) = round((16 * h.gamma + 250 * h.eta * 0.5 * 64)::numeric, 9) AS lambda_ok,
       -- snapped release: b = lambda / eps_L, lattice g = 2^(floor(log2 b) - 16), scale
       -- t g with t = ceil((lambda/g + p) / eps_L), so b <= t g <= b (1 + p 2^-16) + g
       (c->>'laplace_scale')::float8 BETWEEN (16 * h.gamma + 250 * h.eta * 0.5 * 64) / (1 + ln(1 - 1e-6))
         AND (16 * h.gamma + 250 * h.eta * 0.5 * 64) / (1 + ln(1 - 1e-6)) * (1 + 4 / 65536.0)
             + (c->>'lattice')::float8 AS scale_ok,
       (c->>'lattice')::float8 = 2 ^ (floor(log(2, ((16 * h.gamma + 250 * h.eta * 0.5 * 64) / (1 + ln(1 - 1e-6)))::numeric)) - 16)
         AS lattice_ok
  FROM c, h;
-- n is lowered to the sample size K the session's cap gives (as train() calibrates):
-- 10 000 is below K at d = 4, 1e9 is not; a 64kB cap leaves a handful of rows
SELECT (dpobj.opsamp_calibration(1, 1e-6, 10000, 4, 1, 0.05, false)->>'n_used')::float8 AS n_used_small,
       (dpobj.opsamp_calibration(1, 1e-6, 1000000000, 4, 1, 0.05, false)->>'n_used')::float8
         BETWEEN 10000 AND 1e9 - 1 AS n_used_large_lowered;
SET dpobj.max_state_memory = '64kB';
SELECT (dpobj.opsamp_calibration(1, 1e-6, 10000, 4, 1, 0.05, false)->>'n_used')::float8 < 100 AS n_used_64kb;
RESET dpobj.max_state_memory;

-- ---- the mechanisms on a small table ---------------------------------
CREATE TABLE regress_mech.pts AS
SELECT ARRAY[(i % 7) / 7.0 - 0.4, ((i * 3) % 5) / 5.0 - 0.3, ((i * 11) % 13) / 13.0 - 0.5]::float8[] AS x,
       ((i % 7) / 7.0 - 0.4 + ((i * 3) % 5) / 5.0 - 0.3 + 0.3 * (((i * 17) % 11) / 11.0 - 0.5) > 0) AS y
  FROM generate_series(1, 400) i;

-- every model: mechanism, rounded weights and bias, public params only
CREATE FUNCTION regress_mech.show(m dpobj.model)
RETURNS TABLE (mechanism text, weights numeric[], bias numeric, params jsonb)
LANGUAGE sql AS $$
    SELECT m.mechanism,
           (SELECT array_agg(round(w::numeric, 3) ORDER BY o) FROM unnest(m.weights) WITH ORDINALITY u(w, o)),
           round(m.bias::numeric, 3),
           m.params - 'sigma' - 'oracle' || CASE WHEN m.params ? 'sigma'
                                      THEN jsonb_build_object('sigma', round((m.params->>'sigma')::numeric, 6))
                                      ELSE '{}'::jsonb END
$$;

SELECT (regress_mech.show(dpobj.dp_halfspace_rspm(x, y, 1, 1e-6))).* FROM regress_mech.pts;
-- the GLPK MIP oracle (certified by the search) returns the search's argmin; GLPK is
-- slow on RSPM's separable costs at the sound sigma (minutes at d = 3), so this
-- cross-check runs on the paper's calibration, both oracles on the same instance
SELECT (regress_mech.show(dpobj.dp_halfspace_rspm(x, y, 1, 1e-6, '{"calibration": "paper"}'))).* FROM regress_mech.pts;
SELECT (regress_mech.show(dpobj.dp_halfspace_rspm(x, y, 1, 1e-6, '{"oracle": "mip", "calibration": "paper"}'))).* FROM regress_mech.pts;
SELECT (regress_mech.show(dpobj.dp_expmech(x, y, 1, 1e-6))).* FROM regress_mech.pts;
SELECT (regress_mech.show(dpobj.dp_expmech(x, y, 1, 1e-6, '{"B": 1, "D2": 2}'))).* FROM regress_mech.pts;
SELECT (regress_mech.show(dpobj.dp_logistic(x, y, 1, 1e-6, '{"R": 1}'))).* FROM regress_mech.pts;
SELECT (regress_mech.show(dpobj.dp_logistic(x, y, 1, 1e-6, '{"R": 1, "method": "output", "lambda": 5}'))).* FROM regress_mech.pts;
SELECT (regress_mech.show(dpobj.dp_logistic(x, y, 2, 1e-6, '{"R": 1, "method": "cms", "loss": "huber", "h": 0.25, "intercept": false}'))).* FROM regress_mech.pts;
SELECT (regress_mech.show(dpobj.dp_noisysgd(x, y, 1, 1e-6, '{"R": 1, "T": 20000}'))).* FROM regress_mech.pts;
-- noisy GD's calibration (docs/PRIVACY.md): T = 20000 snapped Gaussian steps, each of
-- sensitivity 2 R_eff = 2 sqrt 2 (intercept), p = 4 coordinates, rho-zCDP in total (rho
-- as for Output-Gauss): lattice g = 2^(floor(log2 s) - 26) with s = 2 sqrt 2 sqrt(T /
-- (2 rho)), and sigma = g sqrt(ceil(T (2 sqrt 2 (1 + 2^-30) / g + 2 (1 + 2^-5))^2 / (2 rho)))
-- (the terms summed exactly: their float error and rounding, one row per unit); without
-- the operating point's balance estimate ("metric": "accuracy"), which takes a share of rho
WITH m AS (SELECT (dpobj.dp_noisysgd(x, y, 1, 1e-6, '{"R": 1, "T": 20000, "metric": "accuracy"}')).params AS pr FROM regress_mech.pts),
     h AS (SELECT (pr->>'rho')::float8 AS rho,
                  2 ^ (floor(log(2, (2 * sqrt(2) * sqrt(20000 / (2 * (pr->>'rho')::float8)))::numeric)) - 26) AS g FROM m)
SELECT pr->>'noise' AS noise, (pr->>'lattice')::float8 = h.g AS lattice_ok,
       abs((pr->>'sigma')::float8 / (h.g * sqrt(ceil(20000 * (2 * sqrt(2) * (1 + 2 ^ -30) / h.g + 2 * (1 + 2 ^ -5))^2 / (2 * h.rho)))) - 1) < 1e-9 AS sigma_ok,
       regress_mech.zcdp_eps(h.rho, 1e-6) <= 1 + 1e-9 AS rho_within_eps
  FROM m, h;
SELECT (regress_mech.show(dpobj.dp_noisysgd(x, y, 1, 1e-6, '{"R": 1, "loss": "huber", "radius": 2}'))).* FROM regress_mech.pts;
SELECT (regress_mech.show(dpobj.dp_opsamp(x, y, 1, 1e-6, '{"R": 1}'))).* FROM regress_mech.pts;

-- every run was charged before its noise and released
SELECT mechanism, epsilon, delta, outcome FROM dpobj.ledger WHERE id > :ledger_start ORDER BY id;

-- no rows: nothing runs, nothing is charged
SELECT dpobj.dp_logistic(x, y, 1, 1e-6, '{"R": 1}') IS NULL AS no_model,
       dpobj.dp_halfspace_rspm(x, y, 1, 1e-6) IS NULL AS no_rspm,
       dpobj.dp_expmech(x, y, 1, 1e-6) IS NULL AS no_expmech
  FROM regress_mech.pts WHERE false;
SELECT count(*) AS ledger_rows FROM dpobj.ledger WHERE id > :ledger_start;

-- predict / score / probability work for every model
CREATE TABLE regress_mech.models AS
SELECT 'logistic' AS k, dpobj.dp_logistic(x, y, 1, 1e-6, '{"R": 1}') AS m FROM regress_mech.pts
UNION ALL SELECT 'sgd', dpobj.dp_noisysgd(x, y, 1, 1e-6, '{"R": 1, "T": 1000}') FROM regress_mech.pts
UNION ALL SELECT 'huber', dpobj.dp_logistic(x, y, 1, 1e-6, '{"R": 1, "loss": "huber"}') FROM regress_mech.pts
UNION ALL SELECT 'rspm', dpobj.dp_halfspace_rspm(x, y, 1, 1e-6) FROM regress_mech.pts
UNION ALL SELECT 'expmech', dpobj.dp_expmech(x, y, 1, 1e-6) FROM regress_mech.pts
UNION ALL SELECT 'opsamp', dpobj.dp_opsamp(x, y, 1, 1e-6, '{"R": 1}') FROM regress_mech.pts;
-- predict is the score above the model's cut-off (params "threshold", 0 without one)
SELECT k, bool_and(dpobj.predict(m, x) = (dpobj.score(m, x) > coalesce(((m).params->>'threshold')::float8, 0))) AS predict_is_cut
  FROM regress_mech.models, regress_mech.pts
 WHERE k NOT IN ('rspm', 'expmech') GROUP BY k ORDER BY k;
SELECT k, count(*) FILTER (WHERE dpobj.predict(m, x) IS NOT NULL) AS predicted
  FROM regress_mech.models, regress_mech.pts GROUP BY k ORDER BY k;
-- probability = logistic(score), for logistic models only
SELECT k, bool_and(abs(dpobj.probability(m, x) - 1 / (1 + exp(-dpobj.score(m, x)))) < 1e-12) AS prob_ok
  FROM regress_mech.models, regress_mech.pts WHERE k IN ('logistic', 'sgd') GROUP BY k ORDER BY k;
SELECT dpobj.probability(m, ARRAY[1e6, 1e6, 1e6]) BETWEEN 0 AND 1 AS saturates FROM regress_mech.models WHERE k = 'logistic';
SELECT dpobj.probability(m, ARRAY[0.1, 0.1, 0.1]) FROM regress_mech.models WHERE k = 'huber';

-- ---- the protected path: every mechanism through dpobj.train() -------
CREATE ROLE regress_mech_owner;
CREATE ROLE regress_mech_analyst;
GRANT USAGE ON SCHEMA regress_mech TO regress_mech_owner, regress_mech_analyst;
GRANT CREATE ON SCHEMA regress_mech TO regress_mech_owner;
SET ROLE regress_mech_owner;
CREATE TABLE regress_mech.secret (a float8, b float8, y boolean);
INSERT INTO regress_mech.secret
SELECT (i % 7) / 7.0 - 0.4, ((i * 3) % 5) / 5.0 - 0.3, (i % 7) / 7.0 + ((i * 3) % 5) / 5.0 > 0.7
  FROM generate_series(1, 200) i;
-- bad rows: dropped on the protected path, never an error
INSERT INTO regress_mech.secret VALUES (NULL, 0.1, true), ('NaN', 0.1, true),
    (0.1, 'Infinity', false), (0.1, 0.1, NULL), (1e300, 0.1, true);
SELECT dpobj.protect('regress_mech.secret');
RESET ROLE;
SELECT relation, analyst, granted_epsilon, granted_delta FROM dpobj.grant_budget('regress_mech.secret', 'regress_mech_analyst', 100, 1e-3);
-- protected runs refuse dpobj.seed (predictable noise): only noise-free columns shown
RESET dpobj.seed;
SET ROLE regress_mech_analyst;
-- an empty selection still runs (and is charged): the output does not reveal it
SELECT (dpobj.train('regress_mech.secret', 'logistic', ARRAY['a', 'b'], 'y', 0.5, 1e-6,
                    '{"R": 1, "filter": [{"column": "a", "op": ">", "value": 100}]}')).mechanism;
-- dp_logistic's methods by name: the same run as 'logistic' with {"method": ...}
SELECT alias, m.mechanism, m.params->>'method' AS method
  FROM (VALUES ('objective'), ('cms')) v(alias),
       LATERAL dpobj.train('regress_mech.secret', alias, ARRAY['a', 'b'], 'y', 0.5, 1e-6, '{"R": 1}') m;
-- noisysgd last: after a zCDP run the budget admits no approximate-DP run (sql/zcdp.sql)
SELECT mech, (regress_mech.show(dpobj.train('regress_mech.secret', mech, ARRAY['a', 'b'], 'y', 0.5, 1e-6, o))).mechanism
  FROM (VALUES ('rspm', '{}'::jsonb), ('expmech', '{}'), ('logistic', '{"R": 1}'),
               ('logistic', '{"R": 1, "method": "cms"}'), ('opsamp', '{"R": 1, "n": 400}'),
               ('noisysgd', '{"R": 1, "T": 1000}')) v(mech, o);
-- 'output' (zCDP); the same method again is fine; a different one is refused before the charge
SELECT (dpobj.train('regress_mech.secret', 'output', ARRAY['a', 'b'], 'y', 0.5, 1e-6,
                    '{"R": 1}')).params->>'method' AS method;
SELECT (dpobj.train('regress_mech.secret', 'output', ARRAY['a', 'b'], 'y', 0.5, 1e-6,
                    '{"R": 1, "method": "output"}')).params->>'method' AS method;
SELECT dpobj.train('regress_mech.secret', 'cms', ARRAY['a', 'b'], 'y', 0.5, 1e-6,
                   '{"R": 1, "method": "output"}');
RESET ROLE;
SELECT mechanism, epsilon, outcome, budget_id IS NOT NULL AS budgeted
  FROM dpobj.ledger WHERE relation LIKE '%secret%' AND id > :ledger_start ORDER BY id;
SELECT spent_epsilon FROM dpobj.budgets WHERE relid = 'regress_mech.secret'::regclass;

DROP SCHEMA regress_mech CASCADE;
DROP ROLE regress_mech_owner;
DROP ROLE regress_mech_analyst;
