-- bench/ebm/paired.sql — ebm against noisy GD, paired by seed (after setup.sql and
-- accuracy.sql): bank and german (held out), seeds 301 .. 400 at epsilon 1 and 0.5, the
-- defaults of both; the mean paired difference of balanced test accuracy and its standard
-- error say whether a median gap is beyond the seed-to-seed noise (20-seed medians of a
-- 300-row test split move by several points).
\set ON_ERROR_STOP 1
\o /dev/null
SELECT be.run(t, arm, '{}', s, e)
  FROM unnest('{1,0.5}'::float8[]) e, unnest('{ebm,noisysgd}'::text[]) arm,
       unnest('{bank,german}'::text[]) t, generate_series(301, 400) s;
\o
WITH p AS (
    SELECT tbl, eps, seed, max(bal_acc) FILTER (WHERE arm = 'ebm') AS e,
           max(bal_acc) FILTER (WHERE arm = 'noisysgd') AS n
      FROM be.results WHERE seed BETWEEN 301 AND 400 AND tbl IN ('bank', 'german')
     GROUP BY tbl, eps, seed)
SELECT tbl, eps, count(*) AS seeds,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY e)::numeric, 3) AS median_ebm,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY n)::numeric, 3) AS median_noisysgd,
       round(avg(e - n)::numeric, 4) AS mean_paired_diff,
       round((stddev(e - n) / sqrt(count(*)))::numeric, 4) AS se
  FROM p GROUP BY tbl, eps ORDER BY tbl, eps DESC;
