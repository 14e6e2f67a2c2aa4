-- dpobj SQL surface: objects, configuration, privileges of the seed.
-- (pg_regress loads the extension with --load-extension=dpobj.)
SELECT extname, extversion, extnamespace::regnamespace AS schema
  FROM pg_extension WHERE extname = 'dpobj';

-- every function and aggregate the extension installs, by signature
SELECT p.oid::regprocedure AS function, p.prokind, p.provolatile, p.proparallel
  FROM pg_proc p
 WHERE p.pronamespace = 'dpobj'::regnamespace
 ORDER BY p.oid::regprocedure::text COLLATE "C";

-- the model type
SELECT attnum, attname, atttypid::regtype
  FROM pg_attribute
 WHERE attrelid = 'dpobj.model'::regclass AND attnum > 0
 ORDER BY attnum;

-- the ledger is extension configuration (kept by pg_dump)
SELECT c.relname
  FROM pg_extension e, unnest(e.extconfig) AS cfg(oid)
  JOIN pg_class c ON c.oid = cfg.oid
 WHERE e.extname = 'dpobj'
 ORDER BY 1;

-- configuration defaults (custom parameters exist once the library is loaded)
LOAD 'dpobj';
SHOW dpobj.seed;
SHOW dpobj.solver_time_limit;
SHOW dpobj.oracle;
SHOW dpobj.oracle_threads;
SELECT name, context, vartype, min_val, max_val
  FROM pg_settings WHERE name LIKE 'dpobj.%' ORDER BY name;

-- only a superuser may make the noise reproducible
CREATE ROLE regress_dpobj_user;
SET ROLE regress_dpobj_user;
SET dpobj.seed = 1;
SET dpobj.solver_time_limit = 10;
SET dpobj.oracle = 'mip';
SET dpobj.oracle = 'simplex';
SET dpobj.oracle_threads = 1;
-- out of range (22023; the message's wording differs between server versions)
\set VERBOSITY sqlstate
SET dpobj.solver_time_limit = -1;
\set VERBOSITY default
RESET ROLE;
DROP ROLE regress_dpobj_user;

-- the noise scale of OPDisc, Algorithm 1: 7 G D^2 sqrt(ln(1/delta)) / (tau eps)
SELECT dpobj.opdisc_sigma(1, 1e-8, 4) AS sigma_d4,
       7 * 4 * sqrt(ln(1e8)) / 1 AS by_hand;
SELECT dpobj.opdisc_sigma(0.1, 1.0 / 15682^2, 23) AS sigma_d23_eps01;
SELECT dpobj.opdisc_sigma(0, 0.5, 4);
SELECT dpobj.opdisc_sigma(1, 1, 4);

-- regress.err(q): the outcome of one statement as (sqlstate, message, hint), 'ok'
-- when it succeeds; the later test files use it to show every error's SQLSTATE and
-- hint (this file runs first)
CREATE SCHEMA regress;
GRANT USAGE ON SCHEMA regress TO PUBLIC;
CREATE FUNCTION regress.err(q text)
RETURNS TABLE (sqlstate text, message text, hint text)
LANGUAGE plpgsql AS $$
DECLARE s text; m text; h text;
BEGIN
    EXECUTE q;
    RETURN QUERY SELECT 'ok'::text, NULL::text, NULL::text;
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS s = RETURNED_SQLSTATE, m = MESSAGE_TEXT, h = PG_EXCEPTION_HINT;
    RETURN QUERY SELECT s, m, h;
END $$;
-- regress.wait_job(job): waits (up to 60 s) until a job has left queued/running and
-- returns its state (sql/jobs.sql, sql/units.sql)
CREATE FUNCTION regress.wait_job(job bigint) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE st text;
BEGIN
    FOR k IN 1 .. 600 LOOP
        SELECT state INTO st FROM dpobj.jobs WHERE id = job;
        EXIT WHEN st NOT IN ('queued', 'running');
        PERFORM pg_sleep(0.1);
    END LOOP;
    RETURN st;
END $$;
-- regress.force_parallel(value): sets the setting that forces parallel plans, 'on' or
-- 'off' (PostgreSQL 16 renamed force_parallel_mode to debug_parallel_query)
CREATE PROCEDURE regress.force_parallel(value text)
LANGUAGE sql AS $$
SELECT set_config(name, value, false) FROM pg_settings
 WHERE name IN ('debug_parallel_query', 'force_parallel_mode')
$$;
-- regress.points(n): n deterministic rows (id, a, b, y, person) of two features in [-1, 1],
-- a label not linearly separable, and 50 persons (sql/auto.sql, sql/tune.sql)
CREATE FUNCTION regress.points(n int)
RETURNS TABLE (id int, a float8, b float8, y boolean, person int)
LANGUAGE sql IMMUTABLE AS $$
SELECT g,
       round(cos(g * 0.37)::numeric, 3)::float8,
       round(sin(g * 0.91)::numeric, 3)::float8,
       (cos(g * 0.37) + 0.5 * sin(g * 0.91) + 0.3 * sin(g * 7.1) > 0.1),
       g % 50
  FROM generate_series(1, n) g
$$;
-- regress.dpout_params(): the params a binary classifier's operating point adds that are
-- DP output (its cut-off and the balance estimate's counts and weights), which differ
-- between runs without a seed (sql/parallel.sql)
CREATE FUNCTION regress.dpout_params() RETURNS text[]
LANGUAGE sql IMMUTABLE AS $$
SELECT ARRAY['threshold', 'balance_counts', 'balance_weight_true', 'balance_weight_false']
$$;
