-- The accountant (docs/PRIVACY.md, "Composition: one filter for every mechanism"):
-- each run's cost in its own form, the admission rule at the boundary,
-- dpobj.runs_left() equal to what is actually admitted, the odometer.
CREATE SCHEMA regress_zcdp;
GRANT USAGE ON SCHEMA regress_zcdp TO PUBLIC;
CREATE FUNCTION regress_zcdp.err(q text)
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
CREATE ROLE regress_zcdp_analyst;
CREATE TABLE regress_zcdp.t AS
SELECT i, (i % 7) / 4.0 - 0.75 AS a, (i % 5) / 4.0 - 0.5 AS b, (i % 3) > 0 AS y
  FROM generate_series(1, 20) i;
CREATE TABLE regress_zcdp.u AS SELECT * FROM regress_zcdp.t;
SELECT dpobj.protect('regress_zcdp.t'), dpobj.protect('regress_zcdp.u');

-- the conversion: an upper bound, a hair above what the calibration reaches
SELECT dpobj.zcdp_epsilon(0, 1e-6) AS zero_rho,
       dpobj.zcdp_epsilon(0.01, 0) IS NULL AS no_delta_no_epsilon,
       dpobj.zcdp_epsilon(0.02, 1e-6) > dpobj.zcdp_epsilon(0.01, 1e-6) AS grows;
-- Gaussian DP's: never above it, the same conventions; 96 noisy-GD runs at (0.1, 1e-7)
-- (rho 2.5355e-4 each) fit epsilon 1 at 4.5e-7, where zCDP needs 1.0043 at 9e-7
SELECT dpobj.gauss_epsilon(0, 1e-6) AS zero_rho,
       dpobj.gauss_epsilon(0.01, 0) IS NULL AS no_delta_no_epsilon,
       dpobj.gauss_epsilon(0.02, 1e-6) > dpobj.gauss_epsilon(0.01, 1e-6) AS grows,
       dpobj.gauss_epsilon(0.01, 1e-6) < dpobj.zcdp_epsilon(0.01, 1e-6) AS below_zcdp,
       dpobj.gauss_epsilon(96 * 0.00025355, 4.5e-7) < 1 AS fits_96,
       dpobj.zcdp_epsilon(96 * 0.00025355, 9e-7) > 1 AS zcdp_does_not;
-- a large delta: the bounds would come out negative (-0.645 at rho 0.0244, delta 0.5);
-- (0, delta) holds then, so neither is below 0, nor is a budget's spent epsilon
SELECT dpobj.zcdp_epsilon(0.0244, 0.5) BETWEEN 0 AND 1e-9 AS zcdp_zero,
       dpobj.gauss_epsilon(0.0244, 0.5) BETWEEN 0 AND 1e-9 AS gauss_zero,
       dpobj.gauss_epsilon(0.0244, 0.05) > 0 AS gauss_positive_below;

-- (1) 102 noisy-GD runs at (0.1, 1e-7) under (1, 1e-6), composed in Gaussian DP at
-- half of the 9e-7 the reserve leaves: basic composition admits 10, zCDP 95
SELECT (dpobj.grant_budget('regress_zcdp.t', 'regress_zcdp_analyst', 1, 1e-6)).id IS NOT NULL AS granted;
SET ROLE regress_zcdp_analyst;
SELECT dpobj.runs_left('regress_zcdp.t', 'noisysgd', 0.1, 1e-7, '{"R": 2, "T": 5}') AS n_sgd,
       dpobj.runs_left('regress_zcdp.t', 'noisysgd', 0.1, 1e-7, '{"R": 2, "T": 5}') >= 50 AS at_least_50,
       dpobj.runs_left('regress_zcdp.t', 'opdisc', 0.1, 1e-7) AS n_opdisc,
       dpobj.runs_left('regress_zcdp.t', 'logistic', 0.1, 1e-7, '{"R": 2, "method": "output"}') AS n_output;
-- a part that begins with a zcdp run ("R": "private": not Gaussian) is on the Renyi path
-- from the start, at the whole 9e-7: 95 such runs
SELECT dpobj.runs_left('regress_zcdp.t', 'noisysgd', 0.1, 1e-7, '{"R": "private", "T": 5}') AS n_private_r;
-- an alias is priced as train() runs it: 'output' is 'logistic' with {"method": "output"}
-- (Gaussian, zCDP), 'objective' is the approximate-DP default method
SELECT dpobj.runs_left('regress_zcdp.t', 'output', 0.1, 1e-7, '{"R": 2}') AS n_output_alias,
       dpobj.runs_left('regress_zcdp.t', 'objective', 0.1, 1e-7, '{"R": 2}') AS n_objective_alias,
       dpobj.runs_left('regress_zcdp.t', 'logistic', 0.1, 1e-7, '{"R": 2}') AS n_logistic;
SELECT dpobj.runs_left('regress_zcdp.t', 'output', 0.1, 1e-7, '{"R": 2, "method": "cms"}');
-- linear regression and one-vs-rest are charged in the form they are calibrated in:
-- AdaSSP, SSP, Output-Gauss and noisy GD per class in zCDP, CMS per class pure epsilon
SELECT dpobj.runs_left('regress_zcdp.t', 'linear', 0.1, 1e-7, '{"R": 2, "y_min": 0, "y_max": 1}') AS n_adassp,
       dpobj.runs_left('regress_zcdp.t', 'linear', 0.1, 1e-7, '{"R": 2, "y_min": 0, "y_max": 1, "method": "ssp"}') AS n_ssp,
       dpobj.runs_left('regress_zcdp.t', 'logistic_multiclass', 0.1, 1e-7, '{"R": 2, "classes": [0, 1], "method": "output"}') AS n_ovr_output,
       dpobj.runs_left('regress_zcdp.t', 'noisysgd_multiclass', 0.1, 1e-7, '{"R": 2, "classes": [0, 1]}') AS n_ovr_sgd,
       dpobj.runs_left('regress_zcdp.t', 'logistic_multiclass', 0.1, 1e-7, '{"R": 2, "classes": [0, 1]}') AS n_ovr_objective,
       dpobj.runs_left('regress_zcdp.t', 'logistic_multiclass', 0.1, 1e-7, '{"R": 2, "classes": [0, 1], "method": "cms"}') AS n_ovr_cms;
-- the boundary: runs_left() admitted, the next one refused, nothing charged for it
DO $$
DECLARE n bigint := dpobj.runs_left('regress_zcdp.t', 'noisysgd', 0.1, 1e-7, '{"R": 2, "T": 5}');
BEGIN
    FOR k IN 1 .. n LOOP
        PERFORM dpobj.train('regress_zcdp.t', 'noisysgd', ARRAY['a', 'b'], 'y', 0.1, 1e-7, '{"R": 2, "T": 5}');
    END LOOP;
END $$;
SELECT * FROM regress_zcdp.err($$SELECT dpobj.train('regress_zcdp.t', 'noisysgd', ARRAY['a', 'b'], 'y', 0.1, 1e-7, '{"R": 2, "T": 5}')$$);
-- its hint: the composed remaining epsilon cut (never rounded up) to 4 significant digits
CREATE TEMP TABLE refusal_hint AS SELECT NULL::text AS hint;
DO $$
DECLARE h text;
BEGIN
    PERFORM dpobj.train('regress_zcdp.t', 'noisysgd', ARRAY['a', 'b'], 'y', 0.1, 1e-7, '{"R": 2, "T": 5}');
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS h = PG_EXCEPTION_HINT;
    UPDATE refusal_hint SET hint = h;
END $$;
SELECT h.hint, m.remaining_epsilon - x.shown BETWEEN 0 AND 0.001 * m.remaining_epsilon AS cut_down
  FROM refusal_hint h, dpobj.my_budgets m,
       LATERAL (SELECT substring(h.hint FROM 'epsilon at least ([0-9.]+),')::numeric AS shown) x
 WHERE m.relation = 'regress_zcdp.t'::regclass;
DROP TABLE refusal_hint;
SELECT count(*) AS admitted, count(DISTINCT rho) AS one_rho, min(kind) AS kind, min(accounted) AS accounted,
       bool_and(epsilon = 0.1 AND delta = 1e-7) AS analyst_charge_kept
  FROM dpobj.ledger WHERE relation = 'regress_zcdp.t';
SELECT dpobj.runs_left('regress_zcdp.t', 'noisysgd', 0.1, 1e-7, '{"R": 2, "T": 5}') AS left_after;
-- the odometer: spend composed, remaining at the budget's delta; approximate-DP runs
-- still admitted from the reserve (a tenth of the granted delta)
SELECT m.granted_epsilon, m.granted_delta, m.spent_delta, m.remaining_delta,
       m.remaining_epsilon >= 0 AND m.remaining_epsilon < 0.05 AS nearly_spent,
       m.spent_epsilon + m.remaining_epsilon = m.granted_epsilon AS adds_up,
       a.spent_rho = (SELECT sum(rho) FROM dpobj.ledger WHERE relation = 'regress_zcdp.t') AS rho_sum,
       a.approx_admitted
  FROM dpobj.my_budgets m JOIN dpobj.budget_accounting a ON a.relation = m.relation
 WHERE m.relation = 'regress_zcdp.t'::regclass;
-- past the Renyi path's threshold (zCDP at the other half) no run of another kind
-- fits: an approximate-DP run, even a tiny one, is refused before the charge
SELECT * FROM regress_zcdp.err($$SELECT dpobj.train('regress_zcdp.t', 'opdisc', ARRAY['a', 'b'], 'y', 0.001, 1e-9)$$);
SELECT dpobj.runs_left('regress_zcdp.t', 'opdisc', 0.001, 1e-9) AS opdisc_left;
RESET ROLE;
SELECT gaussian_only FROM dpobj.budgets WHERE relid = 'regress_zcdp.t'::regclass;

-- (1b) within the Renyi path's threshold an approximate-DP run is admitted, its delta
-- from the reserve; it moves the part to the Renyi path for good (fewer Gaussian runs
-- left); one whose delta the reserve cannot hold: refused before the charge
CREATE TABLE regress_zcdp.g AS SELECT * FROM regress_zcdp.t;
SELECT dpobj.protect('regress_zcdp.g');
SELECT (dpobj.grant_budget('regress_zcdp.g', 'regress_zcdp_analyst', 1, 1e-6)).id IS NOT NULL AS granted;
SET ROLE regress_zcdp_analyst;
DO $$
BEGIN
    FOR k IN 1 .. 50 LOOP
        PERFORM dpobj.train('regress_zcdp.g', 'noisysgd', ARRAY['a', 'b'], 'y', 0.1, 1e-7, '{"R": 2, "T": 5}');
    END LOOP;
END $$;
SELECT dpobj.runs_left('regress_zcdp.g', 'noisysgd', 0.1, 1e-7, '{"R": 2, "T": 5}') AS gaussian_path_left;
SELECT * FROM regress_zcdp.err($$SELECT dpobj.train('regress_zcdp.g', 'opdisc', ARRAY['a', 'b'], 'y', 0.001, 1e-9)$$);
SELECT dpobj.runs_left('regress_zcdp.g', 'noisysgd', 0.1, 1e-7, '{"R": 2, "T": 5}') AS renyi_path_left,
       dpobj.runs_left('regress_zcdp.g', 'opdisc', 0.001, 1e-9) AS opdisc_left,
       dpobj.runs_left('regress_zcdp.g', 'opdisc', 0.001, 2e-7) AS over_reserve;
SELECT * FROM regress_zcdp.err($$SELECT dpobj.train('regress_zcdp.g', 'opdisc', ARRAY['a', 'b'], 'y', 0.001, 2e-7)$$);
-- the hint lists the runs that need no delta, from the mechanism registry
SELECT dpobj.train('regress_zcdp.g', 'opdisc', ARRAY['a', 'b'], 'y', 0.001, 2e-7);
RESET ROLE;
SELECT gaussian_only, filter_order IS NOT NULL AS pinned FROM dpobj.budgets
 WHERE relid = 'regress_zcdp.g'::regclass;

-- (2) a budget that admits exactly 3 runs: the 3rd admitted, the 4th refused
-- (3 runs of (0.1, 1e-7) need less than 0.3 at delta 2.7e-7, the granted 3e-7
-- less the reserve's tenth, by zCDP; in Gaussian DP at half of it, 3 fit and 4 do not)
SELECT (dpobj.grant_budget('regress_zcdp.u', 'regress_zcdp_analyst',
                          (SELECT dpobj.zcdp_epsilon(3 * rho, 2.7e-7) FROM dpobj.ledger
                            WHERE relation = 'regress_zcdp.t' AND kind = 'gauss' LIMIT 1), 3e-7)).id IS NOT NULL AS granted;
SET ROLE regress_zcdp_analyst;
SELECT granted_epsilon < 0.3 AS below_basic FROM dpobj.my_budgets WHERE relation = 'regress_zcdp.u'::regclass;
SELECT dpobj.runs_left('regress_zcdp.u', 'noisysgd', 0.1, 1e-7, '{"R": 2, "T": 5}') AS exactly_3;
SELECT * FROM regress_zcdp.err($$SELECT dpobj.train('regress_zcdp.u', 'noisysgd', ARRAY['a', 'b'], 'y', 0.1, 1e-7, '{"R": 2, "T": 5}')$$);
SELECT * FROM regress_zcdp.err($$SELECT dpobj.train('regress_zcdp.u', 'noisysgd', ARRAY['a', 'b'], 'y', 0.1, 1e-7, '{"R": 2, "T": 5}')$$);
SELECT * FROM regress_zcdp.err($$SELECT dpobj.train('regress_zcdp.u', 'noisysgd', ARRAY['a', 'b'], 'y', 0.1, 1e-7, '{"R": 2, "T": 5}')$$);
-- the 4th
SELECT * FROM regress_zcdp.err($$SELECT dpobj.train('regress_zcdp.u', 'noisysgd', ARRAY['a', 'b'], 'y', 0.1, 1e-7, '{"R": 2, "T": 5}')$$);
SELECT count(*) AS charged FROM dpobj.ledger WHERE relation = 'regress_zcdp.u';
RESET ROLE;

-- (3) approximate-DP and pure runs first: linear; from the first zCDP run on,
-- pure and approximate-DP runs are counted by their Renyi cost (the reserve)
SELECT (dpobj.revoke_budget('regress_zcdp.u', 'regress_zcdp_analyst')).id IS NOT NULL AS revoked;
SET ROLE regress_zcdp_analyst;
SELECT remaining_epsilon = 0 AS nothing_left_after_revoke, dpobj.runs_left('regress_zcdp.u', 'noisysgd', 0.1, 1e-7, '{"R": 2}') AS runs
  FROM dpobj.my_budgets WHERE relation = 'regress_zcdp.u'::regclass;
RESET ROLE;
CREATE TABLE regress_zcdp.v AS SELECT * FROM regress_zcdp.t;
SELECT dpobj.protect('regress_zcdp.v');
SELECT (dpobj.grant_budget('regress_zcdp.v', 'regress_zcdp_analyst', 1, 1e-6)).id IS NOT NULL AS granted;
SET ROLE regress_zcdp_analyst;
SELECT (dpobj.train('regress_zcdp.v', 'opdisc', ARRAY['a', 'b'], 'y', 0.2, 1e-7)).mechanism;
SELECT (dpobj.train('regress_zcdp.v', 'expmech', ARRAY['a', 'b'], 'y', 0.1, 1e-7, '{"B": 1, "D2": 2}')).mechanism;
CREATE TEMP TABLE sgd AS
SELECT dpobj.train('regress_zcdp.v', 'noisysgd', ARRAY['a', 'b'], 'y', 0.1, 1e-7, '{"R": 2, "T": 5}') AS m;
-- the recorded rho is the calibration's (the model's params: the descent's and the
-- balance estimate's), rounded up
SELECT l.rho >= ((s.m).params->>'rho')::numeric + ((s.m).params->>'balance_rho')::numeric AS rho_rounded_up,
       l.rho < (((s.m).params->>'rho')::numeric + ((s.m).params->>'balance_rho')::numeric) * 1.000000001 AS by_a_hair
  FROM sgd s, dpobj.ledger l WHERE l.relation = 'regress_zcdp.v' AND l.kind = 'gauss';
-- converted back at the run's delta, that rho gives the run's epsilon, from above, by a hair
SELECT dpobj.zcdp_epsilon(rho, 1e-7) >= 0.1 AS upper_bound,
       dpobj.zcdp_epsilon(rho, 1e-7) < 0.1 + 1e-8 AS tight
  FROM dpobj.ledger WHERE relation = 'regress_zcdp.v' AND kind = 'gauss';
SELECT (dpobj.train('regress_zcdp.v', 'expmech', ARRAY['a', 'b'], 'y', 0.1, 1e-7, '{"B": 1, "D2": 2}')).mechanism;
SELECT mechanism, kind, rho IS NOT NULL AS has_rho, accounted, epsilon, delta
  FROM dpobj.ledger WHERE relation = 'regress_zcdp.v' ORDER BY id;
SELECT m.spent_delta, b.spent_rdp >= 0.1 AND b.spent_rdp < 0.1 + 1e-9 AS pure_costs_its_epsilon,
       b.filter_order IS NOT NULL AS pinned, b.approx_admitted
  FROM dpobj.my_budgets m JOIN dpobj.budget_accounting b ON b.relation = m.relation
 WHERE m.relation = 'regress_zcdp.v'::regclass;
SELECT * FROM regress_zcdp.err($$SELECT dpobj.train('regress_zcdp.v', 'rspm', ARRAY['a', 'b'], 'y', 0.1, 1e-9)$$);
-- the budget row itself: linear part and rho part
SELECT spent_epsilon, spent_delta, spent_rho = (SELECT sum(rho) FROM dpobj.ledger
                                                 WHERE relation = 'regress_zcdp.v' AND accounted = 'rho') AS rho_sum
  FROM dpobj.budgets WHERE relid = 'regress_zcdp.v'::regclass;
-- a mixed order on one (1, 1e-6) budget: OPDisc, noisy GD, OPDisc again
-- (admitted: its Renyi cost min(0.2, alpha 0.02) and its delta 1e-7 from the
-- reserve), then a third OPDisc refused: the reserve's delta is spent
RESET ROLE;
CREATE TABLE regress_zcdp.x AS SELECT * FROM regress_zcdp.t;
SELECT dpobj.protect('regress_zcdp.x');
SELECT (dpobj.grant_budget('regress_zcdp.x', 'regress_zcdp_analyst', 1, 1e-6)).id IS NOT NULL AS granted;
SET ROLE regress_zcdp_analyst;
SELECT * FROM regress_zcdp.err($$SELECT dpobj.train('regress_zcdp.x', 'opdisc', ARRAY['a', 'b'], 'y', 0.2, 1e-7)$$);
SELECT * FROM regress_zcdp.err($$SELECT dpobj.train('regress_zcdp.x', 'noisysgd', ARRAY['a', 'b'], 'y', 0.1, 1e-7, '{"R": 2, "T": 5}')$$);
SELECT * FROM regress_zcdp.err($$SELECT dpobj.train('regress_zcdp.x', 'opdisc', ARRAY['a', 'b'], 'y', 0.2, 1e-7)$$);
SELECT * FROM regress_zcdp.err($$SELECT dpobj.train('regress_zcdp.x', 'opdisc', ARRAY['a', 'b'], 'y', 0.2, 1e-7)$$);
SELECT mechanism, kind, accounted FROM dpobj.ledger WHERE relation = 'regress_zcdp.x' ORDER BY id;
SELECT a.approx_admitted, a.approx_delta_left, m.remaining_epsilon > 0 AS epsilon_left,
       m.spent_epsilon + m.remaining_epsilon = m.granted_epsilon AS adds_up
  FROM dpobj.my_budgets m JOIN dpobj.budget_accounting a ON a.relation = m.relation
 WHERE m.relation = 'regress_zcdp.x'::regclass;
-- the budget row: the reserve, its spend (delta and Renyi cost) and the pinned order
SELECT b.spent_epsilon, b.spent_delta, b.reserve_delta, b.spent_reserve_delta,
       b.spent_reserve_delta = (SELECT sum(delta) FROM dpobj.ledger
                                 WHERE relation = 'regress_zcdp.x' AND accounted = 'reserve') AS reserve_sum,
       b.spent_rdp >= 0.2 AND b.spent_rdp < 0.2 + 1e-9 AS rdp_is_epsilon,
       b.filter_order > 1 AS pinned
  FROM dpobj.budgets b WHERE relid = 'regress_zcdp.x'::regclass;
-- the reserve is the granting session's dpobj.approx_delta_reserve: with 0 the zCDP
-- part keeps all of delta (96 noisy-GD runs) and approximate-DP runs end at the first
-- zCDP run; the budget keeps the share it was created with
RESET ROLE;
CREATE TABLE regress_zcdp.y AS SELECT * FROM regress_zcdp.t;
SELECT dpobj.protect('regress_zcdp.y');
SET dpobj.approx_delta_reserve = 0;
SELECT (dpobj.grant_budget('regress_zcdp.y', 'regress_zcdp_analyst', 1, 1e-6)).id IS NOT NULL AS granted;
SELECT reserve_share FROM dpobj.budget_accounting WHERE relation = 'regress_zcdp.y'::regclass;
RESET dpobj.approx_delta_reserve;
SELECT (dpobj.grant_budget('regress_zcdp.y', 'regress_zcdp_analyst', 0, 0)).id IS NOT NULL AS granted;
SELECT reserve_share AS kept_on_top_up FROM dpobj.budget_accounting WHERE relation = 'regress_zcdp.y'::regclass;
SET ROLE regress_zcdp_analyst;
SELECT dpobj.runs_left('regress_zcdp.y', 'noisysgd', 0.1, 1e-7, '{"R": 2, "T": 5}') AS n_sgd_no_reserve;
SELECT * FROM regress_zcdp.err($$SELECT dpobj.train('regress_zcdp.y', 'noisysgd', ARRAY['a', 'b'], 'y', 0.1, 1e-7, '{"R": 2, "T": 5}')$$);
SELECT dpobj.runs_left('regress_zcdp.y', 'opdisc', 0.1, 1e-7) AS opdisc_after, approx_delta_left
  FROM dpobj.budget_accounting WHERE relation = 'regress_zcdp.y'::regclass;
SELECT * FROM regress_zcdp.err($$SELECT dpobj.train('regress_zcdp.y', 'opdisc', ARRAY['a', 'b'], 'y', 0.1, 1e-7)$$);
-- runs_left refuses what train() refuses, on the same public grounds
SELECT * FROM regress_zcdp.err($$SELECT dpobj.runs_left('regress_zcdp.v', 'nosuch', 0.1, 1e-7)$$);
SELECT * FROM regress_zcdp.err($$SELECT dpobj.runs_left('regress_zcdp.v', 'noisysgd', 0, 1e-7)$$);
SELECT * FROM regress_zcdp.err($$SELECT dpobj.runs_left('regress_zcdp.v', 'logistic', 0.1, 1e-7, '{"method": "nosuch"}')$$);
RESET ROLE;
-- no budget: 0; a table not protected: DP005
SELECT dpobj.runs_left('regress_zcdp.v', 'noisysgd', 0.1, 1e-7) AS owner_has_no_budget;
CREATE TABLE regress_zcdp.w (a float8);
SELECT * FROM regress_zcdp.err($$SELECT dpobj.runs_left('regress_zcdp.w', 'noisysgd', 0.1, 1e-7)$$);
-- a grant with a large delta (0.5): each path's bound is below 0 before the clamp;
-- the spent epsilon stays at least 0 and spent + remaining = granted, on the Gaussian
-- path (x2: noisy GD only) and on the Renyi path (x3: opdisc, then noisy GD)
CREATE TABLE regress_zcdp.x2 AS SELECT * FROM regress_zcdp.t;
CREATE TABLE regress_zcdp.x3 AS SELECT * FROM regress_zcdp.t;
SELECT dpobj.protect('regress_zcdp.x2'), dpobj.protect('regress_zcdp.x3');
SELECT count(*) AS granted FROM unnest(ARRAY['regress_zcdp.x2', 'regress_zcdp.x3']::regclass[]) r,
       dpobj.grant_budget(r, 'regress_zcdp_analyst', 10, 0.5);
SET ROLE regress_zcdp_analyst;
SELECT * FROM regress_zcdp.err($$SELECT dpobj.train('regress_zcdp.x2', 'noisysgd', ARRAY['a', 'b'], 'y', 0.5, 1e-7, '{"R": 2, "T": 5}')$$);
SELECT * FROM regress_zcdp.err($$SELECT dpobj.train('regress_zcdp.x3', 'opdisc', ARRAY['a', 'b'], 'y', 0.2, 1e-7)$$);
SELECT * FROM regress_zcdp.err($$SELECT dpobj.train('regress_zcdp.x3', 'noisysgd', ARRAY['a', 'b'], 'y', 0.5, 1e-7, '{"R": 2, "T": 5}')$$);
SELECT m.relation, m.spent_epsilon >= 0 AS not_negative, m.spent_epsilon <= 0.2 + 1e-9 AS below_sum,
       m.spent_epsilon + m.remaining_epsilon = m.granted_epsilon AS adds_up
  FROM dpobj.my_budgets m WHERE m.relation IN ('regress_zcdp.x2'::regclass, 'regress_zcdp.x3'::regclass)
 ORDER BY 1::text;
RESET ROLE;
-- the ledger's new columns are append-only too
SELECT * FROM regress_zcdp.err($$UPDATE dpobj.ledger SET rho = 1 WHERE relation = 'regress_zcdp.v'$$);

DROP TABLE sgd;
DROP SCHEMA regress_zcdp CASCADE;
DROP ROLE regress_zcdp_analyst;
