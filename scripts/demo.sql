-- scripts/demo.sql — the dpobj demo, run by scripts/demo.sh in database dpobj_demo after
-- data/adult/load.sql and CREATE EXTENSION dpobj.  Can also be run by hand:
--
--   psql -X -v ON_ERROR_STOP=1 -d dpobj_demo -f scripts/demo.sql [-v seed=42]
--
-- Trains a differentially private halfspace (OPDisc objective perturbation) on the paper's
-- balanced Adult training subset with the d = 15 feature set, epsilon = 1, delta = 1/n^2,
-- then evaluates it on adult.test.  Part 2 is the product: the owner protects a raw table
-- (text and numeric columns), declares the columns' public domains and grants a budget; an
-- analyst without SELECT trains through dpobj.train() on the raw columns (no hand
-- encoding; the mechanism chosen privately by 'auto'), evaluates the model privately,
-- stores it by name and predicts with it from raw values; the ledger and the remaining
-- budget are printed.
-- Optional: -v seed=N sets dpobj.seed (superuser only) for a reproducible noise draw;
-- without it the noise is fresh on every run, as it must be for real privacy.

\set ON_ERROR_STOP on
\pset null '(null)'
SET client_min_messages = notice;

\if :{?seed}
SET dpobj.seed = :seed;
\echo 'dpobj.seed =' :seed '(reproducible noise; for demonstration only)'
\endif

\echo
\echo '================================================================================'
\echo ' dpobj demo: a differentially private halfspace on UCI Adult'
\echo ' (Kohavi & Becker 1996, doi:10.24432/C5XW20, CC BY 4.0)'
\echo '================================================================================'

\echo
\echo '--- 1. Training data: balanced subset of adult.data, feature set d15 ------------'
\echo '    features = [relationship one-hot (6), race one-hot (5), sex one-hot (2),'
\echo '                capital_gain/99999, hours_per_week/99]   (d = 15)'
\echo '    label    = income > 50K'
SELECT count(*)                          AS n,
       count(*) FILTER (WHERE f.label)     AS positives,
       count(*) FILTER (WHERE NOT f.label) AS negatives
FROM adult.features_d15 f
JOIN adult.balanced_ids b ON b.id = f.id
WHERE f.split = 'train';

\echo
\echo '--- 2. Train: dpobj.dp_halfspace(features, label, 1.0, 1.0 / (15682.0 ^ 2)) --------'
\echo '    epsilon = 1, delta = 1/n^2; the released model is stored in table demo_model'
SET client_min_messages = warning;
DROP TABLE IF EXISTS demo_model;
SET client_min_messages = notice;
\timing on
CREATE TABLE demo_model AS
SELECT dpobj.dp_halfspace(f.features, f.label, 1.0, 1.0 / (15682.0 ^ 2)) AS model
FROM adult.features_d15 f
JOIN adult.balanced_ids b ON b.id = f.id
WHERE f.split = 'train';
\timing off

\echo
\echo '--- 3. The released model --------------------------------------------------------'
\x on
SELECT (model).* FROM demo_model;
\x off

\echo
\echo '--- 4. Accuracy on adult.test (16281 rows; not used for training) ----------------'
\echo '    accuracy:          share of rows with dpobj.predict(model, features) = label'
\echo '    balanced_accuracy: (true positive rate + true negative rate) / 2; the model was'
\echo '                       trained on balanced data, so this is the fairer yardstick'
\echo '    baseline:          always predict <=50K (accuracy 0.76 on this 76% negative set,'
\echo '                       balanced accuracy 0.5)'
WITH p AS (
    SELECT t.label, dpobj.predict(m.model, t.features) AS pred
    FROM adult.features_d15 t
    CROSS JOIN demo_model m
    WHERE t.split = 'test'
)
SELECT count(*)                                                 AS test_rows,
       round(avg((pred = label)::int), 4)                       AS accuracy,
       round((avg(pred::int) FILTER (WHERE label)
              + avg((NOT pred)::int) FILTER (WHERE NOT label)) / 2, 4) AS balanced_accuracy,
       round(avg((NOT label)::int), 4)                          AS baseline_accuracy
FROM p;

\echo
\echo '    For reference, accuracy on the balanced training subset (baseline 0.5):'
SELECT round(avg((dpobj.predict(m.model, f.features) = f.label)::int), 4) AS balanced_train_accuracy
FROM adult.features_d15 f
JOIN adult.balanced_ids b ON b.id = f.id
CROSS JOIN demo_model m
WHERE f.split = 'train';

\echo
\echo '================================================================================'
\echo ' Part 2 - the product: an analyst who cannot read the table trains within a budget'
\echo '================================================================================'
-- protected runs refuse dpobj.seed (predictable noise would void the guarantee)
RESET dpobj.seed;

\echo
\echo '--- 5. The data owner: a raw table (text and numeric columns), protected, with --'
\echo '       declared public feature domains and a budget ---------------------------------'
SET client_min_messages = warning;
DROP TABLE IF EXISTS adult.people;
DROP ROLE IF EXISTS demo_analyst;
SET client_min_messages = notice;
CREATE TABLE adult.people AS
SELECT a.split, b.id IS NOT NULL AS balanced, a.relationship, a.race, a.sex,
       a.capital_gain, a.hours_per_week, a.income_gt_50k
FROM adult.all_rows a
LEFT JOIN adult.balanced_ids b ON b.id = a.id AND a.split = 'train';
CREATE ROLE demo_analyst;
REVOKE ALL ON adult.people FROM PUBLIC;          -- the analyst cannot SELECT it
GRANT USAGE ON SCHEMA adult TO demo_analyst;     -- but can name it
SELECT dpobj.protect('adult.people') AS protected;
-- what is public about the columns, declared once (never read from the rows)
SELECT 'relationship, race, sex, capital_gain, hours_per_week' AS declared FROM (VALUES
  (dpobj.declare_domain('adult.people', 'relationship',
         ARRAY['Husband', 'Not-in-family', 'Other-relative', 'Own-child', 'Unmarried', 'Wife']),
   dpobj.declare_domain('adult.people', 'race',
         ARRAY['Amer-Indian-Eskimo', 'Asian-Pac-Islander', 'Black', 'Other', 'White']),
   dpobj.declare_domain('adult.people', 'sex', ARRAY['Male', 'Female']),
   dpobj.declare_domain('adult.people', 'capital_gain', 0, 99999),
   dpobj.declare_domain('adult.people', 'hours_per_week', 1, 99))) v(a, b, c, d, e);
SELECT relid, rolid, granted_epsilon, granted_delta
FROM dpobj.grant_budget('adult.people', 'demo_analyst', 2.0, 1e-6);

\echo
\echo '--- 6. The analyst: no SELECT on adult.people, a budget of (2, 1e-6) -------------'
SET ROLE demo_analyst;
SELECT has_table_privilege('adult.people', 'SELECT') AS can_select;
SELECT relation, granted_epsilon, spent_epsilon, granted_delta, spent_delta
FROM dpobj.my_budgets;
SELECT column_name, levels, lo, hi FROM dpobj.feature_domains ORDER BY column_name;

\echo
\echo '--- 7. Train through dpobj.train() on the raw columns (encoded inside the sealed'
\echo '       run from the declarations, R derived), letting dpobj choose the mechanism'
\echo '       privately (auto: Objective-Gauss or CMS, one charge), epsilon = 1, on the'
\echo '       balanced training rows (a public filter), stored by name as income_v1 ------'
\timing on
SELECT mechanism, params->>'selected' AS selected, epsilon, delta, cardinality(weights) AS d,
       params->'R' AS r
FROM dpobj.train('adult.people', 'auto',
                 ARRAY['relationship', 'race', 'sex', 'capital_gain', 'hours_per_week'],
                 'income_gt_50k', 1.0, 1e-9,
                 '{"filter": [{"column": "split", "op": "=", "value": "train"},
                              {"column": "balanced", "op": "=", "value": true}]}',
                 model_name => 'income_v1');
\timing off

\echo
\echo '--- 8. Evaluate it privately on the held-out rows (epsilon = 0.5, charged) ---------'
SELECT e->'tp' AS tp, e->'fp' AS fp, e->'tn' AS tn, e->'fn' AS fn,
       e->'accuracy'->'estimate' AS accuracy, e->'accuracy'->'ci95' AS accuracy_ci95,
       e->'balanced_accuracy' AS balanced_accuracy,
       e->'majority_baseline'->'estimate' AS majority_baseline
FROM dpobj.evaluate('adult.people', dpobj.get_model('income_v1'),
                    ARRAY['relationship', 'race', 'sex', 'capital_gain', 'hours_per_week'],
                    'income_gt_50k', 0.5, 1e-9,
                    '{"filter": [{"column": "split", "op": "=", "value": "test"}]}') e;
\echo '    (tp, fp, tn, fn carry discrete Laplace noise; the intervals include it)'

\echo
\echo '--- 9. Predict with the stored model, by name, from raw values --------------------'
SELECT dpobj.predict_raw('income_v1', '{"relationship": "Husband", "race": "White", "sex": "Male",
                                        "capital_gain": 5000, "hours_per_week": 50}') AS married_man,
       dpobj.predict_raw('income_v1', '{"relationship": "Not-in-family", "race": "White",
                                        "sex": "Female", "capital_gain": 0,
                                        "hours_per_week": 40}') AS woman_living_alone;

\echo
\echo '--- 10. What was spent: the analyst''s ledger rows and remaining budget -----------'
SELECT id, mechanism, epsilon, delta, outcome FROM dpobj.ledger ORDER BY id;
SELECT relation, spent_epsilon, remaining_epsilon, spent_delta, remaining_delta
FROM dpobj.my_budgets;
RESET ROLE;

\echo
\echo '--- 11. The whole privacy ledger (the owner''s view) --------------------------------'
\x auto
SELECT * FROM dpobj.ledger ORDER BY id;
\x off

\echo
\echo 'Demo finished.'
