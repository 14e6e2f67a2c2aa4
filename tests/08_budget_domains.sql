-- Budget domains as properties: two tables of the same people in one domain
-- share one budget per role; a run on either member (train, evaluate, a
-- job) reduces that one budget, admission refuses exactly at its boundary,
-- and a table outside the domain keeps its own budget.  The charges are
-- committed by the ledger writer, which must see the setup: nothing runs
-- inside one transaction, and the end of the file drops what it created.
-- Jobs need shared_preload_libraries = 'dpobj'.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS tap_bd CASCADE;
DO $$ BEGIN
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'dpobj_tap_bd_alice') THEN DROP ROLE dpobj_tap_bd_alice; END IF;
END $$;
SELECT dpobj.drop_budget_domain('tap_bd_people') \g /dev/null
CREATE ROLE dpobj_tap_bd_alice;
CREATE SCHEMA tap_bd;
GRANT USAGE ON SCHEMA tap_bd TO PUBLIC;
CREATE TABLE tap_bd.orders AS
SELECT i % 30 AS customer, (i % 7) / 4.0 - 0.75 AS a, ((i % 5) / 4.0 - 0.5)::float8 AS b, (i % 7) > 3 AS y
  FROM generate_series(1, 90) i;
CREATE TABLE tap_bd.visits AS
SELECT i % 30 AS person, (i % 5) / 4.0 - 0.5 AS a, ((i % 3) / 2.0 - 0.5)::float8 AS b, (i % 5) > 2 AS y
  FROM generate_series(1, 60) i;
CREATE TABLE tap_bd.other AS SELECT * FROM tap_bd.visits;
REVOKE ALL ON tap_bd.orders, tap_bd.visits, tap_bd.other FROM PUBLIC;
SELECT dpobj.create_budget_domain('tap_bd_people') \g /dev/null
SELECT dpobj.protect('tap_bd.orders', 'customer', 2, 'tap_bd_people') \g /dev/null
SELECT dpobj.protect('tap_bd.visits', 'person', 3, 'tap_bd_people') \g /dev/null
SELECT dpobj.protect('tap_bd.other', 'person', 3) \g /dev/null
-- exactly four runs of (1, 1e-6): pure-epsilon runs on a budget without a
-- zCDP part are counted linearly, so the boundary is exact
SELECT dpobj.grant_domain_budget('tap_bd_people', 'dpobj_tap_bd_alice', 4, 4e-6) \g /dev/null
SELECT dpobj.grant_budget('tap_bd.other', 'dpobj_tap_bd_alice', 1, 1e-6) \g /dev/null
RESET client_min_messages;

-- waits until the job's state is final (at most 60 s); returns the state
CREATE FUNCTION tap_bd.wait(job bigint) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE st text; t0 timestamptz := clock_timestamp();
BEGIN
    LOOP
        SELECT state INTO st FROM dpobj.job_queue WHERE id = job;
        EXIT WHEN st IN ('succeeded', 'failed', 'cancelled') OR clock_timestamp() - t0 > interval '60 s';
        PERFORM pg_sleep(0.05);
    END LOOP;
    RETURN st;
END $$;
-- the analyst's view of the domain budget: (spent, remaining) epsilon
CREATE FUNCTION tap_bd.domain_spend() RETURNS numeric[]
LANGUAGE sql AS $$
    SELECT ARRAY[spent_epsilon, remaining_epsilon] FROM dpobj.my_budgets
     WHERE budget_domain = 'tap_bd_people'
$$;
GRANT EXECUTE ON FUNCTION tap_bd.domain_spend() TO PUBLIC;

SELECT plan(20);

SET ROLE dpobj_tap_bd_alice;
SELECT is((SELECT count(*) FROM dpobj.my_budgets WHERE budget_domain = 'tap_bd_people'), 1::bigint,
          'the analyst has one budget for the domain, not one per member');
SELECT is(ARRAY[dpobj.runs_left('tap_bd.orders', 'expmech', 1, 1e-6),
                dpobj.runs_left('tap_bd.visits', 'expmech', 1, 1e-6)], ARRAY[4, 4]::bigint[],
          'the odometer of either member reads the one budget');

-- ---- a run on either member reduces the same budget ------------------------------
SELECT lives_ok($$SELECT dpobj.train('tap_bd.orders', 'expmech', ARRAY['a', 'b'], 'y', 1, 1e-6)$$,
                'a run on the first member');
SELECT is(tap_bd.domain_spend(), ARRAY[1, 3]::numeric[], 'it is charged to the domain');
SELECT is(dpobj.runs_left('tap_bd.visits', 'expmech', 1, 1e-6), 3::bigint,
          'the other member''s odometer went down with it');
SELECT lives_ok($$SELECT dpobj.evaluate('tap_bd.visits', ROW('forged', ARRAY[0, 0]::float8[], 1, 1, 1e-6, '{}')::dpobj.model,
                                        ARRAY['a', 'b'], 'y', 1, 1e-6)$$,
                'a private evaluation on the second member');
SELECT is(tap_bd.domain_spend(), ARRAY[2, 2]::numeric[], 'it is charged to the same budget');
SELECT dpobj.submit('tap_bd.orders', 'expmech', ARRAY['a', 'b'], 'y', 1, 1e-6) AS job \gset
RESET ROLE;
SELECT is(tap_bd.wait(:job), 'succeeded', 'a job on a member runs');
SET ROLE dpobj_tap_bd_alice;
SELECT is(tap_bd.domain_spend(), ARRAY[3, 1]::numeric[], 'and is charged to the same budget');

-- ---- admission at the boundary ------------------------------------------------------
SELECT throws_ok($$SELECT dpobj.train('tap_bd.visits', 'expmech', ARRAY['a', 'b'], 'y', 1.000001, 1e-6)$$,
                 'DP004', NULL, 'a run just above what is left is refused');
SELECT throws_ok($$SELECT dpobj.submit('tap_bd.orders', 'expmech', ARRAY['a', 'b'], 'y', 1.000001, 1e-6)$$,
                 'DP004', NULL, 'so is a job, through the other member');
SELECT is(tap_bd.domain_spend(), ARRAY[3, 1]::numeric[], 'the refusals were free');
SELECT lives_ok($$SELECT dpobj.train('tap_bd.visits', 'expmech', ARRAY['a', 'b'], 'y', 1, 1e-6)$$,
                'a run of exactly what is left is admitted');
SELECT is(tap_bd.domain_spend(), ARRAY[4, 0]::numeric[], 'the domain budget is spent exactly');
SELECT throws_ok($$SELECT dpobj.train('tap_bd.orders', 'expmech', ARRAY['a', 'b'], 'y', 0.000001, 1e-6)$$,
                 'DP004', NULL, 'then nothing more is admitted on either member');
SELECT is(ARRAY[dpobj.runs_left('tap_bd.orders', 'expmech', 0.000001, 1e-9),
                dpobj.runs_left('tap_bd.visits', 'expmech', 0.000001, 1e-9)], ARRAY[0, 0]::bigint[],
          'and the odometers say so');

-- ---- a table outside the domain keeps its own budget -----------------------------------
SELECT is((SELECT ARRAY[spent_epsilon, remaining_epsilon] FROM dpobj.my_budgets
            WHERE relation = 'tap_bd.other'::regclass), ARRAY[0, 1]::numeric[],
          'the runs on the members did not touch the other table''s budget');
SELECT lives_ok($$SELECT dpobj.train('tap_bd.other', 'expmech', ARRAY['a', 'b'], 'y', 1, 1e-6)$$,
                'the other table still admits a run');
SELECT is(tap_bd.domain_spend(), ARRAY[4, 0]::numeric[], 'which does not touch the domain budget');
RESET ROLE;

-- ---- the books balance ---------------------------------------------------------------
SELECT is((SELECT array_agg(l.relation || ':' || l.budget_domain ORDER BY l.relation, l.id)
             FROM dpobj.ledger l JOIN dpobj.budgets b ON b.id = l.budget_id
            WHERE b.budget_domain = 'tap_bd_people' AND l.outcome = 'released'
              AND l.epsilon = 1),
          ARRAY['tap_bd.orders:tap_bd_people', 'tap_bd.orders:tap_bd_people',
                'tap_bd.visits:tap_bd_people', 'tap_bd.visits:tap_bd_people'],
          'four ledger rows, two per member, each naming the domain its budget belongs to');

SELECT * FROM finish();

SET client_min_messages = warning;
DROP SCHEMA tap_bd CASCADE;
SELECT dpobj.drop_budget_domain('tap_bd_people') \g /dev/null
DROP ROLE dpobj_tap_bd_alice;
