-- bench/oracle_sql/setup.sql — result table and the per-run function of the SQL oracle
-- benchmark (bench/oracle_sql/run.sh).  Run after data/adult/load.sql and
-- CREATE EXTENSION dpobj.
\set ON_ERROR_STOP on
SET client_min_messages = warning;

DROP SCHEMA IF EXISTS oracle_sql CASCADE;
CREATE SCHEMA oracle_sql;

-- One row per aggregate call.  "seconds" is clock_timestamp() around the call (the
-- whole aggregate: 15682 transitions take milliseconds; the rest is the oracle).
CREATE TABLE oracle_sql.runs (
    run_id      int PRIMARY KEY,
    feature_set text,
    mechanism   text,        -- opdisc (dpobj.dp_halfspace) / rspm (dpobj.dp_halfspace_rspm)
    epsilon     float8,
    seed        int,
    pid         int,         -- backend pid (matches [pid] in the server log)
    seconds     float8,
    certified   boolean,
    sqlstate    text,        -- NULL when released; DP001 = not certified
    err         text,
    params      text         -- (model).params of a released model
);

-- Run one aggregate call.  Before it, a LOG line "dpobj-oracle-sql run <id>" marks the
-- server log, so that run.sh can attach the oracle's DEBUG1 line
-- ("dpobj oracle <name>: status S, N nodes, T s") that follows it in the same backend.
CREATE FUNCTION oracle_sql.run(p_run_id int, p_set text, p_mech text, p_eps float8,
                               p_seed int)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    q      text;
    t0     timestamptz;
    secs   float8;
    res    text;
    st     text;
    msg    text;
BEGIN
    q := format($f$
        SELECT (%s(f.features, f.label, %s::float8, 1.0 / (15682.0 ^ 2), %L))::text
        FROM adult.features_%s f
        JOIN adult.balanced_ids b ON b.id = f.id
        WHERE f.split = 'train'$f$,
        CASE p_mech WHEN 'opdisc' THEN 'dpobj.dp_halfspace'
                    WHEN 'rspm' THEN 'dpobj.dp_halfspace_rspm' END,
        p_eps,
        -- OPDisc on the paper's grid, B = floor(sqrt d), D2 = d (set dN has d = N)
        CASE p_mech WHEN 'opdisc'
             THEN jsonb_build_object('B', floor(sqrt(substr(p_set, 2)::int))::int,
                                     'D2', substr(p_set, 2)::int)
             ELSE '{}'::jsonb END,
        p_set);
    PERFORM set_config('dpobj.seed', p_seed::text, false);
    RAISE LOG 'dpobj-oracle-sql run %', p_run_id;
    t0 := clock_timestamp();
    BEGIN
        EXECUTE q INTO res;
    EXCEPTION WHEN OTHERS THEN
        GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT;
    END;
    secs := extract(epoch FROM clock_timestamp() - t0);
    INSERT INTO oracle_sql.runs
    VALUES (p_run_id, p_set, p_mech, p_eps, p_seed, pg_backend_pid(), secs, st IS NULL,
            st, msg, CASE WHEN st IS NULL THEN ((res)::dpobj.model).params::text END);
END
$$;
