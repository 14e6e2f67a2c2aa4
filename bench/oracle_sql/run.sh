#!/usr/bin/env bash
# bench/oracle_sql/run.sh — the exact-oracle benchmark THROUGH THE SQL
# AGGREGATES, one command (from the repository root, as root on Debian 12):
#
#   bash bench/oracle_sql/run.sh
#
# Builds and installs dpobj, starts a throwaway PostgreSQL cluster (scripts/common.sh,
# port 55421, log_min_messages = debug1 so that the server log gets the oracle's
# "dpobj oracle <name>: status S, N nodes, T s" lines), loads Adult and runs, on the
# balanced subset (n = 15682), for d4 d9 d15 d23 x {OPDisc = dpobj.dp_halfspace (tau = 1,
# the paper's grid B = floor(sqrt d), D2 = d, given as options), RSPM = dpobj.dp_halfspace_rspm} x eps {0.1 0.5 1},
# delta = 1/n^2, dpobj.seed = 1..15, dpobj.solver_time_limit = 600 s, one aggregate call
# per run, timed with clock_timestamp() in SQL (setup.sql).  Not certified = SQLSTATE
# DP001.  Nodes and oracle seconds come from the server log (report.py).
#
# Output: bench/oracle_sql/results/<UTC stamp>/ (runs.csv, server.log, join.txt = the
# per-run join of runs and log lines, table.md, meta.txt, progress.txt; "results/" is
# git-ignored).  The table is printed only (docs/BENCHMARKS.md keeps
# bench/run.sh's solve times and the oracle ladder).
#
# Environment: ORACLE_SQL_SETS [d4 d9 d15 d23], ORACLE_SQL_EPS [0.1 0.5 1],
# ORACLE_SQL_MECHS [opdisc rspm], ORACLE_SQL_SEEDS [15], ORACLE_SQL_LIMIT [600],
# ORACLE_SQL_BUDGET [1200]: wall seconds after which no further cell is started (the
# remaining cells are reported as not run).
set -euo pipefail

export DPOBJ_PGPORT="${DPOBJ_PGPORT:-55421}"
# shellcheck source=scripts/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/common.sh"

SETS="${ORACLE_SQL_SETS:-d4 d9 d15 d23}"
EPSS="${ORACLE_SQL_EPS:-0.1 0.5 1}"
MECHS="${ORACLE_SQL_MECHS:-opdisc rspm}"
NSEEDS="${ORACLE_SQL_SEEDS:-15}"
LIMIT="${ORACLE_SQL_LIMIT:-600}"
BUDGET="${ORACLE_SQL_BUDGET:-1200}"

stamp="$(date -u +%Y%m%dT%H%M%SZ)"
OUT="$REPO/bench/oracle_sql/results/$stamp"
mkdir -p "$OUT"

DPOBJ_EXTRA_CONF="log_min_messages = debug1
max_parallel_workers_per_gather = 0
jit = off"
export DPOBJ_EXTRA_CONF

commit="$(git -C "$REPO" rev-parse --short HEAD 2>/dev/null || echo 'no commit')"
if [[ -n "$(git -C "$REPO" status --porcelain -- src sql Makefile dpobj.control 2>/dev/null)" ]]; then
    commit="$commit + uncommitted changes in src/, sql/ or Makefile"
fi

dpobj_ensure_packages
dpobj_build_install
dpobj_start_cluster

dpobj_psql -c 'CREATE DATABASE dpobj_oracle_sql'
export PGDATABASE=dpobj_oracle_sql
dpobj_psql -v datadir="$REPO/data/adult" -f "$REPO/data/adult/load.sql"
dpobj_psql -c 'CREATE EXTENSION dpobj'
dpobj_psql -f "$REPO/bench/oracle_sql/setup.sql"

{
    echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "machine: $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
    echo "postgres: $(dpobj_psql -At -c 'SELECT version()')"
    echo "dpobj: commit $commit"
    echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
} >"$OUT/meta.txt"

t_start=$SECONDS
base=1
skipped=""
for set in $SETS; do
    for mech in $MECHS; do
        for eps in $EPSS; do
            if (( SECONDS - t_start > BUDGET )); then
                skipped="$skipped $set/$mech/$eps"
                continue
            fi
            dpobj_psql -v set="$set" -v mech="$mech" -v eps="$eps" -v nseeds="$NSEEDS" \
                -v base="$base" -v limit="$LIMIT" -f "$REPO/bench/oracle_sql/cell.sql" \
                | tee -a "$OUT/progress.txt"
            base=$((base + NSEEDS))
        done
    done
done
{
    echo "bench seconds: $((SECONDS - t_start))"
    echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "cells not run (budget ${BUDGET}s):${skipped:- none}"
} >>"$OUT/meta.txt"

dpobj_psql -c "\\copy (SELECT * FROM oracle_sql.runs ORDER BY run_id) TO '$OUT/runs.csv' CSV HEADER"
cp "$DPOBJ_PGLOG" "$OUT/server.log"
python3 "$REPO/bench/oracle_sql/report.py" "$OUT/runs.csv" "$OUT/server.log" "$LIMIT" \
    >"$OUT/table.md" 2>"$OUT/join.txt"
cat "$OUT/meta.txt"
cat "$OUT/table.md"
if grep -q WARNING "$OUT/join.txt"; then
    grep WARNING "$OUT/join.txt" >&2   # log status disagrees with the SQL outcome
fi
dpobj_log "raw output in $OUT"
