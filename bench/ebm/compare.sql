-- bench/ebm/compare.sql — the defaults against noisy GD and 'auto' (after setup.sql and
-- accuracy.sql): every table x arm, seeds 101 .. 100 + :seeds, at epsilon 1 and 0.5;
-- prints one Markdown table of the median balanced test accuracy per table and arm
-- (bench/record.py's input).  german is held out of the tuning (grid.sql).
\set ON_ERROR_STOP 1
\o /dev/null
SELECT be.run(tbl, arm, CASE WHEN arm = 'auto' THEN '{"metric": "balanced_accuracy"}'::jsonb ELSE '{}' END, s, e)
  FROM unnest('{1,0.5}'::float8[]) e, unnest('{adult12,bank,german}'::text[]) tbl,
       unnest('{ebm,noisysgd,auto}'::text[]) arm, generate_series(101, 100 + :seeds) s;
\o
\pset format unaligned
\pset tuples_only on
SELECT '| table | ε | ebm | noisysgd | auto | seeds |';
SELECT '|---|---:|---:|---:|---:|---:|';
SELECT format('| %s | %s | %s | %s | %s | %s |',
              CASE WHEN tbl = 'german' THEN '*german (held out)*' ELSE tbl END, eps,
              to_char(percentile_cont(0.5) WITHIN GROUP (ORDER BY bal_acc) FILTER (WHERE arm = 'ebm'), 'FM0.000'),
              to_char(percentile_cont(0.5) WITHIN GROUP (ORDER BY bal_acc) FILTER (WHERE arm = 'noisysgd'), 'FM0.000'),
              to_char(percentile_cont(0.5) WITHIN GROUP (ORDER BY bal_acc) FILTER (WHERE arm = 'auto'), 'FM0.000'),
              count(*) / 3)
  FROM be.results WHERE seed > 100 AND seed < 200 GROUP BY tbl, eps ORDER BY eps DESC, tbl;
