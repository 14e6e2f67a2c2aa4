#!/usr/bin/env bash
# bench/synth/write.sh — writing a synthetic twin: BENCH_ROWS [20000000] rows drawn from a
# synthesizer model of Adult's 15 columns (bench/synth/sqlpath.sh's domains and bins) into a
# typed table, each way on a fresh connection of one run:
#   sample_into     dpobj.sample_into(model, table, n): table_multi_insert in batches (as COPY FROM)
#   sample_rows     INSERT INTO table SELECT * FROM dpobj.sample_rows(model, n) AS t(...)
#   sample_json     INSERT INTO table SELECT (r->>'c')::type, ... FROM dpobj.sample(model, n) r
#                   (the cast-by-hand way; BENCH_JSON_ROWS [2000000] rows, its rate scaled)
#   insert_select   INSERT INTO table SELECT * FROM the sample_into table (the same rows)
#   copy_from       COPY table FROM a file of the same rows (binary, written by COPY TO first)
#   synthesize      dpobj.synthesize() on adult.big (adult.train 615 times, 20M rows) with
#                   "rows" BENCH_ROWS: the scan, the rounds and the write; against its scan
# ratio: ms over insert_select's ms per row; peak RSS: the backend's VmHWM (bench/measure.sh).
# Needs a running server through PGHOST/PGPORT/PGUSER (a superuser), e.g. from the
# repository's root, with the repository's dpobj installed:
#   nice bash bench/synth/write.sh
# Writes bench/synth/write.md and bench/csv/synth_write.csv (bench/record.py), rendered into
# docs/BENCHMARKS.md.  Not part of any test suite; about 10 minutes at 20M rows.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
N="${BENCH_ROWS:-20000000}"
NJ="${BENCH_JSON_ROWS:-2000000}"
DB=dpobj_synthwrite
OUT="$(mktemp -d)"
chmod 777 "$OUT"
trap 'rm -rf -- "$OUT"' EXIT
cd "$REPO"
# shellcheck source=bench/measure.sh
. "$REPO/bench/measure.sh"
bench_fresh_db "$DB"
# shellcheck source=bench/synth/adultbig.sh
. "$REPO/bench/synth/adultbig.sh"
adult_load
COLS="$ADULT_COLS"
BINS='{"age": 15, "fnlwgt": 20, "education_num": 16, "capital_gain": 20, "capital_loss": 20, "hours_per_week": 10}'
adult_big adult.big 615
# the model: one synthesize() of 10 rows; the twin's empty table: its target's columns
psql -X -q -d "$DB" -v ON_ERROR_STOP=1 >/dev/null <<SQL
SELECT rows FROM dpobj.synthesize('adult.big', 'public.seed', 1, 1e-6, NULL, '{"bins": $BINS, "rows": 10, "model_name": "twin"}');
SQL
types=$(psql -X -At -d "$DB" -c "SELECT string_agg(quote_ident(attname) || ' ' || format_type(atttypid, atttypmod), ', ' ORDER BY attnum) FROM pg_attribute WHERE attrelid = 'public.seed'::regclass AND attnum > 0")
casts=$(psql -X -At -d "$DB" -c "SELECT string_agg(format('(r->>%L)%s::%s', attname, CASE WHEN d ? 'levels' THEN '' ELSE '::float8' END, format_type(atttypid, atttypmod)), ', ' ORDER BY attnum) FROM pg_attribute, dpobj.models m, jsonb_array_elements((m.model).params->'domains') d WHERE attrelid = 'public.seed'::regclass AND attnum > 0 AND m.name = 'twin' AND d->>'column' = attname")
for t in w_into w_rows w_json w_insert w_copy; do
    psql -X -q -d "$DB" -c "CREATE TABLE $t (LIKE public.seed)" >/dev/null
done
csv="$OUT/runs.csv"
: >"$csv"
run() { # what rows SQL
    local ms kb st
    psql -X -q -d "$DB" -c "CHECKPOINT" >/dev/null
    read -r ms kb st < <(bench_measure "$DB" "$OUT" "" "$3")
    echo "$1,$2,$ms,$kb,$st" | tee -a "$csv"
}
M="(SELECT model FROM dpobj.models WHERE name = 'twin')"
run sample_into "$N" "SELECT dpobj.sample_into($M, 'w_into', $N);"
run sample_rows "$N" "INSERT INTO w_rows SELECT * FROM dpobj.sample_rows($M, $N) AS t($types);"
run sample_json "$NJ" "INSERT INTO w_json SELECT $casts FROM dpobj.sample($M, $NJ) r;"
run insert_select "$N" "INSERT INTO w_insert SELECT * FROM w_into;"
psql -X -q -d "$DB" -c "COPY w_into TO '$OUT/rows.bin' (FORMAT binary)"
run copy_from "$N" "COPY w_copy FROM '$OUT/rows.bin' (FORMAT binary);"
rm -f "$OUT/rows.bin"
read -r scan_ms _ _ < <(bench_measure "$DB" "$OUT" "" "SELECT $(sed 's/\([a-z_0-9][a-z_0-9]*\)/count(\1)/g' <<<"$COLS") FROM adult.big;")
run synthesize "$N" "SELECT rows FROM dpobj.synthesize('adult.big', 'public.twin20', 1, 1e-6, NULL, '{\"bins\": $BINS, \"rows\": $N, \"model_name\": \"twin20\"}');"
base=$(awk -F, '$1 == "insert_select" { print $3 / $2 }' "$csv")
{
    echo "# Writing a synthetic twin (bench/synth/write.sh)"
    echo
    echo "$(date -u '+%Y-%m-%d %H:%M') UTC, $(git rev-parse --short HEAD), load $(cut -d' ' -f1-3 /proc/loadavg) (a shared machine); 15 columns (9 levels, 6 binned numerics); ratio: ms per row over INSERT ... SELECT's; the scan of adult.big's 15 columns took $(printf '%.0f' "$scan_ms") ms."
    echo
    echo "| way | rows | ms | rows/s | ratio | peak RSS MB | status |"
    echo "|---|---:|---:|---:|---:|---:|---|"
    awk -F, -v b="$base" '{ printf "| %s | %d | %.0f | %.0f | %.2f | %.0f | %s |\n", $1, $2, $3, $2 / ($3 / 1000), ($3 / $2) / b, $4 / 1024, $5 }' "$csv"
} | tee bench/synth/write.md | python3 "$REPO/bench/record.py" synth_write \
    "BENCH_ROWS=$N BENCH_JSON_ROWS=$NJ nice bash bench/synth/write.sh"
psql -X -q -d postgres -c "DROP DATABASE $DB"
