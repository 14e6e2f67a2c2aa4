#!/usr/bin/env bash
# bench/citus/run.sh — dpobj on Citus, local vs distributed, one command (a
# benchmark, not a test):
#
#   bash bench/citus/run.sh
#
# Builds and installs dpobj and Citus (tests/citus/build.sh; cached), starts a coordinator
# and two workers on this machine (tests/citus/cluster.sh; 32 shards, the Citus default),
# generates BENCH_ROWS (default 10 000 000) Adult-like rows (the generator of
# bench/parallel/run.sh: d = 4) into a local table on the coordinator and the same rows
# into a distributed table (and the first tenth into a second pair), then for
# n = BENCH_ROWS/10 and n = BENCH_ROWS runs
#     SELECT (dpobj.dp_halfspace(features, label, 1.0, 1e-8)).weights FROM <table>
# locally (serial, and with 2 parallel workers) and distributed (Citus defaults: up to 16
# connections per worker; and citus.max_adaptive_executor_pool_size = 1: one connection per
# worker, which is what a worker with one core can use), BENCH_REPS times in fresh
# connections after a warm-up, with dpobj.seed = 1 (every run must release the same model:
# checked).  Reported per configuration: median seconds and rows/s; the coordinator
# backend's peak resident memory (VmHWM) and the bytes that crossed the loopback interface
# during the query (/proc/net/dev, lo: the workers' partial states, the task queries, the
# client protocol -- everything of the cluster, nothing else should run meanwhile).  The
# exact payload the workers send is also computed: the text form of each shard's partial
# state (what Citus ships for worker_partial_agg), summed over the shards.
# Writes the first table into bench/csv/citus.csv (bench/record.py), which re-renders
# docs/BENCHMARKS.md (bench/render.py).
#
# Environment: BENCH_ROWS [10000000], BENCH_REPS [3],
# BENCH_CITUS_PGPORT [57736] (and the next two ports).  Needs root (or sudo) for make
# install and for reading the coordinator backend's /proc entries.
set -euo pipefail

# shellcheck source=scripts/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/common.sh"
# shellcheck source=tests/citus/build.sh
. "$REPO/tests/citus/build.sh"
# shellcheck source=tests/citus/cluster.sh
. "$REPO/tests/citus/cluster.sh"
# shellcheck source=bench/citus/lib.sh
. "$REPO/bench/citus/lib.sh"

BENCH_ROWS="${BENCH_ROWS:-10000000}"
BENCH_REPS="${BENCH_REPS:-3}"
BEGIN_MARK='<!-- bench/citus -->'
END_MARK='<!-- /bench/citus -->'
OUT="$(mktemp -d "${TMPDIR:-/tmp}/dpobj-bench-citus.XXXXXX")"
dpobj_at_exit "rm -rf -- '$OUT'; :"

bench_citus_start

dpobj_log "generating $BENCH_ROWS rows (local table, then the distributed copy)"
t0=$(date +%s.%N)
cq "$C" >/dev/null <<SQL
SET client_min_messages = warning;
SELECT setseed(0.42);
CREATE TABLE bench_local AS
SELECT i AS id, ARRAY[male::int, 1 - male::int, gain / 99999.0, hours / 99.0]::float8[] AS features,
       (0.9 * male::int + 4.0 * gain / 99999.0 + 1.5 * hours / 99.0 + 0.8 * random() > 2.2) AS label
  FROM $(bench_citus_rows "$BENCH_ROWS");
CREATE TABLE bench_dist (LIKE bench_local);
SELECT create_distributed_table('bench_dist', 'id');
INSERT INTO bench_dist SELECT * FROM bench_local;
-- the first tenth, as its own pair of tables (so that no query scans rows it skips)
CREATE TABLE bench_local_s AS SELECT * FROM bench_local WHERE id <= $((BENCH_ROWS / 10));
CREATE TABLE bench_dist_s (LIKE bench_local);
SELECT create_distributed_table('bench_dist_s', 'id');
INSERT INTO bench_dist_s SELECT * FROM bench_local_s;
VACUUM ANALYZE bench_local;
VACUUM ANALYZE bench_dist;
VACUUM ANALYZE bench_local_s;
VACUUM ANALYZE bench_dist_s;
SQL
gen_s=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.0f", b - a }')
SHARDS=$(cq "$C" -c "SELECT count(*) FROM pg_dist_shard WHERE logicalrelid = 'bench_dist'::regclass")
table_size=$(cq "$C" -c "SELECT pg_size_pretty(pg_table_size('bench_local'))")

AGG="(dpobj.dp_halfspace(features, label, 1.0, 1e-8)).weights"
# one run in a fresh connection: "seconds vmhwm_kB loopback_bytes result"
run_one() { bench_citus_run_one "SET dpobj.seed = 1;
$1" "$2"; }

load_start="$(cut -d' ' -f1-3 /proc/loadavg)"
rows_md=""
sizes_md=""
models=""
for n in $((BENCH_ROWS / 10)) "$BENCH_ROWS"; do
    sfx=$([[ $n == "$BENCH_ROWS" ]] && echo "" || echo "_s")
    payload=$(cq "$C" -c "SELECT sum(result::bigint) FROM run_command_on_shards('bench_dist$sfx',
        \$c\$SELECT length(pg_catalog.worker_partial_agg('dpobj.dp_halfspace(double precision[],boolean,double precision,double precision)'::regprocedure,
                    ROW(features, label, 1.0::float8, 1e-8::float8))::text) FROM %s\$c\$)")
    distinct=$(cq "$C" -c "SELECT count(*) FROM (SELECT DISTINCT features[1], round(features[3] * 64),
                                  round(features[4] * 64), label FROM bench_local$sfx) d")
    for cfg in local_serial local_parallel distributed distributed_pool1; do
        case $cfg in
            local_serial) setup="SET max_parallel_workers_per_gather = 0;" tbl=bench_local$sfx ;;
            local_parallel) setup="SET max_parallel_workers_per_gather = 2; SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0;" tbl=bench_local$sfx ;;
            distributed) setup="SET max_parallel_workers_per_gather = 0;" tbl=bench_dist$sfx ;;
            distributed_pool1) setup="SET max_parallel_workers_per_gather = 0; SET citus.max_adaptive_executor_pool_size = 1;" tbl=bench_dist$sfx ;;
        esac
        for q in count agg; do
            sel=$([[ $q == agg ]] && echo "$AGG" || echo "count(*)")
            query="SELECT $sel FROM $tbl;"
            dpobj_log "n=$n $cfg $q: warm-up + $BENCH_REPS runs"
            dpobj_bench_runs "$BENCH_REPS" "$OUT/runs" run_one "$setup" "$query"
            med=$(awk '{ print $1 }' "$OUT/runs" | dpobj_median)
            hwm=$(awk '{ if ($2 > m) m = $2 } END { print m + 0 }' "$OUT/runs")
            rch=$(awk '{ print $3 }' "$OUT/runs" | dpobj_median)
            res=$(awk '{ print $4 }' "$OUT/runs" | sort -u | tr '\n' ' ')
            rps=$(awk -v n="$n" -v s="$med" 'BEGIN { printf "%.0f", n / s }')
            [[ $q == agg ]] && models+="$res"$'\n'
            label=$([[ $q == agg ]] && echo '`dp_halfspace`' || echo '`count(*)`')
            rows_md+="| $n | $cfg | $label | $med | $rps | $((hwm / 1024)) MB | $rch | \`${res% }\` |"$'\n'
            dpobj_log "  median ${med}s, $rps rows/s, coordinator VmHWM $hwm kB, loopback $rch bytes, $res"
        done
    done
    sizes_md+="| $n | $distinct | $SHARDS | $payload | $(awk -v b="$payload" -v s="$SHARDS" 'BEGIN { printf "%.0f", b / s }') |"$'\n'
done
same=$(printf '%s' "$models" | sort -u | grep -c . || true)
[[ "$same" == 1 ]] && same_txt="yes: every run (local and distributed) released the same model" ||
    same_txt="NO: the models differ"
explain=$(cq "$C" -c "EXPLAIN (COSTS OFF) SELECT dpobj.dp_halfspace(features, label, 1.0, 1e-8) FROM bench_dist")
load_end="$(cut -d' ' -f1-3 /proc/loadavg)"
cpu="$(nproc) CPUs, $(awk -F: '/model name/ { sub(/^ /, "", $2); print $2; exit }' /proc/cpuinfo)"
pgver="$(cq "$C" -c 'SHOW server_version')"
citusver="$(cq "$C" -c "SELECT extversion FROM pg_extension WHERE extname = 'citus'")"

section="$BEGIN_MARK
## Citus: local vs distributed

Generated by \`bash bench/citus/run.sh\` on $(date -u '+%Y-%m-%d %H:%M UTC'); $cpu;
PostgreSQL $pgver, Citus $citusver: a coordinator (no shards) and two workers, all on this
machine; $SHARDS shards; jit = off, default shared_buffers, max_parallel_workers_per_gather = 0
on every node (the shard tasks are the parallelism; \`local_parallel\` sets 2 for its session).  Data: $BENCH_ROWS Adult-like
rows (d = 4, the generator of bench/parallel/run.sh; $table_size per copy; generated and
distributed in ${gen_s} s).  Query \`SELECT (dpobj.dp_halfspace(features, label, 1.0,
1e-8)).weights FROM t\` (n = the first tenth: a second pair of tables), dpobj.seed = 1, median of $BENCH_REPS fresh
connections after a warm-up; \`count(*)\` is the scan alone.  *Coordinator peak RSS* is the
VmHWM of the coordinator's backend (it includes the shared buffers that backend touched);
*loopback bytes* is what crossed 127.0.0.1 during the query (all of the cluster's
traffic: task queries, partial states, the client protocol).  Load average before:
$load_start, after: $load_end.

| n | configuration | query | median s | rows/s | coordinator peak RSS | loopback bytes | result |
|---:|---|---|---:|---:|---:|---:|---|
${rows_md}
Same model everywhere: $same_txt.

What the workers send: the text form of one partial state per shard (Citus ships
\`worker_partial_agg\` results as text; dpobj's state text is the base64 of its portable
flat form), summed over the shards — exact, computed with \`run_command_on_shards\`:

| n | distinct (quantised vector, label) | shards | payload bytes | bytes per shard |
|---:|---:|---:|---:|---:|
${sizes_md}
Plan:

\`\`\`
$explain
\`\`\`
$END_MARK"
printf '%s\n' "$section" >"$OUT/section"
# the first table of the section is the result: bench/csv/citus.csv, then docs/BENCHMARKS.md
python3 "$REPO/bench/record.py" citus "BENCH_ROWS=$BENCH_ROWS BENCH_REPS=$BENCH_REPS bash bench/citus/run.sh" <"$OUT/section"
printf '%s\n' "$section"
