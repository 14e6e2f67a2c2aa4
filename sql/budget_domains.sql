-- Budget domains (docs/PRIVACY.md "Budget domains", docs/USAGE.md): tables
-- whose privacy units identify the same people share one budget per role.
-- The surface (create, join, grant, leave, drop), where the charges go, what
-- analysts see, and every error with its SQLSTATE and hint.
CREATE SCHEMA regress_bd;
GRANT USAGE ON SCHEMA regress_bd TO PUBLIC;

CREATE ROLE regress_bd_owner;
CREATE ROLE regress_bd_owner2;
CREATE ROLE regress_bd_alice;
CREATE ROLE regress_bd_bob;
CREATE ROLE regress_bd_admin;
GRANT dpobj_admin TO regress_bd_admin;
GRANT CREATE ON SCHEMA regress_bd TO regress_bd_owner, regress_bd_owner2;

SET ROLE regress_bd_owner;
-- the same customers in two tables, under different column names and bounds
CREATE TABLE regress_bd.orders AS
SELECT 1 + i % 40 AS customer_id, (i % 7) / 4.0 - 0.75 AS a, ((i % 5) / 4.0 - 0.5)::float8 AS b,
       (i % 7) > 3 AS y
  FROM generate_series(1, 200) i;
CREATE TABLE regress_bd.visits AS
SELECT 1 + i % 40 AS cust, (i % 5) / 4.0 - 0.5 AS a, ((i % 3) / 2.0 - 0.5)::float8 AS b,
       (i % 5) > 2 AS y
  FROM generate_series(1, 120) i;
-- a row-level table and a unit table that stays outside the domain
CREATE TABLE regress_bd.rowlevel AS SELECT * FROM regress_bd.visits;
CREATE TABLE regress_bd.other AS SELECT * FROM regress_bd.visits;
REVOKE ALL ON regress_bd.orders, regress_bd.visits, regress_bd.rowlevel, regress_bd.other FROM PUBLIC;
SELECT dpobj.protect('regress_bd.orders', privacy_unit => 'customer_id', max_rows_per_unit => 2);
SELECT dpobj.protect('regress_bd.rowlevel');
SELECT dpobj.protect('regress_bd.other', privacy_unit => 'cust', max_rows_per_unit => 1);
SELECT 1 FROM dpobj.grant_budget('regress_bd.other', 'regress_bd_alice', 1, 0.001);

-- ---- create -------------------------------------------------------------
SELECT dpobj.create_budget_domain('regress_bd_customers');
-- again: an error, as for every role (a name is its owner's; the data owner
-- that meant to create it learns that another role owns it)
SELECT * FROM regress.err($$SELECT dpobj.create_budget_domain('regress_bd_customers')$$);
SELECT * FROM regress.err($$SELECT dpobj.create_budget_domain(NULL)$$);
SELECT * FROM regress.err($$SELECT dpobj.create_budget_domain('')$$);
-- the names and owners are public
SELECT name, owner FROM dpobj.budget_domains ORDER BY name;
RESET ROLE;

-- ---- join -----------------------------------------------------------------
SET ROLE regress_bd_owner;
SELECT dpobj.set_budget_domain('regress_bd.orders', 'regress_bd_customers');
-- again: no change
SELECT dpobj.set_budget_domain('regress_bd.orders', 'regress_bd_customers');
-- protect() protects and joins in one call
SELECT dpobj.protect('regress_bd.visits', privacy_unit => 'cust', max_rows_per_unit => 3,
                     budget_domain => 'regress_bd_customers');
SELECT relid, privacy_unit, max_rows_per_unit, budget_domain FROM dpobj.protected_tables
 WHERE relid::text LIKE 'regress_bd.%' ORDER BY relid::text;
-- public refusals: no unit, not protected, no such domain, NULL table,
-- already in a domain, own budgets
SELECT * FROM regress.err($$SELECT dpobj.set_budget_domain('regress_bd.rowlevel', 'regress_bd_customers')$$);
CREATE TABLE regress_bd.unprotected (cust int);
SELECT * FROM regress.err($$SELECT dpobj.set_budget_domain('regress_bd.unprotected', 'regress_bd_customers')$$);
SELECT * FROM regress.err($$SELECT dpobj.set_budget_domain('regress_bd.other', 'regress_bd_nope')$$);
SELECT * FROM regress.err($$SELECT dpobj.set_budget_domain(NULL, 'regress_bd_customers')$$);
SELECT * FROM regress.err($$SELECT dpobj.set_budget_domain('regress_bd.other', '')$$);
SELECT dpobj.create_budget_domain('regress_bd_second');
SELECT * FROM regress.err($$SELECT dpobj.set_budget_domain('regress_bd.orders', 'regress_bd_second')$$);
SELECT * FROM regress.err($$SELECT dpobj.set_budget_domain('regress_bd.other', 'regress_bd_customers')$$);
-- protect() with a domain and without a unit does not exist
SELECT * FROM regress.err($$SELECT dpobj.protect('regress_bd.rowlevel', budget_domain => 'regress_bd_customers')$$);
RESET ROLE;
-- the catalog backs it: a member always has a privacy unit
SELECT * FROM regress.err($$UPDATE dpobj.protected_tables SET budget_domain = 'regress_bd_customers', domain_joined_by = 'regress_bd_owner' WHERE relid = 'regress_bd.rowlevel'::regclass$$);
-- and records the owner that joined
SELECT * FROM regress.err($$UPDATE dpobj.protected_tables SET domain_joined_by = NULL WHERE relid = 'regress_bd.orders'::regclass$$);
-- only the table's owner joins, leaves or joins through protect(), even a
-- dpobj_admin member (it could otherwise move spend around)
SET ROLE regress_bd_admin;
SELECT * FROM regress.err($$SELECT dpobj.set_budget_domain('regress_bd.orders', NULL)$$);
SELECT * FROM regress.err($$SELECT dpobj.protect('regress_bd.other', 'cust', 1, 'regress_bd_customers')$$);
RESET ROLE;
-- a table owner joins another role's domain only with that role's
-- allowance (section "agreement" below)
SET ROLE regress_bd_owner2;
CREATE TABLE regress_bd.third (cust int, a float8, b float8, y boolean);
SELECT dpobj.protect('regress_bd.third', 'cust', 1);
SELECT * FROM regress.err($$SELECT dpobj.set_budget_domain('regress_bd.third', 'regress_bd_customers')$$);
RESET ROLE;

-- ---- budgets -------------------------------------------------------------
SET ROLE regress_bd_owner;
-- a member has no budgets of its own
SELECT * FROM regress.err($$SELECT dpobj.grant_budget('regress_bd.orders', 'regress_bd_alice', 1, 0.001)$$);
SELECT * FROM regress.err($$SELECT dpobj.revoke_budget('regress_bd.visits', 'regress_bd_alice')$$);
-- one budget per (domain, role)
SELECT budget_domain, relation, analyst, granted_epsilon, granted_delta
  FROM dpobj.grant_domain_budget('regress_bd_customers', 'regress_bd_alice', 2, 0.001);
SELECT granted_epsilon FROM dpobj.grant_domain_budget('regress_bd_customers', 'regress_bd_alice', 1, 0);
SELECT * FROM regress.err($$SELECT dpobj.grant_domain_budget('regress_bd_nope', 'regress_bd_alice', 1, 0)$$);
SELECT * FROM regress.err($$SELECT dpobj.grant_domain_budget(NULL, 'regress_bd_alice', 1, 0)$$);
SELECT * FROM regress.err($$SELECT dpobj.grant_domain_budget('regress_bd_customers', 'regress_bd_alice', -1, 0)$$);
SELECT * FROM regress.err($$SELECT dpobj.grant_domain_budget('regress_bd_customers', 'regress_bd_alice', 1, 1)$$);
SELECT * FROM regress.err($$SELECT dpobj.grant_domain_budget('regress_bd_customers', 'regress_bd_alice', 1, 0.999)$$);
SELECT * FROM regress.err($$SELECT dpobj.revoke_domain_budget('regress_bd_customers', 'regress_bd_bob')$$);
RESET ROLE;
-- who grants: the domain's owner or dpobj_admin, not an analyst; an admin
-- (or anyone who does not own every member) granting to itself is capped
SET ROLE regress_bd_alice;
SELECT * FROM regress.err($$SELECT dpobj.grant_domain_budget('regress_bd_customers', 'regress_bd_alice', 1, 0)$$);
SELECT * FROM regress.err($$SELECT dpobj.revoke_domain_budget('regress_bd_customers', 'regress_bd_alice')$$);
-- an analyst's own empty domain grants it nothing
SELECT dpobj.create_budget_domain('regress_bd_alices');
SELECT * FROM regress.err($$SELECT dpobj.grant_domain_budget('regress_bd_alices', 'regress_bd_alice', 1, 0)$$);
SELECT dpobj.drop_budget_domain('regress_bd_alices');
RESET ROLE;
SET ROLE regress_bd_admin;
SELECT * FROM regress.err($$SELECT dpobj.grant_domain_budget('regress_bd_customers', 'regress_bd_admin', 1, 0)$$);
SELECT granted_epsilon FROM dpobj.grant_domain_budget('regress_bd_customers', 'regress_bd_bob', 0.5, 0);
RESET ROLE;
-- the domain budget is one row; the analyst sees its members
SET ROLE regress_bd_alice;
SELECT relation, budget_domain, domain_tables, granted_epsilon, remaining_epsilon, privacy_unit
  FROM dpobj.my_budgets ORDER BY budget_domain NULLS LAST;
-- and their protections (whose units it may look up)
SELECT relid, privacy_unit, max_rows_per_unit, budget_domain FROM dpobj.protected_tables ORDER BY relid::text;
-- the odometer of either member reads the one budget
SELECT dpobj.runs_left('regress_bd.orders', 'expmech', 1, 1e-6) AS orders_runs,
       dpobj.runs_left('regress_bd.visits', 'expmech', 1, 1e-6) AS visits_runs,
       dpobj.runs_left('regress_bd.other', 'expmech', 1, 1e-6) AS other_runs;
-- analysts cannot call the budget lookup
SELECT * FROM regress.err($$SELECT dpobj.budget_for('regress_bd.orders', 'regress_bd_alice')$$);

-- ---- charges ----------------------------------------------------------------
-- a run on each member: both charge the domain's budget
SELECT (m).mechanism, (m).params->'rows_per_unit' AS k
  FROM dpobj.train('regress_bd.orders', 'expmech', ARRAY['a', 'b'], 'y', 1, 1e-6) m;
SELECT (m).mechanism, (m).params->'rows_per_unit' AS k
  FROM dpobj.train('regress_bd.visits', 'expmech', ARRAY['a', 'b'], 'y', 1, 1e-6) m;
SELECT relation, budget_domain, spent_epsilon, remaining_epsilon FROM dpobj.my_budgets
 ORDER BY budget_domain NULLS LAST;
SELECT dpobj.runs_left('regress_bd.orders', 'expmech', 1, 1e-6) AS orders_runs,
       dpobj.runs_left('regress_bd.visits', 'expmech', 1, 1e-6) AS visits_runs;
-- the ledger names the member table read, the domain charged, and that
-- table's unit
SELECT relation, mechanism, epsilon, budget_domain, privacy_unit, rows_per_unit,
       budget_id = (SELECT id FROM dpobj.budgets WHERE budget_domain = 'regress_bd_customers'
                                                  AND rolid = 'regress_bd_alice'::regrole) AS domain_budget
  FROM dpobj.ledger WHERE relation LIKE 'regress_bd.%' ORDER BY id;
-- the third run on either member is refused, before the charge, naming the domain
SELECT * FROM regress.err($$SELECT dpobj.train('regress_bd.visits', 'expmech', ARRAY['a', 'b'], 'y', 1.5, 1e-6)$$);
SELECT * FROM regress.err($$SELECT dpobj.submit('regress_bd.orders', 'expmech', ARRAY['a', 'b'], 'y', 1.5, 1e-6)$$);
-- private evaluation charges the domain too
SELECT (e->'noise'->>'epsilon_used')::float8 AS epsilon_used
  FROM dpobj.evaluate('regress_bd.orders', ROW('forged', ARRAY[0, 0]::float8[], 1, 1, 1e-6, '{}')::dpobj.model,
                      ARRAY['a', 'b'], 'y', 0.5, 1e-6) e;
-- my_budgets: one row per budget; a member's name (text, no cast) finds the domain's
SELECT budget_domain, table_names, spent_epsilon, remaining_epsilon FROM dpobj.my_budgets
 WHERE 'regress_bd.orders' = ANY (table_names);
SELECT relation, table_names FROM dpobj.my_budgets WHERE 'regress_bd.other' = ANY (table_names);
SELECT * FROM regress.err($$SELECT dpobj.train('regress_bd.orders', 'expmech', ARRAY['a', 'b'], 'y', 0.6, 1e-6)$$);
-- the table outside the domain keeps its own budget
SELECT spent_epsilon FROM dpobj.my_budgets WHERE relation = 'regress_bd.other'::regclass;
RESET ROLE;
SET ROLE regress_bd_bob;
-- bob sees his budget only, not alice's
SELECT budget_domain, rolid, granted_epsilon FROM dpobj.budgets ORDER BY id;
SELECT count(*) AS alices_rows FROM dpobj.ledger WHERE rolname = 'regress_bd_alice';
RESET ROLE;
CREATE ROLE regress_bd_carol;
SET ROLE regress_bd_carol;
-- no budget on the domain: refused, free, naming the domain
SELECT * FROM regress.err($$SELECT dpobj.train('regress_bd.visits', 'expmech', ARRAY['a', 'b'], 'y', 1, 1e-6)$$);
SELECT dpobj.runs_left('regress_bd.visits', 'expmech', 1, 1e-6) AS runs;
-- and no member's protection is visible to it
SELECT count(*) AS visible_protections FROM dpobj.protected_tables WHERE relid::text LIKE 'regress_bd.%';
RESET ROLE;
DROP ROLE regress_bd_carol;

-- ---- the ledger stays append-only --------------------------------------------
SELECT * FROM regress.err($$UPDATE dpobj.ledger SET budget_domain = NULL WHERE relation = 'regress_bd.orders'$$);

-- ---- revoke, leave, unprotect, DROP TABLE, drop ------------------------------
SET ROLE regress_bd_owner;
SELECT granted_epsilon, spent_epsilon FROM dpobj.revoke_domain_budget('regress_bd_customers', 'regress_bd_alice');
-- a domain with members cannot be dropped; only its owner drops it
SELECT * FROM regress.err($$SELECT dpobj.drop_budget_domain('regress_bd_customers')$$);
RESET ROLE;
SET ROLE regress_bd_admin;
SELECT * FROM regress.err($$SELECT dpobj.drop_budget_domain('regress_bd_customers')$$);
RESET ROLE;
SET ROLE regress_bd_owner;
-- leaving: the table has no budget at all until one is granted on it
SELECT dpobj.set_budget_domain('regress_bd.orders', NULL);
SELECT dpobj.set_budget_domain('regress_bd.orders', NULL);
RESET ROLE;
SET ROLE regress_bd_bob;
SELECT * FROM regress.err($$SELECT dpobj.train('regress_bd.orders', 'expmech', ARRAY['a', 'b'], 'y', 0.1, 1e-6)$$);
SELECT relation, budget_domain, domain_tables FROM dpobj.my_budgets;
RESET ROLE;
SET ROLE regress_bd_owner;
-- unprotect takes a member out with its protection
SELECT dpobj.unprotect('regress_bd.visits');
SELECT dpobj.drop_budget_domain('regress_bd_customers');
SELECT dpobj.drop_budget_domain('regress_bd_customers');
RESET ROLE;
-- the budgets went with it; the ledger keeps every charge and its domain
SELECT count(*) AS domain_budgets FROM dpobj.budgets WHERE budget_domain = 'regress_bd_customers';
SELECT relation, rolname, budget_domain FROM dpobj.ledger
 WHERE budget_domain = 'regress_bd_customers' ORDER BY id;
SET ROLE regress_bd_owner;
-- DROP TABLE of a member: the membership goes with the table, the
-- domain's budgets stay
SELECT dpobj.protect('regress_bd.visits', 'cust', 3, 'regress_bd_second');
SELECT granted_epsilon FROM dpobj.grant_domain_budget('regress_bd_second', 'regress_bd_alice', 1, 0);
DROP TABLE regress_bd.visits;
SELECT count(*) AS members FROM dpobj.protected_tables WHERE budget_domain = 'regress_bd_second';
SELECT count(*) AS budgets FROM dpobj.budgets WHERE budget_domain = 'regress_bd_second';
SELECT dpobj.drop_budget_domain('regress_bd_second');
SELECT dpobj.unprotect('regress_bd.orders');
SELECT dpobj.unprotect('regress_bd.rowlevel');
SELECT dpobj.unprotect('regress_bd.other');
RESET ROLE;
SET ROLE regress_bd_owner2;
SELECT dpobj.unprotect('regress_bd.third');
RESET ROLE;

-- ---- agreement: a table of another owner joins ------------------------------------
SET dpobj.max_self_grant_epsilon = 1;
SET ROLE regress_bd_owner;
SELECT dpobj.create_budget_domain('regress_bd_agreed');
CREATE TABLE regress_bd.first (cust int, a float8, b float8, y boolean);
SELECT dpobj.protect('regress_bd.first', 'cust', 1, 'regress_bd_agreed');
-- it owns every member: its grant to itself is not capped
SELECT granted_epsilon FROM dpobj.grant_domain_budget('regress_bd_agreed', 'regress_bd_owner', 5, 0);
SELECT granted_epsilon FROM dpobj.grant_domain_budget('regress_bd_agreed', 'regress_bd_alice', 2, 0);
RESET ROLE;
SET ROLE regress_bd_owner2;
CREATE TABLE regress_bd.fourth (cust int, a float8, b float8, y boolean);
SELECT dpobj.protect('regress_bd.fourth', 'cust', 1);
-- not allowed yet: refused, and nothing of the domain is visible to it
SELECT * FROM regress.err($$SELECT dpobj.set_budget_domain('regress_bd.fourth', 'regress_bd_agreed', 'regress_bd_owner')$$);
SELECT count(*) AS visible_budgets FROM dpobj.budgets WHERE budget_domain = 'regress_bd_agreed';
-- only the domain's owner or dpobj_admin allows
SELECT * FROM regress.err($$SELECT dpobj.allow_budget_domain_member('regress_bd_agreed', 'regress_bd.fourth')$$);
RESET ROLE;
SET ROLE regress_bd_owner;
SELECT dpobj.allow_budget_domain_member('regress_bd_agreed', 'regress_bd.fourth');
SELECT dpobj.allow_budget_domain_member('regress_bd_agreed', 'regress_bd.fourth');
SELECT * FROM regress.err($$SELECT dpobj.allow_budget_domain_member('regress_bd_agreed', 'regress_bd.unprotected')$$);
SELECT * FROM regress.err($$SELECT dpobj.allow_budget_domain_member('regress_bd_nope', 'regress_bd.fourth')$$);
SELECT * FROM regress.err($$SELECT dpobj.allow_budget_domain_member(NULL, 'regress_bd.fourth')$$);
RESET ROLE;
SET ROLE regress_bd_owner2;
-- before joining, the table's owner sees the allowance and who holds
-- budgets on the domain
SELECT budget_domain, relid, table_owner, allowed_by FROM dpobj.budget_domain_allowed;
SELECT rolid, granted_epsilon FROM dpobj.budgets WHERE budget_domain = 'regress_bd_agreed' ORDER BY rolid::text;
-- joining needs the domain's owner named: the two-argument form, protect()
-- and another name are refused
SELECT * FROM regress.err($$SELECT dpobj.set_budget_domain('regress_bd.fourth', 'regress_bd_agreed')$$);
SELECT * FROM regress.err($$SELECT dpobj.protect('regress_bd.fourth', 'cust', 1, 'regress_bd_agreed')$$);
SELECT * FROM regress.err($$SELECT dpobj.set_budget_domain('regress_bd.fourth', 'regress_bd_agreed', 'regress_bd_alice')$$);
SELECT * FROM regress.err($$SELECT dpobj.set_budget_domain('regress_bd.fourth', 'regress_bd_agreed', NULL)$$);
-- the domain owner's self-grant above the cap was uncapped only because it
-- owned every member: the join is refused while it stands
SELECT * FROM regress.err($$SELECT dpobj.set_budget_domain('regress_bd.fourth', 'regress_bd_agreed', 'regress_bd_owner')$$);
RESET ROLE;
SET ROLE regress_bd_owner;
SELECT granted_epsilon FROM dpobj.revoke_domain_budget('regress_bd_agreed', 'regress_bd_owner');
RESET ROLE;
SET ROLE regress_bd_owner2;
SELECT dpobj.set_budget_domain('regress_bd.fourth', 'regress_bd_agreed', 'regress_bd_owner');
SELECT relid, budget_domain FROM dpobj.protected_tables WHERE relid = 'regress_bd.fourth'::regclass;
RESET ROLE;
SET ROLE regress_bd_owner;
-- now it does not own every member: its grants to itself are capped
SELECT * FROM regress.err($$SELECT dpobj.grant_domain_budget('regress_bd_agreed', 'regress_bd_owner', 5, 0)$$);
SELECT granted_epsilon FROM dpobj.grant_domain_budget('regress_bd_agreed', 'regress_bd_owner', 0.5, 0);
-- withdrawing the allowance keeps the member; it stops a later join
SELECT dpobj.disallow_budget_domain_member('regress_bd_agreed', 'regress_bd.fourth');
SELECT dpobj.disallow_budget_domain_member('regress_bd_agreed', 'regress_bd.fourth');
RESET ROLE;
SET ROLE regress_bd_owner2;
SELECT dpobj.set_budget_domain('regress_bd.fourth', NULL);
SELECT * FROM regress.err($$SELECT dpobj.set_budget_domain('regress_bd.fourth', 'regress_bd_agreed', 'regress_bd_owner')$$);
RESET ROLE;
-- an allowance holds for the table's owner of that time only
SET ROLE regress_bd_owner;
SELECT dpobj.allow_budget_domain_member('regress_bd_agreed', 'regress_bd.fourth');
RESET ROLE;
ALTER TABLE regress_bd.fourth OWNER TO regress_bd_bob;
SET ROLE regress_bd_bob;
SELECT * FROM regress.err($$SELECT dpobj.set_budget_domain('regress_bd.fourth', 'regress_bd_agreed', 'regress_bd_owner')$$);
SELECT dpobj.unprotect('regress_bd.fourth');
RESET ROLE;
-- the allowance went with the protection
SELECT count(*) AS allowances FROM dpobj.budget_domain_allowed;
SET ROLE regress_bd_owner;
SELECT dpobj.unprotect('regress_bd.first');
SELECT dpobj.drop_budget_domain('regress_bd_agreed');
DROP TABLE regress_bd.first;
RESET ROLE;
DROP TABLE regress_bd.fourth;
RESET dpobj.max_self_grant_epsilon;

DROP SCHEMA regress_bd CASCADE;
REVOKE dpobj_admin FROM regress_bd_admin;
DROP ROLE regress_bd_owner;
DROP ROLE regress_bd_owner2;
DROP ROLE regress_bd_alice;
DROP ROLE regress_bd_bob;
DROP ROLE regress_bd_admin;
