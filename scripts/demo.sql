-- scripts/demo.sql — the demo's result, run by scripts/demo.sh in database dpobj_demo after
-- README.md's recommended path (the analyst's model income_v1 on adult.people).  By hand:
--
--   psql -X -v ON_ERROR_STOP=1 -d dpobj_demo -f scripts/demo.sql
--
-- Prints the stored model's kind and what it says (dpobj.explain, for every kind), its
-- accuracy on the held-out rows beside the majority baseline, as the table's owner
-- computes them exactly and (-v private=..., from demo.sh's log) as the analyst received them
-- privately, and the analyst's budget left.

\set ON_ERROR_STOP on
\pset footer off
SET client_min_messages = warning;

\echo
\echo '--- the model income_v1, trained by the analyst with dpobj.train(''auto'', epsilon 1) ---'
SELECT (model).mechanism, (model).params->>'selected' AS selected,
       dpobj.model_kind(model) AS kind, (model).epsilon, (model).delta
FROM dpobj.models WHERE name = 'income_v1';

-- what the model says, for every kind (dpobj.explain: a linear model's weights, an
-- additive model's score per level or bin of the declared scale): per feature, most
-- important first, its three largest contributions
SELECT feature, level, round(contribution::numeric, 3) AS contribution,
       round(importance::numeric, 3) AS importance
FROM (SELECT e.*, row_number() OVER (PARTITION BY e.feature ORDER BY abs(e.contribution) DESC) AS r
      FROM dpobj.models m, dpobj.explain(m.model) e WHERE m.name = 'income_v1') x
WHERE r <= 3
ORDER BY importance DESC, feature, abs(contribution) DESC;

\echo '--- accuracy on the held-out rows (split = ''test'') ---'
\echo 'exact, as the table''s owner (who may read it) computes it:'
WITH p AS (
    SELECT income_gt_50k AS label, dpobj.predict_raw(m.model, to_jsonb(t)) AS pred
    FROM adult.people t, dpobj.models m
    WHERE t.split = 'test' AND m.name = 'income_v1'
)
SELECT count(*) AS test_rows,
       round(avg((pred = label)::int), 3) AS accuracy,
       round(greatest(avg(label::int), 1 - avg(label::int)), 3) AS majority_baseline,
       round((avg(pred::int) FILTER (WHERE label)
              + avg((NOT pred)::int) FILTER (WHERE NOT label)) / 2, 3) AS balanced_accuracy
FROM p;
\if :{?private}
\echo 'private, as the analyst received it from dpobj.evaluate (epsilon 0.5; 95 % interval):'
\echo :private
\endif
\echo
\echo '--- the analyst''s budget ---'
SET ROLE analyst;
SELECT budget_domain, granted_epsilon, spent_epsilon, remaining_epsilon, last_run, runs_left
FROM dpobj.my_budgets;
RESET ROLE;
