-- Privacy-unit changes as properties (docs/PRIVACY.md "Changing a table's
-- privacy unit"): under spend, protect() refuses a row-level table turned
-- into a unit table and a new unit column, changing nothing; any k of the
-- same column is accepted; 'linear' on a unit table releases, is charged,
-- and its every noise scale is k times the row level's.  The charges are
-- committed by the ledger writer: nothing runs inside one transaction, and
-- the end of the file drops what it created.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS tap_uc CASCADE;
DO $$ BEGIN
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'dpobj_tap_uc_bob') THEN DROP ROLE dpobj_tap_uc_bob; END IF;
END $$;
CREATE ROLE dpobj_tap_uc_bob;
CREATE SCHEMA tap_uc;
GRANT USAGE ON SCHEMA tap_uc TO PUBLIC;
CREATE TABLE tap_uc.t AS
SELECT 1 + i % 30 AS person, i AS visit, (i % 7) / 4.0 - 0.75 AS a,
       ((i % 5) / 4.0 - 0.5)::float8 AS b, (i % 7) > 3 AS y, (i % 11)::float8 AS z
  FROM generate_series(1, 150) i;
REVOKE ALL ON tap_uc.t FROM PUBLIC;
SELECT dpobj.protect('tap_uc.t') \g /dev/null
SELECT dpobj.grant_budget('tap_uc.t', 'dpobj_tap_uc_bob', 100, 1e-3) \g /dev/null
RESET client_min_messages;

-- the table's state that a refused protect() must leave as it was
CREATE FUNCTION tap_uc.state() RETURNS text
LANGUAGE sql AS $$
    SELECT format('%s/%s/%s/%s/%s', p.privacy_unit, p.max_rows_per_unit,
                  (SELECT sum(spent_epsilon) FROM dpobj.budgets WHERE relid = p.relid),
                  (SELECT sum(spent_rho) FROM dpobj.budgets WHERE relid = p.relid),
                  (SELECT count(*) FROM dpobj.ledger WHERE relation = 'tap_uc.t'))
      FROM dpobj.protected_tables p WHERE p.relid = 'tap_uc.t'::regclass
$$;
-- sigma_xx of a linear run (a public parameter of the calibration)
CREATE FUNCTION tap_uc.sigma(method text) RETURNS float8
LANGUAGE sql AS $$
    SELECT ((m).params->>'sigma_xx')::float8
      FROM dpobj.train('tap_uc.t', 'linear', ARRAY['a', 'b'], 'z', 1, 1e-6,
                       jsonb_build_object('R', 1, 'y_min', 0, 'y_max', 10, 'method', method)) m
$$;
GRANT EXECUTE ON FUNCTION tap_uc.sigma(text) TO PUBLIC;

SELECT plan(14);

-- no spend yet: a unit may be set and the table made row level again
SELECT lives_ok($$SELECT dpobj.protect('tap_uc.t', 'person', 5)$$, 'no spend: a unit may be set');
SELECT dpobj.unprotect('tap_uc.t') \g /dev/null
SELECT dpobj.protect('tap_uc.t') \g /dev/null
SELECT dpobj.grant_budget('tap_uc.t', 'dpobj_tap_uc_bob', 100, 1e-3) \g /dev/null

SET ROLE dpobj_tap_uc_bob;
SELECT lives_ok($$SELECT dpobj.train('tap_uc.t', 'expmech', ARRAY['a', 'b'], 'y', 0.5, 1e-6)$$,
                'a row-level run');
RESET ROLE;
SELECT tap_uc.state() AS before \gset
SELECT throws_ok($$SELECT dpobj.protect('tap_uc.t', 'person', 5)$$, '55000', NULL,
                 'row level to a unit of k = 5 under spend: refused');
SELECT throws_ok($$SELECT dpobj.protect('tap_uc.t', 'person', 1)$$, '55000', NULL,
                 'row level to a unit of k = 1 under spend: refused');
SELECT is(tap_uc.state(), :'before', 'the refusals changed nothing: level, spend, ledger');

-- new budgets at the unit level, then every k of the same column
SELECT dpobj.unprotect('tap_uc.t') \g /dev/null
SELECT is((SELECT count(*) FROM dpobj.ledger WHERE relation = 'tap_uc.t'), 1::bigint,
          'unprotect keeps the ledger''s charge');
SELECT dpobj.protect('tap_uc.t', 'person', 1) \g /dev/null
SELECT dpobj.grant_budget('tap_uc.t', 'dpobj_tap_uc_bob', 100, 1e-3) \g /dev/null
SET ROLE dpobj_tap_uc_bob;
SELECT sum(x) FROM (VALUES (tap_uc.sigma('adassp'))) v(x) \g /dev/null
RESET ROLE;
SELECT lives_ok($$SELECT dpobj.protect('tap_uc.t', 'person', k) FROM unnest(ARRAY[5, 2, 10, 1, 4]) k$$,
                'under spend, any k of the same column is accepted');
SELECT tap_uc.state() AS before \gset
SELECT throws_ok($$SELECT dpobj.protect('tap_uc.t', 'visit', 4)$$, '55000', NULL,
                 'another unit column under spend: refused');
SELECT is(tap_uc.state(), :'before', 'nothing changed');

-- linear on the unit table: released, charged, noise k times row level's
SELECT dpobj.protect('tap_uc.t', 'person', 1) \g /dev/null
SET ROLE dpobj_tap_uc_bob;
SELECT tap_uc.sigma('adassp') AS s1, tap_uc.sigma('ssp') AS t1 \gset
RESET ROLE;
SELECT dpobj.protect('tap_uc.t', 'person', 4) \g /dev/null
SET ROLE dpobj_tap_uc_bob;
SELECT (SELECT count(*) FROM dpobj.ledger WHERE relation = 'tap_uc.t') AS n0 \gset
SELECT tap_uc.sigma('adassp') AS s4, tap_uc.sigma('ssp') AS t4 \gset
SELECT ok(abs(:s4 / :s1 - 4) < 0.02, format('AdaSSP at k = 4: sigma_xx x%s', round((:s4 / :s1)::numeric, 3)));
SELECT ok(abs(:t4 / :t1 - 4) < 0.02, format('SSP at k = 4: sigma_xx x%s', round((:t4 / :t1)::numeric, 3)));
SELECT is((SELECT array_agg(o ORDER BY id) FROM
             (SELECT id, outcome || '/' || rows_per_unit AS o FROM dpobj.ledger
               WHERE relation = 'tap_uc.t' ORDER BY id DESC LIMIT 2) l),
          ARRAY['released/4', 'released/4'], 'both runs released and charged at k = 4');
SELECT is((SELECT count(*) FROM dpobj.ledger WHERE relation = 'tap_uc.t') - :n0, 2::bigint,
          'one charge per run');
RESET ROLE;
SELECT throws_ok($$SELECT dpobj.protect('tap_uc.t', 'visit', 1)$$, '55000', NULL,
                 'linear''s spend counts too');

SELECT * FROM finish();
SET client_min_messages = warning;
SELECT dpobj.unprotect('tap_uc.t') \g /dev/null
DROP SCHEMA tap_uc CASCADE;
DROP ROLE dpobj_tap_uc_bob;
