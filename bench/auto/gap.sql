-- bench/auto/gap.sql — 'auto' against each of its candidates trained alone (after
-- bench/ebm's setup.sql and accuracy.sql): tables :tables at epsilon 1 and 0.5, seeds
-- 101 .. 100 + :seeds, be.run's arms ebm, noisysgd, objective (their defaults, the training
-- split's public class weights) and auto ("metric": "balanced_accuracy", the same weights,
-- ebm a candidate through "groups"), and auto_default (auto's defaults: no class weights,
-- "groups" only).  Prints per table and epsilon each arm's median and worst balanced test
-- accuracy, auto's gap to the best candidate's median, and how often each candidate was
-- selected.  german is held out of the tuning.
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
CREATE OR REPLACE FUNCTION be.run_default(tbl_ text, seed int, eps float8) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    t be.tables;
    m dpobj.model;
    ba float8;
BEGIN
    SELECT * INTO t FROM be.tables WHERE tbl = tbl_;
    PERFORM set_config('dpobj.seed', seed::text, false);
    m := (SELECT dpobj.dp_auto(features, label, eps, 1e-6,
                               jsonb_build_object('R', sqrt(cardinality(t.groups)), 'groups', to_jsonb(t.groups)))
            FROM be.rows WHERE tbl = tbl_ AND split = 'train');
    SELECT 0.5 * avg(p::int) FILTER (WHERE label) + 0.5 * avg((NOT p)::int) FILTER (WHERE NOT label)
      INTO ba
      FROM (SELECT label, dpobj.predict(m, features) AS p FROM be.rows WHERE tbl = tbl_ AND split = 'test') s;
    INSERT INTO be.results (tbl, arm, options, seed, bal_acc, seconds, eps, selected)
    VALUES (tbl_, 'auto_default', '{}', seed, ba, 0, eps, m.params->>'selected');
END $$;
CREATE TEMP TABLE gap_arms AS
SELECT * FROM (VALUES ('ebm', '{}'::jsonb), ('noisysgd', '{}'), ('objective', '{}'),
                      ('auto', '{"metric": "balanced_accuracy"}')) v(arm, opts);
\o /dev/null
SELECT be.run(tbl, arm, opts, s, e)
  FROM unnest('{1,0.5}'::float8[]) e(e), unnest(:'tables'::text[]) t(tbl), gap_arms,
       generate_series(101, 100 + :seeds) s(s)
 WHERE NOT EXISTS (SELECT FROM be.results r WHERE r.tbl = t.tbl AND r.arm = gap_arms.arm
                      AND r.options = gap_arms.opts AND r.seed = s.s AND r.eps = e.e);
SELECT be.run_default(tbl, s, e)
  FROM unnest('{1,0.5}'::float8[]) e, unnest(:'tables'::text[]) tbl, generate_series(101, 100 + :seeds) s;
\o
WITH r AS (
    SELECT tbl, eps, arm, bal_acc, selected FROM be.results
     WHERE seed BETWEEN 101 AND 100 + :seeds AND tbl = ANY (:'tables'::text[])
       AND (arm = 'auto_default' OR (arm, options) IN (SELECT arm, opts FROM gap_arms))),
s AS (
    SELECT tbl, eps, arm, percentile_cont(0.5) WITHIN GROUP (ORDER BY bal_acc) AS med,
           min(bal_acc) AS worst, count(*) AS n,
           (SELECT string_agg(sel || ' ' || c, ', ' ORDER BY sel)
              FROM (SELECT selected sel, count(*) c FROM r q WHERE q.tbl = r.tbl AND q.eps = r.eps
                       AND q.arm = r.arm AND q.selected IS NOT NULL GROUP BY 1) x) AS selected
      FROM r GROUP BY 1, 2, 3),
b AS (SELECT tbl, eps, max(med) AS best FROM s WHERE arm IN ('ebm', 'noisysgd', 'objective') GROUP BY 1, 2)
SELECT s.tbl, s.eps, s.arm, to_char(med, 'FM0.000') AS median, to_char(worst, 'FM0.000') AS worst,
       CASE WHEN arm LIKE 'auto%' THEN to_char(100 * (med - best), 'FM990.0') END AS "gap (pts)",
       CASE WHEN arm LIKE 'auto%' THEN to_char(100 * (worst - best), 'FM990.0') END AS "worst - best",
       n, selected
  FROM s JOIN b USING (tbl, eps)
 ORDER BY s.tbl, s.eps DESC, s.arm;
