-- bench/ebm/bins.sql — private bins for numeric terms (results.md, "Private bins"; after
-- setup.sql and accuracy.sql): ebm's binning options on the tuning tables, adult_pm1,
-- adult12 and adult_wide (seeds 1-20, epsilon 1), bank and bank_wide (seeds 1-30, epsilon 1
-- and 0.5); german and german_wide held out.  Prints the median balanced accuracy and ROC
-- AUC and their means per configuration and table.  (The cut rules results.md compares
-- besides these were variants of src/core/ebmbins.c, not options.)
\set ON_ERROR_STOP 1
\o /dev/null
SELECT be.run(tbl, 'ebm', o, s, e)
  FROM unnest('{adult_pm1,adult12,adult_wide,bank,bank_wide}'::text[]) tbl, generate_series(1, 30) s,
       unnest('{1,0.5}'::float8[]) e,
       unnest(ARRAY['{"binning": "uniform"}', '{}', '{"bin_share": 0.025}', '{"bin_share": 0.1}',
                    '{"bins": 12}', '{"bins": 24}', '{"bin_grid": 256}', '{"bin_grid": 1024}',
                    '{"bin_grid": 65536}']::jsonb[]) o
 WHERE tbl LIKE 'bank%' OR (s <= 20 AND e = 1);
\o
\pset format unaligned
\pset tuples_only on
\pset fieldsep ' | '
SELECT options::text, tbl, eps, to_char(percentile_cont(0.5) WITHIN GROUP (ORDER BY bal_acc), 'FM0.000'),
       to_char(percentile_cont(0.5) WITHIN GROUP (ORDER BY auc), 'FM0.0000'),
       to_char(avg(bal_acc), 'FM0.000'), to_char(avg(auc), 'FM0.0000'), count(*)
  FROM be.results WHERE arm = 'ebm' AND seed <= 30
   AND (options = '{}' OR options ?| '{binning,bin_share,bin_grid,bins}')
 GROUP BY 1, 2, 3 ORDER BY 2, 3 DESC, 1;
