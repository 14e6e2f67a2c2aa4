-- bench/solve.sql — (c) time to train one model on the paper's instance.
-- Run by bench/run.sh; psql variables: sets (e.g. 'd4 d23'), oracles (e.g. 'mip search',
-- or 'default' to leave dpobj.oracle alone), seeds (e.g. '1 2 3'), time_limit (seconds).
--
-- For every feature set x oracle x seed: dpobj.seed = seed, dpobj.solver_time_limit =
-- time_limit, then
--   SELECT dpobj.dp_halfspace(features, label, 1.0, 1.0 / (15682.0 ^ 2))
--   FROM adult.features_<set> JOIN adult.balanced_ids (n = 15682, epsilon = 1, delta = 1/n^2)
-- timed as a whole (15682 transitions take milliseconds; the rest is the oracle).  A
-- solve that is not certified optimal within the limit raises an error, recorded as is.

\set ON_ERROR_STOP on
SET client_min_messages = notice;   -- progress lines below are NOTICEs

SET bench.sets = :'sets';
SET bench.oracles = :'oracles';
SET bench.seeds = :'seeds';
SET bench.time_limit = :'time_limit';
INSERT INTO bench.meta VALUES ('sets', :'sets'), ('oracles', :'oracles'), ('seeds', :'seeds'),
                              ('time_limit', :'time_limit');

DO $$
DECLARE
    fs     text;
    orc    text;
    seed   text;
    r      record;
    q      text;
BEGIN
    FOREACH fs IN ARRAY regexp_split_to_array(btrim(current_setting('bench.sets')), '\s+') LOOP
        q := format($f$
            SELECT dpobj.dp_halfspace(f.features, f.label, 1.0, 1.0 / (15682.0 ^ 2))::text
            FROM adult.features_%s f
            JOIN adult.balanced_ids b ON b.id = f.id
            WHERE f.split = 'train'$f$, fs);
        FOREACH orc IN ARRAY regexp_split_to_array(btrim(current_setting('bench.oracles')), '\s+') LOOP
            FOREACH seed IN ARRAY regexp_split_to_array(btrim(current_setting('bench.seeds')), '\s+') LOOP
                PERFORM set_config('dpobj.seed', seed, false);
                PERFORM set_config('dpobj.solver_time_limit', current_setting('bench.time_limit'), false);
                IF orc <> 'default' THEN
                    PERFORM set_config('dpobj.oracle', orc, false);
                END IF;
                r := bench.time_sql(q);
                INSERT INTO bench.solve
                VALUES (fs, orc, seed::int, r.seconds, r.err IS NULL,
                        CASE WHEN r.err IS NULL THEN ((r.result)::dpobj.model).params::text END,
                        r.err);
                RAISE NOTICE 'solve % oracle=% seed=%: % s %', fs, orc, seed,
                    round(r.seconds::numeric, 3), coalesce(r.err, 'ok');
            END LOOP;
        END LOOP;
    END LOOP;
END
$$;

SELECT feature_set, oracle, seed, round(seconds::numeric, 3) AS seconds, ok,
       coalesce(err, params) AS detail
FROM bench.solve ORDER BY 1, 2, 3;
