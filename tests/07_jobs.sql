-- Training jobs.  Jobs run in background workers that must see the
-- committed job rows, so this file does not run inside one transaction: it
-- cleans up after itself instead.  Needs shared_preload_libraries = 'dpobj'
-- (scripts/test.sh).
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
DROP TABLE IF EXISTS public.t7_pts, public.t7_hard;
DROP FUNCTION IF EXISTS public.t7_wait(bigint, text[], float8);
DO $$ BEGIN
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 't7_alice') THEN DROP ROLE t7_alice; END IF;
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 't7_bob') THEN DROP ROLE t7_bob; END IF;
END $$;
CREATE ROLE t7_alice;
CREATE ROLE t7_bob;
RESET client_min_messages;

SELECT plan(28);

-- waits until job's state is in states (at most max_s seconds); returns the state
CREATE FUNCTION public.t7_wait(job bigint, states text[], max_s float8) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE st text; t0 timestamptz := clock_timestamp();
BEGIN
    LOOP
        SELECT state INTO st FROM dpobj.job_queue WHERE id = job;
        EXIT WHEN st = ANY (states) OR clock_timestamp() - t0 > make_interval(secs => max_s);
        PERFORM pg_sleep(0.05);
    END LOOP;
    RETURN st;
END $$;

CREATE TABLE public.t7_pts AS
SELECT i, (i % 7) / 4.0 - 0.75 AS a, (i % 5) / 4.0 - 0.5 AS b, (i % 11) / 8.0 - 0.6 AS c,
       ((i % 7) > 3) <> (i % 13 = 0) AS y
  FROM generate_series(1, 3000) i;
-- a GLPK MIP that needs minutes (tests/03_cancel.sql)
CREATE TABLE public.t7_hard AS
SELECT (abs(hashint4(g)) % 129 - 64) / 64.0 AS a,
       (abs(hashint4(g + 100000)) % 129 - 64) / 64.0 AS b,
       1.0 AS one, hashint4(g + 200000) % 2 = 0 AS y
  FROM generate_series(1, 600) g;
REVOKE ALL ON public.t7_pts, public.t7_hard FROM PUBLIC;
SELECT dpobj.protect('public.t7_pts') \g /dev/null
SELECT dpobj.protect('public.t7_hard') \g /dev/null
SELECT dpobj.grant_budget('public.t7_pts', 't7_alice', 10, 1e-3) \g /dev/null
SELECT dpobj.grant_budget('public.t7_pts', 't7_bob', 10, 1e-3) \g /dev/null
SELECT dpobj.grant_budget('public.t7_hard', 't7_alice', 10, 1e-3) \g /dev/null

-- 1. a job runs the protected path as its submitter: the same public model
--    (mechanism, epsilon, delta, params, dimension) and the same charge as
--    dpobj.train().  Protected runs refuse dpobj.seed, so the noise differs.
SELECT current_database() AS db \gset
SELECT coalesce(max(id), 0) AS ledger_before FROM dpobj.ledger \gset
SET ROLE t7_alice;
-- read before the submit: the job may be charged as soon as the submit commits
SELECT coalesce(spent_epsilon, 0) AS spent_before FROM dpobj.my_budgets WHERE relation = 'public.t7_pts'::regclass \gset
SELECT dpobj.submit('public.t7_pts', 'opdisc', ARRAY['a', 'b', 'c'], 'y', 0.3, 1e-6) AS job1 \gset
SELECT ok(EXISTS (SELECT 1 FROM dpobj.jobs WHERE id = :job1 AND owner = 't7_alice'::regrole),
          'submit returns the id of a job owned by the submitter');
RESET ROLE;
SELECT is(public.t7_wait(:job1, '{succeeded,failed,cancelled}', 60), 'succeeded', 'the job succeeded');
SET ROLE t7_alice;
SELECT ok((SELECT model IS NOT NULL AND array_length((model).weights, 1) = 3 FROM dpobj.jobs WHERE id = :job1),
          'the model is stored with the job');
CREATE TEMP TABLE t7_direct AS
SELECT * FROM dpobj.train('public.t7_pts', 'opdisc', ARRAY['a', 'b', 'c'], 'y', 0.3, 1e-6);
SELECT is((SELECT ROW((model).mechanism, (model).epsilon, (model).delta, (model).params,
                       cardinality((model).weights))::text FROM dpobj.jobs WHERE id = :job1),
          (SELECT ROW(t.mechanism, t.epsilon, t.delta, t.params, cardinality(t.weights))::text FROM t7_direct t),
          'the job''s model has dpobj.train()''s public parameters');
SELECT is((SELECT spent_epsilon FROM dpobj.my_budgets WHERE relation = 'public.t7_pts'::regclass),
          :spent_before + 0.6, 'job and train each charged exactly 0.3 to the same budget');
SELECT is((SELECT string_agg(rolname || ' ' || epsilon || ' ' || delta || ' ' || outcome || ' ' ||
                              (budget_id IS NOT NULL), ', ' ORDER BY id)
              FROM dpobj.ledger WHERE relation = 'public.t7_pts' AND id > :ledger_before),
          't7_alice 0.3 0.000001 released true, t7_alice 0.3 0.000001 released true',
          'two identical ledger rows: the job''s and train()''s');
SELECT ok((SELECT started_at >= submitted_at AND finished_at >= started_at AND elapsed >= '0'::interval
             FROM dpobj.jobs WHERE id = :job1), 'timestamps and elapsed time are recorded');
DROP TABLE t7_direct;
RESET ROLE;

-- 1b. submit(..., model_name): the job's train() stores the model by name; a taken
--     name is refused at submit, before anything is queued or charged
SET ROLE t7_alice;
SELECT dpobj.submit('public.t7_pts', 'opdisc', ARRAY['a', 'b'], 'y', 0.1, 1e-6,
                    model_name => 't7_named') AS job_named \gset
RESET ROLE;
SELECT is(public.t7_wait(:job_named, '{succeeded,failed,cancelled}', 60), 'succeeded',
          'the named job succeeded');
SET ROLE t7_alice;
SELECT is((SELECT model_name FROM dpobj.jobs WHERE id = :job_named), 't7_named',
          'the job shows the model name');
SELECT is((SELECT (m.model)::text FROM dpobj.models m WHERE m.name = 't7_named'),
          (SELECT (model)::text FROM dpobj.jobs WHERE id = :job_named),
          'the job''s model is in dpobj.models under that name');
SELECT throws_ok($$SELECT dpobj.submit('public.t7_pts', 'opdisc', ARRAY['a'], 'y', 0.1, 1e-6,
                                       model_name => 't7_named')$$,
                 '42710', NULL, 'a taken model name is refused at submit (42710)');
SELECT dpobj.drop_model('t7_named') \g /dev/null
RESET ROLE;

-- 2. a refused job is refused at submit, like train() (nothing queued)
SET ROLE t7_alice;
SELECT throws_ok($$SELECT dpobj.submit('public.t7_pts', 'opdisc', ARRAY['a'], 'y', 100, 1e-6)$$,
                 'DP004', NULL, 'over budget: DP004 at submit');
RESET ROLE;

-- 3. analysts see only their own jobs
SET ROLE t7_bob;
SELECT dpobj.submit('public.t7_pts', 'opdisc', ARRAY['a'], 'y', 0.1, 1e-6) AS job_bob \gset
SELECT is((SELECT count(*) FROM dpobj.jobs WHERE owner <> 't7_bob'::regrole), 0::bigint,
          'bob sees no other role''s jobs');
SELECT is((SELECT count(*) FROM dpobj.jobs WHERE id = :job_bob), 1::bigint, 'bob sees his own job');
SELECT throws_ok(format('SELECT dpobj.cancel(%s)', :job1), '42704', NULL,
                 'bob cannot cancel alice''s job: it looks missing');
RESET ROLE;
SET ROLE t7_alice;
SELECT is((SELECT count(*) FROM dpobj.jobs WHERE id = :job_bob), 0::bigint, 'alice does not see bob''s job');
RESET ROLE;
SELECT is(public.t7_wait(:job_bob, '{succeeded,failed,cancelled}', 60), 'succeeded', 'bob''s job succeeded');

-- 4. one job at a time: a long job runs, the next one waits in the queue
ALTER SYSTEM SET dpobj.max_jobs = 1;
SELECT pg_reload_conf() \g /dev/null
SELECT pg_sleep(0.5) \g /dev/null
SET ROLE t7_alice;
SELECT spent_epsilon AS hard_before FROM dpobj.my_budgets WHERE relation = 'public.t7_hard'::regclass \gset
SELECT dpobj.submit('public.t7_hard', 'opdisc', ARRAY['a', 'b', 'one'], 'y', 3.5, 1e-5,
                    '{"oracle": "mip"}') AS job_long \gset
SELECT dpobj.submit('public.t7_pts', 'opdisc', ARRAY['a'], 'y', 0.2, 1e-6) AS job_queued \gset
RESET ROLE;
SELECT is(public.t7_wait(:job_long, '{running}', 30), 'running',
          'the long job is running (submit returned while it runs)');
-- wait for the solve (the charge is made before it)
SELECT pg_sleep(2) \g /dev/null
SET ROLE t7_alice;
SELECT is((SELECT phase FROM dpobj.jobs WHERE id = :job_long), 'solving',
          'its owner sees the phase: solving (and nothing data-dependent)');
SELECT is((SELECT state FROM dpobj.jobs WHERE id = :job_queued), 'queued',
          'with dpobj.max_jobs = 1 the second job waits in the queue');
-- 5. cancel the queued job: it never runs and costs nothing
SELECT ok(dpobj.cancel(:job_queued), 'cancel of a queued job returns true');
SELECT is((SELECT state || ' ' || (started_at IS NULL) FROM dpobj.jobs WHERE id = :job_queued),
          'cancelled true', 'the queued job is cancelled and never started');
-- 6. cancel the running job: the solve stops within about a second
SELECT clock_timestamp() AS t_cancel \gset
SELECT ok(dpobj.cancel(:job_long), 'cancel of a running job returns true');
RESET ROLE;
SELECT is(public.t7_wait(:job_long, '{succeeded,failed,cancelled}', 10), 'cancelled', 'the running job is cancelled');
SELECT cmp_ok(extract(epoch FROM (SELECT finished_at FROM dpobj.job_queue WHERE id = :job_long) - :'t_cancel'::timestamptz)::float8,
              '<', 3.0::float8, 'it stopped within a few seconds of the cancel');
SET ROLE t7_alice;
SELECT is((SELECT spent_epsilon FROM dpobj.my_budgets WHERE relation = 'public.t7_hard'::regclass),
          :hard_before + 3.5, 'the cancelled job''s charge stays (its noise was drawn)');
SELECT is((SELECT outcome FROM dpobj.ledger WHERE relation = 'public.t7_hard' ORDER BY id DESC LIMIT 1),
          'cancelled', 'its ledger row says cancelled');
SELECT ok((SELECT model IS NULL AND error IS NOT NULL FROM dpobj.jobs WHERE id = :job_long),
          'no model, an error message');
RESET ROLE;
ALTER SYSTEM RESET dpobj.max_jobs;
SELECT pg_reload_conf() \g /dev/null

SELECT * FROM finish();

-- clean up (jobs and budgets of the dropped tables go with them)
DELETE FROM dpobj.job_queue WHERE owner IN ('t7_alice'::regrole, 't7_bob'::regrole);
DROP TABLE public.t7_pts, public.t7_hard;
DROP FUNCTION public.t7_wait(bigint, text[], float8);
DROP ROLE t7_alice, t7_bob;
