-- The budget filter (docs/PRIVACY.md, "Composition: one filter for every
-- mechanism") as properties of dpobj.budget_debit on random sequences of
-- runs, against an independent SQL statement of the rule: every state it
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

SELECT plan(9);

-- c(alpha, delta): the Renyi-to-(epsilon, delta) term, written out again
CREATE FUNCTION tap_filter.conv(alpha float8, delta float8) RETURNS float8
LANGUAGE sql IMMUTABLE AS $$
  SELECT (ln(1 / delta) + (alpha - 1) * ln(1 - 1 / alpha) - ln(alpha)) / (alpha - 1)
$$;

-- the composed epsilon of a state at its order (the best grid order while unpinned)
CREATE FUNCTION tap_filter.composed(b dpobj.budgets) RETURNS float8
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE
    WHEN b.spent_rho = 0 THEN b.spent_epsilon::float8
    WHEN b.filter_order IS NOT NULL THEN
      b.spent_epsilon::float8 + b.filter_order * b.spent_rho::float8 + b.spent_rdp::float8
        + tap_filter.conv(b.filter_order, (b.granted_delta - b.spent_delta - b.reserve_delta)::float8)
    ELSE b.spent_epsilon::float8 +
      (SELECT min((1 + 10 ^ (k / 64.0)) * b.spent_rho::float8
                  + tap_filter.conv(1 + 10 ^ (k / 64.0),
                                    (b.granted_delta - b.spent_delta - b.reserve_delta)::float8))
         FROM generate_series(-192, 384) k)
  END
$$;

-- the state's invariants: the filter's inequality (with 1e-6 to spare for float8), the
-- linear part and the reserve within the grant
CREATE FUNCTION tap_filter.sound(b dpobj.budgets) RETURNS boolean
LANGUAGE sql IMMUTABLE AS $$
  SELECT b.spent_epsilon <= b.granted_epsilon AND b.spent_delta <= b.granted_delta
     AND b.spent_reserve_delta <= b.reserve_delta
     AND b.spent_delta + b.reserve_delta <= b.granted_delta
     AND tap_filter.composed(b) <= b.granted_epsilon::float8 * (1 + 1e-6)
$$;

-- random sequences: n runs of random kind and cost from a fresh (1, 1e-6) budget;
-- returns (admitted, unsound admissions, refusals with room left, reserve runs)
CREATE FUNCTION tap_filter.walk(n int, seed float8)
RETURNS TABLE (admitted int, unsound int, loose int, reserve_runs int)
LANGUAGE plpgsql AS $$
DECLARE
  b dpobj.budgets;
  nb dpobj.budgets;
  hb dpobj.budgets;
  kind text; e numeric; d numeric; r numeric;
BEGIN
  PERFORM setseed(seed);
  admitted := 0; unsound := 0; loose := 0; reserve_runs := 0;
  b.granted_epsilon := 1; b.granted_delta := 1e-6;
  b.spent_epsilon := 0; b.spent_delta := 0; b.spent_rho := 0;
  b.reserve_delta := 0; b.spent_reserve_delta := 0; b.spent_rdp := 0; b.reserve_share := 0.1;
  FOR i IN 1 .. n LOOP
    kind := (ARRAY['approx', 'pure', 'zcdp'])[1 + floor(random() * 3)::int];
    e := round((0.002 + random() * 0.1)::numeric, 4);
    d := CASE WHEN kind = 'approx' THEN (ARRAY[0, 1e-9, 1e-8, 3e-8])[1 + floor(random() * 4)::int] ELSE 0 END;
    r := CASE WHEN kind = 'zcdp' THEN round((e * e / 50)::numeric, 10)
              WHEN kind = 'pure' THEN e * e / 2 END;
    nb := dpobj.budget_debit(b, kind, e, d, r);
    IF nb IS NULL THEN
      -- a refusal: the run's own cost must not fit with room to spare
      hb := b;
      hb.spent_rho := b.spent_rho + COALESCE(r, 0);
      IF dpobj.budget_admits(b, kind, e, d, r) THEN
        unsound := unsound + 1;     -- debit and admits disagree
      ELSIF kind = 'zcdp' AND b.spent_rho > 0
            AND tap_filter.composed(hb) < b.granted_epsilon::float8 - 1e-6 THEN
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
      b := nb;
    END IF;
  END LOOP;
  RETURN NEXT;
END $$;

CREATE TEMP TABLE walks AS
SELECT s, w.* FROM generate_series(1, 12) s, tap_filter.walk(150, s / 13.0) w;
SELECT ok((SELECT sum(admitted) > 300 FROM walks), 'the random walks admit runs of every kind');
SELECT is((SELECT sum(unsound)::int FROM walks), 0,
          'every admitted state meets the filter''s inequality, stated independently');
SELECT is((SELECT sum(loose)::int FROM walks), 0,
          'no zCDP run is refused while the budget has room for it');
SELECT ok((SELECT sum(reserve_runs) > 0 FROM walks),
          'approximate-DP runs after zCDP ones are admitted from the reserve');

-- the order that used to be refused for good: noisy GD first, then OPDisc
SET ROLE dpobj_tap_filter;
SELECT lives_ok($$SELECT dpobj.train('tap_filter.pts', 'noisysgd', ARRAY['a', 'b'], 'y', 0.1, 1e-7, '{"R": 2, "T": 5}')$$,
                'a noisy-GD run first');
SELECT lives_ok($$SELECT dpobj.train('tap_filter.pts', 'opdisc', ARRAY['a', 'b'], 'y', 0.1, 5e-8)$$,
                'an OPDisc run after it is admitted');
SELECT is((SELECT approx_delta_left FROM dpobj.my_budgets WHERE relation = 'tap_filter.pts'::regclass),
          0.00000005, 'it took its delta from the reserve (1e-7 of the granted 1e-6)');
SELECT throws_ok($$SELECT dpobj.train('tap_filter.pts', 'opdisc', ARRAY['a', 'b'], 'y', 0.1, 1e-7)$$,
                 'DP004', NULL, 'an approximate-DP run whose delta the reserve cannot hold is refused');
RESET ROLE;
SELECT is((SELECT string_agg(accounted, ',' ORDER BY id) FROM dpobj.ledger WHERE relation = 'tap_filter.pts'),
          'rho,reserve', 'the ledger says how each run counted');

SELECT * FROM finish();
SET client_min_messages = warning;
SELECT dpobj.unprotect('tap_filter.pts') \g /dev/null
DROP SCHEMA tap_filter CASCADE;
DROP ROLE dpobj_tap_filter;
