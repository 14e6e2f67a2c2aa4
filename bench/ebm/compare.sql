-- bench/ebm/compare.sql — the defaults against the linear mechanisms and 'auto' (after
-- setup.sql and accuracy.sql): every table x arm, seeds 101 .. 100 + :seeds, at epsilon 1
-- and 0.5; prints one Markdown table of the median balanced test accuracy per table and
-- arm (bench/record.py's input) — ebm's default (private bins) and "binning": "uniform",
-- with their median ROC AUC — and the non-private baselines of be.nonprivate
-- (nonprivate.py; empty without scikit-learn).  german and german_wide are held out of the
-- tuning.
\set ON_ERROR_STOP 1
CREATE TABLE IF NOT EXISTS be.nonprivate (tbl text, lr float8, gb float8);
\o /dev/null
SELECT be.run(tbl, CASE WHEN arm = 'ebm_uniform' THEN 'ebm' ELSE arm END,
              CASE WHEN arm = 'auto' THEN '{"metric": "balanced_accuracy"}'::jsonb
                   WHEN arm = 'ebm_uniform' THEN '{"binning": "uniform"}' ELSE '{}' END, s, e)
  FROM unnest('{1,0.5}'::float8[]) e,
       unnest('{adult12,adult_pm1,adult_wide,bank,bank_wide,german,german_wide}'::text[]) tbl,
       unnest('{ebm,ebm_uniform,noisysgd,objective,auto}'::text[]) arm, generate_series(101, 100 + :seeds) s;
\o
\pset format unaligned
\pset tuples_only on
SELECT '| table | ε | ebm | ebm AUC | ebm uniform | uniform AUC | noisysgd | objective | auto | LR | GB | seeds |';
SELECT '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|';
WITH r AS (
    SELECT tbl, eps, bal_acc, auc,
           CASE WHEN arm = 'ebm' AND options = '{"binning": "uniform"}' THEN 'ebm_uniform'
                WHEN arm = 'ebm' AND options = '{}' THEN 'ebm'
                WHEN arm IN ('noisysgd', 'objective') AND options = '{}' THEN arm
                WHEN arm = 'auto' AND options = '{"metric": "balanced_accuracy"}' THEN arm END AS a
      FROM be.results WHERE seed > 100 AND seed <= 100 + :seeds)
SELECT format('| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |',
              CASE WHEN r.tbl LIKE 'german%' THEN '*' || r.tbl || ' (held out)*' ELSE r.tbl END, eps,
              to_char(percentile_cont(0.5) WITHIN GROUP (ORDER BY bal_acc) FILTER (WHERE a = 'ebm'), 'FM0.000'),
              to_char(percentile_cont(0.5) WITHIN GROUP (ORDER BY auc) FILTER (WHERE a = 'ebm'), 'FM0.0000'),
              to_char(percentile_cont(0.5) WITHIN GROUP (ORDER BY bal_acc) FILTER (WHERE a = 'ebm_uniform'), 'FM0.000'),
              to_char(percentile_cont(0.5) WITHIN GROUP (ORDER BY auc) FILTER (WHERE a = 'ebm_uniform'), 'FM0.0000'),
              to_char(percentile_cont(0.5) WITHIN GROUP (ORDER BY bal_acc) FILTER (WHERE a = 'noisysgd'), 'FM0.000'),
              to_char(percentile_cont(0.5) WITHIN GROUP (ORDER BY bal_acc) FILTER (WHERE a = 'objective'), 'FM0.000'),
              to_char(percentile_cont(0.5) WITHIN GROUP (ORDER BY bal_acc) FILTER (WHERE a = 'auto'), 'FM0.000'),
              to_char(min(n.lr), 'FM0.000'), to_char(min(n.gb), 'FM0.000'), count(*) FILTER (WHERE a = 'ebm'))
  FROM r LEFT JOIN be.nonprivate n USING (tbl)
 WHERE a IS NOT NULL
 GROUP BY r.tbl, eps ORDER BY eps DESC, r.tbl LIKE 'german%', r.tbl;
