-- bench/ebm/bins.sql — private bins for numeric terms (results.md, "Private bins"; after
-- setup.sql and accuracy.sql): ebm's binning options on the tuning tables (adult_pm1,
-- adult12, adult_wide, bank, bank_wide; seeds 1-20, epsilon 1), german and german_wide
-- held out; prints the median balanced accuracy and ROC AUC per configuration and table.
\set ON_ERROR_STOP 1
\o /dev/null
SELECT be.run(tbl, 'ebm', o, s)
  FROM unnest('{adult_pm1,adult12,adult_wide,bank,bank_wide}'::text[]) tbl, generate_series(1, 20) s,
       unnest(ARRAY['{"binning": "uniform"}', '{}', '{"bin_min_share": 0.015625}',
                    '{"bin_min_share": 0.03125}', '{"bin_min_share": 0.0625}',
                    '{"bins": 32, "bin_min_share": 0.015625}', '{"bins": 32, "bin_min_share": 0.03125}',
                    '{"bin_share": 0.1, "bin_min_share": 0.03125}',
                    '{"bin_share": 0.025, "bin_min_share": 0.03125}']::jsonb[]) o;
\o
\pset format unaligned
\pset tuples_only on
\pset fieldsep ' | '
SELECT options::text, tbl, to_char(percentile_cont(0.5) WITHIN GROUP (ORDER BY bal_acc), 'FM0.000'),
       to_char(percentile_cont(0.5) WITHIN GROUP (ORDER BY auc), 'FM0.0000'), count(*)
  FROM be.results WHERE arm = 'ebm' AND seed <= 20 AND eps = 1
 GROUP BY 1, 2 ORDER BY 2, 1;
