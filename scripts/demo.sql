-- scripts/demo.sql — the demo's result, run by scripts/demo.sh in database dpobj_demo after
-- README.md's recommended path (the analyst's model income_v1 on adult.people).  By hand:
--
--   psql -X -v ON_ERROR_STOP=1 -d dpobj_demo -f scripts/demo.sql
--
-- Prints the stored model with a name for each weight (from the encoding the model records),
-- its accuracy on the held-out rows beside the majority baseline, as the table's owner
-- computes them exactly and (-v private=..., from demo.sh's log) as the analyst received them
-- privately, and the analyst's budget left.

\set ON_ERROR_STOP on
\pset footer off
SET client_min_messages = warning;

\echo
\echo '--- the model income_v1, trained by the analyst with dpobj.train(''auto'', epsilon 1) ---'
SELECT (model).mechanism, (model).params->>'selected' AS selected, (model).epsilon,
       (model).delta, round((model).bias::numeric, 3) AS bias
FROM dpobj.models WHERE name = 'income_v1';

-- one name per coordinate: a categorical column's levels then "(other)", a numeric column
-- once (clipped to its declared bounds and scaled to [-1, 1])
WITH m AS (SELECT model FROM dpobj.models WHERE name = 'income_v1'),
enc AS (
    SELECT e, i FROM m, jsonb_array_elements((model).params->'encoding') WITH ORDINALITY x(e, i)
), coords AS (
    SELECT i, l.k, (e->>'column') || ' = ' || l.v AS feature
    FROM enc, jsonb_array_elements_text(e->'levels') WITH ORDINALITY l(v, k)
    UNION ALL
    SELECT i, jsonb_array_length(e->'levels') + 1, (e->>'column') || ' = (other)'
    FROM enc WHERE e ? 'levels'
    UNION ALL
    SELECT i, 1, format('%s (%s..%s, scaled)', e->>'column', e->>'lo', e->>'hi')
    FROM enc WHERE NOT e ? 'levels'
), named AS (
    SELECT row_number() OVER (ORDER BY i, k) AS j, feature FROM coords
)
SELECT n.feature, round(w.weight::numeric, 3) AS weight
FROM m, unnest((m.model).weights) WITH ORDINALITY w(weight, j) JOIN named n USING (j)
ORDER BY j;

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
