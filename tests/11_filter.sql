-- The budget filter (docs/PRIVACY.md, "Composition: one filter for every
-- mechanism") as properties of dpobj.budget_debit on random sequences of
-- runs, against an independent SQL statement of the rule (the Renyi path, and
-- the Gaussian path's mu-GDP profile through its own erf series): every state it
-- admits satisfies the filter's inequality, every refusal is one the rule
-- makes (not a margin far above it), and the reserve's delta is never
-- overspent.  Then the order that used to be refused, through train().
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS tap_filter CASCADE;
DROP ROLE IF EXISTS dpobj_tap_filter;
CREATE ROLE dpobj_tap_filter;
CREATE SCHEMA tap_filter;
GRANT USAGE ON SCHEMA tap_filter TO PUBLIC;
CREATE TABLE tap_filter.pts AS
SELECT i, (i % 7) / 4.0 - 0.75 AS a, (i % 5) / 4.0 - 0.5 AS b, (i % 3) > 0 AS y
  FROM generate_series(1, 40) i;
REVOKE ALL ON tap_filter.pts FROM PUBLIC;
SELECT dpobj.protect('tap_filter.pts');
SELECT 1 FROM dpobj.grant_budget('tap_filter.pts', 'dpobj_tap_filter', 1, 1e-6);
RESET client_min_messages;

SELECT plan(38);

-- a budget row granted (eg, dg) with nothing spent, the reserve share 0.1 and the basic
-- filter's share (0: a budget from before 0.5.0), as the walks below start from
CREATE FUNCTION tap_filter.fresh_budget(eg numeric, dg numeric, share numeric DEFAULT 0)
RETURNS dpobj.budgets LANGUAGE plpgsql AS $$
DECLARE b dpobj.budgets;
BEGIN
  b.granted_epsilon := eg; b.granted_delta := dg;
  b.spent_epsilon := 0; b.spent_delta := 0; b.spent_rho := 0;
  b.reserve_delta := 0; b.spent_reserve_delta := 0; b.spent_rdp := 0; b.reserve_share := 0.1;
  b.gaussian_only := false; b.gaussian_split := false;
  b.basic_share := share; b.basic_epsilon := 0; b.basic_delta := 0;
  b.basic_retired := false; b.filter_refused := false;
  RETURN b;
END $$;

-- a walk's grant change: 7 in 10 grant_budget adding up to max_e (and 0, 1e-7 or 1e-6 of
-- delta), else revoke_budget's statement
CREATE FUNCTION tap_filter.grant_step(b dpobj.budgets, max_e float8) RETURNS dpobj.budgets
LANGUAGE plpgsql AS $$
BEGIN
  IF random() < 0.7 THEN
    b.granted_epsilon := b.granted_epsilon + round((random() * max_e)::numeric, 3);
    b.granted_delta := b.granted_delta + (ARRAY[0, 1e-7, 1e-6])[1 + floor(random() * 3)::int];
  ELSE
    b.granted_epsilon := dpobj.budget_spent_epsilon(b);
    b.granted_delta := CASE WHEN b.spent_rho > 0 THEN b.granted_delta ELSE b.spent_delta END;
  END IF;
  RETURN b;
END $$;

-- c(alpha, delta): the Renyi-to-(epsilon, delta) term, written out again
CREATE FUNCTION tap_filter.conv(alpha float8, delta float8) RETURNS float8
LANGUAGE sql IMMUTABLE AS $$
  SELECT (ln(1 / delta) + (alpha - 1) * ln(1 - 1 / alpha) - ln(alpha)) / (alpha - 1)
$$;

-- the delta each path of the zCDP part converts at: half of delta_c when the part began
-- with a gauss run on a budget with a reserve (split), all of it otherwise
CREATE FUNCTION tap_filter.path_delta(b dpobj.budgets) RETURNS float8
LANGUAGE sql IMMUTABLE AS $$
  SELECT ((b.granted_delta - b.spent_delta - b.reserve_delta)
          * CASE WHEN b.gaussian_split THEN 0.5 ELSE 1 END)::float8
$$;

-- the composed epsilon of a state on the Renyi path at its order (the best grid
-- order while unpinned)
CREATE FUNCTION tap_filter.composed(b dpobj.budgets) RETURNS float8
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE
    WHEN b.spent_rho = 0 THEN b.spent_epsilon::float8
    WHEN b.filter_order IS NOT NULL THEN
      b.spent_epsilon::float8 + b.filter_order * b.spent_rho::float8 + b.spent_rdp::float8
        + tap_filter.conv(b.filter_order, tap_filter.path_delta(b))
    ELSE b.spent_epsilon::float8 +
      (SELECT min((1 + 10 ^ (k / 64.0)) * b.spent_rho::float8
                  + tap_filter.conv(1 + 10 ^ (k / 64.0), tap_filter.path_delta(b)))
         FROM generate_series(-192, 384) k)
  END
$$;

-- Phi(-x), x >= 0: 1/2 - erf(x / sqrt 2) / 2 by its Taylor series in numeric
-- (60 digits: the series' cancellation costs at most 20 of them for x <= 9)
CREATE FUNCTION tap_filter.phi_lower(x float8) RETURNS numeric
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  z numeric := (x / sqrt(2.0))::numeric;
  term numeric := z;     -- (-1)^n z^(2n+1) / n!
  total numeric := 0;
  n int := 0;
BEGIN
  IF x > 9 THEN RETURN 0; END IF;
  LOOP
    total := total + round(term / (2 * n + 1), 60);
    n := n + 1;
    term := round(-term * z * z / n, 60);
    EXIT WHEN abs(term) < 1e-58;
  END LOOP;
  RETURN 0.5 - total / sqrt(pi()::numeric);
END $$;

-- delta_mu(eps) of mu-GDP (Dong, Roth, Su 2019), written out again
CREATE FUNCTION tap_filter.gdp_delta(mu float8, eps float8) RETURNS float8
LANGUAGE sql IMMUTABLE AS $$
  SELECT (tap_filter.phi_lower(eps / mu - mu / 2)
          - exp(eps::numeric) * tap_filter.phi_lower(eps / mu + mu / 2))::float8
$$;

-- on the Gaussian path: a split zCDP part of gauss runs only
CREATE FUNCTION tap_filter.gaussian_path(b dpobj.budgets) RETURNS boolean
LANGUAGE sql IMMUTABLE AS $$
  SELECT b.spent_rho > 0 AND b.gaussian_split AND b.gaussian_only
$$;

-- the state's invariants: the filter's inequality (with 1e-6 to spare for float8) --
-- on the Gaussian path mu-GDP, mu^2 = 2 rho, within the path's delta at the epsilon
-- left, or the zCDP bound there -- the linear part and the reserve within the grant
CREATE FUNCTION tap_filter.sound(b dpobj.budgets) RETURNS boolean
LANGUAGE sql IMMUTABLE AS $$
  SELECT b.spent_epsilon <= b.granted_epsilon AND b.spent_delta <= b.granted_delta
     AND b.spent_reserve_delta <= b.reserve_delta
     AND b.spent_delta + b.reserve_delta <= b.granted_delta
     AND (tap_filter.composed(b) <= b.granted_epsilon::float8 * (1 + 1e-6)
          OR (tap_filter.gaussian_path(b)
              AND tap_filter.gdp_delta(sqrt(2 * b.spent_rho::float8),
                                       (b.granted_epsilon - b.spent_epsilon)::float8)
                  <= tap_filter.path_delta(b) * (1 + 1e-6)))
$$;

-- the state has room to spare (a refusal of it would be loose): by 1e-6 in epsilon on
-- the Renyi path, by 1e-4 of the path's delta on the Gaussian one
CREATE FUNCTION tap_filter.roomy(b dpobj.budgets) RETURNS boolean
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN tap_filter.gaussian_path(b) THEN
           tap_filter.gdp_delta(sqrt(2 * b.spent_rho::float8) * (1 + 1e-6),
                                (b.granted_epsilon - b.spent_epsilon)::float8)
             < tap_filter.path_delta(b) * (1 - 1e-4)
         ELSE tap_filter.composed(b) < b.granted_epsilon::float8 - 1e-6 END
$$;

-- random sequences: n runs of random kind (from kinds; approx for the first
-- approx_first) and cost from a fresh (1, 1e-6) budget; returns (admitted, unsound admissions, refusals with room left, reserve
-- runs, states on the Gaussian path)
CREATE FUNCTION tap_filter.walk(n int, seed float8, kinds text[], approx_first int)
RETURNS TABLE (admitted int, unsound int, loose int, reserve_runs int, gaussian int)
LANGUAGE plpgsql AS $$
DECLARE
  b dpobj.budgets;
  nb dpobj.budgets;
  hb dpobj.budgets;
  kind text; e numeric; d numeric; r numeric;
BEGIN
  PERFORM setseed(seed);
  admitted := 0; unsound := 0; loose := 0; reserve_runs := 0; gaussian := 0;
  b := tap_filter.fresh_budget(1, 1e-6);
  FOR i IN 1 .. n LOOP
    kind := CASE WHEN i <= approx_first THEN 'approx'
                 ELSE kinds[1 + floor(random() * cardinality(kinds))::int] END;
    e := round((0.002 + random() * 0.1)::numeric, 4);
    d := CASE WHEN kind = 'approx' THEN (ARRAY[0, 1e-9, 1e-8, 3e-8])[1 + floor(random() * 4)::int] ELSE 0 END;
    r := CASE WHEN kind IN ('zcdp', 'gauss') THEN round((e * e / 10)::numeric, 10)
              WHEN kind = 'pure' THEN e * e / 2 END;
    nb := dpobj.budget_debit(b, kind, e, d, r);
    IF nb IS NULL THEN
      -- a refusal: the run's own cost must not fit with room to spare
      hb := b;
      hb.spent_rho := b.spent_rho + COALESCE(r, 0);
      hb.gaussian_split := CASE WHEN b.spent_rho = 0 THEN kind = 'gauss' AND b.reserve_share > 0
                                ELSE b.gaussian_split END;
      hb.gaussian_only := kind = 'gauss' AND hb.gaussian_split AND (b.spent_rho = 0 OR b.gaussian_only);
      IF dpobj.budget_admits(b, kind, e, d, r) THEN
        unsound := unsound + 1;     -- debit and admits disagree
      ELSIF kind IN ('zcdp', 'gauss') AND b.spent_rho > 0 AND tap_filter.roomy(hb) THEN
        loose := loose + 1;
      END IF;
    ELSE
      admitted := admitted + 1;
      IF NOT tap_filter.sound(nb) OR NOT dpobj.budget_admits(b, kind, e, d, r) THEN
        unsound := unsound + 1;
      END IF;
      IF b.spent_rho > 0 AND kind = 'approx' THEN
        reserve_runs := reserve_runs + 1;
      END IF;
      IF tap_filter.gaussian_path(nb) THEN
        gaussian := gaussian + 1;
      END IF;
      b := nb;
    END IF;
  END LOOP;
  RETURN NEXT;
END $$;

CREATE TEMP TABLE walks AS
SELECT s, w.* FROM generate_series(1, 12) s,
       tap_filter.walk(150, s / 13.0, ARRAY['approx', 'pure', 'zcdp', 'gauss'], 0) w;
-- walks of Gaussian runs after up to 3 approximate-DP ones stay on the Gaussian path
CREATE TEMP TABLE gwalks AS
SELECT s, w.* FROM generate_series(1, 6) s,
       tap_filter.walk(150, s / 7.0, ARRAY['gauss'], s % 4) w;
SELECT ok((SELECT sum(admitted) > 300 FROM walks), 'the random walks admit runs of every kind');
SELECT is((SELECT sum(unsound)::int FROM walks), 0,
          'every admitted state meets the filter''s inequality, stated independently');
SELECT is((SELECT sum(loose)::int FROM walks), 0,
          'no zCDP run is refused while the budget has room for it');
SELECT ok((SELECT sum(reserve_runs) > 0 FROM walks),
          'approximate-DP runs after zCDP ones are admitted from the reserve');
SELECT ok((SELECT sum(gaussian) > 100 FROM gwalks), 'Gaussian runs compose on the Gaussian path');
SELECT is((SELECT sum(unsound)::int FROM gwalks), 0,
          'every state the Gaussian path admits is mu-GDP within its delta, stated independently');
SELECT is((SELECT sum(loose)::int FROM gwalks), 0,
          'no Gaussian run is refused while the Gaussian path has room for it');

-- the Gaussian path's rule is one threshold on rho, also where GDP and zCDP take turns
-- as the tighter bound (small budgets): runs of rho admitted one by one until the first
-- refusal (n), then from a fresh budget one run of n rho fits and none of (n + j) rho
CREATE FUNCTION tap_filter.one_threshold(eg numeric, rho numeric) RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
  b dpobj.budgets; f dpobj.budgets; nb dpobj.budgets; n int := 0;
BEGIN
  b := tap_filter.fresh_budget(eg, 1e-6);
  f := b;
  LOOP
    nb := dpobj.budget_debit(b, 'gauss', 0.01, 0, rho);
    EXIT WHEN nb IS NULL OR n > 10000;
    b := nb; n := n + 1;
  END LOOP;
  IF n = 0 OR NOT dpobj.budget_admits(f, 'gauss', 0.01, 0, n * rho) THEN RETURN false; END IF;
  FOR j IN 1 .. 40 LOOP
    IF dpobj.budget_admits(f, 'gauss', 0.01, 0, (n + j) * rho) THEN RETURN false; END IF;
  END LOOP;
  RETURN true;
END $$;
SELECT ok((SELECT bool_and(tap_filter.one_threshold(eg, 5e-7))
             FROM generate_series(0.010, 0.030, 0.001) eg),
          'the Gaussian path admits up to one threshold on rho');

-- Grants changed in the middle of a budget's life (raised, or revoked as
-- revoke_budget does) must not move what the filter fixed in advance: walks of
-- mixed runs with grant changes, checked against an independent filter that
-- fixes the order alpha0 (the grid order with the most rho under the grant at
-- the part's first run), the reserve and the split there, sums its own Renyi
-- costs at alpha0, and bounds every admitted state at the largest grant so far
-- (docs/PRIVACY.md, "Composition: one filter for every mechanism": that is the (epsilon, delta) stated).
CREATE FUNCTION tap_filter.order_gain(a float8, eps float8, delta float8) RETURNS float8
LANGUAGE sql IMMUTABLE AS $$ SELECT (eps - tap_filter.conv(a, delta)) / a $$;
CREATE FUNCTION tap_filter.best_order(eps float8, delta float8) RETURNS float8
LANGUAGE sql IMMUTABLE AS $$
  SELECT a FROM (SELECT (1 + 10 ^ (k / 64.0))::float8 AS a FROM generate_series(-192, 384) k) g
   ORDER BY tap_filter.order_gain(a, eps, delta) DESC LIMIT 1
$$;
-- epsilon of rho-zCDP at delta, best grid order
CREATE FUNCTION tap_filter.zcdp_eps(rho float8, delta float8) RETURNS float8
LANGUAGE sql IMMUTABLE AS $$
  SELECT min((1 + 10 ^ (k / 64.0))::float8 * rho + tap_filter.conv(1 + 10 ^ (k / 64.0), delta))
    FROM generate_series(-192, 384) k
$$;

-- n steps (a grant change or a run); an open part's runs up to step quiet are
-- zcdp or gauss.  Returns (admitted, grant changes while a zCDP part was open, of
-- them before its first approx/pure run, states beyond the largest grant, orders
-- not fixed from the grant at the part's start or moved since, refusals with room)
CREATE FUNCTION tap_filter.grant_walk(n int, seed float8, quiet int)
RETURNS TABLE (admitted int, changes int, changes_unpinned int, beyond int, moved int, loose int)
LANGUAGE plpgsql AS $$
DECLARE
  b dpobj.budgets; nb dpobj.budgets; hb dpobj.budgets;
  kind text; e numeric; d numeric; r numeric;
  emax numeric := 1; dmax numeric := 1e-6;
  -- the independent filter's state of the zCDP part
  part boolean := false; split boolean; gonly boolean; mixed boolean := false;
  a0 float8; dr0 numeric; q0 float8 := 0; dp float8; el float8;
BEGIN
  PERFORM setseed(seed);
  admitted := 0; changes := 0; changes_unpinned := 0; beyond := 0; moved := 0; loose := 0;
  b := tap_filter.fresh_budget(1, 1e-6);
  FOR i IN 1 .. n LOOP
    IF random() < 0.12 THEN
      b := tap_filter.grant_step(b, 0.6);
      emax := greatest(emax, b.granted_epsilon); dmax := greatest(dmax, b.granted_delta);
      IF part THEN
        changes := changes + 1;
        IF NOT mixed THEN changes_unpinned := changes_unpinned + 1; END IF;
      END IF;
      CONTINUE;
    END IF;
    kind := CASE WHEN part AND i <= quiet THEN (ARRAY['zcdp', 'gauss'])[1 + floor(random() * 2)::int]
                 ELSE (ARRAY['approx', 'pure', 'zcdp', 'gauss'])[1 + floor(random() * 4)::int] END;
    e := round((0.002 + random() * 0.1)::numeric, 4);
    d := CASE WHEN kind = 'approx' THEN (ARRAY[0, 1e-9, 1e-8, 3e-8])[1 + floor(random() * 4)::int] ELSE 0 END;
    r := CASE WHEN kind IN ('zcdp', 'gauss') THEN round((e * e / 10)::numeric, 10)
              WHEN kind = 'pure' THEN e * e / 2 END;
    nb := dpobj.budget_debit(b, kind, e, d, r);
    IF nb IS NULL THEN
      IF dpobj.budget_admits(b, kind, e, d, r) THEN
        moved := moved + 1;             -- debit and admits disagree
      ELSIF kind IN ('zcdp', 'gauss') AND part THEN
        hb := b;
        hb.spent_rho := b.spent_rho + r;
        hb.gaussian_only := kind = 'gauss' AND b.gaussian_only;
        IF tap_filter.roomy(hb) THEN loose := loose + 1; END IF;
      END IF;
      CONTINUE;
    END IF;
    admitted := admitted + 1;
    IF NOT part AND kind IN ('zcdp', 'gauss') THEN
      -- the part begins: what is fixed now, from the grant in force
      part := true;
      split := kind = 'gauss' AND b.reserve_share > 0;
      gonly := split;
      dr0 := least(b.reserve_share * b.granted_delta, (b.granted_delta - b.spent_delta) / 2);
      dp := ((b.granted_delta - b.spent_delta - dr0) * CASE WHEN split THEN 0.5 ELSE 1 END)::float8;
      el := (b.granted_epsilon - b.spent_epsilon)::float8;
      a0 := tap_filter.best_order(el, dp);
      IF nb.filter_order IS NULL
         OR tap_filter.order_gain(nb.filter_order, el, dp)
            < tap_filter.order_gain(a0, el, dp) - 1e-9 * abs(tap_filter.order_gain(a0, el, dp)) THEN
        moved := moved + 1;
      END IF;
      a0 := coalesce(nb.filter_order, a0);
    ELSIF part THEN
      IF nb.filter_order IS DISTINCT FROM b.filter_order OR nb.reserve_delta <> b.reserve_delta
         OR nb.gaussian_split <> b.gaussian_split THEN
        moved := moved + 1;
      END IF;
      IF kind <> 'gauss' THEN gonly := false; END IF;
      IF kind IN ('approx', 'pure') THEN
        mixed := true;
        q0 := q0 + least(e::float8, a0 * e::float8 ^ 2 / 2);
      END IF;
    END IF;
    IF part AND nb.reserve_delta <> dr0 THEN moved := moved + 1; END IF;
    -- the state at the largest grant so far, by the independent filter
    IF nb.spent_epsilon > emax OR nb.spent_delta > dmax OR nb.spent_reserve_delta > dr0
       OR (part AND nb.spent_delta + dr0 > dmax) THEN
      beyond := beyond + 1;
    ELSIF part THEN
      dp := ((dmax - nb.spent_delta - dr0) * CASE WHEN split THEN 0.5 ELSE 1 END)::float8;
      el := (emax - nb.spent_epsilon)::float8;
      IF NOT (a0 * nb.spent_rho::float8 + q0 + tap_filter.conv(a0, dp) <= el * (1 + 1e-6)
              OR (gonly AND (tap_filter.gdp_delta(sqrt(2 * nb.spent_rho::float8), el) <= dp * (1 + 1e-6)
                             OR tap_filter.zcdp_eps(nb.spent_rho::float8, dp) <= el * (1 + 1e-6)))) THEN
        beyond := beyond + 1;
      END IF;
    END IF;
    b := nb;
  END LOOP;
  RETURN NEXT;
END $$;

CREATE TEMP TABLE grant_walks AS
SELECT s, w.* FROM generate_series(1, 16) s, tap_filter.grant_walk(150, s / 17.0, 5 * s) w;
SELECT ok((SELECT sum(admitted) > 400 AND sum(changes_unpinned) > 10 AND sum(changes) > sum(changes_unpinned)
             FROM grant_walks),
          'the walks change grants while a zCDP part is open, before and after its first approx/pure run');
SELECT is((SELECT sum(beyond)::int FROM grant_walks), 0,
          'under any grant changes no admitted state is beyond the largest grant, by the filter fixed at the part''s start');
SELECT is((SELECT sum(moved)::int FROM grant_walks), 0,
          'the order is the best for the grant at the part''s first run, and no later grant moves it or the reserve');
SELECT is((SELECT sum(loose)::int FROM grant_walks), 0,
          'under any grant changes no zCDP run is refused while the part''s order has room for it');

-- the issue's two transcripts: the same runs, a grant raised before or after the
-- first pure run of the part: one order
CREATE FUNCTION tap_filter.order_after(raise_first boolean) RETURNS float8
LANGUAGE plpgsql AS $$
DECLARE b dpobj.budgets;
BEGIN
  b := tap_filter.fresh_budget(1, 1e-6);
  b := dpobj.budget_debit(b, 'zcdp', 0.1, 0, 0.001);
  IF raise_first THEN b.granted_epsilon := 3; END IF;
  b := dpobj.budget_debit(b, 'pure', 0.1, 0, 0.005);
  IF NOT raise_first THEN b.granted_epsilon := 3; END IF;
  b := dpobj.budget_debit(b, 'pure', 0.1, 0, 0.005);
  RETURN b.filter_order;
END $$;
SELECT is(tap_filter.order_after(true), tap_filter.order_after(false),
          'a grant raised before or after the part''s first pure run: the same order');

-- The basic-composition filter beside the current one (budgets with basic_share > 0):
-- walks of mixed runs with grant changes, from a fresh budget.  Every admitted state is
-- within the basic filter (its sums, against the largest grant so far) or, the current
-- filter still on, sound at its share of the largest grant (the delta the linear part
-- left less the basic filter's part); while the basic filter is on the spent epsilon
-- shown is at most the sum of the runs' epsilon; the two are never both ended.
CREATE FUNCTION tap_filter.basic_walk(n int, seed float8, share numeric)
RETURNS TABLE (admitted int, unsound int, above_sum int, retired int, refused int, below_cur int)
LANGUAGE plpgsql AS $$
DECLARE
  b dpobj.budgets; nb dpobj.budgets; v dpobj.budgets;
  kind text; e numeric; d numeric; r numeric;
  emax numeric := 1; dmax numeric := 1e-6; sum_e numeric := 0; sum_d numeric := 0;
  basic_ok boolean;
BEGIN
  PERFORM setseed(seed);
  admitted := 0; unsound := 0; above_sum := 0; retired := 0; refused := 0; below_cur := 0;
  b := tap_filter.fresh_budget(1, 1e-6, share);
  FOR i IN 1 .. n LOOP
    IF random() < 0.08 THEN
      b := tap_filter.grant_step(b, 0.4);
      emax := greatest(emax, b.granted_epsilon); dmax := greatest(dmax, b.granted_delta);
      CONTINUE;
    END IF;
    kind := (ARRAY['approx', 'pure', 'zcdp', 'gauss'])[1 + floor(random() * 4)::int];
    e := round((0.002 + random() * 0.1)::numeric, 4);
    d := CASE WHEN kind = 'pure' THEN 0
              ELSE (ARRAY[0, 1e-9, 1e-9, 1e-8, 3e-8])[1 + floor(random() * 5)::int] END;
    r := CASE WHEN kind IN ('zcdp', 'gauss') THEN round((e * e / 10)::numeric, 10)
              WHEN kind = 'pure' THEN e * e / 2 END;
    nb := dpobj.budget_debit(b, kind, e, d, r);
    IF (nb IS NULL) = dpobj.budget_admits(b, kind, e, d, r) THEN
      unsound := unsound + 1;           -- debit and admits disagree
    END IF;
    CONTINUE WHEN nb IS NULL;
    admitted := admitted + 1;
    sum_e := sum_e + e; sum_d := sum_d + d;
    IF nb.basic_retired AND NOT b.basic_retired THEN retired := retired + 1; END IF;
    IF nb.filter_refused AND NOT b.filter_refused THEN refused := refused + 1; END IF;
    -- the basic filter's sums, at the largest grant (its share of what the linear part left)
    basic_ok := NOT nb.basic_retired AND nb.basic_epsilon = sum_e AND nb.basic_delta = sum_d
                AND sum_e <= emax
                AND sum_d - nb.spent_delta <= share * (dmax - nb.spent_delta);
    -- the current filter at the largest grant, less the basic filter's share
    v := nb;
    v.granted_epsilon := emax;
    v.granted_delta := CASE WHEN nb.spent_rho > 0 THEN dmax - share * (dmax - nb.spent_delta) ELSE dmax END;
    IF NOT (basic_ok OR (NOT nb.filter_refused AND tap_filter.sound(v)))
       OR (nb.basic_retired AND nb.filter_refused) THEN
      unsound := unsound + 1;
    END IF;
    IF NOT nb.basic_retired AND dpobj.budget_spent_epsilon(nb) > sum_e THEN
      above_sum := above_sum + 1;
    END IF;
    v := nb; v.basic_share := 0;
    IF NOT nb.basic_retired AND NOT nb.filter_refused
       AND dpobj.budget_spent_epsilon(nb) < dpobj.budget_spent_epsilon(v) THEN
      below_cur := below_cur + 1;
    END IF;
    b := nb;
  END LOOP;
  RETURN NEXT;
END $$;
CREATE TEMP TABLE basic_walks AS
SELECT s, w.* FROM generate_series(1, 12) s,
       tap_filter.basic_walk(120, s / 13.0, (ARRAY[0.02, 0.2, 0.45])[1 + s % 3]) w;
SELECT ok((SELECT sum(admitted) > 400 AND sum(retired) > 0 AND sum(refused) > 0 FROM basic_walks),
          'the basic-filter walks admit runs, and end each filter in some walks');
SELECT is((SELECT sum(unsound)::int FROM basic_walks), 0,
          'every admitted state is within the basic filter or the current one at its share, under grant changes');
SELECT is((SELECT sum(above_sum)::int FROM basic_walks), 0,
          'while the basic filter is on, the spent epsilon shown is at most the sum of the runs'' epsilon');
SELECT ok((SELECT sum(below_cur) > 0 FROM basic_walks),
          'and below the current filter''s spend where that is larger');
-- runs_left stays exact under the two filters: from states along a walk, the count of
-- one kind and cost is the number of such runs debited one by one until the first refusal
CREATE FUNCTION tap_filter.runs_left_exact(seed float8, share numeric) RETURNS int
LANGUAGE plpgsql AS $$
DECLARE
  b dpobj.budgets; nb dpobj.budgets; c dpobj.budgets;
  kind text; e numeric; d numeric; r numeric; n bigint; k int; wrong int := 0;
BEGIN
  PERFORM setseed(seed);
  b := tap_filter.fresh_budget(1, 1e-6, share);
  FOR i IN 1 .. 14 LOOP
    kind := (ARRAY['approx', 'pure', 'zcdp', 'gauss'])[1 + floor(random() * 4)::int];
    e := round((0.01 + random() * 0.2)::numeric, 3);
    d := CASE WHEN kind = 'pure' THEN 0 ELSE (ARRAY[0, 1e-9, 1e-8, 5e-8])[1 + floor(random() * 4)::int] END;
    r := CASE WHEN kind IN ('zcdp', 'gauss') THEN round((e * e / 10)::numeric, 10)
              WHEN kind = 'pure' THEN e * e / 2 END;
    n := dpobj.budget_runs_left(b, kind, e, d, r);
    c := b; k := 0;
    LOOP
      nb := dpobj.budget_debit(c, kind, e, d, r);
      EXIT WHEN nb IS NULL OR k > 400;
      c := nb; k := k + 1;
    END LOOP;
    IF k <> least(n, 401) THEN wrong := wrong + 1; END IF;   -- counted up to 401
    nb := dpobj.budget_debit(b, kind, e, d, r);
    IF nb IS NOT NULL THEN b := nb; END IF;
  END LOOP;
  RETURN wrong;
END $$;
SELECT is((SELECT sum(tap_filter.runs_left_exact(s / 9.0, (ARRAY[0.02, 0.3])[1 + s % 2]))::int
             FROM generate_series(1, 8) s), 0,
          'runs_left counts exactly the runs the two filters admit one by one');

-- the user's sequence on (3, 1e-6): auto (1, 1e-9), passglm 0.5, two evaluations at 0.25
CREATE FUNCTION tap_filter.story(share numeric) RETURNS numeric
LANGUAGE plpgsql AS $$
DECLARE b dpobj.budgets;
BEGIN
  b := tap_filter.fresh_budget(3, 1e-6, share);
  b := dpobj.budget_debit(b, 'approx', 1, 1e-9, NULL);
  b := dpobj.budget_debit(b, 'gauss', 0.5, 1e-9, 0.003953128049);
  b := dpobj.budget_debit(b, 'pure', 0.25, 1e-9, 0.03125);
  b := dpobj.budget_debit(b, 'pure', 0.25, 1e-9, 0.03125);
  RETURN dpobj.budget_spent_epsilon(b);
END $$;
SELECT is(tap_filter.story(0.02), 2.0, 'the sequence shows the sum of its epsilon, 2.0');
SELECT ok(tap_filter.story(0) > 2.47, 'a budget from before 0.5.0 (basic_share 0) keeps its rule (2.478)');


-- the order that used to be refused for good: noisy GD first, then OPDisc
SET ROLE dpobj_tap_filter;
SELECT lives_ok($$SELECT dpobj.train('tap_filter.pts', 'noisysgd', ARRAY['a', 'b'], 'y', 0.1, 1e-7, '{"R": 2, "T": 5}')$$,
                'a noisy-GD run first');
SELECT lives_ok($$SELECT dpobj.train('tap_filter.pts', 'opdisc', ARRAY['a', 'b'], 'y', 0.1, 5e-8)$$,
                'an OPDisc run after it is admitted');
SELECT is((SELECT approx_delta_left FROM dpobj.budget_accounting WHERE relation = 'tap_filter.pts'::regclass),
          0.00000005, 'it took its delta from the reserve (1e-7 of the granted 1e-6)');
SELECT throws_ok($$SELECT dpobj.train('tap_filter.pts', 'opdisc', ARRAY['a', 'b'], 'y', 0.1, 1e-7)$$,
                 'DP004', NULL, 'an approximate-DP run whose delta the reserve cannot hold is refused');
RESET ROLE;
SELECT is((SELECT string_agg(accounted, ',' ORDER BY id) FROM dpobj.ledger WHERE relation = 'tap_filter.pts'),
          'rho,reserve', 'the ledger says how each run counted');

-- through train() and grant_budget: the owner raises the grant between the part's first
-- (noisy-GD) run and its first pure run; the order the first run fixed stays
CREATE TABLE tap_filter.pts2 AS SELECT * FROM tap_filter.pts;
REVOKE ALL ON tap_filter.pts2 FROM PUBLIC;
SELECT dpobj.protect('tap_filter.pts2') \g /dev/null
SELECT dpobj.grant_budget('tap_filter.pts2', 'dpobj_tap_filter', 1, 1e-6) \g /dev/null
SET ROLE dpobj_tap_filter;
SELECT dpobj.train('tap_filter.pts2', 'noisysgd', ARRAY['a', 'b'], 'y', 0.1, 1e-7, '{"R": 2, "T": 5}') \g /dev/null
RESET ROLE;
CREATE TEMP TABLE first_order AS
SELECT filter_order FROM dpobj.budgets WHERE relid = 'tap_filter.pts2'::regclass;
SELECT dpobj.grant_budget('tap_filter.pts2', 'dpobj_tap_filter', 2, 0) \g /dev/null
SET ROLE dpobj_tap_filter;
SELECT dpobj.train('tap_filter.pts2', 'expmech', ARRAY['a', 'b'], 'y', 0.1, 1e-7, '{"B": 1, "D2": 2}') \g /dev/null
RESET ROLE;
SELECT ok((SELECT filter_order > 1 FROM first_order), 'the part''s first run fixed its order');
SELECT is((SELECT filter_order FROM dpobj.budgets WHERE relid = 'tap_filter.pts2'::regclass),
          (SELECT filter_order FROM first_order),
          'a grant raised before the part''s first pure run does not move it');

CREATE FUNCTION tap_filter.refusal_hint(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE h text;
BEGIN
  EXECUTE q;
  RETURN NULL;
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS h = PG_EXCEPTION_HINT;
  RETURN h;
END $$;
-- the views under the two filters: a budget without a reserve after a noisy-GD run at
-- (0.5, 1e-9); the basic filter still takes approx runs' delta up to 0.02 * 1e-6 - 1e-9
SET dpobj.approx_delta_reserve = 0;
CREATE TABLE tap_filter.pts3 AS SELECT * FROM tap_filter.pts;
REVOKE ALL ON tap_filter.pts3 FROM PUBLIC;
SELECT dpobj.protect('tap_filter.pts3') \g /dev/null
SELECT dpobj.grant_budget('tap_filter.pts3', 'dpobj_tap_filter', 3, 1e-6) \g /dev/null
RESET dpobj.approx_delta_reserve;
SET ROLE dpobj_tap_filter;
SELECT dpobj.train('tap_filter.pts3', 'noisysgd', ARRAY['a', 'b'], 'y', 0.5, 1e-9, '{"R": 2, "T": 5}') \g /dev/null
SELECT is((SELECT (approx_admitted, approx_delta_left::float8) FROM dpobj.budget_accounting
            WHERE relation = 'tap_filter.pts3'::regclass), (true, 1.9e-8::float8),
          'no reserve: an approx run still fits the basic filter, with the delta it has left');
SELECT admitted AS c_admitted, spent_epsilon AS c_spent, remaining_epsilon AS c_rem_e,
       remaining_delta AS c_rem_d
  FROM dpobj.cost('tap_filter.pts3', 'opdisc', 0.1, 1e-8) \gset
SELECT lives_ok($$SELECT dpobj.train('tap_filter.pts3', 'opdisc', ARRAY['a', 'b'], 'y', 0.1, 1e-8)$$,
                'and is admitted');
SELECT is((SELECT (spent_epsilon, remaining_epsilon, remaining_delta) FROM dpobj.my_budgets
            WHERE relation = 'tap_filter.pts3'::regclass),
          (:'c_spent'::numeric, :'c_rem_e'::numeric, :'c_rem_d'::numeric),
          'cost() said before it what my_budgets shows after it (admitted: ' || :'c_admitted' || ')');
SELECT is((SELECT (approx_admitted, approx_delta_left::float8) FROM dpobj.budget_accounting
            WHERE relation = 'tap_filter.pts3'::regclass), (true, 9e-9::float8),
          'its delta taken from what the basic filter had left');
SELECT throws_ok($$SELECT dpobj.train('tap_filter.pts3', 'opdisc', ARRAY['a', 'b'], 'y', 0.1, 1e-8)$$,
                 'DP004', NULL, 'an approx run past it is refused');
SELECT throws_like($$SELECT dpobj.train('tap_filter.pts3', 'opdisc', ARRAY['a', 'b'], 'y', 2.5, 1e-9)$$,
                   'privacy budget exceeded on table %',
                   'one whose delta the basic filter holds is refused for its epsilon, not its delta');
SELECT is(tap_filter.refusal_hint($$SELECT dpobj.train('tap_filter.pts3', 'opdisc', ARRAY['a', 'b'], 'y', 2.5, 1e-9)$$),
          (SELECT format('Remaining budget: epsilon %s, delta %s.', remaining_epsilon, remaining_delta)
             FROM dpobj.my_budgets WHERE relation = 'tap_filter.pts3'::regclass),
          'its hint says what my_budgets shows');
SELECT is((SELECT (spent_epsilon, spent_delta, remaining_delta) FROM dpobj.my_budgets
            WHERE relation = 'tap_filter.pts3'::regclass), (0.6, 0.000000011, 0.000000989),
          'my_budgets shows the basic filter''s sums of epsilon and delta together');
RESET ROLE;
SELECT is((SELECT (spent_epsilon, spent_delta, remaining_delta)
             FROM dpobj.grant_budget('tap_filter.pts3', 'dpobj_tap_filter', 0, 0)),
          (0.6, 0.000000011, 0.000000989), 'and so does what grant_budget returns');

-- runs_left stays exact when its runs retire the basic filter midway: after a gauss run
-- at (0.5, 1e-9), pure runs at 0.02 fit the basic sum 25 times, the Renyi path more
CREATE FUNCTION tap_filter.one_by_one(b dpobj.budgets, kind text, e numeric, d numeric, r numeric,
                                      OUT n int, OUT retired_at int) LANGUAGE plpgsql AS $$
DECLARE nb dpobj.budgets;
BEGIN
  n := 0;
  LOOP
    nb := dpobj.budget_debit(b, kind, e, d, r);
    EXIT WHEN nb IS NULL OR n > 400;
    n := n + 1;
    IF nb.basic_retired AND NOT b.basic_retired THEN retired_at := n; END IF;
    b := nb;
  END LOOP;
END $$;
CREATE FUNCTION tap_filter.after_gauss() RETURNS dpobj.budgets LANGUAGE plpgsql AS $$
DECLARE b dpobj.budgets;
BEGIN
  b := tap_filter.fresh_budget(1, 1e-6, 0.02);
  RETURN dpobj.budget_debit(b, 'gauss', 0.5, 1e-9, 0.003953128049);
END $$;
CREATE TEMP TABLE retire AS
SELECT dpobj.budget_runs_left(b, 'pure', 0.02, 0, 0.0002) AS runs_left,
       (tap_filter.one_by_one(b, 'pure', 0.02, 0, 0.0002)).*
  FROM tap_filter.after_gauss() b;
SELECT is((SELECT retired_at FROM retire), 26, 'the 26th pure run retires the basic filter');
SELECT ok((SELECT runs_left = n AND n > 26 FROM retire),
          'runs_left counts the runs debited one by one past it');

SELECT * FROM finish();
SET client_min_messages = warning;
SELECT dpobj.unprotect('tap_filter.pts') \g /dev/null
SELECT dpobj.unprotect('tap_filter.pts2') \g /dev/null
SELECT dpobj.unprotect('tap_filter.pts3') \g /dev/null
DROP SCHEMA tap_filter CASCADE;
DROP ROLE dpobj_tap_filter;
