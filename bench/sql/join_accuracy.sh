#!/usr/bin/env bash
# bench/sql/join_accuracy.sh — a private SQL join along a linked table's foreign keys
# (docs/REFERENCE.md, "query"): BENCH_CUSTOMERS [15000] customers in 25 segments (about 600
# each), 4 orders each, 4 lines per order (amount in [0, 100], declared); order_lines
# linked to customers (dpobj.link_unit, k = BENCH_K [16], every line kept).  BENCH_RUNS [25]
# runs of dpobj.query() of count(*), sum(amount), avg(amount) over lines ⋈ orders ⋈
# customers grouped by segment at epsilon BENCH_EPS [1] (a third per aggregate): per
# statistic the median relative error over the 25 groups and all runs (target for the
# sums: <= 2 %) and the share of 95 % intervals covering the truth.  Needs a running
# server through PGHOST/PGPORT/PGUSER (a superuser), e.g. from the repository's root:
#   (. scripts/common.sh && dpobj_build_install && dpobj_start_cluster && bash bench/sql/join_accuracy.sh)
# Writes bench/csv/sql_join_accuracy.csv (bench/record.py), rendered into docs/BENCHMARKS.md.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
RUNS="${BENCH_RUNS:-25}"
C="${BENCH_CUSTOMERS:-15000}"
K="${BENCH_K:-16}"
EPS="${BENCH_EPS:-1}"
DB=dpobj_sqljoin
cd "$REPO"
# shellcheck source=bench/measure.sh
. "$REPO/bench/measure.sh"
bench_fresh_db "$DB"
psql -X -q -d "$DB" -v runs="$RUNS" -v eps="$EPS" -v c="$C" -v k="$K" --csv <<'SQL' | sed -n '/^statistic,/,$p' | tee /dev/stderr |
SET client_min_messages = warning;
DO $$ BEGIN CREATE ROLE bench_sqljoin_analyst; EXCEPTION WHEN duplicate_object THEN NULL; END $$;
SELECT setseed(0.42);
CREATE TABLE customers (id int PRIMARY KEY, segment text NOT NULL);
INSERT INTO customers SELECT i, 's' || lpad((i % 25)::text, 2, '0') FROM generate_series(1, :c) i;
CREATE TABLE orders (id int PRIMARY KEY, customer_id int NOT NULL REFERENCES customers);
INSERT INTO orders SELECT i, 1 + i % :c FROM generate_series(1, 4 * :c) i;
CREATE TABLE order_lines (order_id int NOT NULL REFERENCES orders, amount float8 NOT NULL);
INSERT INTO order_lines SELECT 1 + i % (4 * :c), 100 * random() FROM generate_series(1, 16 * :c) i;
VACUUM ANALYZE customers, orders, order_lines;
SELECT dpobj.create_budget_domain('shop') \gset
SELECT dpobj.protect('customers', 'id', 1, 'shop') \gset
SELECT dpobj.link_unit('order_lines', ARRAY['orders', 'customers']::regclass[], :k) \gset
SELECT dpobj.declare_domain('customers', 'segment', array_agg('s' || lpad(j::text, 2, '0') ORDER BY j))
  FROM generate_series(0, 24) j \gset
SELECT dpobj.declare_domain('order_lines', 'amount', 0, 100) \gset
SELECT dpobj.grant_domain_budget('shop', 'bench_sqljoin_analyst', 1e9, 0.5) \gset
CREATE TABLE truth AS
SELECT c.segment AS g, count(*)::float8 AS n, sum(l.amount) AS s, avg(l.amount) AS m
  FROM order_lines l JOIN orders o ON o.id = l.order_id JOIN customers c ON c.id = o.customer_id
 GROUP BY c.segment;
CREATE TABLE runs (run int, g text, stat text, est float8, lo float8, hi float8);
GRANT INSERT ON runs TO bench_sqljoin_analyst;
SELECT set_config('bench.runs', :'runs', false), set_config('bench.eps', :'eps', false) \gset
SET ROLE bench_sqljoin_analyst;
DO $$
DECLARE e float8 := current_setting('bench.eps')::float8;
BEGIN
  FOR i IN 1..current_setting('bench.runs')::int LOOP
    INSERT INTO runs SELECT i, result->>'segment', s, (result->>s)::float8,
           (intervals->s->>0)::float8, (intervals->s->>1)::float8
      FROM dpobj.query('SELECT c.segment, count(*) AS n, sum(l.amount) AS s, avg(l.amount) AS m
                          FROM public.order_lines l JOIN public.orders o ON o.id = l.order_id
                          JOIN public.customers c ON c.id = o.customer_id GROUP BY c.segment', e),
           unnest(ARRAY['n', 's', 'm']) s;
  END LOOP;
END $$;
RESET ROLE;
SELECT CASE r.stat WHEN 'n' THEN 'count(*)' WHEN 's' THEN 'sum(amount)' ELSE 'avg(amount)' END AS statistic,
       count(DISTINCT r.g) AS groups, round(avg(u.n)) AS "rows per group",
       count(DISTINCT r.run) AS runs,
       round((percentile_cont(0.5) WITHIN GROUP (ORDER BY abs(r.est - CASE r.stat WHEN 'n' THEN u.n
             WHEN 's' THEN u.s ELSE u.m END) / CASE r.stat WHEN 'n' THEN u.n WHEN 's' THEN u.s ELSE u.m END)
             * 100)::numeric, 3) AS "median relative error %",
       round(100.0 * avg((CASE r.stat WHEN 'n' THEN u.n WHEN 's' THEN u.s ELSE u.m END
                          BETWEEN r.lo AND r.hi)::int), 1) AS "covered %"
  FROM runs r JOIN truth u ON u.g = r.g
 GROUP BY r.stat ORDER BY 1;
SQL
python3 "$REPO/bench/record.py" sql_join_accuracy "BENCH_RUNS=$RUNS BENCH_CUSTOMERS=$C BENCH_K=$K BENCH_EPS=$EPS bash bench/sql/join_accuracy.sh"
psql -X -q -d postgres -c "DROP DATABASE $DB"
