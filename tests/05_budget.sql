-- Privacy budgets per (table, role) and the protected training
-- path, as properties.  The budget charge is committed by a background
-- worker in its own transaction, so the worker must see the table, the
-- protection and the budget: the setup is committed (no BEGIN around the
-- file), and the end of the file drops what it created.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS tap_budget CASCADE;
DROP ROLE IF EXISTS dpobj_tap_alice;
DROP ROLE IF EXISTS dpobj_tap_bob;
CREATE ROLE dpobj_tap_alice;
CREATE ROLE dpobj_tap_bob;
CREATE SCHEMA tap_budget;
GRANT USAGE ON SCHEMA tap_budget TO PUBLIC;
CREATE TABLE tap_budget.pts AS
SELECT i, (i % 7) / 4.0 - 0.75 AS a, ((i % 5) / 4.0 - 0.5)::float8 AS b, (i % 7) > 3 AS y,
       'secret ' || i AS note
  FROM generate_series(1, 80) i;
INSERT INTO tap_budget.pts VALUES (1001, NULL, 0.5, true, 'null'), (1002, 'NaN', 0.5, NULL, 'nan');
REVOKE ALL ON tap_budget.pts FROM PUBLIC;
SELECT dpobj.protect('tap_budget.pts');
SELECT dpobj.grant_budget('tap_budget.pts', 'dpobj_tap_alice', 0.5, 0.0005);
SELECT dpobj.grant_budget('tap_budget.pts', 'dpobj_tap_bob', 0.1, 0.0001);
RESET client_min_messages;

SELECT plan(22);

-- ---- no direct access ------------------------------------------------------
SET ROLE dpobj_tap_alice;
SELECT throws_ok($$SELECT note FROM tap_budget.pts$$, '42501', NULL,
                 'the analyst cannot read the protected rows');
SELECT throws_ok($$SELECT dpobj.dp_halfspace(ARRAY[a, b]::float8[], y, 1, 1e-5) FROM tap_budget.pts$$,
                 '42501', NULL, 'the analyst cannot run the aggregate on the table directly (no charge bypass)');

-- ---- training within the budget --------------------------------------------
SELECT lives_ok($$SELECT dpobj.train('tap_budget.pts', 'opdisc', ARRAY['a', 'b'], 'y', 0.1, 0.0001)$$,
                'the analyst trains within its budget (NULL and NaN rows are dropped, not reported)');
SELECT is((SELECT spent_epsilon FROM dpobj.my_budgets), 0.1, 'one run charged 0.1');
SELECT is((SELECT array_agg(k ORDER BY k)
             FROM dpobj.train('tap_budget.pts', 'opdisc', ARRAY['a', 'b'], 'y', 0.1, 0.0001) m,
                  jsonb_object_keys(m.params) k),
          ARRAY['B', 'D2', 'Q', 'calibration', 'd', 'loss', 'oracle', 'sigma', 'tau'],
          'the released model carries public parameters only (no row count)');
SELECT isnt((SELECT weights FROM dpobj.train('tap_budget.pts', 'opdisc', ARRAY['a', 'b'], 'y', 0.1, 0.0001,
                      '{"filter": [{"column": "i", "op": ">", "value": 100000}]}')),
            NULL, 'an empty selection still releases a model (emptiness is not revealed)');
RESET ROLE;

-- ---- ROLLBACK and later errors keep the charge ------------------------------
BEGIN;
SET LOCAL ROLE dpobj_tap_alice;
SELECT weights FROM dpobj.train('tap_budget.pts', 'opdisc', ARRAY['a', 'b'], 'y', 0.1, 0.0001) \g /dev/null
ROLLBACK;
SELECT is((SELECT spent_epsilon FROM dpobj.budgets WHERE rolid = 'dpobj_tap_alice'::regrole), 0.4,
          'ROLLBACK after train() keeps the charge');
SET ROLE dpobj_tap_alice;
SELECT throws_ok($$SELECT weights, 1 / (0 * cardinality(weights))
                     FROM dpobj.train('tap_budget.pts', 'opdisc', ARRAY['a', 'b'], 'y', 0.1, 0.0001)$$,
                 '22012', NULL, 'an error later in the statement ...');
SELECT is((SELECT spent_epsilon FROM dpobj.my_budgets), 0.5, '... keeps the charge too');

-- ---- over budget: refused, nothing charged ----------------------------------
SELECT throws_ok($$SELECT dpobj.train('tap_budget.pts', 'opdisc', ARRAY['a', 'b'], 'y', 0.1, 0.0001)$$,
                 'DP004', NULL, 'a request over the remaining budget is refused with DP004');
SELECT is((SELECT spent_epsilon || '/' || spent_delta FROM dpobj.my_budgets), '0.5/0.0005',
          'the refused request charged nothing');

-- ---- no tampering ------------------------------------------------------------
SELECT throws_ok($$UPDATE dpobj.budgets SET granted_epsilon = 100$$, '42501', NULL,
                 'the analyst cannot raise its budget');
SELECT throws_ok($$SELECT dpobj.grant_budget('tap_budget.pts', 'dpobj_tap_alice', 100, 0.1)$$, '42501', NULL,
                 'the analyst cannot grant itself a budget');
SELECT throws_ok($$DELETE FROM dpobj.ledger$$, '42501', NULL, 'the analyst cannot delete ledger rows');
SELECT throws_ok($$UPDATE dpobj.ledger SET epsilon = 0$$, '42501', NULL, 'the analyst cannot rewrite ledger rows');

-- ---- no SQL injection ------------------------------------------------------
SELECT throws_ok($$SELECT dpobj.train('tap_budget.pts', 'opdisc', ARRAY['a", note, "b'], 'y', 0.1, 0.0001)$$,
                 '42703', NULL, 'a column name cannot smuggle SQL (catalog lookup)');
SELECT throws_ok($$SELECT dpobj.train('tap_budget.pts', 'opdisc', ARRAY['a'], 'y', 0.1, 0.0001,
                     '{"filter": [{"column": "i", "op": "=", "value": "0 OR true"}]}')$$,
                 '22P02', NULL, 'a filter value is a typed constant, not SQL');
SELECT throws_ok($$SELECT dpobj.train('tap_budget.pts', 'opdisc', ARRAY['a'], 'y', 0.1, 0.0001,
                     '{"filter": [{"column": "i", "op": "= 0 OR i <", "value": 1}]}')$$,
                 '22023', NULL, 'a filter operator comes from a fixed list');
SELECT throws_ok($$SELECT dpobj.train('tap_budget.pts', 'opdisc', ARRAY['a'], 'y', 0.1, 0.0001,
                     '{"oracle": "x\"); SELECT 1; --"}')$$,
                 '22023', NULL, 'options are parsed, never spliced');
RESET ROLE;

-- ---- who sees what -----------------------------------------------------------
SET ROLE dpobj_tap_bob;
SELECT is((SELECT count(*) FROM dpobj.ledger WHERE rolname = 'dpobj_tap_alice'), 0::bigint,
          'another analyst cannot read alice''s ledger rows');
SELECT is((SELECT count(*) FROM dpobj.budgets WHERE rolid = 'dpobj_tap_alice'::regrole), 0::bigint,
          'another analyst cannot see alice''s budget');
RESET ROLE;

-- ---- the books balance -----------------------------------------------------
SELECT is((SELECT bool_and(coalesce(s.e, 0) = b.spent_epsilon AND coalesce(s.d, 0) = b.spent_delta)
             FROM dpobj.budgets b
             LEFT JOIN (SELECT budget_id, sum(epsilon) e, sum(delta) d FROM dpobj.ledger GROUP BY 1) s
               ON s.budget_id = b.id
            WHERE b.relid = 'tap_budget.pts'::regclass),
          true, 'ledger totals equal the budgets'' spend, exactly');

SELECT * FROM finish();

SET client_min_messages = warning;
DROP SCHEMA tap_budget CASCADE;
DROP ROLE dpobj_tap_alice;
DROP ROLE dpobj_tap_bob;
