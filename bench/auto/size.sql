-- bench/auto/size.sql — additive boosting against noisy GD by table size (after bench/ebm's
-- setup.sql and accuracy.sql): fixed subsamples of adult12's and bank's training splits
-- (each tested on its table's whole test split), epsilon 1 and 0.5, seeds 101 .. 100 +
-- :seeds, every arm with its defaults and no class weights: ebm, noisy GD and 'auto' (its
-- pick by size, glmparams.h GLM_AUTO_SIZE_MIN).  Prints a Markdown table: per table and
-- epsilon the minority count times epsilon, each arm's median balanced test accuracy, ebm's
-- lead over noisy GD (points) and how often 'auto' picked ebm.
\set ON_ERROR_STOP 1
\if :{?seeds}
\else
\set seeds 20
\endif
CREATE TEMP TABLE size_results (tbl text, arm text, seed int, eps float8, bal_acc float8, picked text);
DO $$
DECLARE src text; n int;
BEGIN
    FOREACH src IN ARRAY '{adult12,bank}'::text[] LOOP
        FOREACH n IN ARRAY '{500,700,1000,1400,2000,3000}'::int[] LOOP
            CONTINUE WHEN n >= (SELECT count(*) FROM be.rows WHERE tbl = src AND split = 'train');
            DELETE FROM be.tables WHERE tbl = src || '_s' || n;
            DELETE FROM be.rows WHERE tbl = src || '_s' || n;
            INSERT INTO be.tables SELECT src || '_s' || n, groups, w_false, lo FROM be.tables WHERE tbl = src;
            INSERT INTO be.rows SELECT src || '_s' || n, 'train', features, label FROM be.rows
             WHERE tbl = src AND split = 'train' ORDER BY md5(features::text || label::text || n) LIMIT n;
            INSERT INTO be.rows SELECT src || '_s' || n, 'test', features, label FROM be.rows
             WHERE tbl = src AND split = 'test';
        END LOOP;
    END LOOP;
END $$;
ANALYZE be.rows;
CREATE FUNCTION pg_temp.size_run(tbl_ text, arm text, seed int, eps float8) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    t be.tables;
    m dpobj.model;
    ba float8;
BEGIN
    SELECT * INTO t FROM be.tables WHERE tbl = tbl_;
    PERFORM set_config('dpobj.seed', seed::text, false);
    IF arm = 'ebm' THEN
        m := (SELECT dpobj.dp_ebm(features, label, eps, 1e-6, jsonb_build_object('groups', to_jsonb(t.groups)))
                FROM be.rows WHERE tbl = tbl_ AND split = 'train');
    ELSIF arm = 'noisysgd' THEN
        m := (SELECT dpobj.dp_noisysgd(features, label, eps, 1e-6, jsonb_build_object('R', sqrt(cardinality(t.groups))))
                FROM be.rows WHERE tbl = tbl_ AND split = 'train');
    ELSE
        m := (SELECT dpobj.dp_auto(features, label, eps, 1e-6, jsonb_build_object('R', sqrt(cardinality(t.groups)), 'groups', to_jsonb(t.groups)))
                FROM be.rows WHERE tbl = tbl_ AND split = 'train');
    END IF;
    SELECT 0.5 * avg(p::int) FILTER (WHERE label) + 0.5 * avg((NOT p)::int) FILTER (WHERE NOT label)
      INTO ba
      FROM (SELECT label, dpobj.predict(m, features) AS p FROM be.rows WHERE tbl = tbl_ AND split = 'test') s;
    INSERT INTO size_results VALUES (tbl_, arm, seed, eps, ba, m.params->>'selected');
END $$;
\o /dev/null
SELECT pg_temp.size_run(t.tbl, a.arm, s.s, e.e)
  FROM (SELECT DISTINCT tbl FROM be.tables WHERE tbl IN ('adult12', 'bank') OR tbl LIKE 'adult12\_s%' OR tbl LIKE 'bank\_s%') t,
       unnest('{1,0.5}'::float8[]) e(e), unnest('{ebm,noisysgd,auto}'::text[]) a(arm),
       generate_series(101, 100 + :seeds) s(s);
\o
\pset format unaligned
\pset tuples_only on
SELECT '| table | training rows | minority rows | ε | minority × ε | ebm | noisysgd | auto | ebm − noisysgd (pts) | auto picked ebm | seeds |';
SELECT '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|';
WITH sizes AS (
    SELECT tbl, count(*) AS n, least(count(*) FILTER (WHERE label), count(*) FILTER (WHERE NOT label)) AS minority
      FROM be.rows WHERE split = 'train' GROUP BY tbl),
s AS (
    SELECT tbl, eps,
           percentile_cont(0.5) WITHIN GROUP (ORDER BY bal_acc) FILTER (WHERE arm = 'ebm') AS ebm,
           percentile_cont(0.5) WITHIN GROUP (ORDER BY bal_acc) FILTER (WHERE arm = 'noisysgd') AS sgd,
           percentile_cont(0.5) WITHIN GROUP (ORDER BY bal_acc) FILTER (WHERE arm = 'auto') AS auto,
           count(*) FILTER (WHERE arm = 'auto' AND picked = 'ebm') AS picked,
           count(*) FILTER (WHERE arm = 'auto') AS seeds
      FROM size_results GROUP BY tbl, eps)
SELECT format('| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |', s.tbl, z.n, z.minority, s.eps,
              round(z.minority * s.eps), round(s.ebm::numeric, 3), round(s.sgd::numeric, 3),
              round(s.auto::numeric, 3), to_char(100 * (s.ebm - s.sgd), 'FMS990.0'), s.picked, s.seeds)
  FROM s JOIN sizes z USING (tbl)
 ORDER BY split_part(s.tbl, '_s', 1), z.minority * s.eps;
