-- bench/ab/setup.sql — the tables bench/ab/run.sh times, identical in every cluster of one
-- PostgreSQL version (setseed and one serial plan): ab.t, :nrows rows of four features
-- uniform in [-1, 1], a level c, a boolean label y and a float8 label yr, protected with
-- a budget for the caller; ab.tiny, its first 10 rows; ab.mo, dp_evaluate's options
-- holding a logistic model; ab.time_sql and ab.loop, the timers.
\set ON_ERROR_STOP on
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS dpobj;
CREATE EXTENSION IF NOT EXISTS pg_prewarm;
CREATE SCHEMA ab;
SELECT setseed(0.42);
CREATE TABLE ab.t AS
SELECT i, x1, x2, x3, x4,
       (ARRAY['a', 'b', 'c'])[1 + (i % 3)] AS c,
       (x1 + 0.5 * x2 - 0.7 * x3 + 0.3 * (random() - 0.5) > 0) AS y,
       (0.6 * x1 - 0.4 * x2 + 0.2 * x4 + 0.1 * (random() - 0.5)) AS yr,
       ARRAY[x1, x2, x3, x4] AS f
  FROM (SELECT i, 2 * random() - 1 AS x1, 2 * random() - 1 AS x2,
               2 * random() - 1 AS x3, 2 * random() - 1 AS x4
          FROM generate_series(1, :nrows) i) s;
CREATE TABLE ab.tiny AS SELECT * FROM ab.t WHERE i <= 10;
SELECT dpobj.declare_domain('ab.t', 'x' || k, -1, 1) FROM generate_series(1, 4) k;
SELECT dpobj.declare_domain('ab.t', 'c', ARRAY['a', 'b', 'c']);
SELECT dpobj.declare_domain('ab.t', 'y', ARRAY['false', 'true']);
VACUUM ANALYZE ab.t;
VACUUM ANALYZE ab.tiny;
SELECT pg_prewarm('ab.t');
SELECT dpobj.protect('ab.t');
SELECT granted_epsilon FROM dpobj.grant_budget('ab.t', current_user::regrole, 1000000000, 0.5);
CREATE TABLE ab.mo AS
SELECT jsonb_build_object('model', dpobj.dp_logistic(f, y, 1, 1e-6, '{"R": 2}')::text) AS o
  FROM ab.t;

-- wall time of one statement returning one value, in this backend; an error is caught
CREATE FUNCTION ab.time_sql(q text, OUT seconds float8, OUT err text)
LANGUAGE plpgsql AS $$
DECLARE t0 timestamptz; r text;
BEGIN
    t0 := clock_timestamp();
    BEGIN
        EXECUTE q INTO r;
    EXCEPTION WHEN OTHERS THEN
        err := SQLSTATE || ': ' || left(SQLERRM, 60);
    END;
    seconds := extract(epoch FROM clock_timestamp() - t0);
END $$;

-- q run n times (a per-run cost: option parsing, state setup, finalize)
CREATE FUNCTION ab.loop(q text, n int) RETURNS text LANGUAGE plpgsql AS $$
DECLARE r text;
BEGIN
    FOR i IN 1 .. n LOOP EXECUTE q INTO r; END LOOP;
    RETURN r;
END $$;
