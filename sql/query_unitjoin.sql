-- Protected tables of one budget domain joined on their privacy units in private queries
-- (src/protected/unitjoin.c, sqljoin.c, units.c): accounts and cards carry the unit
-- customer_id of customers, each protected with a unit column of its own; a join ON
-- a.customer_id = c.id compiles into one run on the FROM table, its joined rows bounded
-- per unit by that table's k, its partners' columns "table.column" with their owners'
-- declared domains, charged once to the domain.  Everything else is refused before
-- any charge.  At epsilon 2000 per statistic the counts are exact (as in query_sql).
CREATE SCHEMA regress_uj;
CREATE ROLE regress_uj_ann;
GRANT USAGE ON SCHEMA regress_uj TO regress_uj_ann;
CREATE TABLE regress_uj.customers (id int PRIMARY KEY, segment text NOT NULL);
CREATE TABLE regress_uj.accounts (id int PRIMARY KEY, customer_id int NOT NULL, balance float8 NOT NULL,
                                  kind text NOT NULL);
CREATE TABLE regress_uj.cards (id int PRIMARY KEY, cust int NOT NULL, lim float8 NOT NULL);
-- 60 customers (3 segments); 150 accounts (2 or 3 each) and 10 more of customer 1 (12:
-- more than accounts' k = 3); 30 cards, one each of customers 2 to 31
INSERT INTO regress_uj.customers SELECT c, 'seg' || (c % 3) FROM generate_series(1, 60) c;
INSERT INTO regress_uj.accounts
SELECT a, 1 + a % 60, (a % 10)::float8, CASE WHEN a % 2 = 0 THEN 'chk' ELSE 'sav' END FROM generate_series(1, 150) a;
INSERT INTO regress_uj.accounts SELECT a, 1, 0, 'chk' FROM generate_series(1001, 1010) a;
INSERT INTO regress_uj.cards SELECT d, 1 + d % 60, 5 FROM generate_series(1, 30) d;
SELECT dpobj.create_budget_domain('regress_uj_bank');
SELECT dpobj.protect('regress_uj.customers', privacy_unit => 'id', max_rows_per_unit => 1,
                     budget_domain => 'regress_uj_bank');
SELECT dpobj.protect('regress_uj.accounts', privacy_unit => 'customer_id', max_rows_per_unit => 3,
                     budget_domain => 'regress_uj_bank');
SELECT dpobj.protect('regress_uj.cards', privacy_unit => 'cust', max_rows_per_unit => 2,
                     budget_domain => 'regress_uj_bank');
SELECT dpobj.declare_domain('regress_uj.customers', 'segment', ARRAY['seg0', 'seg1', 'seg2']);
SELECT dpobj.declare_domain('regress_uj.accounts', 'balance', 0, 10);
SELECT dpobj.declare_domain('regress_uj.accounts', 'kind', ARRAY['chk', 'sav']);
SELECT dpobj.declare_domain('regress_uj.cards', 'lim', 0, 10);
SELECT granted_epsilon FROM dpobj.grant_domain_budget('regress_uj_bank', 'regress_uj_ann', 1000000, 0.001);
-- unfit partners: another domain, row level, a bigint unit, row-level security, a linked
-- table; and two more members for the limit of 3 partners
CREATE TABLE regress_uj.other (id int PRIMARY KEY, customer_id int NOT NULL);
SELECT dpobj.protect('regress_uj.other', privacy_unit => 'customer_id', max_rows_per_unit => 1);
CREATE TABLE regress_uj.rowlevel (id int PRIMARY KEY);
SELECT dpobj.protect('regress_uj.rowlevel');
CREATE TABLE regress_uj.bigs (id int PRIMARY KEY, cust bigint NOT NULL);
SELECT dpobj.protect('regress_uj.bigs', privacy_unit => 'cust', max_rows_per_unit => 1,
                     budget_domain => 'regress_uj_bank');
CREATE TABLE regress_uj.rls (id int PRIMARY KEY, cust int NOT NULL);
ALTER TABLE regress_uj.rls ENABLE ROW LEVEL SECURITY;
SELECT dpobj.protect('regress_uj.rls', privacy_unit => 'cust', max_rows_per_unit => 1,
                     budget_domain => 'regress_uj_bank');
CREATE TABLE regress_uj.loans (id int PRIMARY KEY, customer_id int NOT NULL REFERENCES regress_uj.customers);
SELECT dpobj.link_unit('regress_uj.loans', ARRAY['regress_uj.customers']::regclass[], 2);
CREATE TABLE regress_uj.m1 (u int NOT NULL);
CREATE TABLE regress_uj.m2 (u int NOT NULL);
SELECT dpobj.protect('regress_uj.m1', privacy_unit => 'u', max_rows_per_unit => 1, budget_domain => 'regress_uj_bank');
SELECT dpobj.protect('regress_uj.m2', privacy_unit => 'u', max_rows_per_unit => 1, budget_domain => 'regress_uj_bank');
-- the truth (customer 1, seg1, has 12 accounts: its run keeps 3)
SELECT c.segment, count(*), sum(a.balance) FROM regress_uj.accounts a
  JOIN regress_uj.customers c ON c.id = a.customer_id GROUP BY 1 ORDER BY 1;

SET ROLE regress_uj_ann;
SET dpobj.query_epsilon = 4000;
SELECT count(*) AS ledger_before FROM dpobj.ledger \gset
-- accounts' k = 3 after the join: seg1 counts 50 - 2 + 3 = 51 (customer 1's 12 accounts, of
-- balance 0, cut to 3)
SELECT c.segment, count(*), round(sum(a.balance)) AS sum FROM regress_uj.accounts a
  JOIN regress_uj.customers c ON c.id = a.customer_id GROUP BY 1 ORDER BY 1;
-- in WHERE, a filter on the partner's column, grouped by the FROM table's
SELECT a.kind, count(*) FROM regress_uj.accounts a, regress_uj.customers c
 WHERE a.customer_id = c.id AND c.segment = 'seg2' GROUP BY 1 ORDER BY 1;
-- FROM customers: its k = 1 bounds the joined rows, one account per customer
SELECT c.segment, count(*) FROM regress_uj.customers c
  JOIN regress_uj.accounts a ON a.customer_id = c.id GROUP BY 1 ORDER BY 1;
-- LEFT JOIN: every customer, its card's columns NULL without one
SELECT c.segment, count(*), count(d.lim) FROM regress_uj.customers c
  LEFT JOIN regress_uj.cards d ON d.cust = c.id GROUP BY 1 ORDER BY 1;
-- three tables, each partner joined to the FROM table's unit; distinct units
SELECT c.segment, count(*), count(DISTINCT a.customer_id) FROM regress_uj.accounts a
  JOIN regress_uj.customers c ON c.id = a.customer_id JOIN regress_uj.cards d ON d.cust = a.customer_id
 GROUP BY 1 ORDER BY 1;
-- the partner's unit column counts the same distinct units (equal on every joined row)
SELECT c.segment, count(DISTINCT c.id) FROM regress_uj.accounts a
  JOIN regress_uj.customers c ON c.id = a.customer_id GROUP BY 1 ORDER BY 1;
SELECT count(*) - :ledger_before AS charges FROM dpobj.ledger;
SELECT relation, rows_per_unit, budget_domain FROM dpobj.ledger ORDER BY id DESC LIMIT 6;
EXPLAIN (COSTS OFF) SELECT c.segment, sum(a.balance) FROM regress_uj.accounts a
  JOIN regress_uj.customers c ON c.id = a.customer_id GROUP BY 1;
-- the run holds the partner's protection (units.c's lock, class 0x4451) to the transaction's
-- end: protect, unprotect and set_budget_domain on cards wait for it
BEGIN;
SELECT count(*) FROM regress_uj.customers c JOIN regress_uj.cards d ON d.cust = c.id;
SELECT mode, granted FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()
   AND classid = 'regress_uj.cards'::regclass::oid AND objsubid = 17489;
COMMIT;

-- refused before any charge (0A000 naming the construct)
SELECT count(*) AS ledger_before FROM dpobj.ledger \gset
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_uj.accounts a JOIN regress_uj.customers c ON c.id = a.id$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_uj.accounts a JOIN regress_uj.customers c ON c.id = a.customer_id AND c.segment = 'seg1'$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_uj.accounts a JOIN regress_uj.customers c ON c.id > a.customer_id$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_uj.accounts a CROSS JOIN regress_uj.customers c$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_uj.accounts a RIGHT JOIN regress_uj.customers c ON c.id = a.customer_id$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_uj.accounts a JOIN regress_uj.accounts b ON b.customer_id = a.customer_id$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_uj.accounts a JOIN regress_uj.customers c ON c.id = a.customer_id
  JOIN regress_uj.cards d ON d.cust = c.id$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_uj.accounts a JOIN regress_uj.other o ON o.customer_id = a.customer_id$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_uj.accounts a JOIN regress_uj.rowlevel r ON r.id = a.customer_id$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_uj.accounts a JOIN regress_uj.bigs b ON b.cust = a.customer_id$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_uj.accounts a JOIN regress_uj.rls r ON r.cust = a.customer_id$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_uj.loans l JOIN regress_uj.accounts a ON a.customer_id = l.customer_id$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_uj.accounts a JOIN regress_uj.customers c ON c.id = a.customer_id
  JOIN regress_uj.cards d ON d.cust = a.customer_id JOIN regress_uj.m1 ON m1.u = a.customer_id
  JOIN regress_uj.m2 ON m2.u = a.customer_id$$);
-- by LEFT JOIN the partner's unit is NULL without a match: its distinct count is not the units'
SELECT sqlstate, message FROM regress.err($$SELECT count(DISTINCT d.cust) FROM regress_uj.customers c LEFT JOIN regress_uj.cards d ON d.cust = c.id$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(DISTINCT d.id) FROM regress_uj.customers c JOIN regress_uj.cards d ON d.cust = c.id$$);
-- aggregate()'s option, as the run checks it again
SELECT sqlstate, message FROM regress.err(format($$SELECT * FROM dpobj.aggregate('regress_uj.accounts', '[{"stat": "count"}]', 1, 0,
       '{}', '{"lookups": [{"table": %s, "unit": true, "on": [["id", "id"]]}]}')$$, 'regress_uj.customers'::regclass::oid));
SELECT sqlstate, message FROM regress.err(format($$SELECT * FROM dpobj.aggregate('regress_uj.accounts', '[{"stat": "count"}]', 1, 0,
       '{}', '{"lookups": [{"table": %s, "unit": true, "bounded": [], "on": [["customer_id", "id"]]}]}')$$, 'regress_uj.customers'::regclass::oid));
SELECT count(*) - :ledger_before AS charges FROM dpobj.ledger;
-- the same option: a group of the partner's declared levels
SELECT group_values, estimate FROM dpobj.aggregate('regress_uj.accounts', '[{"stat": "count"}]', 2000, 0,
       ARRAY['customers.segment'], format('{"lookups": [{"table": %s, "unit": true, "on": [["customer_id", "id"]]}]}',
       'regress_uj.customers'::regclass::oid)::jsonb) ORDER BY group_values::text;
-- a prepared join re-checked at each execution: cards out of the domain, refused uncharged
PREPARE q AS SELECT count(*) FROM regress_uj.accounts a JOIN regress_uj.cards d ON d.cust = a.customer_id;
EXECUTE q;
RESET ROLE;
SELECT dpobj.set_budget_domain('regress_uj.cards', NULL);
SET ROLE regress_uj_ann;
SELECT count(*) AS ledger_before FROM dpobj.ledger \gset
SELECT sqlstate, message FROM regress.err('EXECUTE q');
SELECT count(*) - :ledger_before AS charges FROM dpobj.ledger;
DEALLOCATE q;
RESET dpobj.query_epsilon;
RESET ROLE;
DROP SCHEMA regress_uj CASCADE;
SELECT dpobj.drop_budget_domain('regress_uj_bank');
DROP OWNED BY regress_uj_ann;
DROP ROLE regress_uj_ann;
