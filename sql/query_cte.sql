-- WITH queries and subqueries in FROM in private queries (src/protected/sqlinline.c):
-- a plain SELECT over a protected table (its path joins, lookups, WHERE) is inlined
-- into the outer query before it compiles, as the planner pulls up a subquery: it
-- compiles to the plan of the query written by hand, its expressions checked the
-- same way.  Other shapes are refused before any charge.  At epsilon 2000 per
-- statistic the counts are exact (as in query_sql).
CREATE SCHEMA regress_qc;
CREATE ROLE regress_qc_ann;
GRANT USAGE ON SCHEMA regress_qc TO regress_qc_ann;
CREATE TABLE regress_qc.customers (id int PRIMARY KEY, plan text NOT NULL);
CREATE TABLE regress_qc.orders (id int PRIMARY KEY, customer_id int NOT NULL REFERENCES regress_qc.customers,
                                region_id int, amount float8 NOT NULL);
CREATE TABLE regress_qc.regions (id int PRIMARY KEY, region_name text NOT NULL);
INSERT INTO regress_qc.customers SELECT c, CASE WHEN c % 2 = 0 THEN 'pro' ELSE 'free' END FROM generate_series(1, 40) c;
INSERT INTO regress_qc.orders SELECT o, 1 + o % 40, 1 + o % 3, (o % 10)::float8 FROM generate_series(1, 120) o;
INSERT INTO regress_qc.regions VALUES (1, 'north'), (2, 'south'), (3, 'east');
GRANT SELECT ON regress_qc.regions TO regress_qc_ann;
SELECT dpobj.create_budget_domain('regress_qc_shop');
SELECT dpobj.protect('regress_qc.customers', privacy_unit => 'id', max_rows_per_unit => 1,
                     budget_domain => 'regress_qc_shop');
SELECT dpobj.link_unit('regress_qc.orders', ARRAY['regress_qc.customers']::regclass[], 10);
SELECT dpobj.declare_domain('regress_qc.customers', 'plan', ARRAY['free', 'pro']);
SELECT dpobj.declare_domain('regress_qc.orders', 'amount', 0, 10);
SELECT granted_epsilon FROM dpobj.grant_domain_budget('regress_qc_shop', 'regress_qc_ann', 1000000, 0.001);
-- a query's compiled plan: EXPLAIN VERBOSE's lines, the OID masked
CREATE FUNCTION regress_qc.plan(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE r text;
BEGIN
    FOR r IN EXECUTE 'EXPLAIN (COSTS OFF, VERBOSE) ' || q LOOP
        RETURN NEXT regexp_replace(r, '"relid": [0-9]+', '"relid": N');
    END LOOP;
END $$;
-- a query and its twin, inlined by hand, compile to the same plan
CREATE FUNCTION regress_qc.same(q text, twin text) RETURNS boolean LANGUAGE sql AS $$
    SELECT array(SELECT regress_qc.plan(q)) = array(SELECT regress_qc.plan(twin))
$$;
-- a caller's function
CREATE FUNCTION regress_qc.leak(x int) RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT x';
SET ROLE regress_qc_ann;
SET dpobj.query_epsilon = 2000;
SELECT count(*) AS ledger_before FROM dpobj.ledger WHERE relation IN ('regress_qc.customers', 'regress_qc.orders') \gset

-- accepted: the same plan as the hand-inlined twin
SELECT regress_qc.same($$WITH c AS (SELECT plan FROM regress_qc.customers) SELECT plan, count(*) FROM c GROUP BY plan$$,
                       $$SELECT plan, count(*) FROM regress_qc.customers GROUP BY plan$$);
SELECT regress_qc.same($$SELECT count(*) FROM (SELECT * FROM regress_qc.customers) s$$,
                       $$SELECT count(*) FROM regress_qc.customers$$);
SELECT regress_qc.same($$SELECT p, count(*) FROM (SELECT plan AS p FROM regress_qc.customers WHERE id > 10) s WHERE p = 'pro' GROUP BY p$$,
                       $$SELECT plan AS p, count(*) FROM regress_qc.customers WHERE plan = 'pro' AND id > 10 GROUP BY plan$$);
SELECT regress_qc.same($$WITH o AS (SELECT amount * 2 AS twice, amount FROM regress_qc.orders WHERE amount > 1)
                         SELECT sum(twice), avg(amount) FROM o WHERE twice < 15$$,
                       $$SELECT sum(amount * 2), avg(amount) FROM regress_qc.orders WHERE amount * 2 < 15 AND amount > 1$$);
-- path joins and lookups inside, a lookup joined outside
SELECT regress_qc.same($$WITH o AS (SELECT o.amount, c.plan FROM regress_qc.orders o JOIN regress_qc.customers c ON c.id = o.customer_id)
                         SELECT plan, sum(amount) FROM o GROUP BY plan$$,
                       $$SELECT c.plan, sum(o.amount) FROM regress_qc.orders o JOIN regress_qc.customers c ON c.id = o.customer_id GROUP BY c.plan$$);
SELECT regress_qc.same($$SELECT r.region_name, count(*) FROM (SELECT region_id FROM regress_qc.orders o) s
                           JOIN regress_qc.regions r ON r.id = s.region_id GROUP BY r.region_name$$,
                       $$SELECT r.region_name, count(*) FROM regress_qc.orders o
                           JOIN regress_qc.regions r ON r.id = o.region_id GROUP BY r.region_name$$);
SELECT regress_qc.same($$WITH o AS (SELECT o.amount, c.plan FROM regress_qc.orders o, regress_qc.customers c WHERE c.id = o.customer_id)
                         SELECT plan, sum(amount) FROM o GROUP BY plan HAVING count(*) > 1 ORDER BY plan$$,
                       $$SELECT c.plan, sum(o.amount) FROM regress_qc.orders o, regress_qc.customers c WHERE c.id = o.customer_id
                         GROUP BY c.plan HAVING count(*) > 1 ORDER BY c.plan$$);
-- GROUP BY a subquery's expression: the expression over declared levels
SELECT regress_qc.same($$WITH c AS (SELECT upper(plan) AS up FROM regress_qc.customers) SELECT up, count(*) FROM c GROUP BY up$$,
                       $$SELECT upper(plan) AS up, count(*) FROM regress_qc.customers GROUP BY upper(plan)$$);
-- nested: a WITH query over another, over a subquery; a subquery over a WITH query
SELECT regress_qc.same($$WITH a AS (SELECT amount, region_id FROM (SELECT * FROM regress_qc.orders WHERE amount < 9) s),
                              b AS (SELECT amount FROM a WHERE region_id = 2)
                         SELECT count(*), sum(amount) FROM b$$,
                       $$SELECT count(*), sum(amount) FROM regress_qc.orders WHERE region_id = 2 AND amount < 9$$);
SELECT regress_qc.same($$WITH a AS NOT MATERIALIZED (SELECT plan FROM regress_qc.customers)
                         SELECT plan, count(*) FROM (SELECT plan FROM a) s GROUP BY plan$$,
                       $$SELECT plan, count(*) FROM regress_qc.customers GROUP BY plan$$);
SELECT regress_qc.same($$SELECT count(*) FROM (WITH a AS (SELECT id FROM regress_qc.customers) SELECT id FROM a) s$$,
                       $$SELECT count(*) FROM regress_qc.customers$$);
SELECT * FROM regress_qc.plan($$WITH c AS (SELECT plan FROM regress_qc.customers WHERE id > 10) SELECT plan, count(*) FROM c GROUP BY plan$$);

-- runs: exact counts, one charge each
WITH c AS (SELECT plan FROM regress_qc.customers) SELECT plan, count(*) FROM c GROUP BY plan ORDER BY plan;
SELECT count(*) FROM (SELECT id FROM regress_qc.customers WHERE id <= 30) s;
WITH o AS (SELECT o.amount, c.plan FROM regress_qc.orders o JOIN regress_qc.customers c ON c.id = o.customer_id)
SELECT plan, count(*) FROM o GROUP BY plan ORDER BY plan;
PREPARE regress_qc_p(int) AS WITH c AS (SELECT id FROM regress_qc.customers WHERE id <= $1) SELECT count(*) FROM c;
EXECUTE regress_qc_p(20);
EXECUTE regress_qc_p(5);
SELECT count(*) > 0 AS explained FROM regress_qc.plan($$EXECUTE regress_qc_p(20)$$);
DEALLOCATE regress_qc_p;
SELECT result FROM dpobj.query($$WITH c AS (SELECT plan FROM regress_qc.customers) SELECT plan, count(*) FROM c GROUP BY plan$$, 2000, 1e-6)
 ORDER BY result->>'plan';
SELECT count(*) - :ledger_before AS charges FROM dpobj.ledger WHERE relation IN ('regress_qc.customers', 'regress_qc.orders');
SELECT count(*) AS ledger_mid FROM dpobj.ledger WHERE relation IN ('regress_qc.customers', 'regress_qc.orders') \gset

-- refused before any charge: each shape outside the subset, and the compiler's checks
SELECT sqlstate, message FROM regress.err($$WITH c AS (SELECT * FROM regress_qc.customers) SELECT count(*) FROM c a, c b$$);
SELECT sqlstate, message FROM regress.err($$WITH RECURSIVE c AS (SELECT id FROM regress_qc.customers UNION ALL SELECT id + 1 FROM c WHERE id < 3) SELECT count(*) FROM c$$);
SELECT sqlstate, message FROM regress.err($$WITH c AS MATERIALIZED (SELECT * FROM regress_qc.customers) SELECT count(*) FROM c$$);
SELECT sqlstate, message FROM regress.err($$WITH d AS (DELETE FROM regress_qc.regions RETURNING id) SELECT count(*) FROM (SELECT id FROM regress_qc.customers) s$$);
SELECT sqlstate, message FROM regress.err($$WITH c AS (SELECT * FROM regress_qc.customers) SELECT count(*) FROM regress_qc.regions$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM (SELECT plan, count(*) FROM regress_qc.customers GROUP BY plan) s$$);
SELECT sqlstate, message FROM regress.err($$SELECT n FROM (SELECT count(*) AS n FROM (SELECT id FROM regress_qc.customers) s) t$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM (SELECT DISTINCT plan FROM regress_qc.customers) s$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM (SELECT * FROM regress_qc.customers LIMIT 5) s$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM (SELECT * FROM regress_qc.customers ORDER BY id) s$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM (SELECT row_number() OVER () FROM regress_qc.customers) s$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM (SELECT id FROM regress_qc.customers UNION ALL SELECT 1) s$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM (SELECT id FROM regress_qc.customers WHERE id IN (SELECT 1)) s$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM (SELECT random() AS r FROM regress_qc.customers) s$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM (SELECT generate_series(1, 2) FROM regress_qc.customers) s$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(s) FROM (SELECT id FROM regress_qc.customers) s$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_qc.regions r LEFT JOIN (SELECT id FROM regress_qc.customers) s ON s.id = r.id$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_qc.regions r, LATERAL (SELECT id FROM regress_qc.customers WHERE id = r.id) s$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM (SELECT id FROM regress_qc.customers) s WHERE id IN (SELECT 1)$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM (SELECT * FROM regress_qc.customers FOR UPDATE) s$$);
-- an inlined expression meets the compiler's checks: a caller's function, a row-level output
SELECT sqlstate, message FROM regress.err($$SELECT sum(v) FROM (SELECT regress_qc.leak(id) AS v FROM regress_qc.customers) s$$);
SELECT sqlstate, message FROM regress.err($$WITH c AS (SELECT id FROM regress_qc.customers WHERE regress_qc.leak(id) > 3) SELECT count(*) FROM c$$);
SELECT sqlstate, message FROM regress.err($$WITH c AS (SELECT id FROM regress_qc.customers) SELECT id FROM c$$);
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.query('SELECT count(*) FROM (SELECT plan, count(*) FROM regress_qc.customers GROUP BY plan) s', 1)$$);
SELECT count(*) - :ledger_mid AS charges FROM dpobj.ledger WHERE relation IN ('regress_qc.customers', 'regress_qc.orders');

-- without dpobj.query_epsilon: PostgreSQL's error with the hint, as for the table read directly
RESET dpobj.query_epsilon;
SELECT sqlstate, message, hint IS NOT NULL AS hinted FROM regress.err($$WITH c AS (SELECT * FROM regress_qc.customers) SELECT count(*) FROM c$$);
SELECT sqlstate, message, hint IS NOT NULL AS hinted FROM regress.err($$SELECT count(*) FROM (SELECT plan, count(*) FROM regress_qc.customers GROUP BY plan) s$$);
RESET ROLE;
DROP SCHEMA regress_qc CASCADE;
SELECT dpobj.drop_budget_domain('regress_qc_shop');
DROP OWNED BY regress_qc_ann;
DROP ROLE regress_qc_ann;
