#!/usr/bin/env bash
# bench/shipped/run.sh — a direct dp_logistic / dp_noisysgd call in a parallel plan: time and
# peak memory of the leader and of its workers (a benchmark, not a test):
#
#   BENCH_ROWS=5000000 bash bench/shipped/run.sh
#
# Builds and installs dpobj, starts a throwaway cluster (scripts/common.sh), makes bench/scale's
# d10 table (ten continuous features, every row distinct, one float8[] column), then for 0 and
# 2 parallel workers runs, on a fresh connection each,
#     SELECT dpobj.dp_logistic(x, y, 1, 1e-6, '{"R": 1}') FROM t      (and dp_noisysgd, T = 30)
# and SELECT sum(cardinality(x)) FROM t (the scan), and prints the time, its ratio to the scan
# of the same plan, the peak resident memory (VmHWM, /proc/<pid>/status, sampled every 0.1 s)
# of the leader and of the largest worker, the model's "sample_rows" and its accuracy on the
# table (computed after the timed run).  Results are printed,
# not written: copy them to docs/BENCHMARKS.md with the date, commit and load.
#
# Environment: BENCH_ROWS [5000000], BENCH_MECHS ["logistic noisysgd"], BENCH_WORKERS ["0 2"].
set -euo pipefail

# shellcheck source=scripts/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/common.sh"

BENCH_ROWS="${BENCH_ROWS:-5000000}"
BENCH_MECHS="${BENCH_MECHS:-logistic noisysgd}"
BENCH_WORKERS="${BENCH_WORKERS:-0 2}"
DPOBJ_EXTRA_CONF="${DPOBJ_EXTRA_CONF:-}
max_parallel_workers = 4
jit = off"
export DPOBJ_EXTRA_CONF

dpobj_ensure_packages
dpobj_build_install
dpobj_start_cluster
DB=dpobj_bench_shipped
dpobj_psql -c "CREATE DATABASE $DB" >/dev/null
dpobj_psql -d "$DB" -c "CREATE EXTENSION dpobj" >/dev/null
dpobj_log "generating $BENCH_ROWS rows"
dpobj_psql -d "$DB" >/dev/null <<SQL
SELECT setseed(0.42);
CREATE TABLE t AS
SELECT x, (x[1] + 0.5 * x[2] - 0.25 * x[3] + 0.3 * (random() - 0.5)) > 0 AS y
  FROM (SELECT ARRAY(SELECT random() - 0.5 FROM generate_series(1, 10) WHERE g > 0)::float8[] AS x
          FROM generate_series(1, $BENCH_ROWS) g) s;
VACUUM ANALYZE t;
SQL

# shellcheck source=bench/measure.sh
. "$(dirname "${BASH_SOURCE[0]}")/../measure.sh"

run_one() { # WORKERS SQL -> "ms leader_kB worker_kB result"
    local out tmp
    tmp=$(mktemp -d)
    out=$(bench_watched "$DB" "$tmp" "SET max_parallel_workers_per_gather = $1;
SET parallel_leader_participation = off;
SET min_parallel_table_scan_size = 0;
SET parallel_setup_cost = 0;
SET dpobj.seed = 1;
\\timing on
$2;
\\timing off")
    echo "$(sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' <<<"$out" | head -1) $(head -1 <<<"$out")" \
        "$(tail -n +2 <<<"$out" | grep -v '^Time:\|^SET\|^Timing\|^SELECT [0-9]' | head -1)"
    rm -rf "$tmp"
}

printf '| workers | run | ms | ratio to the scan | leader peak MB | largest worker peak MB | sample_rows | accuracy |\n'
printf '|---:|---|---:|---:|---:|---:|---|---:|\n'
for w in $BENCH_WORKERS; do
    read -r scan lw ww _ <<<"$(run_one "$w" "SELECT sum(cardinality(x)) FROM t")"
    printf '| %s | scan | %.0f | 1.0x | %d | %d | | |\n' "$w" "$scan" $((lw / 1024)) $((ww / 1024))
    for m in $BENCH_MECHS; do
        case $m in
            logistic) a="dpobj.dp_logistic(x, y, 1, 1e-6, '{\"R\": 1}')" ;;
            noisysgd) a="dpobj.dp_noisysgd(x, y, 1, 1e-6, '{\"R\": 1}')" ;;
        esac
        # timed: the run; then (untimed) its sample_rows and accuracy on the table
        q="CREATE TEMP TABLE mm AS SELECT $a AS m FROM t;
\\timing off
SELECT (SELECT coalesce((m).params->>'sample_rows', '-') FROM mm) || ' ' ||
       round(avg((dpobj.predict((SELECT m FROM mm), x) = y)::int)::numeric, 4) FROM t"
        read -r ms lw ww sr acc <<<"$(run_one "$w" "$q")"
        printf '| %s | %s | %.0f | %.1fx | %d | %d | %s | %s |\n' "$w" "$m" "$ms" \
            "$(echo "$ms / $scan" | bc -l)" $((lw / 1024)) $((ww / 1024)) "$sr" "$acc"
    done
done
