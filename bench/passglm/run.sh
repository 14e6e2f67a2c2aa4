#!/usr/bin/env bash
# bench/passglm/run.sh — one-pass logistic regression (dp_passglm) against objective
# perturbation (dp_logistic), one command (a benchmark, not a test):
#
#   bash bench/passglm/run.sh
#
# Builds and installs dpobj, starts a throwaway cluster (scripts/common.sh), then
#  (1) accuracy on UCI Adult (data/adult, d = 23 features, train -> test): for epsilon in
#      BENCH_EPS (0.5 1 2), delta 1e-6, R = 2, BENCH_DRAWS (5) draws of dp_passglm (default
#      ridge, and ridge 0 and 10 for comparison) and dp_logistic (objective), each with
#      "metric": "accuracy" (the cut-off for what is measured); test accuracy mean, min and
#      max over the draws, and the majority-class baseline;
#  (2) time and memory on BENCH_ROWS (1 000 000) synthetic rows, d = 10 (setseed(0.42);
#      x uniform in [-1, 1]^10 / sqrt(10), y = <x, (1..10) - 5.5> + noise > 0): the
#      statement's wall time (psql \timing) of SELECT sum(cardinality(features)) (the scan
#      floor), dp_passglm and dp_logistic at epsilon 1, each in a fresh serial connection
#      (max_parallel_workers_per_gather = 0), the time as a ratio to the scan of the same
#      run, and the backend's peak RSS (VmHWM of /proc/<pid>/status after the statement).
# Writes the first table into bench/csv/passglm.csv (bench/record.py), which re-renders
# docs/BENCHMARKS.md (bench/render.py).
#
# Environment: BENCH_EPS, BENCH_DRAWS, BENCH_ROWS,
#   DPOBJ_PGPORT [55443].
set -euo pipefail

# shellcheck source=scripts/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/common.sh"

BENCH_EPS="${BENCH_EPS:-0.5 1 2}"
BENCH_DRAWS="${BENCH_DRAWS:-5}"
BENCH_ROWS="${BENCH_ROWS:-1000000}"
BEGIN_MARK='<!-- bench/passglm -->'
END_MARK='<!-- /bench/passglm -->'
OUT="$(mktemp -d "${TMPDIR:-/tmp}/dpobj-bench-passglm.XXXXXX")"
chmod 755 "$OUT"
dpobj_at_exit "rm -rf -- '$OUT'; :"
DPOBJ_EXTRA_CONF="jit = off
max_parallel_workers_per_gather = 0"
export DPOBJ_EXTRA_CONF
DPOBJ_PGPORT="${DPOBJ_PGPORT:-55443}"
export DPOBJ_PGPORT

dpobj_ensure_packages
dpobj_build_install
dpobj_start_cluster
DB=dpobj_bench_passglm
dpobj_psql -c "CREATE DATABASE $DB" >/dev/null
dpobj_psql -d "$DB" -c "CREATE EXTENSION dpobj" >/dev/null
dpobj_psql -d "$DB" -v datadir="$REPO/data/adult" -f "$REPO/data/adult/load.sql" >/dev/null
q() { dpobj_psql -d "$DB" -qAt "$@"; }
commit="$(git -C "$REPO" rev-parse --short HEAD 2>/dev/null || echo 'no commit')"

# ---- (1) accuracy on Adult -------------------------------------------------------------
# acc AGG OPTS EPS: test accuracy of one draw
acc() {
    q -c "WITH m AS (SELECT dpobj.$1(features, label, $3, 1e-6,
                                     '$2'::jsonb || '{\"metric\": \"accuracy\"}') AS m
                       FROM adult.features_d23 WHERE split = 'train')
          SELECT avg((dpobj.predict(m, features) = label)::int)
            FROM m, adult.features_d23 WHERE split = 'test'"
}
stats() { # mean min max of the numbers on stdin, 3 decimals
    awk '{ s += $1; if (NR == 1 || $1 < lo) lo = $1; if (NR == 1 || $1 > hi) hi = $1 }
         END { printf "%.3f | %.3f–%.3f", s / NR, lo, hi }'
}
majority=$(q -c "SELECT round(greatest(avg(label::int), 1 - avg(label::int)), 3)
                   FROM adult.features_d23 WHERE split = 'test'")
acc_md=""
for e in $BENCH_EPS; do
    for v in "dp_passglm|{\"R\": 2}|passglm (default ridge)" \
             "dp_passglm|{\"R\": 2, \"ridge\": 0}|passglm, ridge 0" \
             "dp_passglm|{\"R\": 2, \"ridge\": 10}|passglm, ridge 10" \
             "dp_logistic|{\"R\": 2}|logistic (objective)"; do
        IFS='|' read -r agg opts label <<<"$v"
        : >"$OUT/draws"
        for _ in $(seq 1 "$BENCH_DRAWS"); do acc "$agg" "$opts" "$e" >>"$OUT/draws"; done
        acc_md+="| $label | $e | $(stats <"$OUT/draws") |"$'\n'
        dpobj_log "accuracy $label eps=$e: $(stats <"$OUT/draws")"
    done
done

# ---- (2) time and memory at BENCH_ROWS rows --------------------------------------------
dpobj_log "generating $BENCH_ROWS rows, d = 10"
q <<SQL
SELECT setseed(0.42);
CREATE TABLE big AS
SELECT x AS features,
       (SELECT sum((j - 5.5) * x[j]) FROM generate_series(1, 10) j) + 0.5 * (random() - 0.5) > 0 AS label
  FROM (SELECT ARRAY(SELECT (2 * random() - 1) / sqrt(10) FROM generate_series(1, 10) k
                      WHERE i > 0) AS x
          FROM generate_series(1, $BENCH_ROWS) i) s;
VACUUM ANALYZE big;
SQL
# run SQL: "ms kB" — the statement's time and the backend's VmHWM, in a fresh connection
# (bench/measure.sh); an error stops the bench
# shellcheck source=bench/measure.sh
. "$(dirname "${BASH_SOURCE[0]}")/../measure.sh"
run() {
    local r
    r="$(bench_measure "$DB" "$OUT" "" "$1")"
    [[ "${r#* * }" == ok ]] || dpobj_die "$1: ${r#* * }"
    printf '%s\n' "${r% *}"
}
run "SELECT sum(cardinality(features)) FROM big;" >/dev/null    # warm the cache
read -r scan_ms scan_kb < <(run "SELECT sum(cardinality(features)) FROM big;")
read -r pg_ms pg_kb < <(run "SELECT (dpobj.dp_passglm(features, label, 1, 1e-6, '{\"R\": 1}')).weights FROM big;")
read -r lg_ms lg_kb < <(run "SELECT (dpobj.dp_logistic(features, label, 1, 1e-6, '{\"R\": 1}')).weights FROM big;")
row() { awk -v n="$1" -v ms="$2" -v s="$scan_ms" -v kb="$3" \
        'BEGIN { printf "| %s | %.0f | %.1fx | %.0f |\n", n, ms, ms / s, kb / 1024 }'; }
speed_md="$(row '`sum(cardinality(features))` (scan)' "$scan_ms" "$scan_kb")
$(row 'dp_passglm' "$pg_ms" "$pg_kb")
$(row 'dp_logistic (objective)' "$lg_ms" "$lg_kb")"
dpobj_log "scan $scan_ms ms, passglm $pg_ms ms ($pg_kb kB), logistic $lg_ms ms ($lg_kb kB)"

cpu="$(nproc) CPUs, $(awk -F: '/model name/ { sub(/^ /, "", $2); print $2; exit }' /proc/cpuinfo)"
load="$(cut -d' ' -f1-3 /proc/loadavg)"
section="$BEGIN_MARK
## One-pass logistic regression (passglm)

Generated by \`bash bench/passglm/run.sh\` on $(date -u '+%Y-%m-%d %H:%M UTC'); $cpu;
dpobj commit $commit; load average at the end $load (a load above 2 means other work
competed for the CPUs).

**Accuracy on UCI Adult** (d = 23, train → test, R = 2, δ = 10⁻⁶, $BENCH_DRAWS draws;
majority class: $majority). The default ridge is not tuned on this table (docs/PRIVACY.md,
\"One-pass logistic regression\"); the ridge 0 and 10 rows are for comparison only.

| model | ε | mean test accuracy | min–max |
|---|---:|---:|---:|
${acc_md%$'\n'}

**Time and peak memory** on $BENCH_ROWS synthetic rows (d = 10), serial, ε = 1; time is
the statement's wall time, also as a ratio to the scan in the same run; peak RSS is the
backend's VmHWM (it includes the shared buffers the backend touched).

| statement | ms | ratio to the scan | peak RSS MB |
|---|---:|---:|---:|
$speed_md
$END_MARK"
printf '%s\n' "$section" >"$OUT/section"
# the first table of the section is the result: bench/csv/passglm.csv, then docs/BENCHMARKS.md
python3 "$REPO/bench/record.py" passglm "BENCH_EPS=\"$BENCH_EPS\" BENCH_DRAWS=$BENCH_DRAWS BENCH_ROWS=$BENCH_ROWS bash bench/passglm/run.sh" <"$OUT/section"
printf '%s\n' "$section"
