-- bench/auto/gap.sql — 'auto' against each of its candidates trained alone (after
-- bench/ebm's setup.sql and accuracy.sql): tables :tables at epsilon 1 and 0.5, seeds
-- 101 .. 100 + :seeds, in two settings.  "weights": be.run's arms ebm, noisysgd,
-- objective (their defaults with the training split's public class weights) and auto
-- ("metric": "balanced_accuracy", the same weights, "groups" as train() passes them);
-- "defaults": the same four with no class weights (auto: "R" and "groups" only).
-- Prints a Markdown table (bench/record.py's input): per table, epsilon and setting auto's
-- median and worst balanced test accuracy, each candidate's median, and auto's median and
-- worst run less the best candidate's median (points).  german is held out of the tuning.
\set ON_ERROR_STOP 1
\if :{?seeds}
\else
\set seeds 20
\endif
\if :{?tables}
\else
\set tables '{adult12,bank,german}'
\endif
ALTER TABLE be.results ADD COLUMN IF NOT EXISTS selected text;
-- one seeded run without class weights (arm: ebm, noisysgd, objective or auto)
CREATE OR REPLACE FUNCTION be.run_default(tbl_ text, arm text, seed int, eps float8) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    t be.tables;
    m dpobj.model;
    ba float8;
    g jsonb;
    r jsonb;
BEGIN
    SELECT * INTO t FROM be.tables WHERE tbl = tbl_;
    g := jsonb_build_object('groups', to_jsonb(t.groups));
    r := jsonb_build_object('R', sqrt(cardinality(t.groups)));
    PERFORM set_config('dpobj.seed', seed::text, false);
    IF arm = 'ebm' THEN
        m := (SELECT dpobj.dp_ebm(features, label, eps, 1e-6, g) FROM be.rows WHERE tbl = tbl_ AND split = 'train');
    ELSIF arm = 'noisysgd' THEN
        m := (SELECT dpobj.dp_noisysgd(features, label, eps, 1e-6, r) FROM be.rows WHERE tbl = tbl_ AND split = 'train');
    ELSIF arm = 'objective' THEN
        m := (SELECT dpobj.dp_logistic(features, label, eps, 1e-6, r) FROM be.rows WHERE tbl = tbl_ AND split = 'train');
    ELSE
        m := (SELECT dpobj.dp_auto(features, label, eps, 1e-6, r || g) FROM be.rows WHERE tbl = tbl_ AND split = 'train');
    END IF;
    SELECT 0.5 * avg(p::int) FILTER (WHERE label) + 0.5 * avg((NOT p)::int) FILTER (WHERE NOT label)
      INTO ba
      FROM (SELECT label, dpobj.predict(m, features) AS p FROM be.rows WHERE tbl = tbl_ AND split = 'test') s;
    INSERT INTO be.results (tbl, arm, options, seed, bal_acc, seconds, eps, selected)
    VALUES (tbl_, arm || '_default', '{}', seed, ba, 0, eps, m.params->>'selected');
END $$;
CREATE TEMP TABLE gap_arms AS
SELECT * FROM (VALUES ('ebm', '{}'::jsonb), ('noisysgd', '{}'), ('objective', '{}'),
                      ('auto', '{"metric": "balanced_accuracy"}')) v(arm, opts);
\o /dev/null
SELECT be.run(t.tbl, gap_arms.arm, opts, s.s, e.e)
  FROM unnest('{1,0.5}'::float8[]) e(e), unnest(:'tables'::text[]) t(tbl), gap_arms,
       generate_series(101, 100 + :seeds) s(s)
 WHERE NOT EXISTS (SELECT FROM be.results r WHERE r.tbl = t.tbl AND r.arm = gap_arms.arm
                      AND r.options = gap_arms.opts AND r.seed = s.s AND r.eps = e.e);
SELECT be.run_default(t.tbl, a.arm, s.s, e.e)
  FROM unnest('{1,0.5}'::float8[]) e(e), unnest(:'tables'::text[]) t(tbl),
       unnest('{ebm,noisysgd,objective,auto}'::text[]) a(arm), generate_series(101, 100 + :seeds) s(s)
 WHERE NOT EXISTS (SELECT FROM be.results r WHERE r.tbl = t.tbl AND r.arm = a.arm || '_default'
                      AND r.seed = s.s AND r.eps = e.e);
\o
\pset format unaligned
\pset tuples_only on
SELECT '| table | ε | setting | auto | auto worst | ebm | noisysgd | objective | auto − best (pts) | auto worst − best (pts) | seeds |';
SELECT '|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|';
WITH r AS (
    SELECT tbl, eps, CASE WHEN arm LIKE '%\_default' THEN 'defaults' ELSE 'weights' END AS setting,
           replace(arm, '_default', '') AS arm, bal_acc
      FROM be.results
     WHERE seed BETWEEN 101 AND 100 + :seeds AND tbl = ANY (:'tables'::text[])
       AND (arm LIKE '%\_default' OR (arm, options) IN (SELECT arm, opts FROM gap_arms))),
s AS (
    SELECT tbl, eps, setting, arm, percentile_cont(0.5) WITHIN GROUP (ORDER BY bal_acc) AS med,
           min(bal_acc) AS worst, count(*) AS n
      FROM r GROUP BY 1, 2, 3, 4),
b AS (SELECT tbl, eps, setting, max(med) AS best FROM s WHERE arm <> 'auto' GROUP BY 1, 2, 3)
SELECT format('| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |',
              CASE WHEN a.tbl LIKE 'german%' THEN '*' || a.tbl || ' (held out)*' ELSE a.tbl END, a.eps,
              a.setting, to_char(a.med, 'FM0.000'), to_char(a.worst, 'FM0.000'),
              (SELECT to_char(med, 'FM0.000') FROM s c WHERE (c.tbl, c.eps, c.setting, c.arm) = (a.tbl, a.eps, a.setting, 'ebm')),
              (SELECT to_char(med, 'FM0.000') FROM s c WHERE (c.tbl, c.eps, c.setting, c.arm) = (a.tbl, a.eps, a.setting, 'noisysgd')),
              (SELECT to_char(med, 'FM0.000') FROM s c WHERE (c.tbl, c.eps, c.setting, c.arm) = (a.tbl, a.eps, a.setting, 'objective')),
              to_char(100 * (a.med - b.best), 'FM990.0'), to_char(100 * (a.worst - b.best), 'FM990.0'), a.n)
  FROM s a JOIN b USING (tbl, eps, setting)
 WHERE a.arm = 'auto'
 ORDER BY a.eps DESC, a.tbl LIKE 'german%', a.tbl, a.setting DESC;
