#!/usr/bin/env bash
# bench/run.sh — dpobj benchmark on UCI Adult, one command (not a test):
#
#   bash bench/run.sh
#
# Builds and installs the extension, starts a throwaway PostgreSQL cluster
# (scripts/common.sh), loads Adult, and measures
#   (a) transition throughput of dpobj.dp_halfspace against sum(cardinality(features))
#       and count(*) over adult.train replicated 30x (~1M rows)     bench/throughput.sql
#   (b) aggregate state size: distinct (quantised) feature vectors   bench/throughput.sql
#   (c) solve time for d4 and d23 on the paper instance, 3 seeds     bench/solve.sql
# and writes bench/csv/throughput.csv, statesize.csv and solve.csv (bench/record.py), which
# re-render docs/BENCHMARKS.md.  Raw psql output goes to bench/results/<UTC timestamp>/ (git-ignored).
#
# Environment (defaults in brackets):
#   BENCH_REPLICATE [30]   copies of adult.train in the throughput tables
#   BENCH_REPS [5]         timed repetitions per throughput query (median reported)
#   BENCH_SETS [d4 d23]    feature sets for (c)
#   BENCH_ORACLES          oracles for (c) [auto mip search when dpobj.oracle exists, else default]
#   BENCH_SEEDS [1 2 3]    dpobj.seed values for (c)
#   BENCH_TIME_LIMIT [60]  dpobj.solver_time_limit for (c), seconds
set -euo pipefail

# shellcheck source=scripts/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../scripts/common.sh"

BENCH_REPLICATE="${BENCH_REPLICATE:-30}"
BENCH_REPS="${BENCH_REPS:-5}"
BENCH_SETS="${BENCH_SETS:-d4 d23}"
BENCH_SEEDS="${BENCH_SEEDS:-1 2 3}"
BENCH_TIME_LIMIT="${BENCH_TIME_LIMIT:-60}"

stamp="$(date -u +%Y%m%dT%H%M%SZ)"
OUT="$REPO/bench/results/$stamp"
mkdir -p "$OUT"

# One core per query (no parallel workers), the ~1M-row tables fit in shared buffers.
DPOBJ_EXTRA_CONF="shared_buffers = 1GB
max_parallel_workers_per_gather = 0
jit = off"
export DPOBJ_EXTRA_CONF

# The source state that gets built (recorded before building).
commit="$(git -C "$REPO" rev-parse --short HEAD 2>/dev/null || echo 'no commit')"
if [[ -n "$(git -C "$REPO" status --porcelain -- src sql Makefile dpobj.control 2>/dev/null)" ]]; then
    commit="$commit + uncommitted changes in src/, sql/ or Makefile"
fi

dpobj_ensure_packages
dpobj_build_install
dpobj_start_cluster

dpobj_psql -c 'CREATE DATABASE dpobj_bench'
export PGDATABASE=dpobj_bench
dpobj_psql -v datadir="$REPO/data/adult" -f "$REPO/data/adult/load.sql"
dpobj_psql -c 'CREATE EXTENSION dpobj'
dpobj_psql -f "$REPO/bench/setup.sql"

if [[ -z "${BENCH_ORACLES:-}" ]]; then
    # LOAD makes the extension's GUCs visible in pg_settings.
    if [[ "$(dpobj_psql -At -c "LOAD 'dpobj'" \
            -c "SELECT count(*) FROM pg_settings WHERE name = 'dpobj.oracle'")" == 1 ]]; then
        BENCH_ORACLES="auto mip search"
    else
        BENCH_ORACLES="default"
    fi
fi

dpobj_log "(a)+(b) throughput and state size: replicate=$BENCH_REPLICATE reps=$BENCH_REPS"
dpobj_psql -v replicate="$BENCH_REPLICATE" -v reps="$BENCH_REPS" \
    -f "$REPO/bench/throughput.sql" 2>&1 | tee "$OUT/throughput.txt"

dpobj_log "(c) solve: sets=[$BENCH_SETS] oracles=[$BENCH_ORACLES] seeds=[$BENCH_SEEDS] limit=${BENCH_TIME_LIMIT}s"
dpobj_psql -v sets="$BENCH_SETS" -v oracles="$BENCH_ORACLES" -v seeds="$BENCH_SEEDS" \
    -v time_limit="$BENCH_TIME_LIMIT" -f "$REPO/bench/solve.sql" 2>&1 | tee "$OUT/solve.txt"

dpobj_psql -f "$REPO/bench/report.sql" >"$OUT/report.md"
dpobj_psql -x -c 'SELECT * FROM dpobj.ledger ORDER BY id' >"$OUT/ledger.txt"

# --- docs/BENCHMARKS.md ------------------------------------------------------------------

# each table of the report into its CSV (bench/record.py), which re-renders docs/BENCHMARKS.md
cmd="BENCH_REPLICATE=$BENCH_REPLICATE BENCH_REPS=$BENCH_REPS BENCH_SETS=\"$BENCH_SETS\" BENCH_SEEDS=\"$BENCH_SEEDS\" BENCH_TIME_LIMIT=$BENCH_TIME_LIMIT bash bench/run.sh"
for part in "(a) throughput" "(b) statesize" "(c) solve"; do
    awk -v h="### ${part%% *}" 'index($0, h) == 1 { on = 1; next } on && /^### / { exit } on' \
        "$OUT/report.md" | python3 "$REPO/bench/record.py" "${part#* }" "$cmd"
done
dpobj_log "raw output in $OUT"
