#!/usr/bin/env bash
# bench/linreg/run.sh — private linear regression: accuracy and aggregation speed, one
# command (a benchmark, not a test):
#
#   bash bench/linreg/run.sh
#
# Builds and installs dpobj, starts a throwaway cluster (scripts/common.sh), then
#  (1) accuracy: a synthetic table of BENCH_N (100 000) rows, d = 10, made with
#      setseed(0.42): x_j uniform in [-1, 1] / sqrt(10) (so ||x|| <= 1 = R), y = 1 +
#      sum_j (j - 5.5) x_j + N(0, 0.5^2) (Box-Muller); public bounds R = 1, y in [-9, 11].
#      For AdaSSP and SSP at epsilon 1 and 0.1 (delta 1e-6), BENCH_DRAWS (5) draws each;
#      the in-sample R^2 of every released model (1 - SSE/SST, exact, via dpobj.score)
#      with median, min and max over the draws; next to the non-private least-squares fit,
#      solved from the exact sums X^T X, X^T y (SQL aggregates) by Gaussian elimination.
#  (2) speed: one aggregate pass of dp_linear_regression over BENCH_ROWS (10 000 000) rows
#      of the same distribution vs SELECT sum(cardinality(features)) over the same rows;
#      serial (max_parallel_workers_per_gather = 0), BENCH_REPS (3) runs after a warm-up,
#      median wall time; the load average is recorded before and after.
# Writes the accuracy table into bench/csv/linreg.csv and the speed table into
# bench/csv/linreg_speed.csv (bench/record.py), which re-render docs/BENCHMARKS.md.
#
# Environment: BENCH_N, BENCH_DRAWS, BENCH_ROWS, BENCH_REPS; BENCH_SKIP=speed records (1) only.
set -euo pipefail

# shellcheck source=scripts/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/common.sh"

BENCH_N="${BENCH_N:-100000}"
BENCH_DRAWS="${BENCH_DRAWS:-5}"
BENCH_ROWS="${BENCH_ROWS:-10000000}"
BENCH_REPS="${BENCH_REPS:-3}"
SECTION='## Linear regression'
OUT="$(mktemp -d "${TMPDIR:-/tmp}/dpobj-bench-linreg.XXXXXX")"
dpobj_at_exit "rm -rf -- '$OUT'; :"
DPOBJ_EXTRA_CONF="jit = off"
export DPOBJ_EXTRA_CONF
DPOBJ_PGPORT="${DPOBJ_PGPORT:-55442}"
export DPOBJ_PGPORT

dpobj_ensure_packages
dpobj_build_install
dpobj_start_cluster
DB=dpobj_bench_linreg
dpobj_psql -c "CREATE DATABASE $DB" >/dev/null
dpobj_psql -d "$DB" -c "CREATE EXTENSION dpobj" >/dev/null
q() { dpobj_psql -d "$DB" -qAt "$@"; }

# gen TABLE ROWS: the synthetic distribution (fixed seed)
gen() {
    q <<SQL
SELECT setseed(0.42);
CREATE TABLE $1 AS
SELECT x AS features,
       1 + (SELECT sum((j - 5.5) * x[j]) FROM generate_series(1, 10) j)
         + 0.5 * sqrt(-2 * ln(1 - u1)) * cos(2 * pi() * u2) AS y
  FROM (SELECT ARRAY(SELECT (2 * random() - 1) / sqrt(10) FROM generate_series(1, 10) k
                      WHERE i > 0) AS x,
               random() AS u1, random() AS u2
          FROM generate_series(1, $2) i) s;
VACUUM ANALYZE $1;
SQL
}

OPTS='{"R": 1, "y_min": -9, "y_max": 11}'
# r2 MODEL_SQL: in-sample R^2 of a model
r2() {
    q -c "WITH m AS ($1), s AS (SELECT avg(y) ybar FROM lin_acc)
          SELECT 1 - sum((y - dpobj.score((SELECT m FROM m), features)) ^ 2) / sum((y - ybar) ^ 2)
            FROM lin_acc, s"
}

# ---- (1) accuracy -------------------------------------------------------------------
dpobj_log "generating $BENCH_N rows (accuracy)"
gen lin_acc "$BENCH_N"
# the exact sums of the non-private fit: z = (1, x), z^T z and z^T y
sums=""
for a in $(seq 0 10); do
    for b in $(seq "$a" 10); do
        za=$([[ $a == 0 ]] && echo 1 || echo "features[$a]")
        zb=$([[ $b == 0 ]] && echo 1 || echo "features[$b]")
        sums+="sum($za * $zb), "
    done
    sums+="sum($([[ $a == 0 ]] && echo 1 || echo "features[$a]") * y), "
done
q -F ' ' -c "SELECT ${sums%, } FROM lin_acc" >"$OUT/sums"
# the coefficients (intercept first) by Gaussian elimination with partial pivoting
python3 - "$OUT/sums" >"$OUT/ols" <<'PY'
import sys
v = [float(t) for t in open(sys.argv[1]).read().split()]
p = 11
A = [[0.0] * p for _ in range(p)]
b = [0.0] * p
k = 0
for a in range(p):
    for c in range(a, p):
        A[a][c] = A[c][a] = v[k]; k += 1
    b[a] = v[k]; k += 1
for i in range(p):
    piv = max(range(i, p), key=lambda r: abs(A[r][i]))
    A[i], A[piv] = A[piv], A[i]; b[i], b[piv] = b[piv], b[i]
    for r in range(i + 1, p):
        f = A[r][i] / A[i][i]
        for c in range(i, p):
            A[r][c] -= f * A[i][c]
        b[r] -= f * b[i]
x = [0.0] * p
for i in reversed(range(p)):
    x[i] = (b[i] - sum(A[i][c] * x[c] for c in range(i + 1, p))) / A[i][i]
print(x[0], ",".join(repr(t) for t in x[1:]))
PY
read -r ols_bias ols_w <"$OUT/ols"
ols_r2=$(r2 "SELECT ROW('ols', ARRAY[$ols_w]::float8[], $ols_bias, 0, 0, '{}')::dpobj.model AS m")
dpobj_log "non-private least squares: R^2 = $ols_r2"

: >"$OUT/acc"
for method in adassp ssp; do
    for eps in 1 0.1; do
        : >"$OUT/draws"
        for k in $(seq 1 "$BENCH_DRAWS"); do
            r2 "SELECT dpobj.dp_linear_regression(features, y, $eps, 1e-6,
                  '$OPTS'::jsonb || '{\"method\": \"$method\"}') AS m FROM lin_acc" >>"$OUT/draws"
        done
        stats=$(sort -g "$OUT/draws" | awk '{ v[NR] = $1 } END {
            printf "%.4f | %.4f | %.4f", (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2), v[1], v[NR] }')
        echo "| $method | $eps | $stats |" >>"$OUT/acc"
        dpobj_log "$method eps=$eps: R^2 median | min | max = $stats"
    done
done

if [[ "${BENCH_SKIP:-}" == speed ]]; then
    { echo "| method | epsilon | R^2 median | min | max |"; echo "|---|---|---|---|---|"; cat "$OUT/acc"
      echo "| least squares (non-private) | - | $(printf '%.4f' "$ols_r2") | | |"; } |
        python3 "$REPO/bench/record.py" linreg "BENCH_N=$BENCH_N BENCH_DRAWS=$BENCH_DRAWS BENCH_SKIP=speed bash bench/linreg/run.sh"
    exit 0
fi

# ---- (2) speed ------------------------------------------------------------------------
dpobj_log "generating $BENCH_ROWS rows (speed)"
t0=$(date +%s.%N)
gen lin_big "$BENCH_ROWS"
t1=$(date +%s.%N)
load0=$(cut -d' ' -f1-3 /proc/loadavg)
# timed SQL: median wall seconds of BENCH_REPS runs after one warm-up
timed() {
    local s
    : >"$OUT/t"
    for k in $(seq 0 "$BENCH_REPS"); do
        s=$(q -c "SET max_parallel_workers_per_gather = 0" -c '\timing on' -c "$1" |
            sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' | tail -n 1)
        [[ $k == 0 ]] || echo "$s" >>"$OUT/t"
    done
    sort -g "$OUT/t" | awk '{ v[NR] = $1 } END { printf "%.2f", v[int((NR + 1) / 2)] / 1000 }'
}
base_s=$(timed "SELECT sum(cardinality(features)) FROM lin_big")
lin_s=$(timed "SELECT (dpobj.dp_linear_regression(features, y, 1, 1e-6, '$OPTS')).bias FROM lin_big")
load1=$(cut -d' ' -f1-3 /proc/loadavg)
ratio=$(awk -v a="$base_s" -v b="$lin_s" 'BEGIN { printf "%.2f", a / b }')
dpobj_log "sum(cardinality) ${base_s}s, dp_linear_regression ${lin_s}s: ${ratio}x"

# ---- report -------------------------------------------------------------------------
{
    echo "$SECTION"
    echo
    echo "\`bash bench/linreg/run.sh\` ($(date -u +%Y-%m-%d), PostgreSQL $("$PG_CONFIG" --version | awk '{ print $2 }'),"
    echo "$(nproc) cores shared with other sessions; load average $load0 before the speed runs, $load1 after)."
    echo
    echo "**Accuracy.** $BENCH_N synthetic rows, d = 10, fixed seed: x uniform in [-1, 1]^10 / sqrt(10)"
    echo "(||x|| <= 1 = R), y = 1 + sum_j (j - 5.5) x_j + N(0, 0.5^2), public label range [-9, 11]."
    echo "In-sample R^2 of the released model (exact, from dpobj.score), $BENCH_DRAWS draws each"
    echo "(delta = 1e-6). The non-private fit is ordinary least squares solved from the exact sums"
    echo "X^T X, X^T y (SQL aggregates, Gaussian elimination in Python): R^2 = $(printf '%.4f' "$ols_r2")."
    echo
    echo "| method | epsilon | R^2 median | min | max |"
    echo "|---|---|---|---|---|"
    cat "$OUT/acc"
    echo "| least squares (non-private) | - | $(printf '%.4f' "$ols_r2") | | |"
    echo
    echo "**Speed.** One serial aggregate pass over $BENCH_ROWS rows of the same distribution"
    echo "(generated in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", b - a }') s), median of $BENCH_REPS runs after a warm-up:"
    echo
    echo "| query | seconds | rows/s |"
    echo "|---|---|---|"
    echo "| \`SELECT sum(cardinality(features))\` | $base_s | $(awk -v n="$BENCH_ROWS" -v s="$base_s" 'BEGIN { printf "%.0f", n / s }') |"
    echo "| \`SELECT dp_linear_regression(features, y, 1, 1e-6, ...)\` | $lin_s | $(awk -v n="$BENCH_ROWS" -v s="$lin_s" 'BEGIN { printf "%.0f", n / s }') |"
    echo
    echo "dp_linear_regression runs at ${ratio}x the speed of the sum(cardinality) pass (target >= 0.5x)."
    echo "At epsilon = 0.1 AdaSSP's data-dependent ridge costs more than it saves on this"
    echo "well-conditioned design (features spread evenly): compare the SSP rows."
} >"$OUT/section"
cmd="BENCH_N=$BENCH_N BENCH_DRAWS=$BENCH_DRAWS BENCH_ROWS=$BENCH_ROWS BENCH_REPS=$BENCH_REPS bash bench/linreg/run.sh"
python3 "$REPO/bench/record.py" linreg "$cmd" <"$OUT/section"
sed -n '/^\*\*Speed/,$p' "$OUT/section" | python3 "$REPO/bench/record.py" linreg_speed "$cmd"
cat "$OUT/section"
