#!/usr/bin/env bash
# bench/auto/gap.sh — 'auto' against each of its candidates trained alone (a benchmark,
# not a test): builds and installs dpobj, starts a throwaway cluster, loads data/adult,
# data/bank_marketing and data/german_credit, runs bench/ebm's setup.sql and accuracy.sql,
# then gap.sql (adult12, bank and german at epsilon 1 and 0.5, BENCH_SEEDS seeds, with the
# public class weights and with no class weights) into bench/auto/gap.md (auto's medians
# also in bench/ebm's table, docs/BENCHMARKS.md).
# Environment: BENCH_SEEDS [20], DPOBJ_PGPORT [55446].
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=scripts/common.sh
. "$HERE/../../scripts/common.sh"
BENCH_SEEDS="${BENCH_SEEDS:-20}"
DPOBJ_PGPORT="${DPOBJ_PGPORT:-55446}"
export DPOBJ_PGPORT
dpobj_bench_cluster dpobj_bench_auto_gap adult bank_marketing german_credit
for f in setup accuracy; do dpobj_psql -q -f "$REPO/bench/ebm/$f.sql"; done
{
    printf '# bench/auto/gap.sql (`BENCH_SEEDS=%s bash bench/auto/gap.sh`)\n\n%s, %s UTC, load %s\n\n' \
        "$BENCH_SEEDS" "$(git -C "$REPO" rev-parse --short HEAD)" "$(date -u '+%Y-%m-%d %H:%M')" "$(cut -d' ' -f1-3 /proc/loadavg)"
    dpobj_psql -q -v seeds="$BENCH_SEEDS" -f "$HERE/gap.sql"
} | tee "$HERE/gap.md"
