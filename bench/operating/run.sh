#!/usr/bin/env bash
# bench/operating/run.sh — a binary classifier's operating point (a benchmark, not a test):
# builds and installs dpobj, starts a throwaway cluster, loads data/adult,
# data/bank_marketing and data/german_credit, runs bench/ebm/setup.sql (the tables) and
# setup.sql here (adult23: Adult with positives subsampled to 23 %), then accuracy.sql:
# ebm, noisy GD, objective perturbation, passglm and 'auto' with their default options (no
# class weights: "metric" balanced_accuracy) and with "metric": "accuracy" (the cut-off 0
# of 0.5.0), BENCH_SEEDS seeds at epsilon 1 and 0.5, on adult23, adult12 (Adult's 12 raw
# columns, declared domains), bank (11.7 % positives) and german (held out of every
# choice); the median balanced test accuracy, recall and accuracy, and the test ROC AUC; then
# dpobj.evaluate()'s private AUC against the exact one (auc.sql).  Writes the tables into
# bench/csv/operating.csv and operating_auc.csv (bench/record.py, rendered into
# docs/BENCHMARKS.md).
# Environment: BENCH_SEEDS [20], DPOBJ_PGPORT [55445].
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=scripts/common.sh
. "$HERE/../../scripts/common.sh"
BENCH_SEEDS="${BENCH_SEEDS:-20}"
DPOBJ_PGPORT="${DPOBJ_PGPORT:-55445}"
export DPOBJ_PGPORT
dpobj_bench_cluster dpobj_bench_operating adult bank_marketing german_credit
dpobj_psql -q -f "$REPO/bench/ebm/setup.sql"
dpobj_psql -q -f "$HERE/setup.sql"
echo "load at start: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) CPUs; commit $(git -C "$REPO" rev-parse --short HEAD)"
dpobj_psql -q -v seeds="$BENCH_SEEDS" -f "$HERE/accuracy.sql" | tee "$DPOBJ_CLUSTER_DIR/operating.md"
dpobj_psql -q -v seeds="$BENCH_SEEDS" -f "$HERE/auc.sql" | tee "$DPOBJ_CLUSTER_DIR/operating_auc.md"
python3 "$REPO/bench/record.py" operating "BENCH_SEEDS=$BENCH_SEEDS bash bench/operating/run.sh" <"$DPOBJ_CLUSTER_DIR/operating.md"
python3 "$REPO/bench/record.py" operating_auc "BENCH_SEEDS=$BENCH_SEEDS bash bench/operating/run.sh" <"$DPOBJ_CLUSTER_DIR/operating_auc.md"
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
