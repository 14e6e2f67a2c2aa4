-- bench/gbdt/compare.sql — dp_gbdt's defaults against dp_ebm's on the same harness (after
-- bench/ebm/setup.sql and accuracy.sql here): adult_pm1 (train()'s encoding of Adult's 12
-- columns), bank and german (held out of the defaults' tuning), seeds 101 .. 100 + :seeds at
-- epsilon 1, delta 1e-6; the median balanced test accuracy and ROC AUC per table and arm.
\set ON_ERROR_STOP 1
\o /dev/null
SELECT gb.run(tbl, arm, '{}', s)
  FROM unnest('{adult_pm1,bank,german}'::text[]) tbl, unnest('{gbdt,ebm}'::text[]) arm,
       generate_series(101, 100 + :seeds) s;
\o
SELECT tbl, arm, count(*) AS runs,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY bal_acc)::numeric, 3) AS balanced_accuracy,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY auc)::numeric, 4) AS auc,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY seconds)::numeric, 2) AS seconds
  FROM gb.results WHERE options = '{}' AND eps = 1 AND seed BETWEEN 101 AND 100 + :seeds
 GROUP BY tbl, arm ORDER BY tbl, arm;
