-- dpobj.evaluate() with forged models, as an attacker would try it.
-- A model is a public input: every forged variant is refused before anything is
-- charged, identically for an empty and a non-empty selection, and a row value never
-- turns the run into a failure (which would answer "is this value above 2^31/Q?").
-- The final function of dp_evaluate writes no ledger row outside its aggregate.
CREATE SCHEMA regress_seval;
CREATE ROLE regress_seval_alice;
GRANT USAGE ON SCHEMA regress_seval TO regress_seval_alice;
-- run q; what the caller observes: the error and what it cost (ledger rows, epsilon)
CREATE FUNCTION regress_seval.try(q text)
RETURNS TABLE (code text, message text, ledger_rows bigint, spent numeric)
LANGUAGE plpgsql AS $$
DECLARE l0 bigint; s0 numeric;
BEGIN
    SELECT count(*) INTO l0 FROM dpobj.ledger;
    SELECT coalesce(sum(spent_epsilon), 0) INTO s0 FROM dpobj.my_budgets;
    BEGIN
        EXECUTE q;
        code := 'ok';
        message := '';
    EXCEPTION WHEN OTHERS THEN
        GET STACKED DIAGNOSTICS code = RETURNED_SQLSTATE, message = MESSAGE_TEXT;
    END;
    ledger_rows := (SELECT count(*) FROM dpobj.ledger) - l0;
    spent := (SELECT coalesce(sum(spent_epsilon), 0) FROM dpobj.my_budgets) - s0;
    RETURN NEXT;
END $$;
-- one person with a large income among ordinary, scaled rows
CREATE TABLE regress_seval.people (id int, income numeric, hours numeric, y boolean);
INSERT INTO regress_seval.people
SELECT i, (i % 9) / 10.0, (i % 4) / 4.0 - 0.5, i % 3 = 0 FROM generate_series(1, 40) i;
INSERT INTO regress_seval.people VALUES (1000, 250000, 0.25, true);
SELECT dpobj.protect('regress_seval.people');
SELECT granted_epsilon FROM dpobj.grant_budget('regress_seval.people', 'regress_seval_alice', 100, 0.001);
SET ROLE regress_seval_alice;

-- ---- forged models: refused before the charge, whatever the selection ------------------
-- each model against an empty selection (id = -1) and the one person (id = 1000)
SELECT m.name, s.sel, t.*
  FROM (VALUES
    ('lattice, non-integer weight', $$('opdisc', '{0.5,1}', 0, 1, 1e-6, '{"Q": 64}')$$),
    ('lattice, bias 0.5',           $$('opdisc', '{1,1}', 0.5, 1, 1e-6, '{"Q": 64}')$$),
    ('lattice, weight 2e6',         $$('opdisc', '{2e6,1}', 0, 1, 1e-6, '{"Q": 64}')$$),
    ('Q = 0.5',                     $$('opdisc', '{1,1}', 0, 1, 1e-6, '{"Q": 0.5}')$$),
    ('Q = 2^21',                    $$('opdisc', '{1,1}', 0, 1, 1e-6, '{"Q": 2097152}')$$),
    ('Q a string',                  $$('opdisc', '{1,1}', 0, 1, 1e-6, '{"Q": "64"}')$$),
    ('Q = 1e400',                   $$('opdisc', '{1,1}', 0, 1, 1e-6, '{"Q": 1e400}')$$),
    ('NaN weight',                  $$('logistic', '{NaN,1}', 0, 1, 1e-6, '{}')$$),
    ('infinite bias',               $$('logistic', '{1,1}', 'Infinity', 1, 1e-6, '{}')$$),
    ('NULL weights',                $$('logistic', NULL, 0, 1, 1e-6, '{}')$$),
    ('a NULL weight',               $$('logistic', '{1,NULL}', 0, 1, 1e-6, '{}')$$),
    ('2-D weights',                 $$('logistic', '{{1,1}}', 0, 1, 1e-6, '{}')$$),
    ('3 weights for 2 features',    $$('logistic', '{1,1,1}', 0, 1, 1e-6, '{}')$$)
  ) m(name, model)
 CROSS JOIN (VALUES (-1), (1000)) s(sel)
 CROSS JOIN LATERAL regress_seval.try(format(
    $$SELECT dpobj.evaluate('regress_seval.people', %s::dpobj.model, ARRAY['income', 'hours'],
                            'y', 0.5, 1e-6, '{"filter": [{"column": "id", "op": "=", "value": %s}]}')$$,
    m.model, s.sel)) t
 ORDER BY m.name, s.sel;
SELECT spent_epsilon FROM dpobj.my_budgets;

-- ---- the income probe: Q = 2^20 puts 2^31/Q = 2048 between ordinary values and the
-- person's income; selecting the person used to fail (charged DP006), anyone else
-- released.  Now both release: the run's outcome does not depend on the value (the keys
-- released; only balanced_accuracy's presence depends on the noise).
CREATE TEMP TABLE probe AS
SELECT s.sel, (SELECT array_agg(k ORDER BY k) FROM jsonb_object_keys(
          dpobj.evaluate('regress_seval.people',
                         ('opdisc', '{1,1}', 0, 1, 1e-6, '{"Q": 1048576}')::dpobj.model,
                         ARRAY['income', 'hours'], 'y', 0.5, 1e-6,
                         jsonb_build_object('filter', jsonb_build_array(
                           jsonb_build_object('column', 'id', 'op', '=', 'value', s.sel))))) k
        WHERE k <> 'balanced_accuracy')    -- released only when both noisy classes are > 0
         AS released_keys
  FROM (VALUES (1), (1000)) s(sel);
SELECT sel, released_keys = (SELECT released_keys FROM probe WHERE sel = 1) AS same_release,
       cardinality(released_keys) AS nkeys
  FROM probe ORDER BY sel;
SELECT t.* FROM (VALUES (1), (1000), (-1)) s(sel)
 CROSS JOIN LATERAL regress_seval.try(format(
    $$SELECT dpobj.evaluate('regress_seval.people',
             ('opdisc', '{1,1}', 0, 1, 1e-6, '{"Q": 1048576}')::dpobj.model,
             ARRAY['income', 'hours'], 'y', 0.5, 1e-6,
             '{"filter": [{"column": "id", "op": "=", "value": %s}]}')$$, s.sel)) t;
SELECT mechanism, epsilon, outcome, count(*) FROM dpobj.ledger
 WHERE relation = 'regress_seval.people' GROUP BY 1, 2, 3 ORDER BY 1, 2, 3;

-- ---- final functions only as the final step of their aggregate -------------------------
-- a state typed in by hand (10 rows, all true positives, k = 1, empty score histograms):
-- no ledger row, no noise
SELECT * FROM regress_seval.try(
  $$SELECT dpobj.dp_evaluate_finalfn(ARRAY[1, 1e-6, 2, 1, 10, 0, 0, 0]::float8[] || array_fill(0, ARRAY[64])::float8[])$$);
-- every dpobj aggregate's final function, called as a plain function (a state of
-- type internal cannot even be written in SQL: 42846, cannot cast)
SELECT count(*) > 6 AS several,
       bool_and(t.code = '0A000' OR (a.aggtranstype = 'internal'::regtype AND t.code = '42846')) AS all_refused,
       sum(t.ledger_rows) AS ledger_rows
  FROM pg_aggregate a JOIN pg_proc p ON p.oid = a.aggfnoid
 CROSS JOIN LATERAL regress_seval.try(format('SELECT %s(NULL::%s)', a.aggfinalfn::regproc,
                                             format_type(a.aggtranstype, NULL))) t
 WHERE p.pronamespace = 'dpobj'::regnamespace;
RESET ROLE;

-- ---- the direct aggregate: a forged model is refused before its ledger row -------------
SELECT * FROM regress_seval.try(
  $$SELECT dpobj.dp_evaluate(ARRAY[income, hours]::float8[], y, 1, 1e-6,
           jsonb_build_object('model', ('opdisc', '{0.5,1}', 0, 1, 1e-6, '{"Q": 64}')::dpobj.model::text))
      FROM regress_seval.people$$);
-- a valid lattice model: the direct path reports the out-of-range row (the caller can
-- read it), before any ledger row
SELECT * FROM regress_seval.try(
  $$SELECT dpobj.dp_evaluate(ARRAY[income, hours]::float8[], y, 1, 1e-6,
           jsonb_build_object('model', ('opdisc', '{1,1}', 0, 1, 1e-6, '{"Q": 1048576}')::dpobj.model::text))
      FROM regress_seval.people$$);
-- predict() and score() share the validation: a lattice margin beyond int64 keeps its sign
SELECT dpobj.predict(('opdisc', array_fill(1000000::float8, ARRAY[5000]), 0, 1, 1e-5, '{"Q": 1048576}')::dpobj.model,
                     array_fill(2000::float8, ARRAY[5000])) AS positive_beyond_int64;

DROP TABLE probe;
DROP TABLE regress_seval.people;
DROP FUNCTION regress_seval.try(text);
DROP SCHEMA regress_seval;
DROP ROLE regress_seval_alice;
