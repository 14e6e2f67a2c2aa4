-- bench/ebm/compare.sql — the defaults against the linear mechanisms and 'auto' (after
-- setup.sql and accuracy.sql): every table x arm, seeds 101 .. 100 + :seeds, at epsilon 1
-- and 0.5; prints one Markdown table of the median balanced test accuracy per table and
-- arm (bench/record.py's input), with the non-private baselines of be.nonprivate
-- (nonprivate.py; empty without scikit-learn).  german is held out of the tuning.
\set ON_ERROR_STOP 1
CREATE TABLE IF NOT EXISTS be.nonprivate (tbl text, lr float8, gb float8);
\o /dev/null
SELECT be.run(tbl, arm, CASE WHEN arm = 'auto' THEN '{"metric": "balanced_accuracy"}'::jsonb ELSE '{}' END, s, e)
  FROM unnest('{1,0.5}'::float8[]) e, unnest('{adult12,adult_pm1,bank,german}'::text[]) tbl,
       unnest('{ebm,noisysgd,objective,auto}'::text[]) arm, generate_series(101, 100 + :seeds) s;
\o
\pset format unaligned
\pset tuples_only on
SELECT '| table | ε | ebm | noisysgd | objective | auto | LR | GB | seeds |';
SELECT '|---|---:|---:|---:|---:|---:|---:|---:|---:|';
SELECT format('| %s | %s | %s | %s | %s | %s | %s | %s | %s |',
              CASE WHEN r.tbl = 'german' THEN '*german (held out)*' ELSE r.tbl END, eps,
              to_char(percentile_cont(0.5) WITHIN GROUP (ORDER BY bal_acc) FILTER (WHERE arm = 'ebm'), 'FM0.000'),
              to_char(percentile_cont(0.5) WITHIN GROUP (ORDER BY bal_acc) FILTER (WHERE arm = 'noisysgd'), 'FM0.000'),
              to_char(percentile_cont(0.5) WITHIN GROUP (ORDER BY bal_acc) FILTER (WHERE arm = 'objective'), 'FM0.000'),
              to_char(percentile_cont(0.5) WITHIN GROUP (ORDER BY bal_acc) FILTER (WHERE arm = 'auto'), 'FM0.000'),
              to_char(min(n.lr), 'FM0.000'), to_char(min(n.gb), 'FM0.000'), count(*) / 4)
  FROM be.results r LEFT JOIN be.nonprivate n USING (tbl)
 WHERE seed > 100 AND seed < 200 AND arm IN ('ebm', 'noisysgd', 'objective', 'auto')
 GROUP BY r.tbl, eps ORDER BY eps DESC, r.tbl;
