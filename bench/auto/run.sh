#!/usr/bin/env bash
# bench/auto/run.sh — private model selection on Adult (a benchmark, not a test), one
# command:
#
#   bash bench/auto/run.sh
#
# Builds and installs dpobj, starts a throwaway cluster with dpobj preloaded, loads
# data/adult and runs accuracy.sql: BENCH_DRAWS runs of each arm through the direct
# aggregates (the very final functions train() runs) on Adult's training split
# (adult.features_d23, d = 23, 32561 rows) at epsilon = 1, delta = 1e-9, R = sqrt 7 (the
# encoding's bound), intercept, each mechanism's defaults but "metric": "accuracy" (the score
# measured: the cut-off chosen for it); test accuracy on adult.test by dpobj.predict.  Arms: the fixed mechanisms (objective, output, cms, noisysgd, noisysgd
# with the public "n") and dp_auto at each share of BENCH_SHARES, with its default
# candidates (objective, noisysgd) and with cms added (and the public "n").  Prints
# markdown and writes its table into bench/csv/auto.csv (bench/record.py), rendered into
# docs/BENCHMARKS.md.
#
# Environment: BENCH_DRAWS [9], BENCH_SHARES ["0.2 0.33"], BENCH_FIXED ["objective output
# cms noisysgd noisysgd_n"], DPOBJ_PGPORT [55446].
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=scripts/common.sh
. "$HERE/../../scripts/common.sh"

BENCH_DRAWS="${BENCH_DRAWS:-9}"
BENCH_SHARES="${BENCH_SHARES:-0.2 0.33}"
BENCH_FIXED="${BENCH_FIXED:-objective output cms noisysgd noisysgd_n}"
DPOBJ_PGPORT="${DPOBJ_PGPORT:-55446}"
export DPOBJ_PGPORT
dpobj_bench_cluster dpobj_bench_auto adult
echo "load at start: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) CPUs; commit $(git -C "$REPO" rev-parse --short HEAD)"
start=$(date +%s)
dpobj_psql -v draws="$BENCH_DRAWS" -v fixed="$BENCH_FIXED" -v shares="$BENCH_SHARES" \
    -f "$HERE/accuracy.sql" | tee "$DPOBJ_CLUSTER_DIR/auto.md"
python3 "$REPO/bench/record.py" auto \
    "BENCH_DRAWS=$BENCH_DRAWS BENCH_SHARES=\"$BENCH_SHARES\" bash bench/auto/run.sh" <"$DPOBJ_CLUSTER_DIR/auto.md"
dpobj_log "accuracy: $(( $(date +%s) - start )) s"
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
