-- The model catalog dpobj.models: dpobj.train(..., model_name) and dpobj.save_model()
-- store, dpobj.predict/score(name, ...) use, dpobj.drop_model() removes; owners see
-- their own rows, dpobj_admin members all; nobody writes the table directly; a name
-- that is taken is refused before anything is charged.
CREATE SCHEMA regress_models;
CREATE ROLE regress_models_alice;
CREATE ROLE regress_models_bob;
CREATE ROLE regress_models_admin IN ROLE dpobj_admin;
CREATE TABLE regress_models.pts AS
SELECT i, (i % 7) / 7.0 - 0.4 AS a, ((i * 3) % 5) / 5.0 - 0.3 AS b,
       (i % 7) / 7.0 - 0.4 + ((i * 3) % 5) / 5.0 - 0.3 > 0 AS y
  FROM generate_series(1, 200) i;
SELECT dpobj.protect('regress_models.pts');
SELECT granted_epsilon FROM dpobj.grant_budget('regress_models.pts', 'regress_models_alice', 1, 0.0001);
GRANT USAGE ON SCHEMA regress_models TO regress_models_alice, regress_models_bob, regress_models_admin;
-- (protected runs refuse dpobj.seed: only noise-free values are shown)

SET ROLE regress_models_alice;
-- train and store in one call
SELECT cardinality(weights) AS d FROM dpobj.train('regress_models.pts', 'opdisc', ARRAY['a', 'b'], 'y', 0.1, 0.00001,
                                model_name => 'first');
SELECT name, mechanism, kind, kind = dpobj.model_kind(model) AS kind_is_the_models,
       epsilon, delta, params->>'calibration' AS calibration, relation,
       ledger_id = (SELECT max(id) FROM dpobj.ledger) AS ledger_row, cardinality((model).weights) AS d
  FROM dpobj.models;
SELECT dpobj.predict('first', ARRAY[0.5, 0.25]) IS NOT NULL AS predict, dpobj.score('first', ARRAY[0.5, 0.25]) IS NOT NULL AS score,
       dpobj.score('first', ARRAY[0.5, 0.25]) = dpobj.score(dpobj.get_model('first'), ARRAY[0.5, 0.25]) AS same;
-- a taken name is refused before the charge: the budget is untouched
SELECT spent_epsilon FROM dpobj.my_budgets;
SELECT dpobj.train('regress_models.pts', 'opdisc', ARRAY['a', 'b'], 'y', 0.1, 0.00001,
                   model_name => 'first');
SELECT spent_epsilon FROM dpobj.my_budgets;
-- models of direct aggregates; replace
SELECT dpobj.save_model('direct', (SELECT dpobj.dp_halfspace(ARRAY[x], x > 0, 1, 1e-6)
                                     FROM (VALUES (0.5), (-0.5)) t(x)));
SELECT dpobj.save_model('direct', (SELECT model FROM dpobj.models WHERE name = 'first'));
SELECT dpobj.save_model('direct', (SELECT model FROM dpobj.models WHERE name = 'first'), replace => true);
SELECT name, relation, ledger_id IS NOT NULL AS has_ledger_row, cardinality((model).weights) AS d,
       (model).weights = (SELECT (model).weights FROM dpobj.models WHERE name = 'first') AS same_as_first
  FROM dpobj.models ORDER BY name;
-- names and NULLs
SELECT dpobj.save_model('two words', (SELECT model FROM dpobj.models WHERE name = 'first'));
SELECT dpobj.save_model('', (SELECT model FROM dpobj.models WHERE name = 'first'));
SELECT dpobj.save_model(NULL, (SELECT model FROM dpobj.models WHERE name = 'first'));
SELECT dpobj.train('regress_models.pts', 'opdisc', ARRAY['a', 'b'], 'y', 0.1, 0.00001,
                   model_name => repeat('x', 64));
SELECT dpobj.predict('missing', ARRAY[0.5, 0.25]);
-- a forged model is refused when saved, by the checks its first use runs
SELECT dpobj.save_model('forged', ('logistic', '{NaN,1}', 0, 1, 1e-5, '{}')::dpobj.model);
SELECT dpobj.save_model('forged', ('opdisc', '{1}', 0, 1, 1e-5, '{"Q": 0}')::dpobj.model);
SELECT dpobj.save_model('forged', ('logistic_multiclass', '{1,1}', 0, 1, 1e-5,
                                   '{"classes": ["a", "b"], "dims": [2, 2]}')::dpobj.model);
SELECT dpobj.save_model('forged', ('logistic', '{1}', 0, 1, 1e-5,
                                   '{"encoding": [{"column": "x", "lo": 1, "hi": 0}]}')::dpobj.model);
SELECT count(*) AS forged_saved FROM dpobj.models WHERE name = 'forged';
-- the table is written by dpobj only
INSERT INTO dpobj.models (name, ownerid, mechanism, epsilon, delta, params, model)
SELECT 'forged', ownerid, mechanism, 0, 0, '{}', model FROM dpobj.models LIMIT 1;
UPDATE dpobj.models SET epsilon = 0;
DELETE FROM dpobj.models;
RESET ROLE;

-- another role sees none of them and cannot use or drop them; an admin sees them all
SET ROLE regress_models_bob;
SELECT count(*) AS bob_sees FROM dpobj.models;
SELECT dpobj.predict('first', ARRAY[0.5, 0.25]);
SELECT dpobj.drop_model('first') AS bob_dropped;
RESET ROLE;
SET ROLE regress_models_admin;
SELECT count(*) AS admin_sees FROM dpobj.models;
RESET ROLE;

SET ROLE regress_models_alice;
SELECT dpobj.drop_model('first') AS dropped, dpobj.drop_model('first') AS again;
SELECT name FROM dpobj.models ORDER BY name;
SELECT dpobj.drop_model('direct') AS dropped;
RESET ROLE;

-- the catalog goes into pg_dump
SELECT extconfig::regclass[] @> ARRAY['dpobj.models'::regclass] AS dumped
  FROM pg_extension WHERE extname = 'dpobj';

DROP TABLE regress_models.pts;
DROP SCHEMA regress_models;
SELECT count(*) AS models_left FROM dpobj.models;
RESET dpobj.seed;
DROP ROLE regress_models_alice, regress_models_bob, regress_models_admin;
