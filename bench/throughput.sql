-- bench/throughput.sql — (a) transition throughput and (b) state size.
-- Run by bench/run.sh; psql variables: replicate (copies of adult.train), reps.
--
-- (a) Each feature set gets a table bench.big_<set> = adult.train replicated :replicate
--     times (32561 x 30 = 976830 rows by default), loaded into shared buffers.  Timed, in
--     this order within every repetition (interleaved, so drift hits all queries alike):
--       count            SELECT count(*)                          -- scan floor
--       sum_cardinality  SELECT sum(cardinality(features))         -- detoast + touch array
--       dp_halfspace     SELECT dpobj.dp_halfspace(features, label, 1, 1/n^2)
--                        with dpobj.solver_time_limit = 0.001 s
--     The 1 ms solver limit keeps the solve from dominating: the aggregate then costs its
--     transitions, the final function's setup and at most ~1 ms of oracle time.  A
--     solve that does not certify within the limit raises "not certified" (SQLSTATE
--     DP001); that error is expected here and the time up to it is what is measured.
--     Parallel query is off (max_parallel_workers_per_gather = 0, set in bench/run.sh),
--     so all three run on one core.
-- (b) Distinct feature vectors per feature set (the aggregate state holds one entry per
--     distinct quantised vector): raw, and after dpobj's quantisation round(64 x)
--     (half away from zero, as in src/families/halfspace/halfspacestate.c), for adult.train and the balanced
--     subset.  Replicating the table does not change these counts.

\set ON_ERROR_STOP on
SET client_min_messages = warning;

SET bench.replicate = :'replicate';
SET bench.reps = :'reps';
INSERT INTO bench.meta VALUES ('replicate', :'replicate'), ('reps', :'reps');

CREATE EXTENSION IF NOT EXISTS pg_prewarm;

DO $$
DECLARE
    fs   text;
    k    int := current_setting('bench.replicate')::int;
BEGIN
    FOREACH fs IN ARRAY ARRAY['d4', 'd23'] LOOP
        EXECUTE format($f$
            CREATE TABLE bench.big_%1$s AS
            SELECT f.features, f.label
            FROM adult.features_%1$s f, generate_series(1, %2$s) g
            WHERE f.split = 'train'
            ORDER BY g, f.id$f$, fs, k);
    END LOOP;
END
$$;

VACUUM (ANALYZE) bench.big_d4;
VACUUM (ANALYZE) bench.big_d23;
SELECT pg_prewarm('bench.big_d4') AS prewarmed_d4_blocks,
       pg_prewarm('bench.big_d23') AS prewarmed_d23_blocks;
SELECT relname, pg_size_pretty(pg_relation_size(oid)) AS size
FROM pg_class WHERE relname IN ('big_d4', 'big_d23') AND relnamespace = 'bench'::regnamespace;

DO $$
DECLARE
    fs   text;
    n    bigint;
    rep  int;
    r    record;
    qs   text[];
    names text[] := ARRAY['count', 'sum_cardinality', 'dp_halfspace'];
    i    int;
    reps int := current_setting('bench.reps')::int;
BEGIN
    PERFORM set_config('dpobj.solver_time_limit', '0.001', false);
    FOREACH fs IN ARRAY ARRAY['d4', 'd23'] LOOP
        EXECUTE format('SELECT count(*) FROM bench.big_%s', fs) INTO n;
        qs := ARRAY[
            format('SELECT count(*)::text FROM bench.big_%s', fs),
            format('SELECT sum(cardinality(features))::text FROM bench.big_%s', fs),
            format('SELECT dpobj.dp_halfspace(features, label, 1.0, 1.0 / (%s::float8 ^ 2))::text FROM bench.big_%s', n, fs)];
        -- warm-up (not recorded)
        FOR i IN 1 .. 3 LOOP
            PERFORM bench.time_sql(qs[i]);
        END LOOP;
        FOR rep IN 1 .. reps LOOP
            FOR i IN 1 .. 3 LOOP
                r := bench.time_sql(qs[i]);
                INSERT INTO bench.throughput VALUES (fs, names[i], rep, n, r.seconds, r.err);
            END LOOP;
        END LOOP;
    END LOOP;
    PERFORM set_config('dpobj.solver_time_limit', '60', false);
END
$$;

-- (b) distinct rows
CREATE FUNCTION bench.quantise(x float8[], q float8 DEFAULT 64) RETURNS float8[]
LANGUAGE sql IMMUTABLE AS $$
    -- round(q x) half away from zero, like C round(); PostgreSQL's round(float8) would
    -- round half to even
    SELECT array_agg(sign(v) * floor(abs(v) * q + 0.5) ORDER BY o)
    FROM unnest(x) WITH ORDINALITY AS u(v, o)
$$;

DO $$
DECLARE
    fs text;
BEGIN
    FOREACH fs IN ARRAY ARRAY['d4', 'd9', 'd15', 'd23'] LOOP
        EXECUTE format($f$
            INSERT INTO bench.state_size
            SELECT %1$L, max(cardinality(f.features)),
                   count(*), count(DISTINCT f.features), count(DISTINCT bench.quantise(f.features)),
                   count(b.id), count(DISTINCT bench.quantise(f.features)) FILTER (WHERE b.id IS NOT NULL)
            FROM adult.features_%1$s f
            LEFT JOIN adult.balanced_ids b ON b.id = f.id
            WHERE f.split = 'train'$f$, fs);
    END LOOP;
END
$$;

SELECT feature_set, query, count(*) AS reps, nrows,
       percentile_disc(0.5) WITHIN GROUP (ORDER BY seconds) AS median_s,
       round((nrows / percentile_disc(0.5) WITHIN GROUP (ORDER BY seconds))::numeric) AS rows_per_s,
       max(err) AS err
FROM bench.throughput GROUP BY 1, 2, 4 ORDER BY 1, 2;
SELECT * FROM bench.state_size;
