-- Privacy budgets per (table, role) and the protected training path
-- (docs/SECURITY.md): the SQL surface and every error with its
-- SQLSTATE.  Roles: an owner, two analysts, a dpobj_admin member.
CREATE SCHEMA regress_budget;
GRANT USAGE ON SCHEMA regress_budget TO PUBLIC;
-- err() runs a statement and reports SQLSTATE, message and hint

CREATE ROLE regress_dpobj_owner;
CREATE ROLE regress_dpobj_alice;
CREATE ROLE regress_dpobj_bob;
CREATE ROLE regress_dpobj_admin IN ROLE dpobj_admin;
GRANT CREATE ON SCHEMA regress_budget TO regress_dpobj_owner;

-- the install script created the admin role, without LOGIN
SELECT rolname, rolcanlogin FROM pg_roles WHERE rolname = 'dpobj_admin';

-- the owner's table: 60 clean rows + rows with NULL / NaN / infinite values
SET ROLE regress_dpobj_owner;
CREATE TABLE regress_budget.pts (i int, a numeric, b float8, flag boolean, y boolean, ylab int, note text);
INSERT INTO regress_budget.pts
SELECT i, (i % 7) / 4.0 - 0.75, (i % 5) / 4.0 - 0.5, i % 2 = 0, (i % 7) > 3,
       CASE WHEN (i % 7) > 3 THEN 1 ELSE -1 END, 'row ' || i
  FROM generate_series(1, 60) i;
INSERT INTO regress_budget.pts VALUES
  (101, NULL, 0.5, true, true, 1, 'null a'),
  (102, 'NaN', 0.5, true, true, 1, 'nan a'),
  (103, 0.25, 'Infinity', true, false, -1, 'inf b'),
  (104, 0.25, 0.5, true, NULL, NULL, 'null label'),
  (105, 1e308, 0.5, true, true, 1, 'too large for float8');
REVOKE ALL ON regress_budget.pts FROM PUBLIC;
CREATE VIEW regress_budget.pts_view AS SELECT * FROM regress_budget.pts;
CREATE TABLE regress_budget.other (x float8, y boolean);
RESET ROLE;

-- ---- protect ----------------------------------------------------------
SELECT (regress.err(q)).* FROM (VALUES
  ($$SELECT dpobj.protect(NULL)$$),
  ($$SELECT dpobj.protect(999999999::oid::regclass)$$),
  ($$SELECT dpobj.protect('regress_budget.pts_view')$$)
) v(q);
SET ROLE regress_dpobj_alice;
SELECT (regress.err($$SELECT dpobj.protect('regress_budget.pts')$$)).*;
SET ROLE regress_dpobj_owner;
SELECT dpobj.protect('regress_budget.pts') AS newly_protected;
SELECT dpobj.protect('regress_budget.pts') AS newly_protected;
-- protecting a table PUBLIC can read warns
CREATE TABLE regress_budget.open_table (x float8, y boolean);
GRANT SELECT ON regress_budget.open_table TO PUBLIC;
SELECT dpobj.protect('regress_budget.open_table');
RESET ROLE;

-- ---- grant_budget / revoke_budget ------------------------------------
SET ROLE regress_dpobj_owner;
SELECT (regress.err(q)).* FROM (VALUES
  ($$SELECT dpobj.grant_budget('regress_budget.other', 'regress_dpobj_alice', 1, 1e-5)$$),
  ($$SELECT dpobj.grant_budget('regress_budget.pts', 'regress_dpobj_alice', -1, 1e-5)$$),
  ($$SELECT dpobj.grant_budget('regress_budget.pts', 'regress_dpobj_alice', 'NaN', 1e-5)$$),
  ($$SELECT dpobj.grant_budget('regress_budget.pts', 'regress_dpobj_alice', 'Infinity', 1e-5)$$),
  ($$SELECT dpobj.grant_budget('regress_budget.pts', 'regress_dpobj_alice', 1, 1)$$),
  ($$SELECT dpobj.grant_budget('regress_budget.pts', 'regress_dpobj_alice', 1, -1e-5)$$),
  ($$SELECT dpobj.grant_budget('regress_budget.pts', 'regress_dpobj_alice', NULL, 1e-5)$$),
  ($$SELECT dpobj.grant_budget('regress_budget.pts', 999999999::oid::regrole, 1, 1e-5)$$)
) v(q);
-- grants add up, exactly
SELECT relation, analyst, granted_epsilon, granted_delta, spent_epsilon, spent_delta
  FROM dpobj.grant_budget('regress_budget.pts', 'regress_dpobj_alice', 0.2, 0.00002);
SELECT relation, analyst, granted_epsilon, granted_delta, spent_epsilon, spent_delta
  FROM dpobj.grant_budget('regress_budget.pts', 'regress_dpobj_alice', 0.1, 0.00001);
RESET ROLE;
-- an analyst cannot grant itself budget or revoke others'
SET ROLE regress_dpobj_alice;
SELECT (regress.err(q)).* FROM (VALUES
  ($$SELECT dpobj.grant_budget('regress_budget.pts', 'regress_dpobj_alice', 10, 1e-5)$$),
  ($$SELECT dpobj.revoke_budget('regress_budget.pts', 'regress_dpobj_bob')$$)
) v(q);
RESET ROLE;
-- a dpobj_admin member administers every protected table
SET ROLE regress_dpobj_admin;
SELECT relation, analyst, granted_epsilon, granted_delta
  FROM dpobj.grant_budget('regress_budget.pts', 'regress_dpobj_bob', 0.5, 0.00001);
SELECT relation, analyst, granted_epsilon, granted_delta, spent_epsilon, spent_delta
  FROM dpobj.revoke_budget('regress_budget.pts', 'regress_dpobj_bob');
SELECT dpobj.revoke_budget('regress_budget.pts', 'regress_dpobj_owner') IS NULL AS no_budget;
RESET ROLE;

-- ---- the analyst: no SELECT, trains through dpobj.train() ------------
-- (protected runs refuse dpobj.seed: their noise is fresh, so only noise-free
-- columns are shown)
SET ROLE regress_dpobj_alice;
SELECT (regress.err(q)).* FROM (VALUES
  ($$SELECT count(*) FROM regress_budget.pts$$),
  ($$SELECT dpobj.dp_halfspace(ARRAY[a, b]::float8[], y, 1, 1e-5) FROM regress_budget.pts$$),
  ($$SELECT count(*) FROM regress_budget.pts_view$$)
) v(q);
RESET ROLE;
-- the hint names dpobj.train() only to a role with a budget on the table (which
-- dpobj.my_budgets shows it); any other role gets PostgreSQL's error unchanged
SET ROLE regress_dpobj_admin;
SELECT (regress.err($$SELECT count(*) FROM regress_budget.pts$$)).*;
RESET ROLE;
SET ROLE regress_dpobj_alice;
SELECT relation, granted_epsilon, granted_delta, spent_epsilon, spent_delta,
       remaining_epsilon, remaining_delta
  FROM dpobj.my_budgets;

-- one training run (SELECT ... FROM dpobj.train(...) calls it once)
SELECT mechanism, cardinality(weights) AS d, epsilon, delta, params
  FROM dpobj.train('regress_budget.pts', 'opdisc', ARRAY['a', 'b'], 'y', 0.1, 0.00001);
-- ROLLBACK does not give the budget back
BEGIN;
SELECT cardinality(weights) AS d FROM dpobj.train('regress_budget.pts', 'opdisc', ARRAY['a', 'b'], 'y', 0.1, 0.00001);
ROLLBACK;
SELECT spent_epsilon, spent_delta, remaining_epsilon FROM dpobj.my_budgets;
-- the last run and how many more such runs fit: runs_left() of that run
SELECT last_run, runs_left,
       runs_left = dpobj.runs_left('regress_budget.pts', 'opdisc', 0.1, 0.00001) AS as_runs_left
  FROM dpobj.my_budgets;
-- the accountant's state: an analyst sees its own budgets only
SELECT relation, analyst, linear_epsilon, linear_delta, spent_rho, approx_admitted, approx_delta_left
  FROM dpobj.budget_accounting;
-- exactly three 0.1 charges make 0.3: the next one is refused (DP004),
-- nothing is charged, the hint shows what is left
SELECT (regress.err(q)).* FROM (VALUES
  ($$SELECT dpobj.train('regress_budget.pts', 'opdisc', ARRAY['a', 'b'], 'y', 0.1, 0.00001)$$),
  ($$SELECT dpobj.train('regress_budget.pts', 'opdisc', ARRAY['a', 'b'], 'y', 0.2, 0.00001)$$)
) v(q);
SELECT spent_epsilon, spent_delta, remaining_epsilon, remaining_delta FROM dpobj.my_budgets;
RESET ROLE;

-- the owner tops the budget up
SET ROLE regress_dpobj_owner;
SELECT granted_epsilon, spent_epsilon, remaining_epsilon, last_run, runs_left
  FROM dpobj.grant_budget('regress_budget.pts', 'regress_dpobj_alice', 1, 0.0001);
-- the table's owner sees every analyst's budget on it
SELECT relation, analyst, granted_epsilon, linear_epsilon, spent_rho
  FROM dpobj.budget_accounting ORDER BY analyst::text;
RESET ROLE;
SET ROLE regress_dpobj_alice;
-- an error later in the same statement does not give the budget back
SELECT cardinality(weights) AS d, 1 / (0 * cardinality(weights)) AS boom
  FROM dpobj.train('regress_budget.pts', 'opdisc', ARRAY['a', 'b'], 'y', 0.1, 0.00001);
SELECT spent_epsilon, remaining_epsilon, remaining_delta FROM dpobj.my_budgets;
-- the analyst's ledger rows: exact numeric, linked to the budget
SELECT rolname, mechanism, epsilon, delta, relation, outcome, budget_id IS NOT NULL AS budgeted
  FROM dpobj.ledger ORDER BY id;
RESET ROLE;

-- ---- argument errors (none depends on the data) ----------------------
SET ROLE regress_dpobj_alice;
SELECT (regress.err(q)).* FROM (VALUES
  ($$SELECT dpobj.train('regress_budget.pts', 'nope', ARRAY['a'], 'y', 0.1, 1e-5)$$),
  ($$SELECT dpobj.train('regress_budget.pts', NULL, ARRAY['a'], 'y', 0.1, 1e-5)$$),
  ($$SELECT dpobj.train('regress_budget.pts', 'opdisc', ARRAY['a'], 'y', 0, 1e-5)$$),
  ($$SELECT dpobj.train('regress_budget.pts', 'opdisc', ARRAY['a'], 'y', 'NaN', 1e-5)$$),
  ($$SELECT dpobj.train('regress_budget.pts', 'opdisc', ARRAY['a'], 'y', 0.1, 0)$$),
  ($$SELECT dpobj.train('regress_budget.pts', 'opdisc', ARRAY['a'], 'y', 0.1, 1)$$),
  ($$SELECT dpobj.train('regress_budget.pts', 'opdisc', ARRAY['a'], 'y', 1e-400, 1e-5)$$),
  ($$SELECT dpobj.train('regress_budget.pts', 'opdisc', ARRAY['a'], 'y', 0.1, 0.1234567890123456789012345678901234567890123456789012345678901234567)$$),
  ($$SELECT dpobj.train('regress_budget.pts', 'opdisc', ARRAY[]::text[], 'y', 0.1, 1e-5)$$),
  ($$SELECT dpobj.train('regress_budget.pts', 'opdisc', ARRAY['a', NULL], 'y', 0.1, 1e-5)$$),
  ($$SELECT dpobj.train('regress_budget.pts', 'opdisc', ARRAY[['a'], ['b']], 'y', 0.1, 1e-5)$$),
  ($$SELECT dpobj.train('regress_budget.pts', 'opdisc', ARRAY['nope'], 'y', 0.1, 1e-5)$$),
  ($$SELECT dpobj.train('regress_budget.pts', 'opdisc', ARRAY['A'], 'y', 0.1, 1e-5)$$),
  ($$SELECT dpobj.train('regress_budget.pts', 'opdisc', ARRAY['xmin'], 'y', 0.1, 1e-5)$$),
  ($$SELECT dpobj.train('regress_budget.pts', 'opdisc', ARRAY['note'], 'y', 0.1, 1e-5)$$),
  ($$SELECT dpobj.train('regress_budget.pts', 'opdisc', ARRAY['a'], 'b', 0.1, 1e-5)$$),
  ($$SELECT dpobj.train('regress_budget.pts', 'opdisc', ARRAY['a'], 'y', 0.1, 1e-5, '[1]')$$),
  ($$SELECT dpobj.train('regress_budget.pts', 'opdisc', ARRAY['a'], 'y', 0.1, 1e-5, '{"B": 0}')$$),
  ($$SELECT dpobj.train('regress_budget.pts', 'opdisc', ARRAY['a'], 'y', 0.1, 1e-5, '{"filter": {"column": "i"}}')$$),
  ($$SELECT dpobj.train('regress_budget.pts', 'opdisc', ARRAY['a'], 'y', 0.1, 1e-5, '{"filter": [{"column": "i", "op": "=", "value": 1, "x": 2}]}')$$),
  ($$SELECT dpobj.train('regress_budget.pts', 'opdisc', ARRAY['a'], 'y', 0.1, 1e-5, '{"filter": [{"column": "i", "op": "=", "value": null}]}')$$),
  ($$SELECT dpobj.train('regress_budget.pts', 'opdisc', ARRAY['a'], 'y', 0.1, 1e-5, '{"filter": [{"column": "i", "op": "~~", "value": 1}]}')$$),
  ($$SELECT dpobj.train('regress_budget.other', 'opdisc', ARRAY['x'], 'y', 0.1, 1e-5)$$),
  ($$SELECT dpobj.train(999999999::oid::regclass, 'opdisc', ARRAY['x'], 'y', 0.1, 1e-5)$$)
) v(q);

-- ---- no SQL injection through names, filter values or options ---------
SELECT (regress.err(q)).* FROM (VALUES
  ($$SELECT dpobj.train('regress_budget.pts', 'opdisc', ARRAY['a) FROM regress_budget.pts; --'], 'y', 0.1, 1e-5)$$),
  ($$SELECT dpobj.train('regress_budget.pts', 'opdisc', ARRAY['"a"'], 'y', 0.1, 1e-5)$$),
  ($$SELECT dpobj.train('regress_budget.pts', 'opdisc', ARRAY['a'], 'y OR true', 0.1, 1e-5)$$),
  ($$SELECT dpobj.train('regress_budget.pts', 'opdisc', ARRAY['a'], 'y', 0.1, 1e-5, '{"filter": [{"column": "i", "op": "= 1 OR 1 =", "value": 1}]}')$$),
  ($$SELECT dpobj.train('regress_budget.pts', 'opdisc', ARRAY['a'], 'y', 0.1, 1e-5, '{"filter": [{"column": "i", "op": "=", "value": "1 OR true"}]}')$$),
  ($$SELECT dpobj.train('regress_budget.pts', 'opdisc', ARRAY['a'], 'y', 0.1, 1e-5, '{"filter": [{"column": "1=1 OR i", "op": "=", "value": 1}]}')$$),
  ($$SELECT dpobj.train('regress_budget.pts', 'opdisc', ARRAY['a'], 'y', 0.1, 1e-5, '{"oracle": "search''); DROP TABLE regress_budget.pts; --"}')$$)
) v(q);
-- a string that looks like SQL is only a constant: it selects no row, and
-- the run on the empty selection still releases a model (and is charged)
SELECT cardinality(weights) AS d
  FROM dpobj.train('regress_budget.pts', 'opdisc', ARRAY['a', 'b'], 'y', 0.1, 0.00001,
                   '{"filter": [{"column": "note", "op": "=", "value": "x'' OR ''1''=''1"}]}');
RESET ROLE;
SELECT count(*) AS rows_still_there FROM regress_budget.pts;

-- ---- the protected path drops bad rows -------------------------------
-- Training on the table with its NULL / NaN / Inf / out-of-range rows
-- releases a model (the bad rows are dropped, no error); the direct
-- aggregate (for roles that can read the table) still raises errors.
-- (Protected runs refuse dpobj.seed, so the model itself is not compared
-- with the clean rows' one here; tests/security/neighbours.sh compares
-- output distributions.)
SET ROLE regress_dpobj_alice;
SELECT cardinality(weights) AS protected_d
  FROM dpobj.train('regress_budget.pts', 'opdisc', ARRAY['a', 'b', 'flag'], 'ylab', 0.5, 0.00001,
                   '{"B": 2, "filter": [{"column": "i", "op": "<=", "value": 200}]}');
RESET ROLE;
SELECT (regress.err($$SELECT dpobj.dp_halfspace(ARRAY[a, b]::float8[], y, 0.5, 0.00001) FROM regress_budget.pts$$)).*;

-- ---- no bypass of the charge, no writes to budgets or the ledger ------
-- (the server refuses NULL::internal itself, in words that changed between minor
-- releases: expected/budget_1.out has 15.18's, expected/budget.out 15.20's)
SET ROLE regress_dpobj_alice;
SELECT (regress.err(q)).* FROM (VALUES
  ($$SELECT dpobj.dp_halfspace_finalfn(NULL::internal)$$),
  ($$SELECT dpobj.forget_dropped_tables()$$),
  ($$SELECT dpobj.ledger_guard()$$),
  ($$INSERT INTO dpobj.budgets (relid, rolid, granted_epsilon, granted_delta) VALUES ('regress_budget.pts', 'regress_dpobj_alice', 100, 0.1)$$),
  ($$UPDATE dpobj.budgets SET granted_epsilon = 100$$),
  ($$UPDATE dpobj.budgets SET spent_epsilon = 0$$),
  ($$DELETE FROM dpobj.budgets$$),
  ($$INSERT INTO dpobj.protected_tables (relid, protected_by) VALUES ('regress_budget.other', 'x')$$),
  ($$DELETE FROM dpobj.protected_tables$$),
  ($$UPDATE dpobj.ledger SET epsilon = 0.001$$),
  ($$DELETE FROM dpobj.ledger$$),
  ($$SELECT setval('dpobj.budgets_id_seq', 1)$$),
  ($$SET dpobj.seed = 1$$)
) v(q);
RESET ROLE;
-- even a superuser cannot rewrite a charged ledger row's amount or budget
UPDATE dpobj.ledger SET budget_id = NULL WHERE budget_id IS NOT NULL;

-- ---- who sees what ---------------------------------------------------
SET ROLE regress_dpobj_bob;
SELECT count(*) AS bob_ledger_rows FROM dpobj.ledger;
SELECT relation, granted_epsilon, spent_epsilon, remaining_epsilon FROM dpobj.my_budgets;
SELECT rolid, granted_epsilon FROM dpobj.budgets;
SELECT relid FROM dpobj.protected_tables;
-- bob's budget was revoked: refused without any charge
SELECT (regress.err($$SELECT dpobj.train('regress_budget.pts', 'opdisc', ARRAY['a'], 'y', 0.1, 1e-5)$$)).*;
RESET ROLE;
SET ROLE regress_dpobj_alice;
SELECT rolid, granted_epsilon FROM dpobj.budgets;
SELECT DISTINCT rolname FROM dpobj.ledger;
RESET ROLE;
-- the owner sees every analyst's budget and charges on its table
SET ROLE regress_dpobj_owner;
SELECT rolid, granted_epsilon, granted_delta, spent_epsilon, spent_delta
  FROM dpobj.budgets ORDER BY rolid::text;
SELECT rolname, count(*), sum(epsilon) FROM dpobj.ledger GROUP BY 1 ORDER BY 1;
RESET ROLE;

-- ledger totals = spend, exactly, for every budget
SELECT b.rolid, b.spent_epsilon, b.spent_delta,
       coalesce(sum(l.epsilon), 0) = b.spent_epsilon AS eps_agrees,
       coalesce(sum(l.delta), 0) = b.spent_delta AS delta_agrees
  FROM dpobj.budgets b LEFT JOIN dpobj.ledger l ON l.budget_id = b.id
 GROUP BY b.id ORDER BY b.rolid::text;

-- ---- dropping a protected table forgets its protection and budgets ----
-- (the ledger keeps the history)
DROP TABLE regress_budget.open_table;
SELECT relid FROM dpobj.protected_tables ORDER BY 1::text;
DROP TABLE regress_budget.pts CASCADE;
SELECT count(*) AS protected, (SELECT count(*) FROM dpobj.budgets) AS budgets
  FROM dpobj.protected_tables;
SELECT count(*) AS ledger_rows_kept FROM dpobj.ledger WHERE budget_id IS NOT NULL;

DROP SCHEMA regress_budget CASCADE;
DROP ROLE regress_dpobj_owner, regress_dpobj_alice, regress_dpobj_bob, regress_dpobj_admin;
