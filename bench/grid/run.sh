#!/usr/bin/env bash
# bench/grid/run.sh — OPDisc's default grid (D2 = min(d, 4), B = floor(sqrt min(d, D2)))
# against the paper's grid (B = floor(sqrt d), D2 = d, the default before 0.3.0) on Adult
# through SQL: accuracy on adult.test, training accuracy, run time (accuracy.sql).  The
# certification side (the oracle ladder at d <= 64) is bench/oracle/run_ladder.sh with
# GRID=default.  Results: docs/BENCHMARKS.md, "OPDisc's default grid".
#
#   bash bench/grid/run.sh            # BENCH_SETS="d15 d23" BENCH_EPS="0.5 1 2" BENCH_DRAWS=11
#
# A throwaway cluster of scripts/common.sh (installs and builds like scripts/test.sh).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=scripts/common.sh
. "$HERE/../../scripts/common.sh"
DPOBJ_PGPORT="${DPOBJ_PGPORT:-55445}"
DPOBJ_EXTRA_CONF="jit = off
max_parallel_workers_per_gather = 0"
export DPOBJ_PGPORT DPOBJ_EXTRA_CONF
dpobj_ensure_packages
dpobj_build_install >&2
dpobj_start_cluster
export PGDATABASE=dpobj_grid
dpobj_psql -d postgres -c "DROP DATABASE IF EXISTS $PGDATABASE" -c "CREATE DATABASE $PGDATABASE" >/dev/null
dpobj_psql -c 'CREATE EXTENSION dpobj' >/dev/null
dpobj_psql -v datadir="$REPO/data/adult" -f "$REPO/data/adult/load.sql" >/dev/null
printf '# %s, load %s, dpobj %s\n' "$(date -u '+%Y-%m-%d %H:%M UTC')" \
    "$(cut -d' ' -f1-3 /proc/loadavg)" "$(git -C "$REPO" rev-parse --short HEAD 2>/dev/null || echo '?')"
dpobj_psql -v sets="${BENCH_SETS:-d15 d23}" -v eps_list="${BENCH_EPS:-0.5 1 2}" \
    -v draws="${BENCH_DRAWS:-11}" -f "$HERE/accuracy.sql" |
    tee "$DPOBJ_CLUSTER_DIR/grid.out"
# the last table (CSV) into bench/csv/grid.csv (bench/record.py), rendered into docs/BENCHMARKS.md
sed -n '/^set,ε,grid/,$p' "$DPOBJ_CLUSTER_DIR/grid.out" |
    python3 "$REPO/bench/record.py" grid "BENCH_SETS=\"${BENCH_SETS:-d15 d23}\" BENCH_EPS=\"${BENCH_EPS:-0.5 1 2}\" BENCH_DRAWS=${BENCH_DRAWS:-11} bash bench/grid/run.sh"
