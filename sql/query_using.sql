-- More of the SQL a DP SQL suite asks, in private queries (src/protected/sqljoin.c):
-- JOIN ... USING and NATURAL JOIN, compiled as the same join written with ON (the
-- merged column the left input's), refused wherever the ON form is; a lookup table
-- joined twice (TPC-H Q7's nation n1, nation n2), the second under its alias.  Each
-- accepted query compiles to its ON twin's plan, or checks against the truth; nothing
-- charged when refused.  date - date (days) in WHERE and in an aggregate, evaluated by
-- dpobj (an infinite date: NULL, where PostgreSQL would fail).
CREATE SCHEMA regress_qu;
CREATE ROLE regress_qu_ann;
GRANT USAGE ON SCHEMA regress_qu TO regress_qu_ann;
CREATE TABLE regress_qu.customers (cust_id int PRIMARY KEY, plan text NOT NULL, nkey int NOT NULL);
CREATE TABLE regress_qu.orders (order_id int PRIMARY KEY, cust_id int NOT NULL REFERENCES regress_qu.customers,
                                region_id int, amount float8 NOT NULL, ship_nkey int,
                                ordered date NOT NULL, shipped date);
CREATE TABLE regress_qu.lines (line_id int PRIMARY KEY, order_id int NOT NULL REFERENCES regress_qu.orders,
                               qty float8 NOT NULL);
CREATE TABLE regress_qu.cards (card_id int PRIMARY KEY, cust_id int NOT NULL, lim float8 NOT NULL);
CREATE TABLE regress_qu.regions (region_id int PRIMARY KEY, region_name text NOT NULL);
CREATE TABLE regress_qu.zones (region_id int PRIMARY KEY, amount float8);
CREATE TABLE regress_qu.nations (nkey int PRIMARY KEY, nname text NOT NULL, w float8);
INSERT INTO regress_qu.customers SELECT c, CASE WHEN c % 2 = 0 THEN 'pro' ELSE 'free' END, c % 3 FROM generate_series(1, 40) c;
INSERT INTO regress_qu.orders
SELECT o, 1 + o % 40, CASE WHEN o % 10 = 0 THEN NULL ELSE 1 + o % 3 END, (o % 10)::float8, o % 4,
       date '2024-01-01' + o, CASE WHEN o % 7 = 0 THEN NULL ELSE date '2024-01-01' + o + o % 5 END
  FROM generate_series(1, 120) o;
UPDATE regress_qu.orders SET shipped = 'infinity' WHERE order_id = 1;
INSERT INTO regress_qu.lines SELECT l, 1 + l % 120, 1 FROM generate_series(1, 240) l;
INSERT INTO regress_qu.cards SELECT d, 1 + d % 40, 5 FROM generate_series(1, 30) d;
INSERT INTO regress_qu.regions VALUES (1, 'north'), (2, 'south'), (3, 'east');
INSERT INTO regress_qu.zones VALUES (1, 1), (2, 2), (3, 3);
INSERT INTO regress_qu.nations VALUES (0, 'fr', 1), (1, 'de', 2), (2, 'it', 3);
SELECT dpobj.create_budget_domain('regress_qu_shop');
SELECT dpobj.protect('regress_qu.customers', privacy_unit => 'cust_id', max_rows_per_unit => 1,
                     budget_domain => 'regress_qu_shop');
SELECT dpobj.protect('regress_qu.cards', privacy_unit => 'cust_id', max_rows_per_unit => 2,
                     budget_domain => 'regress_qu_shop');
SELECT dpobj.link_unit('regress_qu.orders', ARRAY['regress_qu.customers']::regclass[], 10);
SELECT dpobj.link_unit('regress_qu.lines', ARRAY['regress_qu.orders', 'regress_qu.customers']::regclass[], 20);
SELECT dpobj.declare_domain('regress_qu.customers', 'plan', ARRAY['free', 'pro']);
SELECT dpobj.declare_domain('regress_qu.orders', 'amount', 0, 10);
SELECT dpobj.declare_domain('regress_qu.cards', 'lim', 0, 10);
SELECT granted_epsilon FROM dpobj.grant_domain_budget('regress_qu_shop', 'regress_qu_ann', 1000000, 0.001);
GRANT SELECT ON regress_qu.regions, regress_qu.zones, regress_qu.nations TO regress_qu_ann;
-- a query's compiled plan (EXPLAIN VERBOSE, the OIDs and the scan's alias masked) and its ON twin's
CREATE FUNCTION regress_qu.plan(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE r text;
BEGIN
    FOR r IN EXECUTE 'EXPLAIN (COSTS OFF, VERBOSE) ' || q LOOP
        RETURN NEXT regexp_replace(regexp_replace(r, '"(relid|table)": [0-9]+', '"\1": N', 'g'), 'query_run \w+$', 'query_run');
    END LOOP;
END $$;
CREATE FUNCTION regress_qu.same(q text, twin text) RETURNS boolean LANGUAGE sql AS $$
    SELECT array(SELECT regress_qu.plan(q)) = array(SELECT regress_qu.plan(twin))
$$;
-- the truth
SELECT c.plan, count(*) FROM regress_qu.lines l JOIN regress_qu.orders o ON o.order_id = l.order_id
  JOIN regress_qu.customers c ON c.cust_id = o.cust_id GROUP BY 1 ORDER BY 1;
SELECT r.region_name, count(*) FROM regress_qu.orders o LEFT JOIN regress_qu.regions r ON r.region_id = o.region_id
 GROUP BY 1 ORDER BY 1;
-- Q7's shape: the order's ship nation and its customer's nation, France and Germany either way
SELECT n1.nname AS ship, n2.nname AS cust, count(*), count(n2.w)
  FROM regress_qu.orders o JOIN regress_qu.customers c ON c.cust_id = o.cust_id
  JOIN regress_qu.nations n1 ON n1.nkey = o.ship_nkey JOIN regress_qu.nations n2 ON n2.nkey = c.nkey
 WHERE (n1.nname = 'fr' AND n2.nname = 'de') OR (n1.nname = 'de' AND n2.nname = 'fr') GROUP BY 1, 2 ORDER BY 1, 2;
-- shipped 3 days or more after the order (order 1's infinite date: left out, as NULL)
SELECT count(*) FROM regress_qu.orders WHERE isfinite(shipped) AND shipped - ordered >= 3;
SET ROLE regress_qu_ann;
SET dpobj.query_epsilon = 2000;
SELECT count(*) AS ledger_before FROM dpobj.ledger WHERE relation LIKE 'regress_qu.%' \gset

-- USING: path hops, a lookup (INNER, LEFT, its merged column in WHERE and GROUP BY),
-- a join on the privacy unit, the join's alias; NATURAL where the common columns are the key
SELECT c.plan, count(*) FROM regress_qu.lines l JOIN regress_qu.orders o USING (order_id)
  JOIN regress_qu.customers c USING (cust_id) GROUP BY 1 ORDER BY 1;
SELECT regress_qu.same($$SELECT c.plan, count(*) FROM regress_qu.lines l JOIN regress_qu.orders o USING (order_id)
                         JOIN regress_qu.customers c USING (cust_id) WHERE order_id > 5 AND cust_id < 30 GROUP BY 1$$,
                       $$SELECT c.plan, count(*) FROM regress_qu.lines l JOIN regress_qu.orders o ON o.order_id = l.order_id
                         JOIN regress_qu.customers c ON c.cust_id = o.cust_id WHERE l.order_id > 5 AND o.cust_id < 30 GROUP BY 1$$);
SELECT regress_qu.same($$SELECT c.plan, count(*) FROM regress_qu.lines l LEFT JOIN regress_qu.orders o USING (order_id)
                         LEFT JOIN regress_qu.customers c USING (cust_id) GROUP BY 1$$,
                       $$SELECT c.plan, count(*) FROM regress_qu.lines l LEFT JOIN regress_qu.orders o ON o.order_id = l.order_id
                         LEFT JOIN regress_qu.customers c ON c.cust_id = o.cust_id GROUP BY 1$$);
SELECT r.region_name, count(*) FROM regress_qu.orders LEFT JOIN regress_qu.regions r USING (region_id) GROUP BY 1 ORDER BY 1;
SELECT regress_qu.same($$SELECT region_name, sum(amount) FROM regress_qu.orders LEFT JOIN regress_qu.regions USING (region_id)
                         WHERE region_id IN (1, 2) GROUP BY 1$$,
                       $$SELECT r.region_name, sum(o.amount) FROM regress_qu.orders o LEFT JOIN regress_qu.regions r ON r.region_id = o.region_id
                         WHERE o.region_id IN (1, 2) GROUP BY 1$$);
SELECT regress_qu.same($$SELECT j.region_id, count(*) FROM regress_qu.orders JOIN regress_qu.regions USING (region_id) AS j GROUP BY 1$$,
                       $$SELECT o.region_id, count(*) FROM regress_qu.orders o JOIN regress_qu.regions r ON r.region_id = o.region_id GROUP BY 1$$);
SELECT regress_qu.same($$SELECT region_name, count(*) FROM regress_qu.orders NATURAL JOIN regress_qu.regions GROUP BY 1$$,
                       $$SELECT r.region_name, count(*) FROM regress_qu.orders o JOIN regress_qu.regions r ON r.region_id = o.region_id GROUP BY 1$$);
SELECT regress_qu.same($$SELECT c.plan, sum(d.lim) FROM regress_qu.customers c JOIN regress_qu.cards d USING (cust_id) GROUP BY 1$$,
                       $$SELECT c.plan, sum(d.lim) FROM regress_qu.customers c JOIN regress_qu.cards d ON d.cust_id = c.cust_id GROUP BY 1$$);
-- a lookup table twice: the second's columns "n2.column" (option "lookups": "as": "n2"),
-- grouped, filtered, aggregated; one joined on the other's column
SELECT n1.nname AS ship, n2.nname AS cust, count(*), count(n2.w)
  FROM regress_qu.orders o JOIN regress_qu.customers c USING (cust_id)
  JOIN regress_qu.nations n1 ON n1.nkey = o.ship_nkey JOIN regress_qu.nations n2 ON n2.nkey = c.nkey
 WHERE (n1.nname = 'fr' AND n2.nname = 'de') OR (n1.nname = 'de' AND n2.nname = 'fr') GROUP BY 1, 2 ORDER BY 1, 2;
SELECT line FROM regress_qu.plan($$SELECT n2.nname, count(*) FROM regress_qu.orders o, regress_qu.nations n1, regress_qu.nations n2
  WHERE n1.nkey = o.ship_nkey AND n2.nkey = n1.nkey GROUP BY 1$$) line WHERE line LIKE '%Function Call%';
SELECT n2.nname, count(*) FROM regress_qu.orders o, regress_qu.nations n1, regress_qu.nations n2
 WHERE n1.nkey = o.ship_nkey AND n2.nkey = n1.nkey GROUP BY 1 ORDER BY 1;
-- date - date: the days between, NULL from a NULL or an infinite date; in an aggregate
-- bounded by the date type's range (the plan's expression)
SELECT count(*) FROM regress_qu.orders WHERE shipped - ordered >= 3;
SELECT count(*) FROM regress_qu.orders WHERE shipped - date '2024-02-01' BETWEEN 0 AND 9 AND ordered - ordered = 0;
SELECT sqlstate AS avg_days_runs FROM regress.err($$SELECT avg(shipped - ordered) FROM regress_qu.orders$$);
SELECT line ~ '"op": "-", "args": \[\{"col": "shipped"\}, \{"col": "ordered"\}\]' AS days_in_plan
  FROM regress_qu.plan($$SELECT avg(shipped - ordered) FROM regress_qu.orders$$) line WHERE line LIKE '%Function Call%';
SELECT count(*) - :ledger_before AS charges FROM dpobj.ledger WHERE relation LIKE 'regress_qu.%';

-- refused before any charge, as their ON forms: NATURAL on a column beside the key,
-- USING a column off the key, RIGHT and FULL; a protected table twice
SELECT count(*) AS ledger_before FROM dpobj.ledger WHERE relation LIKE 'regress_qu.%' \gset
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_qu.orders NATURAL JOIN regress_qu.zones$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_qu.orders o JOIN regress_qu.cards d USING (cust_id)$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_qu.lines RIGHT JOIN regress_qu.orders USING (order_id)$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_qu.lines FULL JOIN regress_qu.orders USING (order_id)$$);
-- a lookup twice: its alias a path table's name; one column grouped by one alias, aggregated by the other
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_qu.orders o JOIN regress_qu.nations n ON n.nkey = o.ship_nkey
  JOIN regress_qu.nations customers ON customers.nkey = o.region_id$$);
SELECT sqlstate, message FROM regress.err($$SELECT n1.w, sum(n2.w) FROM regress_qu.orders o JOIN regress_qu.nations n1 ON n1.nkey = o.ship_nkey
  JOIN regress_qu.nations n2 ON n2.nkey = o.region_id GROUP BY 1$$);
-- date arithmetic but date - date, date_trunc
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_qu.orders WHERE shipped - 3 > ordered$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_qu.orders WHERE date_trunc('month', ordered) = date '2024-02-01'$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_qu.customers c JOIN regress_qu.cards d USING (cust_id)
  JOIN regress_qu.cards e USING (cust_id)$$);
-- aggregate()'s "as": a name without a dot, not a path table's
SELECT sqlstate, message FROM regress.err(format($$SELECT * FROM dpobj.aggregate('regress_qu.orders', '[{"stat": "count"}]', 1, 0,
       '{}', '{"lookups": [{"table": %s, "as": "n.x", "on": [["ship_nkey", "nkey"]]}]}')$$, 'regress_qu.nations'::regclass::oid));
SELECT sqlstate, message FROM regress.err(format($$SELECT * FROM dpobj.aggregate('regress_qu.orders', '[{"stat": "count"}]', 1, 0,
       '{}', '{"lookups": [{"table": %s, "as": "customers", "on": [["ship_nkey", "nkey"]]}]}')$$, 'regress_qu.nations'::regclass::oid));
SELECT count(*) - :ledger_before AS charges FROM dpobj.ledger WHERE relation LIKE 'regress_qu.%';
RESET ROLE;
RESET dpobj.query_epsilon;
DROP SCHEMA regress_qu CASCADE;
SELECT dpobj.drop_budget_domain('regress_qu_shop');
DROP OWNED BY regress_qu_ann;
DROP ROLE regress_qu_ann;
