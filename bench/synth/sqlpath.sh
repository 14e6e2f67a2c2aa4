#!/usr/bin/env bash
# bench/synth/sqlpath.sh — the synthesizer through SQL, end to end: dpobj.synthesize() on a
# protected table (the sealed scan, the rounds, the target written) at ε 1, δ 1e-6, against a
# plain scan of the same 15 columns (15 counts) in the same run; its phases from the
# dpobj.progress NOTICEs (whole seconds): the sealed scan (to "solving"), the estimation (to
# "releasing"), the release (the model, then the target's rows sampled and inserted); peak
# memory: the backend's VmHWM (/proc/<pid>/status, shared buffers it touched included).
# Medians over BENCH_REPS [5] runs, each a fresh connection.
#
#   adult.x50k   the issue's 50 000 rows: data/adult's splits (48 842 rows) and its first
#                1 158 training rows again; bench/synth/prep.py's declared domains: the 9 text
#                columns by their UCI levels (train and test), the 6 numerics by [lo, hi] with
#                prep.py's bin counts (options "bins": at most that many private quantile bins);
#                the target gets the noisy row count;
#   adult.big    BENCH_BIG=1: the same rows 615 times (20 025 015 rows: CREATE TABLE AS SELECT
#                FROM adult.train, generate_series(1, 615)), the same domains, BENCH_BIG_REPS
#                [3] runs; the target gets 32 561 rows ("rows"), as many as Adult's, so that
#                writing it costs what it costs there.
#
# Needs a running server through PGHOST/PGPORT/PGUSER (a superuser), e.g. from the
# repository's root:
#   (. scripts/common.sh && dpobj_build_install && dpobj_start_cluster && nice bash bench/synth/sqlpath.sh)
# Writes bench/synth/sqlpath.csv (every run), bench/synth/sqlpath.md and bench/csv/synth_sqlpath.csv
# (the medians; bench/record.py), rendered into docs/BENCHMARKS.md.  Not part of any test suite.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
REPS="${BENCH_REPS:-5}"
DB=dpobj_synthsql
OUT="$(mktemp -d)"
# the database (and the 20M-row table) goes on any exit
trap 'rm -rf -- "$OUT"; psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $DB" || true' EXIT
cd "$REPO"
psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB"
psql -X -q -d "$DB" -c "CREATE EXTENSION dpobj"
# shellcheck source=bench/synth/adultbig.sh
. "$REPO/bench/synth/adultbig.sh"
adult_load
COLS="$ADULT_COLS"
BINS='{"age": 15, "fnlwgt": 20, "education_num": 16, "capital_gain": 20, "capital_loss": 20, "hours_per_week": 10}'
psql -X -q -d "$DB" -v ON_ERROR_STOP=1 >/dev/null <<SQL
CREATE TABLE adult.x50k AS SELECT $COLS FROM adult.train UNION ALL SELECT $COLS FROM adult.test
    UNION ALL (SELECT $COLS FROM adult.train ORDER BY id LIMIT 1158);
SQL
tables="adult.x50k"
adult_declare adult.x50k
if [[ "${BENCH_BIG:-0}" == 1 ]]; then
    adult_big adult.big 615
    tables+=" adult.big"
fi
# shellcheck source=bench/measure.sh
. "$REPO/bench/measure.sh"
med() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
csv="bench/synth/sqlpath.csv"
echo "table,rows,rep,scan_ms,synth_ms,ratio,scan_phase_s,estimation_s,release_s,peak_kb,synthetic_rows,status" >"$csv"
# the phase's start in whole seconds (the first NOTICE naming it)
phase() { sed -n "s/.*dpobj progress: $1, \([0-9]*\) s elapsed.*/\1/p" "$OUT/err" | head -n 1; }
for t in $tables; do
    n=$(psql -X -At -d "$DB" -c "SELECT count(*) FROM $t")
    opts="{\"bins\": $BINS}"
    reps=$REPS
    if [[ $t == adult.big ]]; then
        opts="{\"bins\": $BINS, \"rows\": 32561}"
        reps=${BENCH_BIG_REPS:-3}
    fi
    for i in $(seq 1 "$reps"); do
        read -r sms _ _ < <(bench_measure "$DB" "$OUT" "" "SELECT $(sed 's/\([a-z_0-9][a-z_0-9]*\)/count(\1)/g' <<<"$COLS") FROM $t;")
        target="public.syn_${t#adult.}_$i"
        read -r yms ykb yst < <(bench_measure "$DB" "$OUT" "SET dpobj.progress = on; SET client_min_messages = notice;" \
            "SELECT rows FROM dpobj.synthesize('$t', '$target', 1, 1e-6, NULL, '$opts');")
        solving=$(phase solving)
        releasing=$(phase releasing)
        rows=$(grep -m 1 -E '^[0-9]+$' "$OUT/run" || echo 0)
        echo "$t,$n,$i,$sms,$yms,$(awk -v a="$yms" -v b="$sms" 'BEGIN { printf "%.1f", a / b }'),${solving:-0},$((${releasing:-0} - ${solving:-0})),$(awk -v y="$yms" -v r="${releasing:-0}" 'BEGIN { printf "%.0f", y / 1000 - r }'),$ykb,$rows,$yst" | tee -a "$csv"
    done
done
# the medians per table, recorded for docs/BENCHMARKS.md (sqlpath.md: below its header)
{
    echo "# The synthesizer through SQL (bench/synth/sqlpath.sh)"
    echo
    echo "$(date -u '+%Y-%m-%d %H:%M') UTC, $(git rev-parse --short HEAD), load $(cut -d' ' -f1-3 /proc/loadavg), dpobj.max_state_memory $(psql -X -At -d "$DB" -c 'SHOW dpobj.max_state_memory'); every run: sqlpath.csv."
    echo
    echo "| table | rows | runs | scan ms | synthesize ms | ratio | scan phase s | estimation s | release s | peak RSS MB | synthetic rows |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    for t in $tables; do
        col() { awk -F, -v t="$t" -v c="$1" '$1 == t && $12 == "ok" { print $c }' "$csv" | med; }
        printf '| %s | %s | %s | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f |\n' "$t" \
            "$(awk -F, -v t="$t" '$1 == t { print $2; exit }' "$csv")" \
            "$(awk -F, -v t="$t" '$1 == t && $12 == "ok"' "$csv" | wc -l)" \
            "$(col 4)" "$(col 5)" "$(col 6)" "$(col 7)" "$(col 8)" "$(col 9)" \
            "$(awk -v k="$(col 10)" 'BEGIN { print k / 1024 }')" "$(col 11)"
    done
} | tee bench/synth/sqlpath.md | python3 "$REPO/bench/record.py" synth_sqlpath \
    "BENCH_REPS=$REPS BENCH_BIG=${BENCH_BIG:-0} nice bash bench/synth/sqlpath.sh"
