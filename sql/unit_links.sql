-- Privacy units through foreign keys (docs/PRIVACY.md "Units through foreign
-- keys", src/protected/unitlinks.c): order_lines reach their customer through
-- order_lines -> orders -> customers.  The declaration and its refusals, runs
-- on the linked table charged once to the unit table's budget domain, rows
-- whose path ends in NULL dropped, a broken link refused before the charge.
CREATE SCHEMA regress_ul;
GRANT USAGE ON SCHEMA regress_ul TO PUBLIC;
CREATE ROLE regress_ul_owner;
CREATE ROLE regress_ul_other;
CREATE ROLE regress_ul_alice;
GRANT CREATE ON SCHEMA regress_ul TO regress_ul_owner, regress_ul_other;

SET ROLE regress_ul_owner;
CREATE TABLE regress_ul.customers (id int PRIMARY KEY, segment text);
CREATE TABLE regress_ul.orders (id int PRIMARY KEY,
                                customer_id int REFERENCES regress_ul.customers);
CREATE TABLE regress_ul.order_lines (order_id int REFERENCES regress_ul.orders,
                                     amount float8, big boolean);
-- 30 customers, 3 orders each, 4 lines per order: 12 lines per customer;
-- 10 orders without a customer and 40 lines without an order (a NULL path)
INSERT INTO regress_ul.customers SELECT c, 's' || c % 3 FROM generate_series(1, 30) c;
INSERT INTO regress_ul.orders SELECT o, 1 + o % 30 FROM generate_series(1, 90) o;
INSERT INTO regress_ul.orders SELECT o, NULL FROM generate_series(91, 100) o;
INSERT INTO regress_ul.order_lines
SELECT 1 + l % 100, (l % 10)::float8, l % 3 = 0 FROM generate_series(1, 400) l;
INSERT INTO regress_ul.order_lines SELECT NULL, 1, true FROM generate_series(1, 40);
REVOKE ALL ON regress_ul.customers, regress_ul.orders, regress_ul.order_lines FROM PUBLIC;
SELECT dpobj.create_budget_domain('regress_ul_shop');
SELECT dpobj.protect('regress_ul.customers', privacy_unit => 'id', max_rows_per_unit => 1,
                     budget_domain => 'regress_ul_shop');
SELECT dpobj.declare_domain('regress_ul.order_lines', 'amount', 0, 10);

-- ---- refusals (nothing is written) ----------------------------------------
-- not a foreign key (order_lines does not reference customers)
SELECT * FROM regress.err($$SELECT dpobj.link_unit('regress_ul.order_lines', ARRAY['regress_ul.customers']::regclass[], 4)$$);
-- the path does not end at a table with a privacy unit (orders is not protected)
SELECT * FROM regress.err($$SELECT dpobj.link_unit('regress_ul.order_lines', ARRAY['regress_ul.orders']::regclass[], 4)$$);
-- a cycle
SELECT * FROM regress.err($$SELECT dpobj.link_unit('regress_ul.order_lines', ARRAY['regress_ul.orders', 'regress_ul.order_lines']::regclass[], 4)$$);
-- bad arguments
SELECT * FROM regress.err($$SELECT dpobj.link_unit('regress_ul.order_lines', '{}'::regclass[], 4)$$);
SELECT * FROM regress.err($$SELECT dpobj.link_unit('regress_ul.order_lines', ARRAY['regress_ul.orders', 'regress_ul.customers']::regclass[], 0)$$);
SELECT * FROM regress.err($$SELECT dpobj.link_unit('regress_ul.order_lines', ARRAY['regress_ul.orders', NULL]::regclass[], 4)$$);
-- not unique: the path's direction from one order to its many lines
SELECT * FROM regress.err($$SELECT dpobj.link_unit('regress_ul.orders', ARRAY['regress_ul.order_lines', 'regress_ul.customers']::regclass[], 4)$$);
-- not validated
CREATE TABLE regress_ul.accounts (id int PRIMARY KEY, customer_id int REFERENCES regress_ul.customers);
CREATE TABLE regress_ul.payments (account_id int, x float8);
ALTER TABLE regress_ul.payments ADD CONSTRAINT payments_account FOREIGN KEY (account_id)
      REFERENCES regress_ul.accounts NOT VALID;
SELECT * FROM regress.err($$SELECT dpobj.link_unit('regress_ul.payments', ARRAY['regress_ul.accounts', 'regress_ul.customers']::regclass[], 4)$$);
-- two foreign keys between the same tables: ambiguous
ALTER TABLE regress_ul.accounts ADD COLUMN referrer int REFERENCES regress_ul.customers;
ALTER TABLE regress_ul.payments VALIDATE CONSTRAINT payments_account;
SELECT * FROM regress.err($$SELECT dpobj.link_unit('regress_ul.payments', ARRAY['regress_ul.accounts', 'regress_ul.customers']::regclass[], 4)$$);
RESET ROLE;
-- not the owner: of the linked table, or of a table on the path
SET ROLE regress_ul_other;
CREATE TABLE regress_ul.notes (order_id int, x float8);
SELECT * FROM regress.err($$SELECT dpobj.link_unit('regress_ul.order_lines', ARRAY['regress_ul.orders', 'regress_ul.customers']::regclass[], 4)$$);
SELECT * FROM regress.err($$SELECT dpobj.link_unit('regress_ul.notes', ARRAY['regress_ul.orders', 'regress_ul.customers']::regclass[], 4)$$);
RESET ROLE;
SELECT count(*) AS links FROM dpobj.unit_links;

-- ---- the declaration ----------------------------------------------------
SET ROLE regress_ul_owner;
SELECT dpobj.link_unit('regress_ul.order_lines', ARRAY['regress_ul.orders', 'regress_ul.customers']::regclass[], 4);
-- again: no change; a new k: a change
SELECT dpobj.link_unit('regress_ul.order_lines', ARRAY['regress_ul.orders', 'regress_ul.customers']::regclass[], 4);
SELECT dpobj.link_unit('regress_ul.order_lines', ARRAY['regress_ul.orders', 'regress_ul.customers']::regclass[], 12);
-- public: the path, the constraint of each hop
SELECT relid, path, via FROM dpobj.unit_links;
SELECT relid, privacy_unit, max_rows_per_unit, budget_domain FROM dpobj.protected_tables
 WHERE relid::text LIKE 'regress_ul.%' ORDER BY relid::text;
-- orders linked too; a path ending at a linked table is refused (its unit column is
-- another table's)
SELECT dpobj.link_unit('regress_ul.orders', ARRAY['regress_ul.customers']::regclass[], 3);
CREATE TABLE regress_ul.returns (order_id int REFERENCES regress_ul.orders, x float8);
SELECT * FROM regress.err($$SELECT dpobj.link_unit('regress_ul.returns', ARRAY['regress_ul.orders']::regclass[], 2)$$);
SELECT dpobj.unprotect('regress_ul.orders');
-- a unit column of its own is refused while linked
SELECT * FROM regress.err($$SELECT dpobj.protect('regress_ul.order_lines', privacy_unit => 'order_id', max_rows_per_unit => 2)$$);
SELECT 1 FROM dpobj.grant_domain_budget('regress_ul_shop', 'regress_ul_alice', 1e7, 0.001);
RESET ROLE;

-- ---- runs: each charged once to the domain --------------------------------
SET ROLE regress_ul_alice;
-- no SELECT on any of the three tables
SELECT * FROM regress.err($$SELECT count(*) FROM regress_ul.orders$$);
-- the count at a huge epsilon: 30 customers x 12 lines; the 40 lines without
-- an order and the 40 lines of orders without a customer are dropped
SELECT statistic, round(estimate) AS estimate
  FROM dpobj.aggregate('regress_ul.order_lines', '[{"stat": "count"}, {"stat": "sum", "column": "amount"}]', 1e6, 1e-6);
SELECT spent_epsilon FROM dpobj.my_budgets;
-- train(): one charge more
SELECT dpobj.model_kind(m)
  FROM dpobj.train('regress_ul.order_lines', 'logistic', ARRAY['amount'], 'big', 1, 1e-6) m;
SELECT spent_epsilon FROM dpobj.my_budgets;
-- describe(): one charge more
SELECT count(*) > 0 AS described FROM dpobj.describe('regress_ul.order_lines', 1);
SELECT spent_epsilon FROM dpobj.my_budgets;
RESET ROLE;
-- the ledger: the linked table read, the domain charged, the unit's column and k
SELECT relation, budget_domain, privacy_unit, rows_per_unit, epsilon FROM dpobj.ledger
 WHERE relation LIKE 'regress_ul.%' ORDER BY id;

-- ---- k bounds each unit's rows after the join ------------------------------
SET ROLE regress_ul_owner;
SELECT dpobj.link_unit('regress_ul.order_lines', ARRAY['regress_ul.orders', 'regress_ul.customers']::regclass[], 5);
RESET ROLE;
SET ROLE regress_ul_alice;
-- 30 customers x 5 of their 12 lines (which 5 is random: the sum is not shown)
SELECT statistic, round(estimate) AS estimate
  FROM dpobj.aggregate('regress_ul.order_lines', '[{"stat": "count"}, {"stat": "sum", "column": "amount"}]', 1e6, 1e-6)
 WHERE statistic = 'count';
RESET ROLE;

-- ---- a synthetic twin of the linked table, with a column of its unit table ----
-- its rows are order_lines' (at most k of a customer's), "customers.segment" read
-- through the path with the domain declared on customers; the twin keeps the name
SET ROLE regress_ul_owner;
SELECT dpobj.declare_domain('regress_ul.customers', 'segment', ARRAY['s0', 's1', 's2']);
RESET ROLE;
GRANT CREATE ON SCHEMA regress_ul TO regress_ul_alice;
SET ROLE regress_ul_alice;
CREATE TEMP TABLE ul_spent AS SELECT spent_epsilon FROM dpobj.my_budgets;
-- refused before the charge: a path column without a declared domain, or none
SELECT * FROM regress.err($$SELECT dpobj.synthesize('regress_ul.order_lines', 'regress_ul.twin', 1, 1e-6, ARRAY['amount', 'orders.customer_id'])$$);
SELECT * FROM regress.err($$SELECT dpobj.synthesize('regress_ul.order_lines', 'regress_ul.twin', 1, 1e-6, ARRAY['amount', 'customers.nope'])$$);
SELECT m.spent_epsilon = s.spent_epsilon AS nothing_charged FROM dpobj.my_budgets m, ul_spent s;
CREATE TEMP TABLE ul_twin AS
SELECT * FROM dpobj.synthesize('regress_ul.order_lines', 'regress_ul.twin', 1, 1e-6,
                               ARRAY['amount', 'customers.segment']);
SELECT target_table, model_name FROM ul_twin;
SELECT m.spent_epsilon - s.spent_epsilon AS charged FROM dpobj.my_budgets m, ul_spent s;
SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute
 WHERE attrelid = 'regress_ul.twin'::regclass AND attnum > 0 ORDER BY attnum;
-- the rows the result names; only declared levels and values within the bounds
SELECT count(*) = (SELECT rows FROM ul_twin) AS counted,
       count(*) FILTER (WHERE "customers.segment" NOT IN ('s0', 's1', 's2')) AS outside_levels,
       count(*) FILTER (WHERE amount < 0 OR amount > 10) AS outside_bounds
  FROM regress_ul.twin;
-- "rows" fixes the count
SELECT rows FROM dpobj.synthesize('regress_ul.order_lines', 'regress_ul.twin50', 1, 1e-6,
                                  ARRAY['customers.segment', 'amount'], '{"rows": 50}');
SELECT count(*), count(*) FILTER (WHERE "customers.segment" NOT IN ('s0', 's1', 's2')) AS outside_levels
  FROM regress_ul.twin50;
SELECT m.spent_epsilon - s.spent_epsilon AS charged FROM dpobj.my_budgets m, ul_spent s;
DROP TABLE regress_ul.twin, regress_ul.twin50, ul_spent, ul_twin;
RESET ROLE;
REVOKE CREATE ON SCHEMA regress_ul FROM regress_ul_alice;
-- each twin charged once to the unit table's domain, as a run on order_lines
SELECT relation, budget_domain, privacy_unit, rows_per_unit, epsilon FROM dpobj.ledger
 WHERE relation = 'regress_ul.order_lines' AND mechanism = 'synthesize' ORDER BY id;

-- ---- both paths of the bounding on the joined rows ---------------------------
-- 2000 customers, 2 orders each, 3 lines per order: past dpobj.max_state_memory's least
-- value (64kB) the units are counted by sorting, within it in memory; k = 2 either way
SET ROLE regress_ul_owner;
CREATE TABLE regress_ul.members (id int PRIMARY KEY);
INSERT INTO regress_ul.members SELECT g FROM generate_series(1, 2000) g;
CREATE TABLE regress_ul.carts (id int PRIMARY KEY, member int REFERENCES regress_ul.members);
INSERT INTO regress_ul.carts SELECT g, 1 + g % 2000 FROM generate_series(1, 4000) g;
CREATE TABLE regress_ul.cart_lines (cart int REFERENCES regress_ul.carts, x float8);
INSERT INTO regress_ul.cart_lines SELECT 1 + g % 4000, g % 10 FROM generate_series(1, 12000) g;
REVOKE ALL ON regress_ul.members, regress_ul.carts, regress_ul.cart_lines FROM PUBLIC;
SELECT dpobj.protect('regress_ul.members', privacy_unit => 'id', max_rows_per_unit => 1,
                     budget_domain => 'regress_ul_shop');
SELECT dpobj.link_unit('regress_ul.cart_lines', ARRAY['regress_ul.carts', 'regress_ul.members']::regclass[], 2);
SELECT dpobj.declare_domain('regress_ul.cart_lines', 'x', 0, 10);
RESET ROLE;
SET dpobj.max_state_memory = '64kB';
SELECT dpobj.unit_counts(m.id, 2) <> 0 AS counted_in_memory
  FROM regress_ul.cart_lines l JOIN regress_ul.carts c ON c.id = l.cart
  JOIN regress_ul.members m ON m.id = c.member;
SET ROLE regress_ul_alice;
SELECT statistic, round(estimate) AS estimate
  FROM dpobj.aggregate('regress_ul.cart_lines', '[{"stat": "count"}, {"stat": "sum", "column": "x"}]', 1e6, 1e-6)
 WHERE statistic = 'count';
RESET ROLE;
RESET dpobj.max_state_memory;
SELECT dpobj.unit_counts(m.id, 2) <> 0 AS counted_in_memory
  FROM regress_ul.cart_lines l JOIN regress_ul.carts c ON c.id = l.cart
  JOIN regress_ul.members m ON m.id = c.member;
SET ROLE regress_ul_alice;
SELECT statistic, round(estimate) AS estimate
  FROM dpobj.aggregate('regress_ul.cart_lines', '[{"stat": "count"}, {"stat": "sum", "column": "x"}]', 1e6, 1e-6)
 WHERE statistic = 'count';
RESET ROLE;
SET ROLE regress_ul_owner;
SELECT dpobj.unprotect('regress_ul.cart_lines'), dpobj.unprotect('regress_ul.members');
RESET ROLE;

-- ---- a broken link is refused before the charge ------------------------------
ALTER TABLE regress_ul.orders DROP CONSTRAINT orders_customer_id_fkey;
SET ROLE regress_ul_alice;
SELECT * FROM regress.err($$SELECT * FROM dpobj.aggregate('regress_ul.order_lines', '[{"stat": "count"}, {"stat": "sum", "column": "amount"}]', 1, 1e-6)$$);
SELECT * FROM regress.err($$SELECT dpobj.train('regress_ul.order_lines', 'logistic', ARRAY['amount'], 'big', 1, 1e-6)$$);
SELECT spent_epsilon FROM dpobj.my_budgets;
RESET ROLE;
-- restored under the same name: runs again
ALTER TABLE regress_ul.orders ADD CONSTRAINT orders_customer_id_fkey
      FOREIGN KEY (customer_id) REFERENCES regress_ul.customers;
SET ROLE regress_ul_alice;
SELECT count(*) AS statistics FROM dpobj.aggregate('regress_ul.order_lines', '[{"stat": "count"}, {"stat": "sum", "column": "amount"}]', 1, 1e-6);
RESET ROLE;
-- a table of the path its owner cannot read: refused, nothing charged
SET ROLE regress_ul_owner;
REVOKE SELECT ON regress_ul.customers FROM regress_ul_owner;
SET ROLE regress_ul_alice;
SELECT * FROM regress.err($$SELECT * FROM dpobj.aggregate('regress_ul.order_lines', '[{"stat": "count"}, {"stat": "sum", "column": "amount"}]', 1, 1e-6)$$);
SET ROLE regress_ul_owner;
GRANT SELECT ON regress_ul.customers TO regress_ul_owner;
RESET ROLE;
-- a table of the path with another owner: refused, nothing charged
ALTER TABLE regress_ul.orders OWNER TO regress_ul_other;
SET ROLE regress_ul_alice;
SELECT * FROM regress.err($$SELECT * FROM dpobj.aggregate('regress_ul.order_lines', '[{"stat": "count"}, {"stat": "sum", "column": "amount"}]', 1, 1e-6)$$);
RESET ROLE;
ALTER TABLE regress_ul.orders OWNER TO regress_ul_owner;
-- the unit table leaves the domain: refused, nothing charged
SET ROLE regress_ul_owner;
SELECT dpobj.set_budget_domain('regress_ul.customers', NULL);
SET ROLE regress_ul_alice;
SELECT * FROM regress.err($$SELECT * FROM dpobj.aggregate('regress_ul.order_lines', '[{"stat": "count"}, {"stat": "sum", "column": "amount"}]', 1, 1e-6)$$);
SELECT spent_epsilon FROM dpobj.my_budgets;
RESET ROLE;

-- unprotecting removes the link
SET ROLE regress_ul_owner;
SELECT dpobj.unprotect('regress_ul.order_lines');
SELECT count(*) AS links FROM dpobj.unit_links;
SELECT dpobj.unprotect('regress_ul.customers');
SELECT dpobj.drop_budget_domain('regress_ul_shop');
RESET ROLE;
DROP SCHEMA regress_ul CASCADE;
DROP ROLE regress_ul_owner;
DROP ROLE regress_ul_other;
DROP ROLE regress_ul_alice;
