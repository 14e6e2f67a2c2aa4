-- bench/ebm/auto.sql — 'auto' with ebm among its candidates against today's default
-- (after setup.sql and accuracy.sql): seeds 101-110 at epsilon 1, "metric":
-- "balanced_accuracy", arm auto_linear the former default candidates (objective, noisysgd),
-- arm auto the new default with "groups" as train() passes them; prints the medians and
-- how often each candidate was selected.
\set ON_ERROR_STOP 1
\if :{?arms}
\else
\set arms '{auto_linear,auto}'
\endif
ALTER TABLE be.results ADD COLUMN IF NOT EXISTS selected text;
CREATE OR REPLACE FUNCTION be.run_auto(tbl_ text, arm text, seed int) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    t be.tables;
    o jsonb;
    m dpobj.model;
    ba float8;
BEGIN
    SELECT * INTO t FROM be.tables WHERE tbl = tbl_;
    PERFORM set_config('dpobj.seed', seed::text, false);
    o := jsonb_build_object('class_weight', jsonb_build_object('false', t.w_false),
                            'R', sqrt(cardinality(t.groups)), 'metric', 'balanced_accuracy');
    IF arm = 'auto_linear' THEN
        o := o || '{"candidates": ["objective", "noisysgd"]}';
    ELSE
        o := o || jsonb_build_object('groups', to_jsonb(t.groups));
    END IF;
    m := (SELECT dpobj.dp_auto(features, label, 1, 1e-6, o) FROM be.rows WHERE tbl = tbl_ AND split = 'train');
    SELECT 0.5 * avg(p::int) FILTER (WHERE label) + 0.5 * avg((NOT p)::int) FILTER (WHERE NOT label)
      INTO ba
      FROM (SELECT label, dpobj.predict(m, features) AS p FROM be.rows WHERE tbl = tbl_ AND split = 'test') s;
    INSERT INTO be.results (tbl, arm, options, seed, bal_acc, seconds, eps, selected)
    VALUES (tbl_, arm, o, seed, ba, 0, 1, m.params->>'selected');
END $$;
SELECT be.run_auto(tbl, arm, s)
  FROM unnest('{adult12,adult_pm1,bank,german}'::text[]) tbl, unnest(:'arms'::text[]) arm,
       generate_series(101, 110) s;
SELECT tbl, arm, to_char(percentile_cont(0.5) WITHIN GROUP (ORDER BY bal_acc), 'FM0.000') AS median,
       to_char(min(bal_acc), 'FM0.000') || '–' || to_char(max(bal_acc), 'FM0.000') AS range,
       string_agg(DISTINCT selected || ' ' || n, ', ') AS selected
  FROM be.results r,
       LATERAL (SELECT count(*) n FROM be.results q WHERE q.tbl = r.tbl AND q.arm = r.arm AND q.selected = r.selected) c
 WHERE arm LIKE 'auto%' AND selected IS NOT NULL GROUP BY 1, 2 ORDER BY 1, 2;
SELECT tbl, arm, selected, count(*) AS runs,
       to_char(percentile_cont(0.5) WITHIN GROUP (ORDER BY bal_acc), 'FM0.000') AS median
  FROM be.results WHERE arm LIKE 'auto%' AND selected IS NOT NULL GROUP BY 1, 2, 3 ORDER BY 1, 2, 3;
