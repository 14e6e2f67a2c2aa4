-- bench/operating/auc.sql — dpobj.evaluate()'s private ROC AUC against the exact test AUC
-- (after accuracy.sql): each seed's default ebm model at epsilon 1, evaluated on the test
-- split at epsilon 1 and 0.5 (seeded noise, another seed per run): how often the 95 %
-- interval holds the exact AUC, its median width and the estimate's median error (a
-- Markdown table: bench/record.py operating_auc).
\set ON_ERROR_STOP 1
CREATE TABLE op.auc (tbl text, arm text, seed int, eval_eps float8, exact float8,
                     estimate float8, lo float8, hi float8);
DO $$
DECLARE
    r record;
    e jsonb;
BEGIN
    FOR r IN SELECT * FROM op.results WHERE metric = 'default' AND arm = 'ebm' AND eps = 1
    LOOP
        FOR ee IN 1 .. 2 LOOP
            PERFORM set_config('dpobj.seed', (r.seed + 1000 * ee)::text, false);
            SELECT dpobj.dp_evaluate(features, label, 1.0 / ee, 0, jsonb_build_object('model', r.m::text))
              INTO e FROM be.rows WHERE tbl = r.tbl AND split = 'test';
            INSERT INTO op.auc VALUES (r.tbl, r.arm, r.seed, 1.0 / ee, r.auc, (e->'auc'->>'estimate')::float8,
                                       (e->'auc'->'ci95'->>0)::float8, (e->'auc'->'ci95'->>1)::float8);
        END LOOP;
    END LOOP;
END $$;
\pset format unaligned
\pset tuples_only on
SELECT '| table | evaluate() at ε | runs | interval holds the exact AUC | median width | median error |';
SELECT '|---|---:|---:|---:|---:|---:|';
SELECT format('| %s | %s | %s | %s | %s | %s |',
              CASE WHEN tbl = 'german' THEN '*german (held out)*' ELSE tbl END, eval_eps, count(*),
              to_char(avg((lo <= exact AND exact <= hi)::int), 'FM0.00'),
              to_char(percentile_cont(0.5) WITHIN GROUP (ORDER BY hi - lo), 'FM0.000'),
              to_char(percentile_cont(0.5) WITHIN GROUP (ORDER BY abs(estimate - exact)), 'FM0.0000'))
  FROM op.auc GROUP BY tbl, eval_eps
 ORDER BY array_position('{adult23,adult12,bank,german}'::text[], tbl), eval_eps DESC;
