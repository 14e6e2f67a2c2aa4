#!/usr/bin/env bash
# bench/auto/gap.sh — 'auto' against each of its candidates trained alone (a benchmark,
# not a test): builds and installs dpobj, starts a throwaway cluster, loads data/adult,
# data/bank_marketing and data/german_credit, runs bench/ebm's setup.sql and accuracy.sql,
# then gap.sql (adult12, bank and german at epsilon 1 and 0.5, BENCH_SEEDS seeds, with the
# public class weights and with no class weights) into bench/auto/gap.md (auto's medians
# also in bench/ebm's table, docs/BENCHMARKS.md), then size.sql (ebm against noisy GD on
# fixed subsamples of adult12 and bank: the evidence for 'auto''s pick by size; german is
# held out of it) into bench/auto/size.md.
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
# report NAME: the table of bench/auto/NAME.sql, after a header saying how to rerun it, into
# the Markdown file of the same name
report() {
    {
        printf '# bench/auto/%s.sql (`BENCH_SEEDS=%s bash bench/auto/gap.sh`)\n\n%s, %s UTC, load %s\n\n' \
            "$1" "$BENCH_SEEDS" "$(git -C "$REPO" rev-parse --short HEAD)" "$(date -u '+%Y-%m-%d %H:%M')" "$(cut -d' ' -f1-3 /proc/loadavg)"
        dpobj_psql -q -v seeds="$BENCH_SEEDS" -f "$HERE/$1.sql"
    } | tee "$HERE/$1.md"
}
report gap
report size
