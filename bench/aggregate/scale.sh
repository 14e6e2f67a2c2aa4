#!/usr/bin/env bash
# bench/aggregate/scale.sh — at BENCH_ROWS [20000000] rows of 10 columns (grp and c with
# declared levels, x1..x8 in [0, 100]): one dpobj.aggregate() of 10 cells (grp's 9 levels
# and "other") x 5 statistics (count, sum and mean of x1..x4) against the same plain GROUP
# BY, and dpobj.describe() of all 10 columns against a plain scan of them (2 counts, 8
# sums), each also against SELECT count(*), in the same run; max_parallel_workers_per_gather
# BENCH_WORKERS [2], best of BENCH_REPS [3].  Peak memory: the backend's VmHWM
# (/proc/<pid>/status; shared buffers it touched included, parallel workers not).  About a
# minute on 2 cores at 20M rows.  Needs a running server through PGHOST/PGPORT/PGUSER (a
# superuser), e.g. from the repository's root:
#   (. scripts/common.sh && dpobj_build_install && dpobj_start_cluster && bash bench/aggregate/scale.sh)
# Writes bench/csv/aggregate_scale.csv (bench/record.py), rendered into docs/BENCHMARKS.md.
# Not part of any test suite.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
N="${BENCH_ROWS:-20000000}"
W="${BENCH_WORKERS:-2}"
REPS="${BENCH_REPS:-3}"
DB=dpobj_aggscale
OUT="$(mktemp -d)"
trap 'rm -rf -- "$OUT"' EXIT
cd "$REPO"
psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB"
psql -X -q -d "$DB" -c "CREATE EXTENSION dpobj"
psql -X -q -d "$DB" <<SQL >/dev/null
SELECT setseed(0.42);
CREATE TABLE t AS
SELECT 'g' || (i % 10) AS grp, 'c' || (i % 5) AS c, random() * 100 AS x1, random() * 100 AS x2,
       random() * 100 AS x3, random() * 100 AS x4, random() * 100 AS x5, random() * 100 AS x6,
       random() * 100 AS x7, random() * 100 AS x8
  FROM generate_series(1, $N) i;
VACUUM ANALYZE t;
SELECT dpobj.declare_domain('t', 'grp', ARRAY['g1', 'g2', 'g3', 'g4', 'g5', 'g6', 'g7', 'g8', 'g9']);
SELECT dpobj.declare_domain('t', 'c', ARRAY['c1', 'c2', 'c3', 'c4']);
SELECT dpobj.declare_domain('t', 'x' || j, 0, 100) FROM generate_series(1, 8) j;
SELECT dpobj.protect('t');
SELECT dpobj.grant_budget('t', current_user::regrole, 1e9, 0.5);
SQL
# run SQL: "ms kB status", fresh connection
# shellcheck source=bench/measure.sh
. "$REPO/bench/measure.sh"
run() {
    bench_measure "$DB" "$OUT" "SET max_parallel_workers_per_gather = $W;
SET client_min_messages = warning;" "$1"
}
best() {  # best of REPS: "ms kB status"
    local b="" r
    for _ in $(seq 1 "$REPS"); do
        r="$(run "$1")"
        if [[ -z "$b" || $(awk -v a="${r%% *}" -v c="${b%% *}" 'BEGIN { print (a < c) }') == 1 ]]; then b="$r"; fi
    done
    printf '%s\n' "$b"
}
count_sql="SELECT count(*) FROM t;"
group_sql="SELECT grp, count(*), sum(x1), avg(x2), sum(x3), avg(x4) FROM t GROUP BY grp;"
agg_sql="SELECT count(*) FROM dpobj.aggregate('t', '[{\"stat\": \"count\"}, {\"stat\": \"sum\", \"column\": \"x1\"},
  {\"stat\": \"mean\", \"column\": \"x2\"}, {\"stat\": \"sum\", \"column\": \"x3\"}, {\"stat\": \"mean\", \"column\": \"x4\"}]',
  1, 1e-6, ARRAY['grp']);"
desc_sql="SELECT count(*) FROM dpobj.describe('t', 1, 1e-6);"
scan_sql="SELECT count(grp), count(c), sum(x1), sum(x2), sum(x3), sum(x4), sum(x5), sum(x6), sum(x7), sum(x8) FROM t;"
read -r cms ckb cst < <(best "$count_sql")
read -r gms gkb gst < <(best "$group_sql")
read -r sms skb sst < <(best "$scan_sql")
read -r ams akb ast < <(best "$agg_sql")
read -r dms dkb dst < <(best "$desc_sql")
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2fx", a / b }'; }
cell() { [[ "$3" == ok ]] && printf '%.0f' "$1" || printf '%s' "$3"; }
{
    echo "| query | ms | / count(*) | / plain SQL | peak RSS MB |"
    echo "|---|---:|---:|---:|---:|"
    echo "| SELECT count(*) | $(cell "$cms" "$ckb" "$cst") | 1.00x | — | $((ckb / 1024)) |"
    echo "| plain GROUP BY grp, 5 aggregates | $(cell "$gms" "$gkb" "$gst") | $(ratio "$gms" "$cms") | 1.00x | $((gkb / 1024)) |"
    echo "| plain scan of the 10 columns, 2 counts and 8 sums | $(cell "$sms" "$skb" "$sst") | $(ratio "$sms" "$cms") | 1.00x | $((skb / 1024)) |"
    echo "| dpobj.aggregate, 10 cells x 5 statistics | $(cell "$ams" "$akb" "$ast") | $(ratio "$ams" "$cms") | $(ratio "$ams" "$gms") | $((akb / 1024)) |"
    echo "| dpobj.describe, 10 columns | $(cell "$dms" "$dkb" "$dst") | $(ratio "$dms" "$cms") | $(ratio "$dms" "$sms") | $((dkb / 1024)) |"
} | tee /dev/stderr | python3 "$REPO/bench/record.py" aggregate_scale "BENCH_ROWS=$N BENCH_WORKERS=$W bash bench/aggregate/scale.sh"
psql -X -q -d postgres -c "DROP DATABASE $DB"
