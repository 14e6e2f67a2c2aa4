#!/usr/bin/env bash
# bench/gbdt/run.sh — private boosted trees against ebm and 'auto' on the same harness (a
# benchmark, not a test): builds and installs dpobj, starts a throwaway cluster, loads
# data/adult, data/bank_marketing and data/german_credit, runs bench/ebm/setup.sql,
# accuracy.sql here and compare.sql (gbdt, ebm, auto and auto with gbdt a candidate,
# BENCH_SEEDS seeds at epsilon 1, delta 1e-6: median balanced test accuracy and ROC AUC on
# Adult, bank and german as train() encodes them, german held out of the defaults' tuning);
# writes bench/csv/gbdt.csv (bench/record.py), rendered into docs/BENCHMARKS.md.
# Environment: BENCH_SEEDS [10], DPOBJ_PGPORT [55448].
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=scripts/common.sh
. "$HERE/../../scripts/common.sh"
BENCH_SEEDS="${BENCH_SEEDS:-10}"
DPOBJ_PGPORT="${DPOBJ_PGPORT:-55448}"
export DPOBJ_PGPORT
dpobj_bench_cluster dpobj_bench_gbdt adult bank_marketing german_credit
dpobj_psql -q -f "$HERE/../ebm/setup.sql"
dpobj_psql -q -f "$HERE/accuracy.sql"
dpobj_psql -q --csv -v seeds="$BENCH_SEEDS" -f "$HERE/compare.sql" |
    python3 "$HERE/../record.py" gbdt "BENCH_SEEDS=$BENCH_SEEDS bash bench/gbdt/run.sh"
