#!/usr/bin/env bash
# bench/ebm/run.sh — private additive boosting against noisy GD and 'auto' (a benchmark,
# not a test): builds and installs dpobj, starts a throwaway cluster, loads data/adult,
# data/bank_marketing and data/german_credit, runs setup.sql, accuracy.sql, grid.sql and
# auto.sql ('auto' with ebm a candidate), and prints the rows of results.md's tables.
# Environment: DPOBJ_PGPORT [55447].
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=scripts/common.sh
. "$HERE/../../scripts/common.sh"
DPOBJ_PGPORT="${DPOBJ_PGPORT:-55447}"
export DPOBJ_PGPORT
DPOBJ_EXTRA_CONF="shared_preload_libraries = 'dpobj'
max_parallel_workers_per_gather = 0"
export DPOBJ_EXTRA_CONF
dpobj_ensure_packages
dpobj_build_install >&2
dpobj_start_cluster
export PGDATABASE=dpobj_bench_ebm
dpobj_psql -d postgres -c "CREATE DATABASE $PGDATABASE" >/dev/null
dpobj_psql -c 'CREATE EXTENSION dpobj' >/dev/null
for d in adult bank_marketing german_credit; do
    dpobj_psql -v datadir="$REPO/data/$d" -f "$REPO/data/$d/load.sql" >/dev/null
done
for f in setup accuracy grid auto; do dpobj_psql -q -f "$HERE/$f.sql"; done
