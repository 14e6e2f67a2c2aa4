-- TPC-H-shaped private queries: customers (privacy unit c_custkey), their orders and
-- lineitems linked to them by foreign keys (link_unit), nation, region, part and supplier
-- public lookups.  The analyst writes the benchmark's queries as the benchmark does: FROM
-- in any order (the table whose unit path reaches furthest becomes the run's table,
-- src/protected/selecthint.c), dates as constant expressions (date '1998-12-01' -
-- interval '90' day, folded before the query compiles, src/protected/sqlfold.c), a CASE
-- over a lookup's text column inside an aggregate.  At query_epsilon 1e6 the counts and
-- integer sums are exact but with probability below e^-100; other sums are compared with
-- the truth within a tolerance 25 times their noise's scale.
CREATE SCHEMA regress_tpch;
CREATE ROLE regress_tpch_ann;
GRANT USAGE ON SCHEMA regress_tpch TO regress_tpch_ann;
CREATE TABLE regress_tpch.region (r_regionkey int PRIMARY KEY, r_name text NOT NULL);
CREATE TABLE regress_tpch.nation (n_nationkey int PRIMARY KEY, n_name text NOT NULL,
                                  n_regionkey int NOT NULL REFERENCES regress_tpch.region);
CREATE TABLE regress_tpch.part (p_partkey int PRIMARY KEY, p_type text NOT NULL, p_size int NOT NULL);
CREATE TABLE regress_tpch.supplier (s_suppkey int PRIMARY KEY, s_nationkey int NOT NULL REFERENCES regress_tpch.nation);
CREATE TABLE regress_tpch.customer (c_custkey int PRIMARY KEY, c_nationkey int NOT NULL REFERENCES regress_tpch.nation,
                                    c_mktsegment text NOT NULL, c_acctbal numeric(15,2) NOT NULL);
CREATE TABLE regress_tpch.orders (o_orderkey int PRIMARY KEY,
                                  o_custkey int NOT NULL REFERENCES regress_tpch.customer,
                                  o_orderdate date NOT NULL, o_orderpriority text NOT NULL,
                                  o_totalprice numeric(15,2) NOT NULL);
CREATE TABLE regress_tpch.lineitem (l_orderkey int NOT NULL REFERENCES regress_tpch.orders,
                                    l_linenumber int NOT NULL,
                                    l_partkey int NOT NULL REFERENCES regress_tpch.part,
                                    l_suppkey int NOT NULL REFERENCES regress_tpch.supplier,
                                    l_quantity numeric(15,2) NOT NULL, l_extendedprice numeric(15,2) NOT NULL,
                                    l_discount numeric(15,2) NOT NULL, l_returnflag char(1) NOT NULL,
                                    l_linestatus char(1) NOT NULL, l_shipdate date NOT NULL,
                                    l_commitdate date NOT NULL, l_receiptdate date NOT NULL,
                                    l_shipmode text NOT NULL, PRIMARY KEY (l_orderkey, l_linenumber));
INSERT INTO regress_tpch.region VALUES (0, 'AFRICA'), (1, 'AMERICA'), (2, 'ASIA');
INSERT INTO regress_tpch.nation SELECT n, 'NATION' || n, n % 3 FROM generate_series(0, 5) n;
INSERT INTO regress_tpch.part SELECT p, (ARRAY['PROMO TIN', 'STANDARD TIN', 'ECONOMY TIN'])[1 + p % 3], p
  FROM generate_series(1, 12) p;
INSERT INTO regress_tpch.supplier SELECT s, s % 6 FROM generate_series(1, 8) s;
INSERT INTO regress_tpch.customer SELECT c, c % 6, (ARRAY['AUTOMOBILE', 'BUILDING', 'MACHINERY'])[1 + c % 3],
       c * 37 % 1000 FROM generate_series(1, 60) c;
INSERT INTO regress_tpch.orders SELECT o, 1 + o % 60, date '1993-01-01' + (o * 13 % 1800),
       (ARRAY['1-URGENT', '2-HIGH', '3-MEDIUM'])[1 + o % 3], 1000 + o * 97 % 5000
  FROM generate_series(1, 150) o;
INSERT INTO regress_tpch.lineitem
SELECT o, ln, 1 + (o * ln) % 12, 1 + (o + ln) % 8, 1 + (o * 7 + ln) % 50, (1 + (o * 7 + ln) % 50) * (90 + (o * ln) % 40),
       ((o + ln) % 11) / 100.0, (ARRAY['A', 'N', 'R'])[1 + (o + ln) % 3], (ARRAY['F', 'O'])[1 + (o * ln) % 2],
       od + 1 + (o * ln) % 100, od + 30 + ln, od + 2 + (o * ln) % 100 + ln % 7,
       (ARRAY['MAIL', 'SHIP', 'AIR'])[1 + (o + ln) % 3]
  FROM (SELECT o_orderkey AS o, o_orderdate AS od FROM regress_tpch.orders) s, generate_series(1, 1 + s.o % 4) ln;
SELECT dpobj.create_budget_domain('regress_tpch_dom');
SELECT dpobj.protect('regress_tpch.customer', privacy_unit => 'c_custkey', max_rows_per_unit => 1,
                     budget_domain => 'regress_tpch_dom');
SELECT dpobj.link_unit('regress_tpch.orders', ARRAY['regress_tpch.customer']::regclass[], 3);
SELECT dpobj.link_unit('regress_tpch.lineitem', ARRAY['regress_tpch.orders', 'regress_tpch.customer']::regclass[], 12);
SELECT dpobj.declare_domain('regress_tpch.customer', 'c_mktsegment', ARRAY['AUTOMOBILE', 'BUILDING', 'MACHINERY']);
SELECT dpobj.declare_domain('regress_tpch.orders', 'o_orderpriority', ARRAY['1-URGENT', '2-HIGH', '3-MEDIUM']);
SELECT dpobj.declare_domain('regress_tpch.orders', 'o_totalprice', 0, 10000);
SELECT dpobj.declare_domain('regress_tpch.lineitem', 'l_returnflag', ARRAY['A', 'N', 'R']);
SELECT dpobj.declare_domain('regress_tpch.lineitem', 'l_linestatus', ARRAY['F', 'O']);
SELECT dpobj.declare_domain('regress_tpch.lineitem', 'l_shipmode', ARRAY['MAIL', 'SHIP', 'AIR']);
SELECT dpobj.declare_domain('regress_tpch.lineitem', 'l_quantity', 0, 50);
SELECT dpobj.declare_domain('regress_tpch.lineitem', 'l_extendedprice', 0, 10000);
SELECT dpobj.declare_domain('regress_tpch.lineitem', 'l_discount', 0, 0.1);
GRANT SELECT ON regress_tpch.region, regress_tpch.nation, regress_tpch.part, regress_tpch.supplier TO regress_tpch_ann;
SELECT granted_epsilon FROM dpobj.grant_domain_budget('regress_tpch_dom', 'regress_tpch_ann', 100000000, 0.001);
-- the truth
SELECT count(*) AS lineitems FROM regress_tpch.lineitem;
SELECT l_returnflag, l_linestatus, sum(l_quantity) AS sum_qty, count(*) AS count_order
  FROM regress_tpch.lineitem WHERE l_shipdate <= date '1998-12-01' - interval '90' day
 GROUP BY 1, 2 ORDER BY 1, 2;
SELECT sum(l_extendedprice * l_discount) AS q6_revenue FROM regress_tpch.lineitem
 WHERE l_shipdate >= date '1994-01-01' AND l_shipdate < date '1994-01-01' + interval '1' year
   AND l_discount BETWEEN 0.06 - 0.01 AND 0.06 + 0.01 AND l_quantity < 24 \gset
SELECT 100.00 * sum(CASE WHEN p.p_type LIKE 'PROMO%' THEN l.l_extendedprice * (1 - l.l_discount) ELSE 0 END)
       / sum(l.l_extendedprice * (1 - l.l_discount)) AS q14_promo
  FROM regress_tpch.lineitem l, regress_tpch.part p WHERE l.l_partkey = p.p_partkey \gset
SELECT c.c_mktsegment, count(*) AS n, sum(l.l_quantity) AS qty
  FROM regress_tpch.customer c, regress_tpch.orders o, regress_tpch.lineitem l
 WHERE c.c_custkey = o.o_custkey AND l.l_orderkey = o.o_orderkey AND o.o_orderdate < date '1995-03-15'
 GROUP BY 1 ORDER BY 1;
SELECT l.l_shipmode, sum(CASE WHEN o.o_orderpriority IN ('1-URGENT', '2-HIGH') THEN 1 ELSE 0 END) AS high,
       sum(CASE WHEN o.o_orderpriority NOT IN ('1-URGENT', '2-HIGH') THEN 1 ELSE 0 END) AS low
  FROM regress_tpch.orders o, regress_tpch.lineitem l
 WHERE o.o_orderkey = l.l_orderkey AND l.l_commitdate < l.l_receiptdate
   AND l.l_receiptdate >= date '1994-01-01' AND l.l_receiptdate < date '1994-01-01' + interval '1' year
 GROUP BY 1 ORDER BY 1;
SELECT n.n_name, count(DISTINCT c.c_custkey) AS customers, count(*) AS lines
  FROM regress_tpch.nation n JOIN regress_tpch.customer c ON n.n_nationkey = c.c_nationkey
  JOIN regress_tpch.orders o ON o.o_custkey = c.c_custkey JOIN regress_tpch.lineitem l ON l.l_orderkey = o.o_orderkey
 WHERE l.l_returnflag = 'R' GROUP BY 1 ORDER BY 1;
SELECT r.r_name, count(*) AS lines, sum(l.l_quantity) AS qty
  FROM regress_tpch.lineitem l JOIN regress_tpch.orders o ON l.l_orderkey = o.o_orderkey
  JOIN regress_tpch.customer c ON c.c_custkey = o.o_custkey
  JOIN regress_tpch.nation n ON n.n_nationkey = c.c_nationkey JOIN regress_tpch.region r ON r.r_regionkey = n.n_regionkey
 WHERE r.r_name <> 'AFRICA' GROUP BY r.r_name ORDER BY 1;

-- Q5 as written (its text in :q5, run as the owner and below as the analyst)
\set q5 'SELECT n.n_name, count(*) AS lines, round(sum(l.l_quantity)) AS qty FROM regress_tpch.customer c, regress_tpch.orders o, regress_tpch.lineitem l, regress_tpch.supplier s, regress_tpch.nation n, regress_tpch.region r WHERE c.c_custkey = o.o_custkey AND l.l_orderkey = o.o_orderkey AND l.l_suppkey = s.s_suppkey AND c.c_nationkey = s.s_nationkey AND s.s_nationkey = n.n_nationkey AND n.n_regionkey = r.r_regionkey AND r.r_name = ''ASIA'' AND o.o_orderdate >= date ''1993-01-01'' AND o.o_orderdate < date ''1993-01-01'' + interval ''5'' year GROUP BY n.n_name ORDER BY 1'
:q5;
SELECT count(*) AS lines FROM regress_tpch.lineitem l, regress_tpch.part p
 WHERE l.l_partkey = p.p_partkey AND p.p_size = l.l_linenumber;

SET ROLE regress_tpch_ann;
SET dpobj.query_epsilon = 1000000;
SELECT count(*) AS ledger_before FROM dpobj.ledger WHERE relation = 'regress_tpch.lineitem' \gset
-- Q1: the ship date a constant expression, sums, averages and a count by flag and status
-- (every level combination, "other" included)
SELECT l_returnflag, l_linestatus, round(sum(l_quantity)) AS sum_qty, count(*) AS count_order,
       avg(l_quantity) BETWEEN 1 AND 50 AS avg_qty_ok, avg(l_discount) BETWEEN 0 AND 0.1 AS avg_disc_ok,
       sum(l_extendedprice * (1 - l_discount)) >= 0 AS disc_price_ok
  FROM regress_tpch.lineitem WHERE l_shipdate <= date '1998-12-01' - interval '90' day
 GROUP BY l_returnflag, l_linestatus ORDER BY l_returnflag, l_linestatus;
-- Q6: date + interval, BETWEEN over constant arithmetic
SELECT abs(sum(l_extendedprice * l_discount) - :q6_revenue) < 30 AS q6_near FROM regress_tpch.lineitem
 WHERE l_shipdate >= date '1994-01-01' AND l_shipdate < date '1994-01-01' + interval '1' year
   AND l_discount BETWEEN 0.06 - 0.01 AND 0.06 + 0.01 AND l_quantity < 24;
-- Q3's shape: FROM customer, orders, lineitem, the keys in WHERE
SELECT c.c_mktsegment, count(*) AS n, round(sum(l.l_quantity)) AS qty
  FROM regress_tpch.customer c, regress_tpch.orders o, regress_tpch.lineitem l
 WHERE c.c_custkey = o.o_custkey AND l.l_orderkey = o.o_orderkey AND o.o_orderdate < date '1995-03-15'
 GROUP BY c.c_mktsegment ORDER BY 1;
-- Q12: FROM orders, lineitem; CASE over the path table's column in sums
SELECT l.l_shipmode, sum(CASE WHEN o.o_orderpriority IN ('1-URGENT', '2-HIGH') THEN 1 ELSE 0 END) AS high,
       sum(CASE WHEN o.o_orderpriority NOT IN ('1-URGENT', '2-HIGH') THEN 1 ELSE 0 END) AS low
  FROM regress_tpch.orders o, regress_tpch.lineitem l
 WHERE o.o_orderkey = l.l_orderkey AND l.l_commitdate < l.l_receiptdate
   AND l.l_receiptdate >= date '1994-01-01' AND l.l_receiptdate < date '1994-01-01' + interval '1' year
 GROUP BY l.l_shipmode ORDER BY 1;
-- Q14: a CASE over the lookup's text column inside the sum (not read as a value: unbounded)
SELECT abs(100.00 * sum(CASE WHEN p.p_type LIKE 'PROMO%' THEN l.l_extendedprice * (1 - l.l_discount) ELSE 0 END)
           / sum(l.l_extendedprice * (1 - l.l_discount)) - :q14_promo) < 0.5 AS q14_near
  FROM regress_tpch.lineitem l, regress_tpch.part p WHERE l.l_partkey = p.p_partkey;
-- a lookup first in FROM, the unit table next, the linked tables last; customers per nation
SELECT n.n_name, count(DISTINCT c.c_custkey) AS customers, count(*) AS lines
  FROM regress_tpch.nation n JOIN regress_tpch.customer c ON n.n_nationkey = c.c_nationkey
  JOIN regress_tpch.orders o ON o.o_custkey = c.c_custkey JOIN regress_tpch.lineitem l ON l.l_orderkey = o.o_orderkey
 WHERE l.l_returnflag = 'R' GROUP BY 1 ORDER BY 1;
-- NULLIF and COALESCE inside aggregates, NULLIF in a FILTER, a boolean cast to an integer
-- (the truths: 150 orders, 50 of priority 1-URGENT, 89 priced above 3000)
SELECT count(*) AS orders, count(nullif(o_totalprice, 0)) AS priced,
       round(sum((o_totalprice > 3000)::int)) AS above_3000,
       count(*) FILTER (WHERE nullif(o_orderpriority, '1-URGENT') IS NULL) AS urgent,
       abs(avg(coalesce(nullif(o_totalprice, 0), 0)) - 3500) < 2500 AS avg_ok
  FROM regress_tpch.orders;
-- Q5's regions: a lookup (region) joined on an earlier lookup's column (nation's)
SELECT r.r_name, count(*) AS lines, round(sum(l.l_quantity)) AS qty
  FROM regress_tpch.lineitem l JOIN regress_tpch.orders o ON l.l_orderkey = o.o_orderkey
  JOIN regress_tpch.customer c ON c.c_custkey = o.o_custkey
  JOIN regress_tpch.nation n ON n.n_nationkey = c.c_nationkey JOIN regress_tpch.region r ON r.r_regionkey = n.n_regionkey
 WHERE r.r_name <> 'AFRICA' GROUP BY r.r_name ORDER BY 1;
-- Q5 as written: FROM customer first, supplier on the line's key, nation on the supplier's,
-- region on the nation's, and c_nationkey = s_nationkey, an equality on a lookup's column
-- outside its keys, a filter (in WHERE; in ON refused); a part's size against the line's
-- number, the same (the truths above)
:q5;
SELECT count(*) AS lines FROM regress_tpch.lineitem l, regress_tpch.part p
 WHERE l.l_partkey = p.p_partkey AND p.p_size = l.l_linenumber;
-- aggregate()'s option "lookups" the same: region on nation's column; listed before nation,
-- the column is unknown (42703, free)
SELECT group_values, estimate FROM dpobj.aggregate('regress_tpch.orders', '[{"stat": "count"}]', 1000000, 0,
       ARRAY['region.r_name'], jsonb_build_object('lookups', jsonb_build_array(
         jsonb_build_object('table', 'regress_tpch.nation'::regclass::oid::bigint, 'on', '[["customer.c_nationkey", "n_nationkey"]]'::jsonb),
         jsonb_build_object('table', 'regress_tpch.region'::regclass::oid::bigint, 'on', '[["nation.n_regionkey", "r_regionkey"]]'::jsonb))))
 ORDER BY 1::text;
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate('regress_tpch.orders', '[{"stat": "count"}]', 1, 0,
       ARRAY['region.r_name'], jsonb_build_object('lookups', jsonb_build_array(
         jsonb_build_object('table', 'regress_tpch.region'::regclass::oid::bigint, 'on', '[["nation.n_regionkey", "r_regionkey"]]'::jsonb),
         jsonb_build_object('table', 'regress_tpch.nation'::regclass::oid::bigint, 'on', '[["customer.c_nationkey", "n_nationkey"]]'::jsonb))))$$);
-- the function form: its intervals hold its estimates
SELECT result, (intervals->'n'->>0)::float8 <= (result->>'n')::float8
       AND (result->>'n')::float8 <= (intervals->'n'->>1)::float8 AS within
  FROM dpobj.query($$SELECT count(*) AS n FROM regress_tpch.customer c, regress_tpch.orders o
 WHERE c.c_custkey = o.o_custkey AND o.o_orderdate >= make_date(1995, 1, 1)$$, 1000000);
SELECT count(*) - :ledger_before AS charges FROM dpobj.ledger WHERE relation = 'regress_tpch.lineitem';

-- refused before any charge: row-level groups (Q10, Q3 as written), a subquery (Q18), a
-- lookup joined on a later lookup's column, a lookup joined on more than its key (Q5's
-- c_nationkey = s_nationkey), customers without orders (LEFT JOIN from the unit table), a
-- constant expression that fails (PostgreSQL's error), a stable function
SELECT count(*) AS ledger_before FROM dpobj.ledger WHERE relation LIKE 'regress_tpch.%' \gset
SELECT sqlstate, message FROM regress.err($$SELECT l.l_orderkey, sum(l.l_extendedprice), o.o_orderdate
  FROM regress_tpch.customer c, regress_tpch.orders o, regress_tpch.lineitem l
 WHERE c.c_custkey = o.o_custkey AND l.l_orderkey = o.o_orderkey GROUP BY l.l_orderkey, o.o_orderdate$$);
SELECT sqlstate, message FROM regress.err($$SELECT o.o_orderpriority, sum(l.l_quantity)
  FROM regress_tpch.orders o, regress_tpch.lineitem l WHERE o.o_orderkey = l.l_orderkey
   AND o.o_orderkey IN (SELECT l_orderkey FROM regress_tpch.lineitem GROUP BY 1 HAVING sum(l_quantity) > 100)
 GROUP BY 1$$);
SELECT sqlstate, message FROM regress.err($$SELECT r.r_name, count(*) FROM regress_tpch.customer c, regress_tpch.region r,
  regress_tpch.nation n WHERE n.n_nationkey = c.c_nationkey AND r.r_regionkey = n.n_regionkey GROUP BY 1$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_tpch.lineitem l
  JOIN regress_tpch.orders o ON o.o_orderkey = l.l_orderkey JOIN regress_tpch.customer c ON c.c_custkey = o.o_custkey
  JOIN regress_tpch.nation n ON n.n_nationkey = c.c_nationkey JOIN regress_tpch.part p ON p.p_partkey = l.l_partkey
   AND p.p_size = n.n_nationkey$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_tpch.customer c
  LEFT JOIN regress_tpch.orders o ON c.c_custkey = o.o_custkey$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_tpch.nation n
  LEFT JOIN regress_tpch.customer c ON n.n_nationkey = c.c_nationkey$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_tpch.orders WHERE o_totalprice > 1 / 0$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_tpch.orders
 WHERE o_orderdate > date '1995-01-01' + 2147483647$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_tpch.orders WHERE o_orderdate < now()$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_tpch.orders WHERE o_orderdate < current_date$$);
SELECT sqlstate, message FROM regress.err($$SELECT extract(year FROM o_orderdate) AS y, count(*) FROM regress_tpch.orders GROUP BY 1$$);
SELECT sqlstate, message FROM regress.err($$SELECT CASE WHEN o_totalprice < 3000 THEN 'low' ELSE 'high' END, count(*)
  FROM regress_tpch.orders GROUP BY 1$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_tpch.orders
 WHERE o_orderdate < to_date('1995-01-01', 'YYYY-MM-DD')$$);
SELECT count(*) - :ledger_before AS charges FROM dpobj.ledger WHERE relation LIKE 'regress_tpch.%';
RESET dpobj.query_epsilon;
RESET ROLE;
DROP SCHEMA regress_tpch CASCADE;
SELECT dpobj.drop_budget_domain('regress_tpch_dom');
DROP OWNED BY regress_tpch_ann;
DROP ROLE regress_tpch_ann;
