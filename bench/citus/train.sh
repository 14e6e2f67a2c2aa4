#!/usr/bin/env bash
# bench/citus/train.sh — the protected path on Citus, local vs distributed (a benchmark,
# not a test):
#
#   bash bench/citus/train.sh
#
# Builds and installs dpobj and Citus (tests/citus/build.sh; cached), starts a coordinator
# and two workers on this machine (tests/citus/cluster.sh; 32 shards), generates BENCH_ROWS
# (default 10 000 000) Adult-like rows (the generator of bench/citus/run.sh, d = 4, as four
# float8 columns) into a local table on the coordinator and the same rows into a
# hash-distributed table, protects both and grants a role "bench_analyst" a budget, then
# runs, as that role,
#     SELECT (dpobj.train(t, 'opdisc', ARRAY['male', 'female', 'gain', 'hours'], 'label',
#                         1.0, 1e-8)).weights
# BENCH_REPS rounds (after a warm-up round), each round in fresh connections and in
# alternating order: local, distributed (Citus defaults), distributed with
# citus.max_adaptive_executor_pool_size = 1 (one connection per worker: what a worker with
# one core can use), and the same rows in a second distributed table of BENCH_FEW_SHARDS
# shards (default 4: two per worker core here).  Reported per configuration: median seconds,
# rows/s, the ratio to the local median; the median CPU seconds of the coordinator backend
# and of the two worker nodes (every process, exited ones included: other load on the
# machine moves the wall time, much less these); the coordinator backend's peak resident
# memory (VmHWM) and the bytes that crossed the loopback interface during the call
# (/proc/net/dev); the exact payload the
# workers send for one sealed run (the text form of each shard's partial state, summed over
# the shards).  train() refuses dpobj.seed, so the models are not compared (tests/citus
# compares the released models under a seed on the direct path).  Writes the first
# table into bench/csv/citus_train.csv (bench/record.py), which re-renders docs/BENCHMARKS.md.
#
# Environment: BENCH_ROWS [10000000], BENCH_REPS [5],
# BENCH_FEW_SHARDS [4],
# BENCH_MECH [opdisc] and BENCH_OPTIONS [{}] (train()'s mechanism and options; the block's
# marker then names the mechanism, e.g. "bench/citus/train.sh logistic"),
# BENCH_CITUS_PGPORT [57736] (and the next two ports).  Needs root (or sudo) for make install
# and for reading the coordinator backend's /proc entries.
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
BENCH_REPS="${BENCH_REPS:-5}"
BENCH_MECH="${BENCH_MECH:-opdisc}"
BENCH_FEW_SHARDS="${BENCH_FEW_SHARDS:-4}"
BENCH_OPTIONS="${BENCH_OPTIONS:-}"
[[ -n $BENCH_OPTIONS ]] || BENCH_OPTIONS='{}'
MARK="bench/citus/train.sh"
[[ $BENCH_MECH == opdisc ]] || MARK+=" $BENCH_MECH"
OUT="$(mktemp -d "${TMPDIR:-/tmp}/dpobj-bench-citus-train.XXXXXX")"
dpobj_at_exit "rm -rf -- '$OUT'; :"

bench_citus_start

dpobj_log "generating $BENCH_ROWS rows (local table, then the distributed copy)"
t0=$(date +%s.%N)
cq "$C" >/dev/null <<SQL
SET client_min_messages = warning;
SELECT setseed(0.42);
CREATE TABLE tl AS
SELECT i AS id, male::int::float8 AS male, 1 - male::int::float8 AS female,
       gain / 99999.0 AS gain, hours / 99.0 AS hours,
       (0.9 * male::int + 4.0 * gain / 99999.0 + 1.5 * hours / 99.0 + 0.8 * random() > 2.2) AS label
  FROM $(bench_citus_rows "$BENCH_ROWS");
CREATE TABLE td (LIKE tl);
SELECT create_distributed_table('td', 'id');
INSERT INTO td SELECT * FROM tl;
CREATE TABLE tf (LIKE tl);
SELECT create_distributed_table('tf', 'id', shard_count => $BENCH_FEW_SHARDS);
INSERT INTO tf SELECT * FROM tl;
VACUUM ANALYZE tl;
VACUUM ANALYZE td;
VACUUM ANALYZE tf;
CREATE ROLE bench_analyst LOGIN;
SELECT dpobj.protect(t) FROM unnest(ARRAY['tl', 'td', 'tf']) t;
SELECT dpobj.grant_budget(t, 'bench_analyst', 1e6, 0.5) FROM unnest(ARRAY['tl', 'td', 'tf']) t;
SQL
gen_s=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.0f", b - a }')
SHARDS=$(cq "$C" -c "SELECT count(*) FROM pg_dist_shard WHERE logicalrelid = 'td'::regclass")
table_size=$(cq "$C" -c "SELECT pg_size_pretty(pg_table_size('tl'))")
payload=$(cq "$C" -c "SELECT sum(result::bigint) FROM run_command_on_shards('td',
    \$c\$SELECT length(pg_catalog.worker_partial_agg('dpobj.dp_halfspace(double precision[],boolean,double precision,double precision,jsonb)'::regprocedure,
                ROW(ARRAY[male, female, gain, hours], label, 1.0::float8, 1e-8::float8, '{\"sealed\": true}'::jsonb))::text) FROM %s\$c\$)")

# one train() in a fresh connection as the analyst: "seconds vmhwm_kB loopback_bytes result"
run_one() {
    bench_citus_run_one "$1
SET ROLE bench_analyst;" "SELECT (dpobj.train('$2', '$BENCH_MECH', ARRAY['male', 'female', 'gain', 'hours'], 'label', 1.0, 1e-8, '$BENCH_OPTIONS')).weights IS NOT NULL;"
}
FEW="distributed_${BENCH_FEW_SHARDS}_shards"
CFGS=(local distributed distributed_pool1 "$FEW")
cfg_run() {
    case $1 in
        local) run_one "" tl ;;
        distributed) run_one "" td ;;
        distributed_pool1) run_one "SET citus.max_adaptive_executor_pool_size = 1;" td ;;
        "$FEW") run_one "" tf ;;
    esac
}

load_start="$(cut -d' ' -f1-3 /proc/loadavg)"
for cfg in "${CFGS[@]}"; do cfg_run "$cfg" >/dev/null; : >"$OUT/$cfg"; done
for ((r = 0; r < BENCH_REPS; r++)); do
    for cfg in "${CFGS[@]}"; do
        cfg_run "$cfg" >>"$OUT/$cfg"
        dpobj_log "round $r $cfg: $(tail -n 1 "$OUT/$cfg")"
    done
done
load_end="$(cut -d' ' -f1-3 /proc/loadavg)"
local_med=$(awk '{ print $1 }' "$OUT/local" | dpobj_median)
rows_md=""
for cfg in "${CFGS[@]}"; do
    med=$(awk '{ print $1 }' "$OUT/$cfg" | dpobj_median)
    all=$(awk '{ printf "%s%s", (NR > 1 ? ", " : ""), $1 }' "$OUT/$cfg")
    hwm=$(awk '{ if ($2 > m) m = $2 } END { print m + 0 }' "$OUT/$cfg")
    rch=$(awk '{ print $3 }' "$OUT/$cfg" | dpobj_median)
    ok=$(awk '$4 != "t" { bad++ } END { print bad ? "NO" : "yes" }' "$OUT/$cfg")
    ccpu=$(awk '{ print $5 }' "$OUT/$cfg" | dpobj_median)
    wcpu=$(awk '{ print $6 }' "$OUT/$cfg" | dpobj_median)
    rows_md+="| $cfg | $med | $all | $(awk -v n="$BENCH_ROWS" -v s="$med" 'BEGIN { printf "%.0f", n / s }') | $(awk -v l="$local_med" -v s="$med" 'BEGIN { printf "%.2f", l / s }') | $ccpu | $wcpu | $((hwm / 1024)) MB | $rch | $ok |"$'\n'
done
cpu="$(nproc) CPUs, $(awk -F: '/model name/ { sub(/^ /, "", $2); print $2; exit }' /proc/cpuinfo)"
citusver="$(cq "$C" -c "SELECT extversion FROM pg_extension WHERE extname = 'citus'")"

section="<!-- $MARK -->
### Protected \`train()\`: local vs distributed ($BENCH_MECH)

Generated by \`bash bench/citus/train.sh\` on $(date -u '+%Y-%m-%d %H:%M UTC'); $cpu; Citus
$citusver: a coordinator (no shards) and two workers on this machine, $SHARDS shards, jit = off,
max_parallel_workers_per_gather = 0 on every node.  $BENCH_ROWS Adult-like rows (d = 4 float8
columns; $table_size per copy; generated, distributed and protected in ${gen_s} s).  As a role
with a budget (no SELECT): \`dpobj.train(t, '$BENCH_MECH', ARRAY['male', 'female', 'gain',
'hours'], 'label', 1.0, 1e-8, '$BENCH_OPTIONS')\` — the sealed query, filter-free, the worker pins sent on the
distributed table ($FEW: the same rows in a table of $BENCH_FEW_SHARDS shards).  $BENCH_REPS
rounds after a warm-up, each a fresh connection, the configurations alternating within a
round; *speed vs local* = local median / median; CPU: median seconds of the coordinator
backend and of the two worker nodes (all their processes) during the call.  Load average
before: $load_start, after: $load_end (other sessions shared the machine).

| configuration | median s | runs s | rows/s | speed vs local | coordinator CPU s | workers CPU s | coordinator peak RSS | loopback bytes | model released |
|---|---:|---|---:|---:|---:|---:|---:|---:|---|
${rows_md}
Payload of one sealed distributed run: $payload bytes of partial states from $SHARDS shards
($(awk -v b="$payload" -v s="$SHARDS" 'BEGIN { printf "%.0f", b / s }') bytes per shard, OPDisc's state).
<!-- /$MARK -->"
printf '%s\n' "$section" >"$OUT/section"
# the first table of the section is the result: bench/csv/citus_train.csv (citus_train_MECH.csv for another mechanism), then docs/BENCHMARKS.md
python3 "$REPO/bench/record.py" "citus_train$([[ $BENCH_MECH == opdisc ]] || echo "_$BENCH_MECH")" "BENCH_ROWS=$BENCH_ROWS BENCH_REPS=$BENCH_REPS BENCH_MECH=$BENCH_MECH bash bench/citus/train.sh" <"$OUT/section"
printf '%s\n' "$section"
