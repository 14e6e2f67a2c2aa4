#!/usr/bin/env bash
# bench/units/run.sh — what privacy units cost (a benchmark, not a test), one command:
#
#   bash bench/units/run.sh
#
# Builds and installs dpobj, starts a throwaway cluster with dpobj preloaded, loads
# data/adult and runs
#   setup.sql      Adult's training split with named feature columns and a synthetic
#                  privacy unit (sizes 1..10 from a fixed hash), protected at row level
#                  and at k = 1, 2, 5, 10; adult.test as the public test set;
#   accuracy.sql   BENCH_DRAWS train() runs per mechanism and level as an analyst with a
#                  budget (epsilon = 1), test accuracy by dpobj.predict; and the per-unit
#                  averaging alternative through the direct aggregates (see the file);
#   report.sql     the accuracy table (median and min–max over the draws);
#   cost_setup.sql, cost.sql   train() on 1M rows without a unit and with 100k, 10k and 1M
#                  units (k = 10), at each work_mem:dpobj.max_state_memory of BENCH_CONFIGS
#                  (default "4MB:256MB 4MB:4MB": the bounding counts the units in memory
#                  within the cap, every table here at 256MB, and sorts past it, spilling
#                  past work_mem), BENCH_REPS runs each;
#   peak RSS       one train() run per table and configuration in a fresh backend: the
#                  backend's VmHWM from /proc (its peak resident memory) after the run.
# Prints markdown; the accuracy table goes into bench/csv/units.csv and the cost table
# (median ms, its ratio to row level in the same run, VmHWM) into bench/csv/units_cost.csv
# (bench/record.py), which re-render docs/BENCHMARKS.md, "Privacy units".
#
# Environment: BENCH_DRAWS [11], BENCH_REPS [7], BENCH_CONFIGS (above), BENCH_MECHS ["opdisc objective output
# noisysgd"], BENCH_AVG_MECHS ["objective output noisysgd"], BENCH_SKIP ("accuracy" or
# "cost" to skip a part), DPOBJ_PGPORT [55444].
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=scripts/common.sh
. "$HERE/../../scripts/common.sh"

BENCH_DRAWS="${BENCH_DRAWS:-11}"
BENCH_REPS="${BENCH_REPS:-7}"
BENCH_MECHS="${BENCH_MECHS:-opdisc objective output noisysgd}"
BENCH_AVG_MECHS="${BENCH_AVG_MECHS:-objective output noisysgd}"
BENCH_SKIP="${BENCH_SKIP:-}"
DPOBJ_PGPORT="${DPOBJ_PGPORT:-55444}"
export DPOBJ_PGPORT
dpobj_bench_cluster dpobj_bench_units adult
dpobj_psql -f "$HERE/setup.sql" >/dev/null
echo "load at start: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) CPUs; commit $(git -C "$REPO" rev-parse --short HEAD)"

if [[ "$BENCH_SKIP" != accuracy ]]; then
    start=$(date +%s)
    dpobj_psql -v draws="$BENCH_DRAWS" -v arms='row k1 k2 k5 k10' -v mechs="$BENCH_MECHS" \
        -v avg_mechs="$BENCH_AVG_MECHS" -f "$HERE/accuracy.sql" >/dev/null
    dpobj_log "accuracy: $(( $(date +%s) - start )) s"
    dpobj_psql -f "$HERE/report.sql" | tee "$DPOBJ_CLUSTER_DIR/units.md"
    # the first table (accuracy per mechanism and level) into bench/csv/units.csv
    python3 "$REPO/bench/record.py" units "BENCH_DRAWS=$BENCH_DRAWS BENCH_MECHS=\"$BENCH_MECHS\" BENCH_SKIP=cost bash bench/units/run.sh" \
        <"$DPOBJ_CLUSTER_DIR/units.md"
    echo "load after the accuracy part: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "causes of failed protected runs (server log): $(grep -o 'failed (DP[0-9]*): [^"]*' "$DPOBJ_CLUSTER_DIR/server.log" | sort | uniq -c | tr -s ' ' | paste -sd ';' -)"
fi
if [[ "$BENCH_SKIP" != cost ]]; then
    dpobj_psql -f "$HERE/cost_setup.sql" >/dev/null
    # work_mem and the cap: the bounding counts the units in memory within the cap
    # (every table here at the default 256MB) and sorts past it (cost_unit and cost_u1m
    # at 4MB; the sealed run pins work_mem at most the cap)
    CONFIGS="${BENCH_CONFIGS:-4MB:256MB 4MB:4MB}"
    cost="$DPOBJ_CLUSTER_DIR/units_cost.txt"
    : >"$cost"
    for conf in $CONFIGS; do
        # "| work_mem | cap | table | median | min–max |" per table
        dpobj_psql -v work_mem="${conf%%:*}" -v cap="${conf##*:}" -v reps="$BENCH_REPS" \
            -f "$HERE/cost.sql" | grep '^|' >>"$cost"
        for tbl in bu.cost_row bu.cost_unit bu.cost_u10k bu.cost_u1m; do
            # a fresh backend per run: VmHWM is the peak of that run (and the session's start)
            hwm="$(dpobj_psql -At -v work_mem="${conf%%:*}" -v cap="${conf##*:}" -v tbl="$tbl" <<'SQL'
SET client_min_messages = warning;
SET work_mem = :'work_mem';
SET dpobj.max_state_memory = :'cap';
SET ROLE bu_analyst;
SELECT 1 FROM dpobj.train(:'tbl', 'output', ARRAY['f1', 'f2', 'f3', 'f4', 'f5'], 'y', 1, 1e-9, '{"R": 2.3}');
RESET ROLE;
SELECT substring(pg_read_file('/proc/' || pg_backend_pid() || '/status') FROM 'VmHWM:\s*([0-9]+) kB');
SQL
)"
            echo "hwm ${conf%%:*} ${conf##*:} $tbl $(tail -n 1 <<<"$hwm")" >>"$cost"
        done
    done
    # one table: per configuration and table the median, its ratio to row level, VmHWM
    python3 - "$cost" <<'PY' | tee "$DPOBJ_CLUSTER_DIR/units_cost.md"
import sys
ms, hwm, rng = {}, {}, {}
for line in open(sys.argv[1]):
    f = line.split()
    if f[0] == "hwm":
        hwm[(f[1], f[2], f[3])] = int(f[4]) // 1024
    else:
        c = [x.strip() for x in line.strip().strip("|").split("|")]
        ms[(c[0], c[1], c[2])] = float(c[3]); rng[(c[0], c[1], c[2])] = c[4]
print("| work_mem | cap | table | median ms | ratio to row level | min–max ms | VmHWM MB |")
print("|---|---|---|---:|---:|---:|---:|")
tables = ["bu.cost_row", "bu.cost_unit", "bu.cost_u10k", "bu.cost_u1m"]
for (w, cap, t), m in sorted(ms.items(), key=lambda kv: (list(ms).index(kv[0]) // 4, tables.index(kv[0][2]))):
    print(f"| {w} | {cap} | {t} | {m:.0f} | {m / ms[(w, cap, 'bu.cost_row')]:.2f} | {rng[(w, cap, t)]} | {hwm[(w, cap, t)]} |")
PY
    python3 "$REPO/bench/record.py" units_cost "BENCH_SKIP=accuracy bash bench/units/run.sh" \
        <"$DPOBJ_CLUSTER_DIR/units_cost.md"
    echo "load after the cost part: $(cut -d' ' -f1-3 /proc/loadavg)"
fi
