#!/usr/bin/env bash
# bench/sql/speed.sh — a private SQL query (SET dpobj.query_epsilon; docs/REFERENCE.md,
# "query") against the same query run plainly by the owner, in the same run: BENCH_ROWS
# [10000000] rows of grp (100 declared levels) and x1..x4 in [0, 100]; 5 aggregates
# (count, sum, avg, sum, avg) grouped by grp (100 groups); the same on tu, t's rows with a
# unit column of their own (uniform over 1M units, about 10 rows each; k 16); then the
# three-table join (BENCH_LINES [6000000] order lines -> 1/4 as many orders -> 1/40 as many
# customers in 25 segments) grouped by segment, plain by the owner and private (the lines
# linked to the customers by dpobj.link_unit, k 40: one run on the lines).
# max_parallel_workers_per_gather BENCH_WORKERS [2], best of BENCH_REPS [3]; peak memory:
# the backend's VmHWM.  Needs a running server through PGHOST/PGPORT/PGUSER (a superuser),
# e.g. from the repository's root:
#   (. scripts/common.sh && dpobj_build_install && dpobj_start_cluster && bash bench/sql/speed.sh)
# Writes bench/csv/sql_speed.csv (bench/record.py), rendered into docs/BENCHMARKS.md.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
N="${BENCH_ROWS:-10000000}"
L="${BENCH_LINES:-6000000}"
W="${BENCH_WORKERS:-2}"
REPS="${BENCH_REPS:-3}"
DB=dpobj_sqlspeed
OUT="$(mktemp -d)"
trap 'rm -rf -- "$OUT"' EXIT
cd "$REPO"
# shellcheck source=bench/measure.sh
. "$REPO/bench/measure.sh"
bench_fresh_db "$DB"
psql -X -q -d "$DB" <<SQL >/dev/null
DO \$\$ BEGIN CREATE ROLE bench_sql_analyst; EXCEPTION WHEN duplicate_object THEN NULL; END \$\$;
SELECT setseed(0.42);
CREATE TABLE t AS
SELECT 'g' || lpad((i % 100)::text, 2, '0') AS grp, random() * 100 AS x1, random() * 100 AS x2,
       random() * 100 AS x3, random() * 100 AS x4
  FROM generate_series(1, $N) i;
VACUUM ANALYZE t;
SELECT dpobj.declare_domain('t', 'grp', array_agg('g' || lpad(j::text, 2, '0') ORDER BY j))
  FROM generate_series(0, 99) j;
SELECT dpobj.declare_domain('t', 'x' || j, 0, 100) FROM generate_series(1, 4) j;
SELECT dpobj.protect('t');
SELECT dpobj.grant_budget('t', 'bench_sql_analyst', 1e9, 0.5);
-- t's rows with a privacy unit column of their own
CREATE TABLE tu AS SELECT floor(random() * 1000000)::int AS uid, * FROM t;
VACUUM ANALYZE tu;
SELECT dpobj.declare_domain('tu', 'grp', array_agg('g' || lpad(j::text, 2, '0') ORDER BY j))
  FROM generate_series(0, 99) j;
SELECT dpobj.declare_domain('tu', 'x' || j, 0, 100) FROM generate_series(1, 4) j;
SELECT dpobj.protect('tu', 'uid', 16);
SELECT dpobj.grant_budget('tu', 'bench_sql_analyst', 1e9, 0.5);
-- the shop: customers <- orders <- order lines (amount in [0, 100])
CREATE TABLE customers (id int PRIMARY KEY, segment text NOT NULL);
INSERT INTO customers SELECT i, 's' || (i % 25) FROM generate_series(1, $L / 40) i;
CREATE TABLE orders (id int PRIMARY KEY, customer_id int NOT NULL REFERENCES customers);
INSERT INTO orders SELECT i, 1 + (i % ($L / 40)) FROM generate_series(1, $L / 4) i;
CREATE TABLE order_lines (order_id int NOT NULL REFERENCES orders, amount float8 NOT NULL);
INSERT INTO order_lines SELECT 1 + (i % ($L / 4)), random() * 100 FROM generate_series(1, $L) i;
VACUUM ANALYZE customers, orders, order_lines;
SQL
# run SQL: "ms kB status", fresh connection
run() {
    bench_measure "$DB" "$OUT" "SET max_parallel_workers_per_gather = $W;
SET client_min_messages = warning;$2" "$1"
}
best() {  # best of REPS: "ms kB status"
    local b="" r
    for _ in $(seq 1 "$REPS"); do
        r="$(run "$1" "${2:-}")"
        if [[ -z "$b" || $(awk -v a="${r%% *}" -v c="${b%% *}" 'BEGIN { print (a < c) }') == 1 ]]; then b="$r"; fi
    done
    printf '%s\n' "$b"
}
analyst="
SET ROLE bench_sql_analyst;
SET dpobj.query_epsilon = 1;"
count_sql="SELECT count(*) FROM t;"
group_sql="SELECT grp, count(*), sum(x1), avg(x2), sum(x3), avg(x4) FROM t GROUP BY grp;"
lines_sql="SELECT count(*) FROM order_lines;"
join_sql="SELECT c.segment, count(*), sum(l.amount), avg(l.amount) FROM order_lines l
  JOIN orders o ON o.id = l.order_id JOIN customers c ON c.id = o.customer_id GROUP BY c.segment;"
priv_join_sql="$join_sql"
read -r cms ckb cst < <(best "$count_sql")
read -r gms gkb gst < <(best "$group_sql")
read -r pms pkb pst < <(best "$group_sql" "$analyst")
unit_sql="${group_sql/FROM t /FROM tu }"
read -r ums ukb ust < <(best "$unit_sql")
read -r vms vkb vst < <(best "$unit_sql" "$analyst")
# the link, declared once by the owner (when this build has it)
link=no
if psql -X -q -At -d "$DB" -c "SELECT to_regproc('dpobj.link_unit') IS NOT NULL" | grep -q t; then
    psql -X -q -d "$DB" >/dev/null <<SQL && link=yes
\set ON_ERROR_STOP on
SELECT dpobj.declare_domain('order_lines', 'amount', 0, 100);
SELECT dpobj.declare_domain('customers', 'segment', array_agg('s' || j ORDER BY j))
  FROM generate_series(0, 24) j;
SELECT dpobj.create_budget_domain('shop');
SELECT dpobj.protect('customers', 'id', 1, 'shop');
SELECT dpobj.link_unit('order_lines', ARRAY['orders', 'customers']::regclass[], 40);
SELECT dpobj.grant_domain_budget('shop', 'bench_sql_analyst', 1e9, 0.5);
SQL
fi
read -r lms lkb lst < <(best "$lines_sql")
read -r jms jkb jst < <(best "$join_sql")
if [[ $link == yes ]]; then
    read -r qms qkb qst < <(best "$priv_join_sql" "$analyst")
else
    qms=0 qkb=0 qst="no dpobj.link_unit in this build"
fi
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2fx", a / b }'; }
cell() { [[ "$3" == ok ]] && printf '%.0f' "$1" || printf '%s' "$3"; }
{
    echo "| query | ms | / count(*) | / plain SQL | peak RSS MB |"
    echo "|---|---:|---:|---:|---:|"
    echo "| SELECT count(*), $N rows | $(cell "$cms" "$ckb" "$cst") | 1.00x | — | $((ckb / 1024)) |"
    echo "| plain: 5 aggregates GROUP BY grp (100 groups) | $(cell "$gms" "$gkb" "$gst") | $(ratio "$gms" "$cms") | 1.00x | $((gkb / 1024)) |"
    echo "| private: the same SELECT, query_epsilon 1 | $(cell "$pms" "$pkb" "$pst") | $(ratio "$pms" "$cms") | $(ratio "$pms" "$gms") | $((pkb / 1024)) |"
    echo "| plain: the same on tu | $(cell "$ums" "$ukb" "$ust") | $(ratio "$ums" "$cms") | 1.00x | $((ukb / 1024)) |"
    echo "| private: the same on tu | $(cell "$vms" "$vkb" "$vst") | $(ratio "$vms" "$cms") | $(ratio "$vms" "$ums") | $((vkb / 1024)) |"
    echo "| SELECT count(*), $L order lines | $(cell "$lms" "$lkb" "$lst") | 1.00x | — | $((lkb / 1024)) |"
    echo "| plain: count, sum, avg over lines ⋈ orders ⋈ customers GROUP BY segment (25) | $(cell "$jms" "$jkb" "$jst") | $(ratio "$jms" "$lms") | 1.00x | $((jkb / 1024)) |"
    echo "| private: the same join, query_epsilon 1 (unit linked by two foreign keys) | $(cell "$qms" "$qkb" "$qst") | $(ratio "$qms" "$lms") | $(ratio "$qms" "$jms") | $((qkb / 1024)) |"
} | tee /dev/stderr | python3 "$REPO/bench/record.py" sql_speed "BENCH_ROWS=$N BENCH_LINES=$L BENCH_WORKERS=$W bash bench/sql/speed.sh"
psql -X -q -d postgres -c "DROP DATABASE $DB"
