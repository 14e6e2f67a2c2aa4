-- scripts/demo.sql — the dpobj demo, run by scripts/demo.sh in database dpobj_demo after
-- data/adult/load.sql and CREATE EXTENSION dpobj.  Can also be run by hand:
--
--   psql -X -v ON_ERROR_STOP=1 -d dpobj_demo -f scripts/demo.sql [-v seed=42]
--
-- Trains a differentially private halfspace (OPDisc objective perturbation) on the paper's
-- balanced Adult training subset with the d = 15 feature set, epsilon = 1, delta = 1/n^2,
-- then evaluates it on adult.test.  Part 2, the product, is README.md's recommended path
-- (scripts/readme_path.sh extracts it; scripts/demo.sh runs it after this file).
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
\echo 'Part 1 finished; part 2 (README.md''s recommended path) follows.'
