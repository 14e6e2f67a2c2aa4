#!/usr/bin/env bash
# bench/audit/run.sh — the long empirical privacy audit (not a test; hours on a shared
# machine): every audit row (tests/families/README) at its bench runs on the real build, then
# every mutant family of src/core/auditmutant.h built 1.1 times under-calibrated and run
# on the rows that name it (tests/audit/mutants.sh, DPOBJ_AUDIT_RUNS=bench); and, for the
# record of CI's margins, the same families at CI's 1.25 and CI's runs.  Writes
# bench/audit/results.md (every row's bound for every build: the power table) and
# bench/csv/audit.csv (bench/record.py: rendered into docs/BENCHMARKS.md).
#
#   nice -n 19 bash bench/audit/run.sh
#
# Needs PGHOST/PGPORT/PGUSER (a superuser) and a server with dpobj installed and in
# shared_preload_libraries (the real build), as tests/audit/run.sh; the mutants get their
# own installation copy and cluster (PG_BINDIR, DPOBJ_AUDIT_PGPORT, DPOBJ_TMPDIR: mutants.sh).
# Env: BENCH_AUDIT_FACTOR (1.1), BENCH_AUDIT_CI (1: also the CI pass; 0: not),
# DPOBJ_AUDIT_MUTANTS (the families, default all), BENCH_AUDIT_OUT (a directory kept for
# the raw outputs, default a temporary one).
set -uo pipefail
DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$DIR/../.." && pwd)"
FACTOR="${BENCH_AUDIT_FACTOR:-1.1}"
OUT="${BENCH_AUDIT_OUT:-$(mktemp -d "${TMPDIR:-/tmp}/dpobj-bench-audit.XXXXXX")}"
mkdir -p "$OUT"
cd "$REPO" || exit 1
stamp() { echo "# $(date -u +%H:%M:%S) $*" >&2; }

stamp "the real build, bench runs"
DPOBJ_AUDIT_RUNS=bench bash tests/audit/mechanisms.sh >"$OUT/real.out" 2>&1
stamp "mutants at ${FACTOR}x, bench runs"
DPOBJ_AUDIT_RUNS=bench DPOBJ_AUDIT_FACTOR="$FACTOR" bash tests/audit/mutants.sh \
    >"$OUT/bench.out" 2>&1
if [[ "${BENCH_AUDIT_CI:-1}" == 1 ]]; then
    stamp "mutants at 1.25x, CI runs"
    DPOBJ_AUDIT_RUNS=ci DPOBJ_AUDIT_FACTOR=1.25 bash tests/audit/mutants.sh >"$OUT/ci.out" 2>&1
fi
stamp "results: bench/audit/results.md, bench/csv/audit.csv (raw outputs in $OUT)"
command="nice -n 19 bash bench/audit/run.sh"
python3 "$DIR/summarize.py" "$command" "$FACTOR" "$OUT" >"$DIR/results.md" || exit 1
python3 "$DIR/summarize.py" --csv "$command" "$FACTOR" "$OUT" |
    python3 bench/record.py audit "$command"
grep -E '^[0-9]+ passed, [0-9]+ failed$' "$OUT"/*.out
