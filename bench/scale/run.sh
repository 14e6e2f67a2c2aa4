#!/usr/bin/env bash
# bench/scale/run.sh — time and peak memory of every mechanism through dpobj.train() as the
# table grows (a benchmark, not a test):
#
#   BENCH_ROWS="1000000 5000000 20000000" bash bench/scale/run.sh
#
# Builds and installs dpobj, starts a throwaway cluster (scripts/common.sh) whose processes
# may address at most BENCH_MEM_LIMIT_GB of memory each (ulimit -v: a run past it fails
# with "out of memory" instead of the machine's OOM killer choosing a victim), then for
# each N in BENCH_ROWS and each shape in BENCH_SHAPES:
#   - d10: ten continuous features uniform in [-1, 1] / sqrt(10), every row distinct (orders,
#     sensor readings, prices: the common case);
#   - d50: five categorical columns of ten levels, one-hot (fifty 0/1 features, few distinct
#     rows);
# a protected table of N rows (setseed(0.42); label from a fixed linear model plus noise),
# then per mechanism of BENCH_MECHS one train() at epsilon 1, delta 1e-6, each in a fresh
# connection (serial unless BENCH_WORKERS) with statement_timeout = BENCH_TIMEOUT seconds: the wall time, the
# ratio to the scan floor of the same N and shape (`SELECT sum(x1 + ... + xd)`, the best of
# two, in the same run), and the backend's peak RSS (VmHWM of /proc/<pid>/status, which
# includes the shared buffers it touched) -- or how it failed. Last, the log-log slope of
# time and of peak RSS against N per mechanism and shape (over the sizes where it released).
# Writes the first table into bench/csv/scale.csv (bench/record.py), which re-renders
# docs/BENCHMARKS.md and its plots (bench/render.py).
#
# Environment: BENCH_ROWS [1000000], BENCH_SHAPES [d10 d50], BENCH_MECHS [linear passglm
#   logistic output noisysgd opdisc; also rspm, auto, opsamp, and opdisc_s20k, rspm_s20k: "sample_rows" 20000],
#   BENCH_TIMEOUT [300], BENCH_MEM_LIMIT_GB [12], BENCH_WORKERS [0] (the session's
#   max_parallel_workers_per_gather for the scan and every run: 0 serial; train() then
#   reads the rows in parallel workers where its state allows, docs/SCALING.md),
#   BENCH_CSV [scale] (the bench/csv/ file: scale_20m, parallel_train or opsamp for the
#   variants docs/BENCHMARKS.md shows apart), DPOBJ_PGPORT [55444].
set -euo pipefail

# shellcheck source=scripts/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/common.sh"

BENCH_ROWS="${BENCH_ROWS:-1000000}"
BENCH_SHAPES="${BENCH_SHAPES:-d10 d50}"
BENCH_MECHS="${BENCH_MECHS:-linear passglm logistic output noisysgd opdisc}"
BENCH_TIMEOUT="${BENCH_TIMEOUT:-300}"
BENCH_MEM_LIMIT_GB="${BENCH_MEM_LIMIT_GB:-12}"
BENCH_WORKERS="${BENCH_WORKERS:-0}"
BEGIN_MARK='<!-- bench/scale -->'
END_MARK='<!-- /bench/scale -->'
OUT="$(mktemp -d "${TMPDIR:-/tmp}/dpobj-bench-scale.XXXXXX")"
chmod 755 "$OUT"
dpobj_at_exit "rm -rf -- '$OUT'; :"
DPOBJ_EXTRA_CONF="jit = off
max_parallel_workers_per_gather = 0
shared_preload_libraries = 'dpobj'"
export DPOBJ_EXTRA_CONF
DPOBJ_PGPORT="${DPOBJ_PGPORT:-55444}"
export DPOBJ_PGPORT

dpobj_ensure_packages
dpobj_build_install
ulimit -v $((BENCH_MEM_LIMIT_GB * 1024 * 1024))
dpobj_start_cluster
DB=dpobj_bench_scale
dpobj_psql -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB" >/dev/null
dpobj_psql -d "$DB" -c "CREATE EXTENSION dpobj" >/dev/null
q() { dpobj_psql -d "$DB" -qAt "$@"; }
commit="$(git -C "$REPO" rev-parse --short HEAD 2>/dev/null || echo 'no commit')"

# shellcheck source=bench/scale/tables.sh
. "$REPO/bench/scale/tables.sh"

# run SQL: "ms kB status" -- time, the backend's VmHWM, ok or the error -- fresh connection
# shellcheck source=bench/measure.sh
. "$REPO/bench/measure.sh"
run() {
    bench_measure "$DB" "$OUT" "SET statement_timeout = '${BENCH_TIMEOUT}s';
SET max_parallel_workers_per_gather = ${BENCH_WORKERS};" "$1"
}

# train_sql MECH SHAPE N: the train() call of one mechanism
train_sql() {
    local t="t_$2_$3" d feats label opts mech="$1"
    d=$([[ "$2" == d10 ]] && echo 10 || echo 50)
    feats="ARRAY[$(seq -s, -f "'x%g'" 1 "$d")]"
    label="'y'"
    case "$1" in
        linear) opts='{"R": 1, "y_min": -1, "y_max": 1}' label="'ylin'" ;;
        passglm) opts='{"R": 1}' ;;
        logistic) opts='{"R": 1}' ;;
        output) mech=logistic opts='{"R": 1, "method": "output"}' ;;
        noisysgd) opts='{"R": 1}' ;;
        opdisc|rspm) opts='{}' ;;
        auto) opts='{"R": 1}' ;;
        # the public "n" train() requires: the table's row count
        opsamp) opts="{\"R\": 1, \"n\": $3}" ;;
        # the exact oracle on a uniform sample of 20 000 rows (docs/SCALING.md)
        opdisc_s20k) mech=opdisc opts='{"sample_rows": 20000}' ;;
        rspm_s20k) mech=rspm opts='{"sample_rows": 20000}' ;;
        *) opts='{}' ;;
    esac
    [[ "$2" == d50 && "$1" =~ ^(linear|passglm|logistic|output|noisysgd)$ ]] &&
        opts="${opts/\"R\": 1/\"R\": 2.3}"
    printf "SELECT (dpobj.train('%s', '%s', %s, %s, 1, 1e-6, '%s')).mechanism;" \
        "$t" "$mech" "$feats" "$label" "$opts"
}

rows_md=""
: >"$OUT/points"
for n in $BENCH_ROWS; do
    for shape in $BENCH_SHAPES; do
        dpobj_log "generating t_${shape}_$n"
        make_table "$shape" "$n"
        d=$([[ "$shape" == d10 ]] && echo 10 || echo 50)
        scan="SELECT sum($(seq -s+ -f 'x%g' 1 "$d")) FROM t_${shape}_$n;"
        run "$scan" >/dev/null
        read -r s1 _ _ < <(run "$scan")
        read -r s2 skb _ < <(run "$scan")
        scan_ms=$(awk -v a="$s1" -v b="$s2" 'BEGIN { print (a < b ? a : b) }')
        rows_md+="| $n | $shape | scan | $(printf '%.0f' "$scan_ms") | 1.0x | $((skb / 1024)) | ok |"$'\n'
        for m in $BENCH_MECHS; do
            read -r ms kb st < <(run "$(train_sql "$m" "$shape" "$n")")
            ratio=$(awk -v a="$ms" -v b="$scan_ms" 'BEGIN { printf "%.1f", a / b }')
            dpobj_log "N=$n $shape $m: $ms ms (${ratio}x), $((kb / 1024)) MB, $st"
            rows_md+="| $n | $shape | $m | $(printf '%.0f' "$ms") | ${ratio}x | $((kb / 1024)) | $st |"$'\n'
            [[ "$st" == ok ]] && echo "$shape $m $n $ms $kb" >>"$OUT/points"
        done
        q -c "DROP TABLE t_${shape}_$n" >/dev/null
    done
done

# log-log slopes (least squares over the sizes where the run released)
slopes_md="$(sort -k1,1 -k2,2 "$OUT/points" | awk '
    function flush() { if (c >= 2) printf "| %s | %s | %.2f | %.2f |\n", key1, key2,
        (c * sxt - sx * st) / (c * sxx - sx * sx), (c * sxm - sx * sm) / (c * sxx - sx * sx) }
    { k = $1 " " $2; if (k != prev) { flush(); prev = k; key1 = $1; key2 = $2; c = sx = st = sm = sxx = sxt = sxm = 0 }
      x = log($3); t = log($4); m = log($5); c++; sx += x; st += t; sm += m; sxx += x * x
      sxt += x * t; sxm += x * m }
    END { flush() }')"

cpu="$(nproc) CPUs, $(awk -F: '/model name/ { sub(/^ /, "", $2); print $2; exit }' /proc/cpuinfo)"
load="$(cut -d' ' -f1-3 /proc/loadavg)"
section="$BEGIN_MARK
## Scale: time and memory against rows (bench/scale)

Generated by \`BENCH_ROWS=\"$BENCH_ROWS\" bash bench/scale/run.sh\` on $(date -u '+%Y-%m-%d %H:%M UTC');
$cpu; dpobj commit $commit; load average at the end $load. One \`train()\` per cell at
ε = 1, δ = 10⁻⁶, max_parallel_workers_per_gather = ${BENCH_WORKERS}, statement_timeout ${BENCH_TIMEOUT} s, at most ${BENCH_MEM_LIMIT_GB} GB
per process; ratio = time / the scan \`sum(x1 + … + xd)\` of the same table in the same run;
peak RSS = the backend's VmHWM (MB, shared buffers included).

| rows | shape | run | ms | ratio | peak RSS MB | outcome |
|---:|---|---|---:|---:|---:|---|
${rows_md%$'\n'}

Log–log slope against rows (1 = linear; 0 = independent of the table):

| shape | run | time slope | memory slope |
|---|---|---:|---:|
${slopes_md:-| — | fewer than two sizes | | |}
$END_MARK"
printf '%s\n' "$section" >"$OUT/section"
# the first table of the section is the result: bench/csv/scale.csv, then docs/BENCHMARKS.md
python3 "$REPO/bench/record.py" "${BENCH_CSV:-scale}" "BENCH_CSV=${BENCH_CSV:-scale} BENCH_ROWS=\"$BENCH_ROWS\" BENCH_SHAPES=\"$BENCH_SHAPES\" BENCH_MECHS=\"$BENCH_MECHS\" BENCH_WORKERS=$BENCH_WORKERS bash bench/scale/run.sh" <"$OUT/section"
printf '%s\n' "$section"
