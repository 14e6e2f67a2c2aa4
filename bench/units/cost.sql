-- bench/units/cost.sql — the time of one train() run on 1M rows with and without a privacy
-- unit (run by run.sh after cost_setup.sql).  As bu_analyst: logistic regression, method
-- output, epsilon = 1 (a run whose time is the scan's: the state holds 6 250 distinct
-- pairs), on bu.cost_row (no unit), bu.cost_unit, bu.cost_u10k and bu.cost_u1m (k = 10;
-- 100k, 10k and 1M units), in turn, :reps runs each
-- after one warm-up each, at work_mem = :work_mem and dpobj.max_state_memory = :cap (the
-- bounding counts units in memory within the cap, and sorts past it); wall time of the
-- statement.  Then, as the superuser, the plan of the bounding query train() builds on
-- bu.cost_unit with its row counts, from EXPLAIN ANALYZE: which branch ran, and the sort's
-- memory or temporary file.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
SET work_mem = :'work_mem';
SET dpobj.max_state_memory = :'cap';
SET bu.reps = :reps;
CREATE TEMP TABLE t (tbl text, rep int, ms float8);
GRANT ALL ON t TO bu_analyst;
SET ROLE bu_analyst;
DO $$
DECLARE
    t0 timestamptz;
    m dpobj.model;
    tbl text;
BEGIN
    FOR rep IN 0 .. current_setting('bu.reps')::int LOOP
        FOREACH tbl IN ARRAY ARRAY['bu.cost_row', 'bu.cost_unit', 'bu.cost_u10k', 'bu.cost_u1m'] LOOP
            t0 := clock_timestamp();
            SELECT * INTO m FROM dpobj.train(tbl, 'output', ARRAY['f1', 'f2', 'f3', 'f4', 'f5'], 'y',
                                             1, 1e-9, '{"R": 2.3}');
            IF rep > 0 THEN
                INSERT INTO t VALUES (tbl, rep, 1000 * extract(epoch FROM clock_timestamp() - t0));
            END IF;
        END LOOP;
    END LOOP;
END
$$;
RESET ROLE;
\pset format unaligned
\pset tuples_only on
SELECT format('| %s | %s | %s | %s | %s |', current_setting('work_mem'), current_setting('dpobj.max_state_memory'), tbl,
              round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms)::numeric),
              round(min(ms)::numeric) || '–' || round(max(ms)::numeric))
  FROM t GROUP BY tbl ORDER BY tbl DESC;
-- work_mem as the sealed run pins it: at most the cap
SELECT set_config('work_mem', least(pg_size_bytes(current_setting('work_mem')),
                                    pg_size_bytes(current_setting('dpobj.max_state_memory'))) / 1024 || 'kB', false)
       AS pinned_work_mem \gset
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF)
SELECT count(*)
  FROM (SELECT dpobj.unit_counts(person, 10::bigint) AS h FROM bu.cost_unit WHERE person IS NOT NULL) c
 CROSS JOIN LATERAL (
       (SELECT f1, f2, f3, f4, f5, y FROM bu.cost_unit
         WHERE c.h > 0 AND CASE WHEN person IS NOT NULL THEN dpobj.unit_keep(person, c.h) ELSE false END
        OFFSET 0)
       UNION ALL
       (SELECT f1, f2, f3, f4, f5, y
          FROM (SELECT f1, f2, f3, f4, f5, y,
                       row_number() OVER w AS n, count(*) OVER w AS m
                  FROM bu.cost_unit WHERE c.h = 0 AND person IS NOT NULL WINDOW w AS (PARTITION BY person)) s
         WHERE dpobj.unit_keep_sorted(s.n, s.m, 10::bigint))) r;
