-- Public lookup tables in private queries (src/protected/lookups.c, sqljoin.c,
-- src/context/lookupjoin.c): a table the analyst may read, joined to a protected
-- table's rows (or its unit path's) by equality on exactly a unique key of its own,
-- read inside the sealed run; its columns filter, group (its distinct values are the
-- groups) and, numeric, are aggregated (bounded by its least and greatest values).
-- Everything else is refused before any charge.
-- At epsilon 2000 per statistic the counts are exact (as in query_sql).
CREATE SCHEMA regress_ql;
CREATE ROLE regress_ql_ann;
GRANT USAGE ON SCHEMA regress_ql TO regress_ql_ann;
CREATE TABLE regress_ql.customers (id int PRIMARY KEY, plan text NOT NULL);
CREATE TABLE regress_ql.orders (id int PRIMARY KEY, customer_id int NOT NULL REFERENCES regress_ql.customers,
                                region_id int, country text, city varchar(20), amount float8 NOT NULL);
CREATE TABLE regress_ql.lines (id int PRIMARY KEY, order_id int NOT NULL REFERENCES regress_ql.orders,
                               qty float8 NOT NULL);
INSERT INTO regress_ql.customers SELECT c, CASE WHEN c % 2 = 0 THEN 'pro' ELSE 'free' END FROM generate_series(1, 40) c;
-- 120 orders: region 1, 2, 3 or NULL (every 10th), country and city keys of a composite lookup
INSERT INTO regress_ql.orders
SELECT o, 1 + o % 40, CASE WHEN o % 10 = 0 THEN NULL ELSE 1 + o % 3 END,
       CASE WHEN o % 2 = 0 THEN 'fr' ELSE 'de' END, CASE WHEN o % 4 < 2 THEN 'a' ELSE 'b' END, (o % 10)::float8
  FROM generate_series(1, 120) o;
INSERT INTO regress_ql.lines SELECT l, 1 + l % 120, 1 FROM generate_series(1, 240) l;
SELECT dpobj.create_budget_domain('regress_ql_shop');
SELECT dpobj.protect('regress_ql.customers', privacy_unit => 'id', max_rows_per_unit => 1,
                     budget_domain => 'regress_ql_shop');
SELECT dpobj.link_unit('regress_ql.orders', ARRAY['regress_ql.customers']::regclass[], 10);
SELECT dpobj.link_unit('regress_ql.lines', ARRAY['regress_ql.orders', 'regress_ql.customers']::regclass[], 20);
SELECT dpobj.declare_domain('regress_ql.customers', 'plan', ARRAY['free', 'pro']);
SELECT dpobj.declare_domain('regress_ql.orders', 'amount', 0, 10);
SELECT granted_epsilon FROM dpobj.grant_domain_budget('regress_ql_shop', 'regress_ql_ann', 1000000, 0.001);
-- EXPLAIN's lines
CREATE FUNCTION regress_ql.explain(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE r text;
BEGIN
    FOR r IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
        RETURN NEXT r;
    END LOOP;
END $$;
-- lookups: readable, keyed; and the unfit ones
CREATE TABLE regress_ql.regions (id int PRIMARY KEY, region_name text NOT NULL, factor float8);
INSERT INTO regress_ql.regions VALUES (1, 'north', 1), (2, 'south', 2), (3, 'east', 3), (4, 'west', 4);
CREATE TABLE regress_ql.cities (country text, city text, size text NOT NULL, PRIMARY KEY (country, city));
INSERT INTO regress_ql.cities VALUES ('fr', 'a', 'big'), ('fr', 'b', 'small'), ('de', 'a', 'small'), ('de', 'b', 'big');
CREATE TYPE regress_ql.mood AS ENUM ('low', 'high');
CREATE TABLE regress_ql.towns (city text PRIMARY KEY, mood regress_ql.mood);
INSERT INTO regress_ql.towns VALUES ('a', 'low'), ('b', 'high');
CREATE TABLE regress_ql.big (id bigint PRIMARY KEY, tier text NOT NULL);
INSERT INTO regress_ql.big VALUES (1, 't1'), (2, 't1'), (3, 't3');
CREATE TABLE regress_ql.nokey (id int, name text);
CREATE TABLE regress_ql.partial (id int, name text);
CREATE UNIQUE INDEX ON regress_ql.partial (id) WHERE id > 0;
CREATE TABLE regress_ql.deferred (id int UNIQUE DEFERRABLE INITIALLY DEFERRED, name text);
CREATE TABLE regress_ql.rls (id int PRIMARY KEY, name text);
ALTER TABLE regress_ql.rls ENABLE ROW LEVEL SECURITY;
CREATE POLICY everyone ON regress_ql.rls USING (true);
CREATE TABLE regress_ql.secret (id int PRIMARY KEY, name text);
CREATE TABLE regress_ql.parent (id int PRIMARY KEY, name text);
CREATE TABLE regress_ql.child () INHERITS (regress_ql.parent);
CREATE VIEW regress_ql.regions_v AS SELECT * FROM regress_ql.regions;
CREATE TABLE regress_ql.other (id int PRIMARY KEY, y float8);
SELECT dpobj.protect('regress_ql.other');
GRANT SELECT ON regress_ql.towns, regress_ql.big, regress_ql.regions, regress_ql.cities, regress_ql.nokey, regress_ql.partial,
      regress_ql.deferred, regress_ql.rls, regress_ql.parent, regress_ql.regions_v TO regress_ql_ann;
-- the truth
SELECT r.region_name, count(*), sum(o.amount) FROM regress_ql.orders o JOIN regress_ql.regions r ON r.id = o.region_id
 GROUP BY 1 ORDER BY 1;
SELECT r.region_name, count(*) FROM regress_ql.orders o LEFT JOIN regress_ql.regions r ON r.id = o.region_id
 GROUP BY 1 ORDER BY 1;
SELECT c.size, count(*) FROM regress_ql.orders o JOIN regress_ql.cities c ON c.country = o.country AND c.city = o.city
 GROUP BY 1 ORDER BY 1;
SELECT count(*) FROM regress_ql.lines l JOIN regress_ql.orders o ON o.id = l.order_id
  JOIN regress_ql.regions r ON r.id = o.region_id WHERE r.factor >= 2;
SELECT r.region_name, sum(r.factor), sum(o.amount * r.factor), count(r.factor)
  FROM regress_ql.orders o LEFT JOIN regress_ql.regions r ON r.id = o.region_id GROUP BY 1 ORDER BY 1;

SET ROLE regress_ql_ann;
SET dpobj.query_epsilon = 2000;
SELECT count(*) AS ledger_before FROM dpobj.ledger WHERE relation = 'regress_ql.orders' \gset
-- grouped by a lookup column: every value of the lookup is a group (west: no order),
-- NULL the "other" group; the aggregate over the protected table's own column
SELECT r.region_name, count(*), sum(o.amount) BETWEEN 0 AND 1000 AS sum_ok
  FROM regress_ql.orders o JOIN regress_ql.regions r ON r.id = o.region_id
 GROUP BY r.region_name ORDER BY 1;
-- LEFT JOIN keeps every order: a NULL region is the "other" group
SELECT r.region_name, count(*) FROM regress_ql.orders o LEFT JOIN regress_ql.regions r ON r.id = o.region_id
 GROUP BY r.region_name ORDER BY 1;
-- WHERE on a lookup column; the key in WHERE, either way round; a two-column key
SELECT r.region_name, count(*) FROM regress_ql.orders o, regress_ql.regions r
 WHERE o.region_id = r.id AND r.factor > 1.5 GROUP BY 1 ORDER BY 1;
SELECT c.size, count(*) FROM regress_ql.orders o JOIN regress_ql.cities c ON c.country = o.country AND o.city = c.city
 GROUP BY c.size ORDER BY 1;
-- a lookup joined to a path table's column, with the path
SELECT r.region_name, count(*) FROM regress_ql.lines l JOIN regress_ql.orders o ON o.id = l.order_id
  JOIN regress_ql.regions r ON r.id = o.region_id GROUP BY 1 ORDER BY 1;
SELECT count(*) AS ledger_before_lines FROM dpobj.ledger WHERE relation = 'regress_ql.lines' \gset
SELECT cu.plan, count(*) FROM regress_ql.lines l JOIN regress_ql.orders o ON o.id = l.order_id
  JOIN regress_ql.customers cu ON cu.id = o.customer_id JOIN regress_ql.regions r ON r.id = o.region_id
 WHERE r.factor >= 2 GROUP BY 1 ORDER BY 1;
SELECT count(*) - :ledger_before_lines AS charges_lines FROM dpobj.ledger WHERE relation = 'regress_ql.lines';
-- a numeric lookup column inside aggregates: bounded by its values (1 to 4); a LEFT
-- JOIN's NULLs skipped as in SQL (count(r.factor) is not count(*))
SELECT r.region_name,
       abs(sum(r.factor) - CASE r.region_name WHEN 'east' THEN 108 WHEN 'north' THEN 36 WHEN 'south' THEN 72 ELSE 0 END) < 5
         AS sum_factor_ok,
       abs(sum(o.amount * r.factor) - CASE r.region_name WHEN 'east' THEN 540 WHEN 'north' THEN 180 WHEN 'south' THEN 360 ELSE 0 END) < 20
         AS sum_weighted_ok,
       count(r.factor), count(*)
  FROM regress_ql.orders o LEFT JOIN regress_ql.regions r ON r.id = o.region_id GROUP BY 1 ORDER BY 1;
SELECT regress_ql.explain($$SELECT sum(o.amount * r.factor) FROM regress_ql.orders o
  JOIN regress_ql.regions r ON r.id = o.region_id$$);
-- keys of other types: varchar to text, int to bigint (PostgreSQL's cross-type "=")
SELECT t.city, count(*) FROM regress_ql.orders o JOIN regress_ql.towns t ON t.city = o.city GROUP BY 1 ORDER BY 1;
SELECT b.tier, count(*) FROM regress_ql.orders o JOIN regress_ql.big b ON b.id = o.region_id GROUP BY 1 ORDER BY 1;
-- GROUP BY an expression over a lookup column (its values the levels, cells merged);
-- a lookup column beside a declared one, LEFT JOIN from a path table's column
SELECT CASE WHEN r.region_name IN ('north', 'south') THEN 'ns' ELSE 'ew' END AS side, count(*)
  FROM regress_ql.orders o JOIN regress_ql.regions r ON r.id = o.region_id GROUP BY 1 ORDER BY 1;
SELECT cu.plan, r.region_name, count(*) FROM regress_ql.lines l JOIN regress_ql.orders o ON o.id = l.order_id
  JOIN regress_ql.customers cu ON cu.id = o.customer_id LEFT JOIN regress_ql.regions r ON r.id = o.region_id
 WHERE cu.plan = 'pro' GROUP BY 1, 2 ORDER BY 1, 2;
-- dpobj.query() and EXPLAIN (nothing charged)
SELECT result FROM dpobj.query($$SELECT r.region_name, count(*) AS n FROM regress_ql.orders o
  JOIN regress_ql.regions r ON r.id = o.region_id GROUP BY r.region_name$$, 2000) ORDER BY result::text;
EXPLAIN (COSTS OFF) SELECT r.region_name, count(*) FROM regress_ql.orders o
  JOIN regress_ql.regions r ON r.id = o.region_id GROUP BY r.region_name;
-- a prepared statement, each execution checked and charged
PREPARE q AS SELECT r.region_name, count(*) FROM regress_ql.orders o
  JOIN regress_ql.regions r ON r.id = o.region_id WHERE o.amount > $1 GROUP BY 1 ORDER BY 1;
EXECUTE q(4);
SELECT count(*) - :ledger_before AS charges FROM dpobj.ledger WHERE relation = 'regress_ql.orders';

-- refused before any charge
SELECT count(*) AS ledger_before FROM dpobj.ledger WHERE relation = 'regress_ql.orders' \gset
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_ql.orders o JOIN regress_ql.secret s ON s.id = o.region_id$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_ql.orders o JOIN regress_ql.rls s ON s.id = o.region_id$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_ql.orders o JOIN regress_ql.nokey s ON s.id = o.region_id$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_ql.orders o JOIN regress_ql.partial s ON s.id = o.region_id$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_ql.orders o JOIN regress_ql.deferred s ON s.id = o.region_id$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_ql.orders o JOIN regress_ql.regions_v s ON s.id = o.region_id$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_ql.orders o JOIN regress_ql.parent s ON s.id = o.region_id$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_ql.orders o JOIN regress_ql.other s ON s.id = o.region_id$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_ql.orders o JOIN regress_ql.regions r ON r.id < o.region_id$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_ql.orders o JOIN regress_ql.regions r ON true$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_ql.orders o JOIN regress_ql.regions r ON r.region_name = o.country$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_ql.orders o JOIN regress_ql.cities c ON c.country = o.country$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_ql.orders o JOIN regress_ql.regions r ON r.id::bigint = o.region_id$$);
SELECT sqlstate, message FROM regress.err($$SELECT sum(length(r.region_name)) FROM regress_ql.orders o JOIN regress_ql.regions r ON r.id = o.region_id$$);
SELECT sqlstate, message FROM regress.err($$SELECT r.factor, sum(r.factor) FROM regress_ql.orders o JOIN regress_ql.regions r ON r.id = o.region_id GROUP BY 1$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_ql.orders o, regress_ql.cities c, regress_ql.regions r WHERE r.id = o.region_id AND c.city = r.region_name AND c.country = r.region_name$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_ql.orders o RIGHT JOIN regress_ql.regions r ON r.id = o.region_id$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_ql.orders o LEFT JOIN regress_ql.regions r ON r.id = o.region_id AND r.factor > 1$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_ql.orders o JOIN regress_ql.regions r ON r.id = o.region_id JOIN regress_ql.regions customers ON customers.id = o.region_id$$);
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_ql.orders o JOIN pg_catalog.pg_class c ON c.oid = o.region_id$$);
SELECT sqlstate, message FROM regress.err($$SELECT t.mood, count(*) FROM regress_ql.orders o JOIN regress_ql.towns t ON t.city = o.city GROUP BY 1$$);
SELECT count(*) - :ledger_before AS charges FROM dpobj.ledger WHERE relation = 'regress_ql.orders';
-- the run reads a lookup as the protected table's owner, who must be able to
RESET ROLE;
CREATE ROLE regress_ql_owner;
ALTER TABLE regress_ql.orders OWNER TO regress_ql_owner;
SET ROLE regress_ql_ann;
SELECT sqlstate, message FROM regress.err($$SELECT count(*) FROM regress_ql.orders o JOIN regress_ql.big b ON b.id = o.region_id$$);
RESET ROLE;
ALTER TABLE regress_ql.orders OWNER TO CURRENT_USER;
DROP ROLE regress_ql_owner;
SET ROLE regress_ql_ann;
-- the run checks again: a lookup gaining row-level security after PREPARE is refused
RESET ROLE;
ALTER TABLE regress_ql.regions ENABLE ROW LEVEL SECURITY;
SET ROLE regress_ql_ann;
SELECT sqlstate, message FROM regress.err($$EXECUTE q(4)$$);
RESET ROLE;
ALTER TABLE regress_ql.regions DISABLE ROW LEVEL SECURITY;
REVOKE SELECT ON regress_ql.regions FROM regress_ql_ann;
SET ROLE regress_ql_ann;
SELECT sqlstate, message FROM regress.err($$EXECUTE q(4)$$);
-- a forged request: aggregate() checks its "lookups" as the query's run does
SELECT sqlstate, message FROM regress.err(format($$SELECT * FROM dpobj.aggregate('regress_ql.orders', '[{"stat": "count"}]', 1, 0,
       ARRAY['nokey.name'], '{"lookups": [{"table": %s, "left": false, "on": [["region_id", "id"]]}]}')$$,
       'regress_ql.nokey'::regclass::oid));
SELECT sqlstate, message FROM regress.err(format($$SELECT * FROM dpobj.aggregate('regress_ql.orders', '[{"stat": "count"}]', 1, 0,
       ARRAY['secret.name'], '{"lookups": [{"table": %s, "on": [["region_id", "id"]]}]}')$$,
       'regress_ql.secret'::regclass::oid));
SELECT sqlstate, message FROM regress.err($$SELECT * FROM dpobj.aggregate('regress_ql.orders', '[{"stat": "count"}]', 1, 0,
       '{}', '{"lookups": {"table": 1}}')$$);
SELECT count(*) - :ledger_before AS charges FROM dpobj.ledger WHERE relation = 'regress_ql.orders';
-- aggregate() with the same option: the lookup's column a group
SELECT group_values, estimate FROM dpobj.aggregate('regress_ql.orders', '[{"stat": "count"}]', 2000, 0,
       ARRAY['cities.size'], format('{"lookups": [{"table": %s, "on": [["country", "country"], ["city", "city"]]}]}',
       'regress_ql.cities'::regclass::oid)::jsonb) ORDER BY group_values::text;
DEALLOCATE q;
RESET dpobj.query_epsilon;
RESET ROLE;
DROP SCHEMA regress_ql CASCADE;
SELECT dpobj.drop_budget_domain('regress_ql_shop');
DROP OWNED BY regress_ql_ann;
DROP ROLE regress_ql_ann;
