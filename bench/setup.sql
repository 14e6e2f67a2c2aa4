-- bench/setup.sql — schema "bench": result tables and the timing helper.
-- Run by bench/run.sh after data/adult/load.sql and CREATE EXTENSION dpobj.

\set ON_ERROR_STOP on
SET client_min_messages = warning;

DROP SCHEMA IF EXISTS bench CASCADE;
CREATE SCHEMA bench;

-- Wall time of one statement run in this backend (EXECUTE inside PL/pgSQL, so no client
-- round trip or result transfer is counted).  The statement must return one text value.
-- An error is caught and reported (SQLSTATE: message) together with the time it took.
CREATE FUNCTION bench.time_sql(q text, OUT seconds float8, OUT result text, OUT err text)
LANGUAGE plpgsql AS $$
DECLARE
    t0 timestamptz;
BEGIN
    t0 := clock_timestamp();
    BEGIN
        EXECUTE q INTO result;
    EXCEPTION WHEN OTHERS THEN
        err := SQLSTATE || ': ' || SQLERRM;
    END;
    seconds := extract(epoch FROM clock_timestamp() - t0);
END
$$;

CREATE TABLE bench.meta (key text PRIMARY KEY, value text);

CREATE TABLE bench.throughput (
    feature_set text,
    query       text,       -- count / sum_cardinality / dp_halfspace_capped
    rep         int,
    nrows       bigint,
    seconds     float8,
    err         text
);

CREATE TABLE bench.state_size (
    feature_set      text,
    d                int,
    train_rows       bigint,
    distinct_raw     bigint,    -- count(DISTINCT features) over adult.train
    distinct_q       bigint,    -- distinct after dpobj's quantisation round(Q x), Q = 64
    balanced_rows    bigint,
    balanced_q       bigint     -- same, balanced training subset (n = 15682)
);

CREATE TABLE bench.solve (
    feature_set text,
    oracle      text,
    seed        int,
    seconds     float8,
    ok          boolean,
    params      text,       -- (model).params of a released model
    err         text
);
