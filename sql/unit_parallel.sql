-- A linked table's run joins its path in parallel workers (src/protected/train.c,
-- trainquery.c): the bounding's functions are PARALLEL RESTRICTED, so the leader
-- (setup lists them) stores the gathered rows and bounds them itself; each unit keeps exactly
-- min(m, k) of its rows whatever the plan.  Customer c has c lines (1..40), all
-- of amount c % 7: the kept count and sum are exact, whichever rows are kept.
CREATE SCHEMA regress_up;
GRANT USAGE ON SCHEMA regress_up TO PUBLIC;
CREATE ROLE regress_up_alice;
CREATE ROLE regress_up_owner;
GRANT CREATE ON SCHEMA regress_up TO regress_up_owner;
SET ROLE regress_up_owner;
CREATE TABLE regress_up.customers (id int PRIMARY KEY, segment text);
CREATE TABLE regress_up.orders (id int PRIMARY KEY,
                                customer_id int REFERENCES regress_up.customers);
CREATE TABLE regress_up.order_lines (order_id int REFERENCES regress_up.orders,
                                     amount float8);
INSERT INTO regress_up.customers SELECT c, 's' || c % 3 FROM generate_series(1, 40) c;
-- two orders per customer
INSERT INTO regress_up.orders SELECT o, 1 + o % 40 FROM generate_series(1, 80) o;
INSERT INTO regress_up.order_lines
SELECT o.id, (c.id % 7)::float8
  FROM regress_up.customers c, generate_series(1, c.id) l,
       LATERAL (SELECT id FROM regress_up.orders WHERE customer_id = c.id
                 ORDER BY id OFFSET l % 2 LIMIT 1) o;
ANALYZE regress_up.customers, regress_up.orders, regress_up.order_lines;
REVOKE ALL ON regress_up.customers, regress_up.orders, regress_up.order_lines FROM PUBLIC;
SELECT dpobj.create_budget_domain('regress_up_shop');
SELECT dpobj.protect('regress_up.customers', privacy_unit => 'id', max_rows_per_unit => 1,
                     budget_domain => 'regress_up_shop');
SELECT dpobj.declare_domain('regress_up.order_lines', 'amount', 0, 10);
SELECT dpobj.link_unit('regress_up.order_lines',
                       ARRAY['regress_up.orders', 'regress_up.customers']::regclass[], 4);
SELECT 1 FROM dpobj.grant_domain_budget('regress_up_shop', 'regress_up_alice', 1e8, 0.001);
RESET ROLE;

-- the exact answer: sum over customers of min(c, 4) lines, of amount c % 7 each
SELECT sum(least(id, 4)) AS kept, sum(least(id, 4) * (id % 7)) AS kept_sum
  FROM regress_up.customers;

-- the bounding's shape (trainquery.h) read directly, in a forced-parallel plan:
-- the join gathered under the CTE, unit_counts() and unit_keep() above it;
-- every unit keeps min(m, 4) rows, whatever the plan
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET enable_nestloop = off;
CREATE TEMP VIEW bounded AS
WITH sel AS MATERIALIZED (
  SELECT l.amount, c.id AS unit FROM regress_up.order_lines l
    JOIN regress_up.orders o ON o.id = l.order_id
    JOIN regress_up.customers c ON c.id = o.customer_id)
SELECT r.unit, count(*) AS kept
  FROM (SELECT dpobj.unit_counts(unit, 4::bigint) AS h FROM sel) u
       CROSS JOIN LATERAL (SELECT unit FROM sel
                            WHERE u.h > 0 AND dpobj.unit_keep(unit, u.h) OFFSET 0) r
 GROUP BY r.unit;
-- (the plan's lines, not its text: the nodes around the CTE differ across majors)
CREATE FUNCTION pg_temp.plan_lines(q text) RETURNS TABLE(n int, line text)
LANGUAGE plpgsql AS $$
DECLARE r text; i int := 0;
BEGIN
  FOR r IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
    i := i + 1; n := i; line := r; RETURN NEXT;
  END LOOP;
END $$;
SELECT min(n) FILTER (WHERE line ~ 'CTE sel$') < min(n) FILTER (WHERE line ~ '->  Gather')
       AND min(n) FILTER (WHERE line ~ '->  Gather')
           < min(n) FILTER (WHERE line ~ 'CTE Scan on sel') AS gathered_under_cte,
       count(*) FILTER (WHERE line ~ 'Gather') AS gathers,
       count(*) FILTER (WHERE line ~ 'Parallel Seq Scan') AS parallel_scans,
       bool_or(line ~ 'dpobj.unit_keep') AND bool_or(line ~ 'dpobj.unit_counts') AS bounded_above
  FROM pg_temp.plan_lines('SELECT * FROM bounded');
SELECT count(*) AS units, bool_and(b.kept = least(b.unit, 4)) AS min_m_k
  FROM bounded b;
SET max_parallel_workers_per_gather = 0;
SELECT count(*) AS units, bool_and(b.kept = least(b.unit, 4)) AS min_m_k
  FROM bounded b;
DROP VIEW bounded;
RESET enable_nestloop;

-- sealed runs at a huge epsilon, with parallel settings and serially: the same
-- exact count and sum (which 4 rows a unit keeps is random, their sum is not).
-- At the default costs: the join is gathered whenever it has a partial path
-- (sealplan.c), which min_parallel_table_scan_size allows on these small tables
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
CREATE TEMP TABLE up_runs (plan text, statistic text, estimate float8);
GRANT ALL ON up_runs TO regress_up_alice;
SET ROLE regress_up_alice;
SET max_parallel_workers_per_gather = 2;
INSERT INTO up_runs
SELECT 'parallel', statistic, round(estimate)
  FROM dpobj.aggregate('regress_up.order_lines', '[{"stat": "count"}, {"stat": "sum", "column": "amount"}]', 1e6, 1e-6);
SET max_parallel_workers_per_gather = 0;
INSERT INTO up_runs
SELECT 'serial', statistic, round(estimate)
  FROM dpobj.aggregate('regress_up.order_lines', '[{"stat": "count"}, {"stat": "sum", "column": "amount"}]', 1e6, 1e-6);
-- the private SQL query, parallel
SET max_parallel_workers_per_gather = 2;
SET dpobj.query_epsilon = 1e6;
SELECT round(count(*)) AS count, round(sum(l.amount)) AS sum
  FROM regress_up.order_lines l JOIN regress_up.orders o ON o.id = l.order_id
  JOIN regress_up.customers c ON c.id = o.customer_id;
RESET dpobj.query_epsilon;
RESET ROLE;
SELECT plan, statistic, estimate FROM up_runs ORDER BY plan, statistic;
-- each run charged once, released
SELECT outcome, count(*) FROM dpobj.ledger
 WHERE relation = 'regress_up.order_lines' GROUP BY 1 ORDER BY 1;
DROP TABLE up_runs;

-- the parallel run's join is read by workers: an owner's row-security condition
-- that fails outside the leader fails that run (charged, DP006), not the serial one.
-- The leader joins too unless the caller turns that off (a unit run keeps its setting)
CREATE FUNCTION regress_up.in_leader() RETURNS boolean LANGUAGE plpgsql PARALLEL SAFE AS $$
BEGIN
  IF pg_backend_pid() <> current_setting('regress_up.leader')::int THEN
    RAISE EXCEPTION 'read by a parallel worker';
  END IF;
  RETURN true;
END $$;
ALTER TABLE regress_up.order_lines ENABLE ROW LEVEL SECURITY;
ALTER TABLE regress_up.order_lines FORCE ROW LEVEL SECURITY;
CREATE POLICY leader ON regress_up.order_lines USING (regress_up.in_leader());
SELECT set_config('regress_up.leader', pg_backend_pid()::text, false) IS NOT NULL AS leader;
SET ROLE regress_up_alice;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;
SELECT * FROM regress.err($$SELECT * FROM dpobj.aggregate('regress_up.order_lines', '[{"stat": "count"}, {"stat": "sum", "column": "amount"}]', 1, 1e-6)$$);
SET dpobj.query_epsilon = 1;
SELECT sqlstate FROM regress.err($$SELECT count(*), sum(l.amount) FROM regress_up.order_lines l
  JOIN regress_up.orders o ON o.id = l.order_id
  JOIN regress_up.customers c ON c.id = o.customer_id$$);
RESET dpobj.query_epsilon;
RESET parallel_leader_participation;
SET max_parallel_workers_per_gather = 0;
SELECT statistic FROM dpobj.aggregate('regress_up.order_lines', '[{"stat": "count"}, {"stat": "sum", "column": "amount"}]', 1, 1e-6);
RESET ROLE;
SELECT outcome, count(*) FROM dpobj.ledger
 WHERE relation = 'regress_up.order_lines' GROUP BY 1 ORDER BY 1;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;

SET ROLE regress_up_owner;
SELECT dpobj.unprotect('regress_up.order_lines');
SELECT dpobj.unprotect('regress_up.customers');
SELECT dpobj.drop_budget_domain('regress_up_shop');
RESET ROLE;
DROP SCHEMA regress_up CASCADE;
DROP ROLE regress_up_owner;
DROP ROLE regress_up_alice;
