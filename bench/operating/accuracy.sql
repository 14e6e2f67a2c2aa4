-- bench/operating/accuracy.sql — the operating point by default against "metric":
-- "accuracy" (after bench/ebm/setup.sql and setup.sql; variable seeds).  op.run(tbl, arm,
-- opts, seed, eps): one seeded run of the direct aggregate (superuser, unprotected tables,
-- delta 1e-6) on tbl's training split with no class weights and the options opts; on the
-- test split its balanced accuracy, recall, accuracy (dpobj.predict: the model's cut-off)
-- and ROC AUC (exact, by the scores' ranks; ties a half).  Prints one Markdown table: per
-- table and arm the medians over seeds 101 .. 100 + :seeds (epsilon 1 and 0.5).
\set ON_ERROR_STOP 1
CREATE SCHEMA op;
CREATE TABLE op.results (tbl text, arm text, metric text, seed int, eps float8, bal_acc float8,
                         recall float8, acc float8, auc float8, m dpobj.model);
CREATE FUNCTION op.model(tbl_ text, arm text, opts jsonb, eps float8) RETURNS dpobj.model
LANGUAGE plpgsql AS $$
DECLARE
    t be.tables;
    o jsonb;
BEGIN
    SELECT * INTO t FROM be.tables WHERE tbl = tbl_;
    IF arm = 'ebm' THEN
        o := jsonb_build_object('lo', t.lo, 'hi', 1, 'groups', to_jsonb(t.groups)) || opts;
        RETURN (SELECT dpobj.dp_ebm(features, label, eps, 1e-6, o) FROM be.rows WHERE tbl = tbl_ AND split = 'train');
    END IF;
    o := jsonb_build_object('R', sqrt(cardinality(t.groups))) || opts;
    IF arm = 'noisysgd' THEN
        RETURN (SELECT dpobj.dp_noisysgd(features, label, eps, 1e-6, o) FROM be.rows WHERE tbl = tbl_ AND split = 'train');
    ELSIF arm = 'objective' THEN
        RETURN (SELECT dpobj.dp_logistic(features, label, eps, 1e-6, o) FROM be.rows WHERE tbl = tbl_ AND split = 'train');
    ELSIF arm = 'passglm' THEN
        RETURN (SELECT dpobj.dp_passglm(features, label, eps, 1e-6, o) FROM be.rows WHERE tbl = tbl_ AND split = 'train');
    END IF;
    -- auto's ebm candidate gets the groups as train() passes them
    o := o || jsonb_build_object('groups', to_jsonb(t.groups));
    RETURN (SELECT dpobj.dp_auto(features, label, eps, 1e-6, o) FROM be.rows WHERE tbl = tbl_ AND split = 'train');
END $$;
CREATE FUNCTION op.run(tbl_ text, arm text, opts jsonb, seed int, eps float8) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    m dpobj.model;
BEGIN
    PERFORM set_config('dpobj.seed', seed::text, false);
    m := op.model(tbl_, arm, opts, eps);
    INSERT INTO op.results
    SELECT tbl_, arm, coalesce(opts->>'metric', 'default'), seed, eps,
           0.5 * avg(p::int) FILTER (WHERE label) + 0.5 * avg((NOT p)::int) FILTER (WHERE NOT label),
           avg(p::int) FILTER (WHERE label), avg((p = label)::int),
           (sum(r) FILTER (WHERE label) - count(*) FILTER (WHERE label) * (count(*) FILTER (WHERE label) + 1) / 2.0)
             / (count(*) FILTER (WHERE label) * count(*) FILTER (WHERE NOT label)), m
      FROM (SELECT label, p, rank() OVER w + (count(*) OVER (PARTITION BY s) - 1) / 2.0 AS r
              FROM (SELECT label, dpobj.predict(m, features) AS p, dpobj.score(m, features) AS s
                      FROM be.rows WHERE tbl = tbl_ AND split = 'test') q
            WINDOW w AS (ORDER BY s)) s;
END $$;
\o /dev/null
SELECT op.run(tbl, arm, o, s, e)
  FROM unnest('{1,0.5}'::float8[]) e, unnest('{adult23,adult12,bank,german}'::text[]) tbl,
       unnest('{ebm,noisysgd,objective,passglm,auto}'::text[]) arm,
       unnest('{"{}","{\"metric\": \"accuracy\"}"}'::jsonb[]) o, generate_series(101, 100 + :seeds) s;
\o
\pset format unaligned
\pset tuples_only on
SELECT '| table | arm | balanced accuracy ε 1, 0.5 | with "accuracy" ε 1, 0.5 | recall ε 1 (with "accuracy") | accuracy ε 1 | AUC ε 1 |';
SELECT '|---|---|---|---|---|---:|---:|';
WITH m AS (
    SELECT tbl, arm, eps, metric,
           percentile_cont(0.5) WITHIN GROUP (ORDER BY bal_acc) AS ba,
           percentile_cont(0.5) WITHIN GROUP (ORDER BY recall) AS rec,
           percentile_cont(0.5) WITHIN GROUP (ORDER BY acc) AS acc,
           percentile_cont(0.5) WITHIN GROUP (ORDER BY auc) AS auc
      FROM op.results GROUP BY 1, 2, 3, 4),
f AS (SELECT *, to_char(ba, 'FM0.000') AS b FROM m)
SELECT format('| %s | %s | %s, %s | %s, %s | %s (%s) | %s | %s |',
              CASE WHEN d1.tbl = 'german' THEN '*german (held out)*' ELSE d1.tbl END, d1.arm,
              d1.b, d5.b, a1.b, a5.b, to_char(d1.rec, 'FM0.000'), to_char(a1.rec, 'FM0.000'),
              to_char(d1.acc, 'FM0.000'), to_char(d1.auc, 'FM0.000'))
  FROM f d1
  JOIN f d5 ON d5.tbl = d1.tbl AND d5.arm = d1.arm AND d5.eps = 0.5 AND d5.metric = 'default'
  JOIN f a1 ON a1.tbl = d1.tbl AND a1.arm = d1.arm AND a1.eps = 1 AND a1.metric = 'accuracy'
  JOIN f a5 ON a5.tbl = d1.tbl AND a5.arm = d1.arm AND a5.eps = 0.5 AND a5.metric = 'accuracy'
 WHERE d1.eps = 1 AND d1.metric = 'default'
 ORDER BY array_position('{adult23,adult12,bank,german}'::text[], d1.tbl),
          array_position('{ebm,noisysgd,objective,passglm,auto}'::text[], d1.arm);
SELECT 'seeds: ' || count(DISTINCT seed) FROM op.results;
\pset tuples_only off
\pset format aligned
-- the seed-to-seed spread of the default's balanced accuracy (its 10th and 90th percentiles)
SELECT tbl, eps, arm,
       round(percentile_cont(0.1) WITHIN GROUP (ORDER BY bal_acc)::numeric, 3) AS p10,
       round(percentile_cont(0.9) WITHIN GROUP (ORDER BY bal_acc)::numeric, 3) AS p90,
       round(min(bal_acc)::numeric, 3) AS worst
  FROM op.results WHERE metric = 'default' GROUP BY 1, 2, 3 ORDER BY 2 DESC, 1, 3;
