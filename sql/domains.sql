-- Features from declared public domains: the table's owner declares categorical
-- levels or numeric bounds once; train()/evaluate() encode raw columns in the sealed
-- query (one-hot with an "other" level; clip and scale to [-1, 1]), R follows from
-- the declarations, and the model records its encoding for dpobj.predict_raw().
CREATE SCHEMA regress_dom;
CREATE ROLE regress_dom_owner;
CREATE ROLE regress_dom_alice;
CREATE ROLE regress_dom_bob;
GRANT USAGE ON SCHEMA regress_dom TO regress_dom_owner, regress_dom_alice, regress_dom_bob;
GRANT CREATE ON SCHEMA regress_dom TO regress_dom_owner;
SET ROLE regress_dom_owner;
-- a raw table: a categorical column, a numeric one, and a label that depends on both
CREATE TABLE regress_dom.people AS
SELECT i, (ARRAY['HS-grad', 'Bachelors', 'Masters', 'Doctorate', 'Preschool'])[1 + i % 5] AS edu,
       17 + (i * 7) % 74 AS age, NULL::text AS note,
       ((i % 5) IN (1, 2, 3) AND 17 + (i * 7) % 74 > 30) AS y
  FROM generate_series(1, 600) i;
RESET ROLE;
SELECT dpobj.protect('regress_dom.people');
SELECT granted_epsilon FROM dpobj.grant_budget('regress_dom.people', 'regress_dom_alice', 100, 0.001);

-- who may declare: the owner (or dpobj_admin), not an analyst with a budget
SET ROLE regress_dom_alice;
SELECT dpobj.declare_domain('regress_dom.people', 'edu', ARRAY['Bachelors']);
SELECT dpobj.declare_domain('regress_dom.people', 'age', 17, 90);
SELECT dpobj.drop_domain('regress_dom.people', 'age');
RESET ROLE;
SET ROLE regress_dom_owner;
-- errors on public grounds: unknown column, wrong type, bad bounds, bad levels
SELECT dpobj.declare_domain('regress_dom.people', 'nope', ARRAY['a']);
SELECT dpobj.declare_domain('regress_dom.people', 'edu', 0, 1);
SELECT dpobj.declare_domain('regress_dom.people', 'age', 90, 17);
SELECT dpobj.declare_domain('regress_dom.people', 'age', 17, 17);
SELECT dpobj.declare_domain('regress_dom.people', 'age', '-Infinity', 90);
SELECT dpobj.declare_domain('regress_dom.people', 'age', 'NaN', 90);
SELECT dpobj.declare_domain('regress_dom.people', 'age', -1e308, 1e308);
SELECT dpobj.declare_domain('regress_dom.people', 'edu', ARRAY['a', 'b', 'a']);
SELECT dpobj.declare_domain('regress_dom.people', 'edu', ARRAY['a', NULL]);
SELECT dpobj.declare_domain('regress_dom.people', 'edu', '{}'::text[]);
SELECT dpobj.declare_domain('regress_dom.people', 'edu', ARRAY[['a'], ['b']]);
SELECT dpobj.declare_domain('regress_dom.people', 'ctid', ARRAY['a']);
-- the declarations; a level with quotes and SQL text is data, nothing else
SELECT dpobj.declare_domain('regress_dom.people', 'edu',
                            ARRAY['HS-grad', 'Bachelors', 'Masters', 'x''); DROP TABLE regress_dom.people; --']);
SELECT dpobj.declare_domain('regress_dom.people', 'age', 17, 90);
SELECT dpobj.declare_domain('regress_dom.people', 'age', 20, 80);  -- replaces
SELECT dpobj.declare_domain('regress_dom.people', 'age', 17, 90);
SELECT column_name, levels, lo, hi, declared_by FROM dpobj.feature_domains ORDER BY 1;
RESET ROLE;

-- an analyst with a budget sees the declarations; a role without one does not
SET ROLE regress_dom_alice;
SELECT column_name, lo, hi FROM dpobj.feature_domains ORDER BY 1;
SET ROLE regress_dom_bob;
SELECT count(*) FROM dpobj.feature_domains;
RESET ROLE;

-- train on raw columns: no hand encoding, R derived (sqrt(2), rounded up)
SET ROLE regress_dom_alice;
CREATE TEMP TABLE mods AS
SELECT 'logistic' AS name, dpobj.train('regress_dom.people', 'logistic', ARRAY['edu', 'age'], 'y',
                                       20, 0.0001, '{}', model_name => 'dom_logistic') AS m;
SELECT (m).mechanism, cardinality((m).weights) AS d, (m).params->'R' AS r,
       (m).params->'encoding' AS encoding
  FROM mods;
-- the table still exists: the level was bound as data
SELECT count(*) FROM dpobj.feature_domains WHERE relid = 'regress_dom.people'::regclass;
-- predict from raw values, by model and by name; extra keys are ignored; a value outside
-- the levels, or null, is "other" when the caller asks (as train() encodes it)
SELECT dpobj.encode(m, '{"edu": "Masters", "age": 90}') AS masters_90,
       dpobj.encode(m, '{"edu": "unknown", "age": 200}', 'other') AS other_clipped,
       dpobj.encode(m, '{"edu": null, "age": 17}', 'other') AS null_is_other,
       dpobj.encode(m, '{"edu": "Masters", "age": null}') AS null_age
  FROM mods;
SELECT dpobj.predict_raw(m, '{"edu": "Masters", "age": 60}') =
       dpobj.predict(m, dpobj.encode(m, '{"edu": "Masters", "age": 60}')) AS same,
       -- (by hand in numeric: the C encoding may round the scaled age differently in the
       -- last bit, and the protected model's weights are unseeded, so compare to 1e-12)
       abs(dpobj.score_raw('dom_logistic', '{"edu": "Masters", "age": 60, "zip": 1}') -
           dpobj.score(m, ARRAY[0, 0, 1, 0, 0, 2 * (60 - 17) / 73.0 - 1]))
         <= 1e-12 * (1 + abs(dpobj.score(m, ARRAY[0, 0, 1, 0, 0, 2 * (60 - 17) / 73.0 - 1]))) AS by_hand
  FROM mods;
-- the model learned something: accuracy over the raw table, predicted from raw rows
RESET ROLE;
SELECT avg((dpobj.predict_raw(m, to_jsonb(p), 'other') = p.y)::int) > 0.7 AS accurate
  FROM regress_dom.people p, mods;
SET ROLE regress_dom_alice;
-- raw-value errors
SELECT dpobj.predict_raw(m, '{"edu": "Masters"}') FROM mods;
SELECT dpobj.predict_raw(m, '{"edu": "Masters", "age": "old"}') FROM mods;
SELECT dpobj.predict_raw(m, '[1, 2]') FROM mods;
SELECT dpobj.predict_raw(ROW('logistic', ARRAY[1.0], 0, 1, 1e-6, '{}')::dpobj.model, '{"a": 1}');
-- a category outside the declared domain: refused by default, as the model records
-- ("on_unknown": "error"); "other" with on_unknown 'other' (as train() encoded it), a
-- NULL result with 'null'; a model without the key (released before) maps it to "other"
-- by default, as it did; declared values are unaffected.  A null is "other" by default
-- (train() encoded it so); a given on_unknown rules it too; a numeric null gives NULL
-- (train() dropped such rows)
SELECT (m).params->>'on_unknown' AS recorded,
       dpobj.predict_raw(ROW((m).mechanism, (m).weights, (m).bias, (m).epsilon, (m).delta,
                             (m).params - 'on_unknown')::dpobj.model, '{"edu": "PhD", "age": 60}') =
       dpobj.predict_raw(m, '{"edu": "PhD", "age": 60}', 'other') AS older_model_maps_to_other,
       dpobj.predict_raw(m, '{"edu": "Masters", "age": 60}', NULL) =
       dpobj.predict_raw(m, '{"edu": "Masters", "age": 60}') AS null_is_the_default,
       dpobj.predict_raw(m, '{"edu": "PhD", "age": 60}', on_unknown => 'null') IS NULL AS null_flags,
       dpobj.score_raw('dom_logistic', '{"edu": null, "age": 60}', on_unknown => 'null') IS NULL AS null_value_flags,
       dpobj.predict_raw(m, '{"edu": "Masters", "age": 60}', on_unknown => 'error') =
       dpobj.predict_raw(m, '{"edu": "Masters", "age": 60}') AS declared_passes
  FROM mods;
SELECT dpobj.encode(m, '{"edu": null, "age": 17}') AS null_is_other,
       dpobj.score_raw('dom_logistic', '{"edu": null, "age": 60}') =
       dpobj.score_raw('dom_logistic', '{"edu": null, "age": 60}', 'other') AS score_null_as_other,
       dpobj.predict_raw(m, '{"edu": null, "age": 60}') =
       dpobj.predict_raw(m, '{"edu": "PhD", "age": 60}', 'other') AS predict_null_as_other,
       dpobj.probability_raw(m, '{"edu": null, "age": 60}') =
       dpobj.probability_raw(m, '{"edu": null, "age": 60}', 'other') AS probability_null_as_other,
       dpobj.predict_raw(m, '{"edu": "Masters", "age": null}') IS NULL AS numeric_null_gives_null
  FROM mods;
-- a table's own rows with nulls where training saw nulls score by default (no refusal)
RESET ROLE;
SELECT count(*) AS rows, count(dpobj.predict_raw(m, jsonb_build_object(
           'edu', CASE WHEN p.edu IN ('HS-grad', 'Bachelors', 'Masters') THEN p.edu END,
           'age', p.age))) AS scored
  FROM regress_dom.people p, mods;
SET ROLE regress_dom_alice;
-- the class-1 probability from raw values, by model and by name, as probability()
-- gives it on the encoded row and on the same terms for values outside the domain
SELECT dpobj.probability_raw(m, '{"edu": "Masters", "age": 60}') =
       dpobj.probability(m, dpobj.encode(m, '{"edu": "Masters", "age": 60}')) AS same_probability,
       dpobj.probability_raw('dom_logistic', '{"edu": "Masters", "age": 60, "zip": 1}') =
       dpobj.probability_raw(m, '{"edu": "Masters", "age": 60}') AS by_name,
       dpobj.probability_raw(m, '{"edu": "Masters", "age": 60}') BETWEEN 0 AND 1 AS in_unit_interval,
       dpobj.probability_raw(m, '{"edu": "PhD", "age": 60}', on_unknown => 'null') IS NULL AS null_flags
  FROM mods;
SELECT dpobj.probability_raw('dom_logistic', '{"edu": "PhD", "age": 60}', on_unknown => 'error');
SELECT dpobj.probability_raw(ROW('logistic', ARRAY[1.0], 0, 1, 1e-6, '{}')::dpobj.model, '{"a": 1}');
SELECT dpobj.predict_raw(m, '{"edu": "PhD", "age": 60}', on_unknown => 'error') FROM mods;
SELECT dpobj.predict_raw('dom_logistic', '{"edu": null, "age": 60}', on_unknown => 'error');
-- the default refusal, by every raw function, with its SQLSTATE
SELECT dpobj.predict_raw(m, '{"edu": "PhD", "age": 60}') FROM mods;
SELECT dpobj.score_raw('dom_logistic', '{"edu": "Preschool", "age": 60}');
SELECT dpobj.predict_class_raw('dom_logistic', '{"edu": "Preschool", "age": 60}');
SELECT dpobj.encode(m, '{"edu": "PhD", "age": 60}') FROM mods;
DO $$
BEGIN
    PERFORM dpobj.probability_raw('dom_logistic', '{"edu": "PhD", "age": 60}');
EXCEPTION WHEN invalid_parameter_value THEN
    RAISE NOTICE 'probability_raw refused: SQLSTATE %', SQLSTATE;
END $$;
SELECT dpobj.encode(m, '{"edu": "PhD", "age": 60}', 'drop') FROM mods;
-- an evaluation with the model's encoding, on raw columns
SELECT e ?& ARRAY['tp', 'fp', 'tn', 'fn'] AS released
  FROM dpobj.evaluate('regress_dom.people', (SELECT m FROM mods), ARRAY['edu', 'age'], 'y', 1, 0.00001) e;
SELECT dpobj.evaluate('regress_dom.people', (SELECT m FROM mods), ARRAY['age', 'edu'], 'y', 1, 0.00001);
SELECT dpobj.evaluate('regress_dom.people', (SELECT m FROM mods), ARRAY['edu', 'age'], 'y', 1, 0.00001,
                      '{"encoding": []}');
-- a caller's R is honoured (the mechanism clips to it); halfspace mechanisms have no R
SELECT (dpobj.train('regress_dom.people', 'logistic', ARRAY['edu', 'age'], 'y', 1, 0.0001,
                    '{"R": 1}')).params->'R' AS r;
SELECT cardinality((t).weights), (t).params ? 'encoding' AS recorded
  FROM (SELECT dpobj.train('regress_dom.people', 'rspm', ARRAY['age'], 'y', 1, 0.0001) t) s;
-- refused before any charge: an undeclared column, "encode" misused, "encoding" set
SELECT spent_epsilon AS before FROM dpobj.my_budgets \gset
SELECT dpobj.train('regress_dom.people', 'logistic', ARRAY['edu', 'i'], 'y', 1, 0.0001);
SELECT dpobj.train('regress_dom.people', 'logistic', ARRAY['i'], 'y', 1, 0.0001, '{"encode": true}');
SELECT dpobj.train('regress_dom.people', 'logistic', ARRAY['age'], 'y', 1, 0.0001, '{"encode": "yes"}');
SELECT dpobj.train('regress_dom.people', 'logistic', ARRAY['age'], 'y', 1, 0.0001, '{"encoding": []}');
SELECT dpobj.submit('regress_dom.people', 'logistic', ARRAY['edu', 'i'], 'y', 1, 0.0001);
SELECT spent_epsilon = :before AS nothing_charged FROM dpobj.my_budgets;
-- {"encode": false}: raw numeric columns as without declarations
SELECT cardinality((dpobj.train('regress_dom.people', 'logistic', ARRAY['age', 'i'], 'y', 1, 0.0001,
                                '{"R": 100, "encode": false}')).weights) AS d;
RESET ROLE;

-- a multi-class model on declared domains predicts its class from raw values
SELECT dpobj.declare_domain('regress_dom.people', 'i', 0, 600);
SET ROLE regress_dom_alice;
SELECT dpobj.predict_class_raw(dpobj.train('regress_dom.people', 'logistic_multiclass', ARRAY['age', 'i'],
                                           'edu', 5, 0.0001,
                                           '{"classes": ["HS-grad", "Bachelors", "Masters", "Doctorate", "Preschool"]}'),
                               '{"age": 40, "i": 3}') IS NOT NULL AS predicted;
RESET ROLE;

-- dropping: a column's declaration, then the table's
SET ROLE regress_dom_owner;
SELECT dpobj.drop_domain('regress_dom.people', 'i');
SELECT dpobj.drop_domain('regress_dom.people', 'i');
ALTER TABLE regress_dom.people DROP COLUMN note;
SELECT dpobj.declare_domain('regress_dom.people', 'y', ARRAY['true']);
ALTER TABLE regress_dom.people DROP COLUMN y;
SELECT column_name FROM dpobj.feature_domains ORDER BY 1;
RESET ROLE;
DROP TABLE regress_dom.people;
SELECT count(*) FROM dpobj.feature_domains;
-- the stored model keeps its encoding
SET ROLE regress_dom_alice;
SELECT dpobj.predict_raw('dom_logistic', '{"edu": "Masters", "age": 60}') IS NOT NULL AS still_predicts;
SELECT dpobj.drop_model('dom_logistic');
RESET ROLE;
DROP SCHEMA regress_dom CASCADE;
DROP TABLE mods;
DROP ROLE regress_dom_owner;
DROP ROLE regress_dom_alice;
DROP ROLE regress_dom_bob;
