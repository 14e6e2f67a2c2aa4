#!/usr/bin/env bash
# bench/ebm/run.sh — private additive boosting against noisy GD and 'auto' (a benchmark,
# not a test): builds and installs dpobj, starts a throwaway cluster, loads data/adult,
# data/bank_marketing and data/german_credit, runs setup.sql, accuracy.sql, compare.sql
# (the defaults, BENCH_SEEDS seeds at epsilon 1 and 0.5, ebm also with "binning":
# "uniform", with ebm's ROC AUC; nonprivate.py's scikit-learn baselines where it is
# installed), auto.sql ('auto' with ebm a candidate) and paired.sql (ebm against noisy GD
# paired by seed, 100 seeds), writes
# compare's table into bench/csv/ebm.csv (bench/record.py, rendered into
# docs/BENCHMARKS.md), then with BENCH_GRID=1 the tuning grids (grid.sql, small.sql,
# gap.sql, bins.sql; results.md).
# Environment: BENCH_SEEDS [10], BENCH_GRID [0], DPOBJ_PGPORT [55447].
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=scripts/common.sh
. "$HERE/../../scripts/common.sh"
BENCH_SEEDS="${BENCH_SEEDS:-10}"
DPOBJ_PGPORT="${DPOBJ_PGPORT:-55447}"
export DPOBJ_PGPORT
dpobj_bench_cluster dpobj_bench_ebm adult bank_marketing german_credit
for f in setup accuracy; do dpobj_psql -q -f "$HERE/$f.sql"; done
# non-private baselines where scikit-learn is installed (never a dependency)
if /usr/bin/python3 -c 'import sklearn' 2>/dev/null; then
    /usr/bin/python3 "$HERE/nonprivate.py"
fi
dpobj_psql -q -v seeds="$BENCH_SEEDS" -f "$HERE/compare.sql" | tee "$DPOBJ_CLUSTER_DIR/ebm.md"
dpobj_psql -q -f "$HERE/auto.sql"
dpobj_psql -q -f "$HERE/paired.sql"
python3 "$REPO/bench/record.py" ebm "BENCH_SEEDS=$BENCH_SEEDS bash bench/ebm/run.sh" <"$DPOBJ_CLUSTER_DIR/ebm.md"
if [[ "${BENCH_GRID:-0}" == 1 ]]; then
    dpobj_psql -q -f "$HERE/grid.sql"
    dpobj_psql -q -f "$HERE/small.sql"
    dpobj_psql -q -f "$HERE/gap.sql"
    dpobj_psql -q -f "$HERE/bins.sql"
fi
