-- No charge lost to a public failure: a run that would fail with certainty after its charge
-- on public grounds (another object's name, a transaction that cannot write, a default
-- tablespace, a declared domain its column's type cannot hold, a noise scale the sampler
-- cannot draw) is refused before it, and the ledger and the spent budget stay as they were.
-- A role without a budget learns nothing of the declarations: "protected?" and "a budget?"
-- come first at every protected entry point.
CREATE SCHEMA regress_pc;
CREATE ROLE regress_pc_alice;
CREATE ROLE regress_pc_bob;
CREATE ROLE regress_pc_carol;
CREATE SCHEMA regress_pc_out AUTHORIZATION regress_pc_alice;
GRANT CREATE, USAGE ON SCHEMA regress_pc_out TO regress_pc_carol;
CREATE TABLE regress_pc.t AS
SELECT i, (ARRAY['F', 'M'])[1 + i % 2] AS sex, (i % 7)::int AS b, (i % 90)::int AS age,
       (i % 50)::numeric(6, 2) AS hours, (i % 3)::text AS code
  FROM generate_series(1, 300) i;
SELECT dpobj.declare_domain('regress_pc.t', 'sex', ARRAY['F', 'M']);
SELECT dpobj.declare_domain('regress_pc.t', 'b', 0, 7);
SELECT dpobj.declare_domain('regress_pc.t', 'age', 0, 100000);
SELECT dpobj.declare_domain('regress_pc.t', 'hours', 0, 100);
SELECT dpobj.declare_domain('regress_pc.t', 'code', ARRAY['0', '1', 'x']);
SELECT dpobj.protect('regress_pc.t');
SELECT granted_epsilon FROM dpobj.grant_budget('regress_pc.t', 'regress_pc_alice', 100, 0.01);
GRANT USAGE ON SCHEMA regress_pc TO regress_pc_alice, regress_pc_bob;
-- an unprotected table, which the analysts may read
CREATE TABLE regress_pc.open AS SELECT * FROM regress_pc.t;
SELECT dpobj.declare_domain('regress_pc.open', 'sex', ARRAY['F', 'M']);
GRANT SELECT ON regress_pc.open TO regress_pc_alice, regress_pc_bob;
-- what every refusal below must leave as it was: the runs charged and the epsilon spent
CREATE VIEW regress_pc.charged AS
SELECT (SELECT count(*) FROM dpobj.ledger WHERE relation = 'regress_pc.t') AS runs,
       b.spent_epsilon, b.spent_rho
  FROM dpobj.budgets b
 WHERE b.relid = 'regress_pc.t'::regclass AND b.rolid::text = 'regress_pc_alice';
GRANT SELECT ON regress_pc.charged TO PUBLIC;
SELECT * FROM regress_pc.charged;

-- 1. another object's name: CREATE TABLE makes a row type of the target's name, so a type
-- any role with CREATE on the schema plants there (an enum, a domain) takes the name
SET ROLE regress_pc_carol;
CREATE TYPE regress_pc_out.syn_enum AS ENUM ('x');
CREATE DOMAIN regress_pc_out.syn_domain AS int;
CREATE SEQUENCE regress_pc_out.syn_seq;
SET ROLE regress_pc_alice;
SELECT * FROM regress.err($$SELECT dpobj.synthesize('regress_pc.t', 'regress_pc_out.syn_enum', 1, 1e-6, ARRAY['sex'])$$);
SELECT * FROM regress.err($$SELECT dpobj.synthesize('regress_pc.t', 'regress_pc_out.syn_domain', 1, 1e-6, ARRAY['sex'])$$);
SELECT * FROM regress.err($$SELECT dpobj.synthesize('regress_pc.t', 'regress_pc_out.syn_seq', 1, 1e-6, ARRAY['sex'])$$);
SELECT * FROM regress.err($$SELECT dpobj.submit('regress_pc.t', 'synthesize', ARRAY['sex'], '', 1, 1e-6, '{"target": "regress_pc_out.syn_enum"}')$$);
SELECT * FROM regress_pc.charged;

-- 2. a transaction that cannot write: synthesize() and train(..., model_name) write after
-- their charge (the target, the model); refused before it (25006)
BEGIN READ ONLY;
SELECT * FROM regress.err($$SELECT dpobj.synthesize('regress_pc.t', 'regress_pc_out.ro', 1, 1e-6, ARRAY['sex'])$$);
SELECT * FROM regress.err($$SELECT dpobj.train('regress_pc.t', 'linear', ARRAY['b'], 'b', 1, 1e-6, '{"R": 1, "y_min": 0, "y_max": 7}', 'ro_model')$$);
ROLLBACK;
SET default_transaction_read_only = on;
SELECT * FROM regress.err($$SELECT dpobj.synthesize('regress_pc.t', 'regress_pc_out.ro', 1, 1e-6, ARRAY['sex'])$$);
RESET default_transaction_read_only;
-- the caller's default_tablespace: CREATE TABLE needs CREATE on it, and never pg_global
RESET ROLE;
SET allow_in_place_tablespaces = on;
CREATE TABLESPACE regress_pc_space LOCATION '';
RESET allow_in_place_tablespaces;
SET ROLE regress_pc_alice;
SET default_tablespace = regress_pc_space;
SELECT * FROM regress.err($$SELECT dpobj.synthesize('regress_pc.t', 'regress_pc_out.ts', 1, 1e-6, ARRAY['sex'])$$);
SET default_tablespace = pg_global;
SELECT * FROM regress.err($$SELECT dpobj.synthesize('regress_pc.t', 'regress_pc_out.ts', 1, 1e-6, ARRAY['sex'])$$);
RESET default_tablespace;
-- and its default_table_access_method, here dropped after it was set
RESET ROLE;
CREATE ACCESS METHOD regress_pc_am TYPE TABLE HANDLER heap_tableam_handler;
SET default_table_access_method = regress_pc_am;
DROP ACCESS METHOD regress_pc_am;
SET ROLE regress_pc_alice;
SELECT * FROM regress.err($$SELECT dpobj.synthesize('regress_pc.t', 'regress_pc_out.am', 1, 1e-6, ARRAY['sex'])$$);
RESET default_table_access_method;
SELECT * FROM regress_pc.charged;

-- 3. bounds outside the column type's range are refused when declared (a synthetic copy
-- writes values up to them into a column of that type)
RESET ROLE;
CREATE TABLE regress_pc.types (s smallint, n int, l bigint, r real, d numeric(5, 2), u numeric);
SELECT * FROM regress.err($$SELECT dpobj.declare_domain('regress_pc.types', 's', 0, 100000)$$);
SELECT * FROM regress.err($$SELECT dpobj.declare_domain('regress_pc.types', 's', -32769, 0)$$);
SELECT dpobj.declare_domain('regress_pc.types', 's', -32768, 32767);
SELECT * FROM regress.err($$SELECT dpobj.declare_domain('regress_pc.types', 'n', 0, 3e9)$$);
SELECT dpobj.declare_domain('regress_pc.types', 'n', -2147483648, 2147483647);
SELECT * FROM regress.err($$SELECT dpobj.declare_domain('regress_pc.types', 'l', 0, 9223372036854775808)$$);
SELECT dpobj.declare_domain('regress_pc.types', 'l', -9223372036854775808, 9223372036854774784);
SELECT * FROM regress.err($$SELECT dpobj.declare_domain('regress_pc.types', 'r', 0, 1e39)$$);
SELECT * FROM regress.err($$SELECT dpobj.declare_domain('regress_pc.types', 'r', 0, 1e-40)$$);
SELECT dpobj.declare_domain('regress_pc.types', 'r', -1e38, 1e38);
-- numeric(5, 2) holds up to 999.99: 999.995 rounds to 1000.00
SELECT * FROM regress.err($$SELECT dpobj.declare_domain('regress_pc.types', 'd', 0, 999.995)$$);
SELECT * FROM regress.err($$SELECT dpobj.declare_domain('regress_pc.types', 'd', -1000, 0)$$);
SELECT dpobj.declare_domain('regress_pc.types', 'd', -999.994, 999.994);
SELECT dpobj.declare_domain('regress_pc.types', 'u', -1e300, 1e300);
-- a declaration made before: the column's type changed under it (age's bounds reach
-- 100000, then the column became a smallint; code's level 'x' is no integer), refused at
-- the run before the charge, as is a column whose type is a domain with constraints
ALTER TABLE regress_pc.t ALTER COLUMN age TYPE smallint;
ALTER TABLE regress_pc.t ALTER COLUMN code TYPE int USING code::int;
CREATE DOMAIN regress_pc.even AS int CHECK (VALUE % 2 = 0);
ALTER TABLE regress_pc.t ALTER COLUMN b TYPE regress_pc.even USING (b * 2);
SET ROLE regress_pc_alice;
SELECT * FROM regress.err($$SELECT dpobj.synthesize('regress_pc.t', 'regress_pc_out.fit', 1, 1e-6, ARRAY['age'])$$);
SELECT * FROM regress.err($$SELECT dpobj.synthesize('regress_pc.t', 'regress_pc_out.fit', 1, 1e-6, ARRAY['code'])$$);
SELECT * FROM regress.err($$SELECT dpobj.synthesize('regress_pc.t', 'regress_pc_out.fit', 1, 1e-6, ARRAY['b'])$$);
SELECT * FROM regress.err($$SELECT dpobj.submit('regress_pc.t', 'synthesize', ARRAY['age'], '', 1, 1e-6, '{"target": "regress_pc_out.fit"}')$$);
SELECT * FROM regress_pc.charged;
RESET ROLE;
SELECT dpobj.declare_domain('regress_pc.t', 'age', 0, 120);
ALTER TABLE regress_pc.t ALTER COLUMN b TYPE int;
SET ROLE regress_pc_alice;

-- 4. an epsilon whose rounds' noise the exact sampler cannot draw: the first round's rho is
-- 0.9 / 16 of the run's over d (step 1's 0.6 over d with a "label"); three columns with a
-- label at 1.1e-5 passed step 1's check and failed after the charge
SELECT * FROM regress.err($$SELECT dpobj.synthesize('regress_pc.t', 'regress_pc_out.tiny', 1.1e-5, 1e-6, ARRAY['sex', 'b', 'hours'], '{"label": "sex"}')$$);
SELECT * FROM regress.err($$SELECT dpobj.submit('regress_pc.t', 'synthesize', ARRAY['sex', 'b', 'hours'], '', 1.1e-5, 1e-6, '{"target": "regress_pc_out.tiny", "label": "sex"}')$$);
SELECT * FROM regress_pc.charged;

-- 5. protected?  a budget?  before any check that reads a declaration: bob has no budget
-- and learns neither which columns are declared nor a column's level count
-- ("max_state_cells"); on an unprotected table every entry point says so first
SET ROLE regress_pc_bob;
SELECT (regress.err(q)).* FROM (VALUES
  ($$SELECT dpobj.synthesize('regress_pc.t', 'regress_pc_out.x', 1, 1e-6, ARRAY['sex', 'i'])$$),
  ($$SELECT dpobj.synthesize('regress_pc.t', 'regress_pc_out.x', 1, 1e-6, ARRAY['sex'], '{"max_state_cells": 1}')$$),
  ($$SELECT dpobj.aggregate('regress_pc.t', '[{"stat": "count"}]', 1, 0, ARRAY['i'])$$),
  ($$SELECT dpobj.aggregate('regress_pc.t', '[{"stat": "count"}]', 1, 0, ARRAY['sex'])$$),
  ($$SELECT dpobj.describe('regress_pc.t', 1, 0, '{"columns": ["i"]}')$$),
  ($$SELECT dpobj.train('regress_pc.t', 'logistic', ARRAY['i'], 'sex', 1, 1e-6, '{"encode": true, "R": 1}')$$),
  ($$SELECT dpobj.evaluate('regress_pc.t', ROW('logistic', ARRAY[1]::float8[], 0, 1, 1e-6, '{}')::dpobj.model, ARRAY['i'], 'sex', 1, 0)$$),
  ($$SELECT dpobj.submit('regress_pc.t', 'logistic', ARRAY['i'], 'sex', 1, 1e-6, '{"encode": true, "R": 1}')$$),
  ($$SELECT dpobj.aggregate_accuracy('regress_pc.t', '[{"stat": "count"}]', 1, ARRAY['i'])$$)
) v(q);
SELECT (regress.err(q)).* FROM (VALUES
  ($$SELECT dpobj.synthesize('regress_pc.open', 'regress_pc_out.x', 1, 1e-6, ARRAY['sex', 'i'])$$),
  ($$SELECT dpobj.aggregate('regress_pc.open', '[{"stat": "count"}]', 1, 0, ARRAY['i'])$$),
  ($$SELECT dpobj.describe('regress_pc.open', 1, 0, '{"columns": ["i"]}')$$),
  ($$SELECT dpobj.train('regress_pc.open', 'logistic', ARRAY['i'], 'sex', 1, 1e-6, '{"encode": true, "R": 1}')$$),
  ($$SELECT dpobj.evaluate('regress_pc.open', ROW('logistic', ARRAY[1]::float8[], 0, 1, 1e-6, '{}')::dpobj.model, ARRAY['i'], 'sex', 1, 0)$$),
  ($$SELECT dpobj.submit('regress_pc.open', 'logistic', ARRAY['i'], 'sex', 1, 1e-6, '{"encode": true, "R": 1}')$$)
) v(q);
SELECT * FROM regress_pc.charged;

-- the same checks let a run through: one charge, the target written
SET ROLE regress_pc_alice;
SELECT target_table, model_name FROM dpobj.synthesize('regress_pc.t', 'regress_pc_out.fine', 1, 1e-6,
                                                      ARRAY['sex', 'age'], '{"rows": 5}');
SELECT count(*) FROM regress_pc_out.fine;
SELECT runs FROM regress_pc.charged;

SELECT dpobj.drop_model('fine');
RESET ROLE;
DROP TABLESPACE regress_pc_space;
DROP SCHEMA regress_pc_out CASCADE;
SELECT dpobj.unprotect('regress_pc.t');
DROP SCHEMA regress_pc CASCADE;
DROP ROLE regress_pc_alice;
DROP ROLE regress_pc_bob;
DROP ROLE regress_pc_carol;
