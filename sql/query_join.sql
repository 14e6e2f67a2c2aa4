-- Joins in private queries along a linked table's unit path (src/protected/sqljoin.c,
-- src/context/linkcols.c): order_lines reach their customer through orders; a run on
-- order_lines reads the path tables' columns as "orders.status", "customers.segment",
-- their domains the parent tables' declarations.  The SQL front end compiles FROM
-- order_lines JOIN orders JOIN customers ON the foreign keys into one run on
-- order_lines, charged once; other joins are refused, nothing charged.  At epsilon
-- 2000 per statistic the counts are exact (as in query_sql).
CREATE SCHEMA regress_qj;
CREATE ROLE regress_qj_ann;
GRANT USAGE ON SCHEMA regress_qj TO regress_qj_ann;
CREATE TABLE regress_qj.customers (id int PRIMARY KEY, segment text NOT NULL, vip boolean NOT NULL);
CREATE TABLE regress_qj.orders (id int PRIMARY KEY,
                                customer_id int NOT NULL REFERENCES regress_qj.customers,
                                status text NOT NULL, note text);
CREATE TABLE regress_qj.order_lines (id int PRIMARY KEY,
                                     order_id int NOT NULL REFERENCES regress_qj.orders,
                                     amount float8 NOT NULL, "orders.note" text);
CREATE TABLE regress_qj.tags (id int PRIMARY KEY, order_id int REFERENCES regress_qj.orders, x float8);
-- 60 customers (3 segments, every 4th a vip), 3 orders each, 4 lines per order
INSERT INTO regress_qj.customers SELECT c, 'seg' || (c % 3), c % 4 = 0 FROM generate_series(1, 60) c;
INSERT INTO regress_qj.orders
SELECT o, 1 + o % 60, CASE WHEN o % 2 = 0 THEN 'paid' ELSE 'open' END, 'n' FROM generate_series(1, 180) o;
INSERT INTO regress_qj.order_lines SELECT l, 1 + l % 180, (l % 10)::float8, 'own' FROM generate_series(1, 720) l;
SELECT dpobj.create_budget_domain('regress_qj_shop');
SELECT dpobj.protect('regress_qj.customers', privacy_unit => 'id', max_rows_per_unit => 1,
                     budget_domain => 'regress_qj_shop');
SELECT dpobj.link_unit('regress_qj.order_lines', ARRAY['regress_qj.orders', 'regress_qj.customers']::regclass[], 12);
SELECT dpobj.declare_domain('regress_qj.customers', 'segment', ARRAY['seg0', 'seg1', 'seg2']);
SELECT dpobj.declare_domain('regress_qj.orders', 'status', ARRAY['open', 'paid']);
SELECT dpobj.declare_domain('regress_qj.order_lines', 'amount', 0, 10);
SELECT granted_epsilon FROM dpobj.grant_domain_budget('regress_qj_shop', 'regress_qj_ann', 1000000, 0.001);
-- another protected table, another budget domain, the analyst with a budget on it
CREATE TABLE regress_qj.other (id int PRIMARY KEY, y float8);
SELECT dpobj.protect('regress_qj.other');
SELECT granted_epsilon FROM dpobj.grant_budget('regress_qj.other', 'regress_qj_ann', 1000, 0.001);
-- EXPLAIN VERBOSE's lines, the table's OID masked
CREATE FUNCTION regress_qj.explain(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE r text;
BEGIN
    FOR r IN EXECUTE 'EXPLAIN (COSTS OFF, VERBOSE) ' || q LOOP
        RETURN NEXT regexp_replace(r, '"relid": [0-9]+', '"relid": N');
    END LOOP;
END $$;
-- the truth
SELECT count(*) FILTER (WHERE o.status = 'paid') AS paid, count(*) FROM regress_qj.order_lines l
  JOIN regress_qj.orders o ON o.id = l.order_id;
SELECT c.segment, count(*), sum(l.amount) FROM regress_qj.order_lines l
  JOIN regress_qj.orders o ON o.id = l.order_id JOIN regress_qj.customers c ON c.id = o.customer_id
 GROUP BY c.segment ORDER BY 1;
SELECT o.status, count(*) FROM regress_qj.order_lines l
  JOIN regress_qj.orders o ON o.id = l.order_id JOIN regress_qj.customers c ON c.id = o.customer_id
 WHERE l.amount > 2 AND c.vip GROUP BY 1 ORDER BY 1;
SELECT c.segment, count(*) FROM regress_qj.order_lines l
  JOIN regress_qj.orders o ON o.id = l.order_id JOIN regress_qj.customers c ON c.id = o.customer_id
 WHERE o.status = 'paid' AND l.amount < 5 GROUP BY 1 ORDER BY 1;

SET ROLE regress_qj_ann;
SELECT count(*) AS ledger_before FROM dpobj.ledger WHERE relation = 'regress_qj.order_lines' \gset
-- aggregate() with the path tables' columns: group_by, filter, what
SELECT group_values, statistic, column_name, estimate FROM dpobj.aggregate('regress_qj.order_lines',
       '[{"stat": "count"}, {"stat": "mean", "column": "amount"}]', 2000, 0, ARRAY['customers.segment'], '{}')
 WHERE statistic = 'count' ORDER BY group_values::text;
SELECT group_values, estimate FROM dpobj.aggregate('regress_qj.order_lines', '[{"stat": "count"}]', 2000, 0,
       ARRAY['orders.status'], '{"filter": [{"column": "customers.vip", "op": "=", "value": true}, {"column": "amount", "op": ">", "value": 2}]}')
 ORDER BY group_values::text;
SELECT group_values, estimate FROM dpobj.aggregate('regress_qj.order_lines', '[{"stat": "count"}]', 2000, 0,
       ARRAY['customers.segment'], '{"where": {"op": "=", "args": [{"col": "orders.status"}, {"text": "paid"}]}}')
 ORDER BY group_values::text;
-- a name the table's own column takes is its own; an unknown one does not exist;
-- an undeclared parent column has no domain
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate('regress_qj.order_lines', '[{"stat": "count"}]', 1, 0, ARRAY['orders.note'], '{}')$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate('regress_qj.order_lines', '[{"stat": "count"}]', 1, 0, ARRAY['customers.nope'], '{}')$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate('regress_qj.order_lines', '[{"stat": "sum", "column": "orders.customer_id"}]', 1, 0, '{}', '{}')$$);
SELECT count(*) - :ledger_before AS charges FROM dpobj.ledger WHERE relation = 'regress_qj.order_lines';

-- the SQL front end
SET dpobj.query_epsilon = 2000;
SELECT count(*) AS ledger_before FROM dpobj.ledger WHERE relation = 'regress_qj.order_lines' \gset
SELECT c.segment, count(*), sum(l.amount) IS NOT NULL AS has_sum, avg(l.amount) BETWEEN 0 AND 10 AS avg_ok
  FROM regress_qj.order_lines l
  JOIN regress_qj.orders o ON o.id = l.order_id
  JOIN regress_qj.customers c ON c.id = o.customer_id
 GROUP BY c.segment ORDER BY 1;
SELECT count(*) - :ledger_before AS charges FROM dpobj.ledger WHERE relation = 'regress_qj.order_lines';
-- the same rows: comma joins with the keys in WHERE, keys either way round, a LEFT JOIN
-- from the child along a NOT NULL key, WHERE over any table's columns
SELECT o.status, count(*) FROM regress_qj.order_lines l, regress_qj.orders o, regress_qj.customers c
 WHERE l.order_id = o.id AND o.customer_id = c.id AND l.amount > 2 AND c.vip GROUP BY 1 ORDER BY 1;
SELECT o.status, count(*) FROM regress_qj.order_lines l LEFT JOIN regress_qj.orders o ON l.order_id = o.id
 GROUP BY o.status ORDER BY 1;
SELECT c.segment, count(*) FROM regress_qj.order_lines l JOIN regress_qj.orders o ON o.id = l.order_id
  JOIN regress_qj.customers c ON o.customer_id = c.id WHERE o.status = 'paid' AND l.amount < 5
 GROUP BY c.segment ORDER BY 1;
-- a count alone reads a declared column of the path (customers.segment): every row counted
SELECT count(*) FROM regress_qj.order_lines l JOIN regress_qj.orders o ON o.id = l.order_id
 WHERE o.status = 'paid';
SELECT count(*) FROM regress_qj.order_lines;
SELECT result FROM dpobj.query($$SELECT c.segment, count(*) AS n FROM regress_qj.order_lines l
  JOIN regress_qj.orders o ON o.id = l.order_id JOIN regress_qj.customers c ON c.id = o.customer_id
 GROUP BY c.segment$$, 2000) ORDER BY result::text;
SELECT regress_qj.explain($$SELECT c.segment, count(*) FROM regress_qj.order_lines l
  JOIN regress_qj.orders o ON o.id = l.order_id JOIN regress_qj.customers c ON c.id = o.customer_id
 GROUP BY c.segment$$);
SELECT count(*) - :ledger_before AS charges FROM dpobj.ledger WHERE relation = 'regress_qj.order_lines';

-- count(DISTINCT unit): the customers with lines in each group (the truth: 20 a segment,
-- 30 a status, 30 with lines of amount >= 5), the unit written as customers.id or as the last hop's key
-- orders.customer_id; a unit counted once in each group it has kept rows in
SELECT count(*) AS ledger_before FROM dpobj.ledger WHERE relation = 'regress_qj.order_lines' \gset
SELECT c.segment, count(DISTINCT c.id) AS customers, count(*) AS lines FROM regress_qj.order_lines l
  JOIN regress_qj.orders o ON o.id = l.order_id JOIN regress_qj.customers c ON c.id = o.customer_id
 GROUP BY c.segment ORDER BY 1;
SELECT o.status, count(DISTINCT o.customer_id) FROM regress_qj.order_lines l
  JOIN regress_qj.orders o ON o.id = l.order_id GROUP BY 1 ORDER BY 1;
SELECT count(DISTINCT o.customer_id) AS customers FROM regress_qj.order_lines l
  JOIN regress_qj.orders o ON o.id = l.order_id WHERE l.amount >= 5;
-- the table holding the unit: its own column (k 1: a unit is one row)
SELECT segment, count(DISTINCT id) FROM regress_qj.customers WHERE vip GROUP BY 1 ORDER BY 1;
SELECT group_values, statistic, estimate, ci_low <= estimate AND estimate <= ci_high AS within
  FROM dpobj.aggregate('regress_qj.order_lines', '[{"stat": "units"}]', 2000, 0, ARRAY['orders.status'], '{}')
 ORDER BY group_values::text;
SELECT result, (intervals->'n'->>0)::float8 <= (result->>'n')::float8
       AND (result->>'n')::float8 <= (intervals->'n'->>1)::float8 AS within FROM dpobj.query($$SELECT o.status, count(DISTINCT o.customer_id) AS n
  FROM regress_qj.order_lines l JOIN regress_qj.orders o ON o.id = l.order_id GROUP BY o.status$$, 2000)
 ORDER BY result::text;
-- its noise: a unit of up to k = 12 rows is in at most min(k, groups) = 3 of the 3 status
-- groups ("other" included): a quarter of a count's half-width at the same share
SELECT statistic, half_width FROM dpobj.aggregate_accuracy('regress_qj.order_lines',
       '[{"stat": "count"}, {"stat": "units"}]', 1, ARRAY['orders.status']);
SELECT statistic, half_width FROM dpobj.aggregate_accuracy('regress_qj.order_lines',
       '[{"stat": "units"}]', 1, '{}');
SELECT regress_qj.explain($$SELECT c.segment, count(DISTINCT c.id) FROM regress_qj.order_lines l
  JOIN regress_qj.orders o ON o.id = l.order_id JOIN regress_qj.customers c ON c.id = o.customer_id
 GROUP BY c.segment$$);
SELECT count(*) - :ledger_before AS charges FROM dpobj.ledger WHERE relation = 'regress_qj.order_lines';
-- refused before any charge: DISTINCT of anything but the unit, DISTINCT in another
-- aggregate, with FILTER, by a column without levels, on a table without a unit
SELECT sqlstate, message FROM regress.err($$SELECT count(DISTINCT l.order_id) FROM regress_qj.order_lines l$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(DISTINCT o.id) FROM regress_qj.order_lines l JOIN regress_qj.orders o ON o.id = l.order_id$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(DISTINCT c.segment) FROM regress_qj.order_lines l JOIN regress_qj.orders o ON o.id = l.order_id JOIN regress_qj.customers c ON c.id = o.customer_id$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(DISTINCT c.id + 0) FROM regress_qj.order_lines l JOIN regress_qj.orders o ON o.id = l.order_id JOIN regress_qj.customers c ON c.id = o.customer_id$$);
SELECT sqlstate, message FROM regress.err($$SELECT sum(DISTINCT l.amount) FROM regress_qj.order_lines l$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(DISTINCT o.customer_id) FILTER (WHERE l.amount >= 5) FROM regress_qj.order_lines l JOIN regress_qj.orders o ON o.id = l.order_id$$);
SELECT sqlstate, message FROM regress.err($$SELECT CASE WHEN c.segment = 'seg0' THEN 'a' ELSE 'b' END, count(DISTINCT c.id) FROM regress_qj.order_lines l JOIN regress_qj.orders o ON o.id = l.order_id JOIN regress_qj.customers c ON c.id = o.customer_id GROUP BY 1$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate('regress_qj.order_lines', '[{"stat": "units"}]', 1, 0.001, ARRAY['orders.note'], '{}')$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate('regress_qj.order_lines', '[{"stat": "units", "column": "amount"}]', 1, 0, '{}', '{}')$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(DISTINCT id) FROM regress_qj.other$$);
SELECT count(*) - :ledger_before AS charges FROM dpobj.ledger WHERE relation = 'regress_qj.order_lines';

-- refused (0A000; 42501: a table the analyst may not read), nothing charged
SELECT count(*) AS ledger_before FROM dpobj.ledger WHERE relation = 'regress_qj.order_lines' \gset
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_qj.order_lines l JOIN regress_qj.orders o ON o.id = l.id$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_qj.order_lines l JOIN regress_qj.orders o ON o.id = l.order_id AND o.status = 'paid'$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_qj.order_lines l CROSS JOIN regress_qj.orders o$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_qj.order_lines l, regress_qj.orders o WHERE o.id > l.order_id$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_qj.order_lines l, regress_qj.customers c WHERE c.id = l.order_id$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_qj.order_lines l JOIN regress_qj.tags t ON t.order_id = l.order_id$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_qj.order_lines l JOIN regress_qj.other x ON x.id = l.order_id$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_qj.order_lines l JOIN regress_qj.orders o ON o.id = l.order_id JOIN regress_qj.orders o2 ON o2.id = l.order_id$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_qj.order_lines l RIGHT JOIN regress_qj.orders o ON o.id = l.order_id$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_qj.order_lines l FULL JOIN regress_qj.orders o ON o.id = l.order_id$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_qj.order_lines l JOIN regress_qj.orders o USING (id)$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_qj.order_lines l JOIN (SELECT * FROM regress_qj.orders) o ON o.id = l.order_id$$);
SELECT sqlstate, message FROM regress.err($$SELECT o.note, count(*) FROM regress_qj.order_lines l JOIN regress_qj.orders o ON o.id = l.order_id GROUP BY o.note$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_qj.other x JOIN regress_qj.other y ON x.id = y.id$$);
SELECT count(*) - :ledger_before AS charges FROM dpobj.ledger WHERE relation = 'regress_qj.order_lines';
-- statistics that read no column (the bounding passes the unit alone), constant conditions
-- (the truths: 720 lines, 60 customers, 648 lines of amount >= 1)
SELECT count(*) FILTER (WHERE true) AS lines, count(*) FILTER (WHERE NULL::boolean) AS none,
       round(sum(1) / 10.0) AS lines_10 FROM regress_qj.order_lines;
SELECT round(sum(2) / 10.0) AS twice_customers_10 FROM regress_qj.customers;
SELECT count(*) AS amount_1 FROM regress_qj.order_lines WHERE true AND amount >= 1;
SELECT count(*) AS amount_1 FROM regress_qj.order_lines WHERE false OR amount >= 1;
SELECT count(*) AS not_null_and FROM regress_qj.order_lines WHERE NOT (NULL::boolean AND amount >= 1);
SELECT count(*) AS nothing FROM regress_qj.order_lines WHERE NULL::boolean;
RESET dpobj.query_epsilon;
RESET ROLE;

-- a nullable key: LEFT JOIN is refused (a line without an order has no unit)
ALTER TABLE regress_qj.order_lines ALTER COLUMN order_id DROP NOT NULL;
SET ROLE regress_qj_ann;
SET dpobj.query_epsilon = 2000;
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_qj.order_lines l LEFT JOIN regress_qj.orders o ON o.id = l.order_id$$);
SELECT o.status, count(*) FROM regress_qj.order_lines l JOIN regress_qj.orders o ON o.id = l.order_id
 GROUP BY o.status ORDER BY 1;
RESET dpobj.query_epsilon;
RESET ROLE;
DROP SCHEMA regress_qj CASCADE;
SELECT dpobj.drop_budget_domain('regress_qj_shop');
DROP OWNED BY regress_qj_ann;
DROP ROLE regress_qj_ann;
