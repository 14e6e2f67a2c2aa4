-- bench/gbdt/compare.sql — dp_gbdt's defaults against dp_ebm's and 'auto' with and without
-- gbdt among its candidates, on the same harness (after bench/ebm/setup.sql and accuracy.sql
-- here): Adult, bank and german as train() encodes them (adult_pm1, bank_pm1, german_pm1;
-- german held out of the defaults' tuning), seeds 101 .. 100 + :seeds at epsilon 1, delta
-- 1e-6; the median balanced test accuracy and ROC AUC per table and arm.  Arms: gbdt, ebm,
-- auto (its default with "groups": noisy GD or ebm by size) and auto_gbdt ("candidates":
-- noisysgd, ebm and gbdt: the private selection).
\set ON_ERROR_STOP 1
CREATE TEMP TABLE arms (label, arm, opts) AS
VALUES ('gbdt', 'gbdt', '{}'::jsonb), ('ebm', 'ebm', '{}'), ('auto', 'auto', '{}'),
       ('auto_gbdt', 'auto', '{"candidates": ["noisysgd", "ebm", "gbdt"]}');
\o /dev/null
SELECT gb.run(tbl, arm, opts, s)
  FROM unnest('{adult_pm1,bank_pm1,german_pm1}'::text[]) tbl, arms, generate_series(101, 100 + :seeds) s
 WHERE NOT EXISTS (SELECT FROM gb.results r WHERE (r.tbl, r.arm, r.options, r.seed, r.eps) = (tbl, arms.arm, opts, s, 1));
\o
SELECT tbl, label AS arm, count(*) AS runs,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY bal_acc)::numeric, 3) AS balanced_accuracy,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY auc)::numeric, 4) AS auc,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY seconds)::numeric, 2) AS seconds
  FROM gb.results r JOIN arms a ON (r.arm, r.options) = (a.arm, a.opts)
 WHERE tbl IN ('adult_pm1', 'bank_pm1', 'german_pm1') AND eps = 1 AND seed BETWEEN 101 AND 100 + :seeds
 GROUP BY tbl, label ORDER BY tbl, label;
