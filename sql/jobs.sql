-- Training jobs -- dpobj.submit, dpobj.cancel, the dpobj.jobs view:
-- the SQL surface and every error with its SQLSTATE.  The server runs with
-- shared_preload_libraries = 'dpobj' (scripts/test.sh), so jobs really run.
CREATE SCHEMA regress_jobs;
GRANT USAGE ON SCHEMA regress_jobs TO PUBLIC;

-- the surface
SELECT p.oid::regprocedure AS function, p.provolatile, p.prosecdef, p.proconfig
  FROM pg_proc p
 WHERE p.oid IN ('dpobj.submit'::regproc, 'dpobj.cancel'::regproc, 'dpobj.job_phase'::regproc)
 ORDER BY 1::text;
SELECT attname, atttypid::regtype FROM pg_attribute
 WHERE attrelid = 'dpobj.jobs'::regclass AND attnum > 0 ORDER BY attnum;
SELECT reloptions FROM pg_class WHERE oid = 'dpobj.jobs'::regclass;
SELECT name, setting, context FROM pg_settings
 WHERE name IN ('dpobj.max_jobs', 'dpobj.progress') ORDER BY name;

CREATE ROLE regress_jobs_owner;
CREATE ROLE regress_jobs_alice;
CREATE ROLE regress_jobs_bob;
GRANT CREATE ON SCHEMA regress_jobs TO regress_jobs_owner;
SET ROLE regress_jobs_owner;
CREATE TABLE regress_jobs.pts AS
SELECT i, (i % 7) / 4.0 - 0.75 AS a, (i % 5) / 4.0 - 0.5 AS b, (i % 7) > 3 AS y
  FROM generate_series(1, 60) i;
REVOKE ALL ON regress_jobs.pts FROM PUBLIC;
CREATE TABLE regress_jobs.unprotected (a float8, y boolean);
SELECT dpobj.protect('regress_jobs.pts');
SELECT granted_epsilon, granted_delta
  FROM dpobj.grant_budget('regress_jobs.pts', 'regress_jobs_alice', 1, 1e-5);
RESET ROLE;

-- submit refuses exactly what train refuses, at once, and queues nothing
SET ROLE regress_jobs_alice;
SELECT * FROM regress.err($$SELECT dpobj.submit(NULL, 'opdisc', ARRAY['a'], 'y', 0.1, 1e-6)$$);
SELECT sqlstate, message FROM regress.err($$SELECT dpobj.submit('regress_jobs.pts', 'simplex', ARRAY['a'], 'y', 0.1, 1e-6)$$);
SELECT * FROM regress.err($$SELECT dpobj.submit('regress_jobs.pts', 'opdisc', ARRAY['nope'], 'y', 0.1, 1e-6)$$);
SELECT * FROM regress.err($$SELECT dpobj.submit('regress_jobs.pts', 'opdisc', ARRAY['a'], 'y', -1, 1e-6)$$);
SELECT * FROM regress.err($$SELECT dpobj.submit('regress_jobs.pts', 'opdisc', ARRAY['a'], 'y', 0.1, 1e-6, '{"B": 0}')$$);
SELECT * FROM regress.err($$SELECT dpobj.submit('regress_jobs.unprotected', 'opdisc', ARRAY['a'], 'y', 0.1, 1e-6)$$);
SELECT * FROM regress.err($$SELECT dpobj.submit('regress_jobs.pts', 'opdisc', ARRAY['a'], 'y', 2, 1e-6)$$);
RESET ROLE;
SET ROLE regress_jobs_bob;
SELECT * FROM regress.err($$SELECT dpobj.submit('regress_jobs.pts', 'opdisc', ARRAY['a'], 'y', 0.1, 1e-6)$$);
RESET ROLE;
SELECT count(*) AS queued_after_errors FROM dpobj.job_queue;

-- a job: queued at once, run in the background as alice, model stored
SET ROLE regress_jobs_alice;
SELECT dpobj.submit('regress_jobs.pts', 'opdisc', ARRAY['a', 'b'], 'y', 0.25, 1e-6) AS job \gset
SELECT owner, relation, mechanism, epsilon, delta, state IN ('queued', 'running', 'succeeded') AS accepted
  FROM dpobj.jobs WHERE id = :job;
SELECT regress.wait_job(:job);
SELECT state, (model).mechanism, (model).epsilon, (model).delta,
       array_length((model).weights, 1) AS d, (model).params->>'oracle' AS oracle,
       phase, elapsed >= '0'::interval AS has_elapsed, error, started_at >= submitted_at AS ordered
  FROM dpobj.jobs WHERE id = :job;
-- charged exactly like train(): to alice's budget, one ledger row
SELECT spent_epsilon, spent_delta FROM dpobj.my_budgets;
SELECT rolname, epsilon, delta, outcome FROM dpobj.ledger WHERE relation = 'regress_jobs.pts';
-- the job table itself is closed; only the view shows it
SELECT * FROM regress.err($$SELECT * FROM dpobj.job_queue$$);
SELECT * FROM regress.err($$UPDATE dpobj.job_queue SET state = 'queued'$$);
SELECT * FROM regress.err($$INSERT INTO dpobj.job_queue (owner, rel, mechanism, features, label, epsilon, delta, options) VALUES ('regress_jobs_alice', 'regress_jobs.pts', 'opdisc', '{a}', 'y', 0.1, 1e-6, '{}')$$);
RESET ROLE;

-- bob sees none of alice's jobs and cannot cancel them (it looks missing)
SET ROLE regress_jobs_bob;
SELECT count(*) AS bob_sees FROM dpobj.jobs;
SELECT * FROM regress.err(format('SELECT dpobj.cancel(%s)', :job));
SELECT dpobj.job_phase(:job) AS bob_phase;
RESET ROLE;

-- cancel: unknown job, NULL, a finished job (false, with a notice)
SET ROLE regress_jobs_alice;
SELECT * FROM regress.err($$SELECT dpobj.cancel(999999)$$);
SELECT * FROM regress.err($$SELECT dpobj.cancel(NULL)$$);
SELECT dpobj.cancel(:job);
-- a queued job cancelled before it was committed never runs and costs nothing
BEGIN;
SELECT dpobj.submit('regress_jobs.pts', 'opdisc', ARRAY['a'], 'y', 0.125, 1e-6) AS job2 \gset
SELECT dpobj.cancel(:job2);
COMMIT;
SELECT pg_sleep(1.5);
SELECT state, error, model IS NULL AS no_model, started_at IS NULL AS never_started
  FROM dpobj.jobs WHERE id = :job2;
SELECT spent_epsilon FROM dpobj.my_budgets;
RESET ROLE;

-- superusers see every job
SELECT count(*) AS superuser_sees FROM dpobj.jobs;

DROP TABLE regress_jobs.pts, regress_jobs.unprotected;
DROP SCHEMA regress_jobs CASCADE;
DROP ROLE regress_jobs_owner, regress_jobs_alice, regress_jobs_bob;

-- jobs whose owner was dropped do not break the view for anybody
CREATE ROLE regress_jobs_carol;
SET ROLE regress_jobs_carol;
SELECT count(*) AS carol_sees FROM dpobj.jobs;
RESET ROLE;
SELECT count(*) AS superuser_sees FROM dpobj.jobs;
DROP ROLE regress_jobs_carol;
DELETE FROM dpobj.job_queue;
