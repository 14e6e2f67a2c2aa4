-- Declarations that cannot silently fail: a categorical level that no value of the
-- column's type has is refused (a boolean's t/f, yes/no, on/off, 1/0 are stored as the
-- 'true'/'false' that training matches); a boolean feature needs no declaration (one 0/1
-- coordinate); a column name that does not exist is refused (42703) before any domain,
-- encoding or option logic, and before the charge.
CREATE SCHEMA regress_decl;
CREATE ROLE regress_decl_owner;
CREATE ROLE regress_decl_alice;
GRANT USAGE ON SCHEMA regress_decl TO regress_decl_owner, regress_decl_alice;
GRANT CREATE ON SCHEMA regress_decl TO regress_decl_owner;
SET ROLE regress_decl_owner;
-- autopay predicts y perfectly
CREATE TABLE regress_decl.subs AS
SELECT i AS id, i % 49 AS months, (i % 3 = 0) AS autopay, (i % 3 = 0) AS y,
       (ARRAY['basic', 'plus'])[1 + i % 2] AS plan
  FROM generate_series(1, 3000) i;
RESET ROLE;
SELECT dpobj.protect('regress_decl.subs');
SELECT granted_epsilon FROM dpobj.grant_budget('regress_decl.subs', 'regress_decl_alice', 100, 0.001);

SET ROLE regress_decl_owner;
-- a boolean's levels are stored as the column's text, 'true' and 'false'
SELECT dpobj.declare_domain('regress_decl.subs', 'autopay', ARRAY['t', 'f']);
SELECT levels FROM dpobj.feature_domains WHERE column_name = 'autopay';
SELECT dpobj.declare_domain('regress_decl.subs', 'autopay', ARRAY['YES', 'off']);
SELECT levels FROM dpobj.feature_domains WHERE column_name = 'autopay';
-- a level no boolean has, or the same level twice once normalised: refused
SELECT * FROM regress.err($$SELECT dpobj.declare_domain('regress_decl.subs', 'autopay', ARRAY['true', 'maybe'])$$);
SELECT * FROM regress.err($$SELECT dpobj.declare_domain('regress_decl.subs', 'autopay', ARRAY['t', 'true'])$$);
-- an integer column's levels: integers of its type, stored as their text
SELECT * FROM regress.err($$SELECT dpobj.declare_domain('regress_decl.subs', 'months', ARRAY['1', 'one'])$$);
SELECT * FROM regress.err($$SELECT dpobj.declare_domain('regress_decl.subs', 'months', ARRAY['1', '99999999999'])$$);
SELECT * FROM regress.err($$SELECT dpobj.declare_domain('regress_decl.subs', 'months', ARRAY['1', '+1'])$$);
SELECT dpobj.declare_domain('regress_decl.subs', 'months', ARRAY['007', ' +12 ', '-3']);
SELECT levels FROM dpobj.feature_domains WHERE column_name = 'months';
-- text levels are kept as given
SELECT dpobj.declare_domain('regress_decl.subs', 'plan', ARRAY['basic', 'Plus ']);
SELECT levels FROM dpobj.feature_domains WHERE column_name = 'plan';
SELECT dpobj.drop_domain('regress_decl.subs', 'plan');
-- char(n): its text has no trailing blanks
ALTER TABLE regress_decl.subs ADD COLUMN tier char(4) DEFAULT 'gold';
SELECT * FROM regress.err($$SELECT dpobj.declare_domain('regress_decl.subs', 'tier', ARRAY['gold', 'tin '])$$);
ALTER TABLE regress_decl.subs DROP COLUMN tier;
SELECT dpobj.declare_domain('regress_decl.subs', 'months', 0, 48);
SELECT dpobj.declare_domain('regress_decl.subs', 'autopay', ARRAY['t', 'f']);
RESET ROLE;

-- the declared boolean encodes the rows: the model predicts y from autopay
SET ROLE regress_decl_alice;
CREATE TEMP TABLE mods AS
SELECT 'declared' AS k, dpobj.train('regress_decl.subs', 'logistic', ARRAY['months', 'autopay'], 'y', 20, 1e-4) AS m;
-- undeclared, a boolean feature beside a declared one is one 0/1 coordinate
RESET ROLE;
SELECT dpobj.drop_domain('regress_decl.subs', 'autopay');
SET ROLE regress_decl_alice;
INSERT INTO mods
SELECT 'boolean', dpobj.train('regress_decl.subs', 'logistic', ARRAY['months', 'autopay'], 'y', 20, 1e-4,
                              model_name => 'decl_bool');
SELECT k, cardinality((m).weights) AS d, (m).params->'encoding' AS encoding FROM mods ORDER BY k;
SELECT k, dpobj.encode(m, '{"months": 48, "autopay": true}') AS autopay_true,
       dpobj.encode(m, '{"months": 0, "autopay": false}') AS autopay_false
  FROM mods ORDER BY k;
-- a stored model predicts from a JSON boolean; evaluate() encodes the column as train() did
SELECT dpobj.predict_raw('decl_bool', '{"months": 3, "autopay": true}') AS yes,
       dpobj.predict_raw('decl_bool', '{"months": 3, "autopay": false}') AS no;
SELECT e ?& ARRAY['tp', 'fp', 'tn', 'fn'] AS released
  FROM mods, dpobj.evaluate('regress_decl.subs', m, ARRAY['months', 'autopay'], 'y', 1, 1e-4) e
 WHERE k = 'boolean';
-- (not private: the superuser checks the released models against the table)
RESET ROLE;
SELECT k, avg((dpobj.predict_raw(m, to_jsonb(s)) = s.y)::int) >= 0.99 AS accurate
  FROM regress_decl.subs s, mods GROUP BY k ORDER BY k;

-- a misspelt column: 42703 in train, evaluate and submit, before domains, options
-- ("R") and the charge
SET ROLE regress_decl_alice;
SELECT spent_epsilon AS before FROM dpobj.my_budgets \gset
SELECT * FROM regress.err($$SELECT dpobj.train('regress_decl.subs', 'logistic', ARRAY['months', 'tenure'], 'y', 1, 1e-4)$$);
SELECT * FROM regress.err($$SELECT dpobj.train('regress_decl.subs', 'logistic', ARRAY['tenure'], 'y', 1, 1e-4)$$);
SELECT * FROM regress.err($$SELECT dpobj.train('regress_decl.subs', 'logistic', ARRAY['months'], 'y', 1, 1e-4, '{"filter": [{"column": "tenur", "op": ">", "value": 1}]}')$$);
SELECT * FROM regress.err($$SELECT dpobj.train('regress_decl.subs', 'logistic', ARRAY['months'], 'why', 1, 1e-4, '{"deadline": -1}')$$);
SELECT * FROM regress.err($$SELECT dpobj.submit('regress_decl.subs', 'logistic', ARRAY['tenure'], 'y', 1, 1e-4)$$);
SELECT * FROM regress.err($$SELECT dpobj.evaluate('regress_decl.subs', (SELECT m FROM mods WHERE k = 'boolean'), ARRAY['months', 'tenure'], 'y', 1, 1e-4)$$);
SELECT spent_epsilon = :before AS nothing_charged FROM dpobj.my_budgets;
-- a column without a domain (not boolean): the hint names both ways on
SELECT * FROM regress.err($$SELECT dpobj.train('regress_decl.subs', 'logistic', ARRAY['months', 'id'], 'y', 1, 1e-4)$$);
SELECT (m).params->'R' AS r FROM (SELECT dpobj.train('regress_decl.subs', 'logistic', ARRAY['months', 'id'], 'y', 1, 1e-4, '{"encode": false, "R": 3000}') m) t;
RESET ROLE;

-- ---- clean up ----------------------------------------------------------------
DROP TABLE mods;
SET ROLE regress_decl_alice;
SELECT dpobj.drop_model('decl_bool');
RESET ROLE;
SELECT dpobj.unprotect('regress_decl.subs');
DROP TABLE regress_decl.subs;
DROP SCHEMA regress_decl;
DROP ROLE regress_decl_owner, regress_decl_alice;
