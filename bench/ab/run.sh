#!/usr/bin/env bash
# bench/ab/run.sh — A/B timing of two dpobj builds on the same rows (not a test):
#
#   AB_A=/sock/dir/a:PORT_A AB_B=/sock/dir/b:PORT_B bash bench/ab/run.sh
#
# AB_A, AB_B: "socket directory:port" of two running clusters, each with its build of
# dpobj installed and preloaded (bench/ab/README.md: how to start them).  In each, database
# AB_DB [dpab] gets bench/ab/setup.sql's tables (AB_ROWS [1000000] rows) unless it exists.
# AB_ROUNDS [5] rounds; in each, every mechanism of AB_MECHS runs on A then B (odd rounds)
# or B then A (even rounds), so drift hits both alike.  One fresh connection per run: a
# warm-up count(*), a timed count(*) (the plain scan), the mechanism, a timed count(*),
# with VmHWM (/proc) read before and after the mechanism.  Every run goes to
# bench/results/ab-<UTC stamp>.csv; bench/ab/summarize.py prints medians, the paired
# per-round B/A ratios and the peak memory.  loop_* run 10 000 calls over 10 rows each
# (per-run costs: option parsing, state setup, finalize), net of loop_count's.
set -euo pipefail
export PGUSER=${PGUSER:-postgres}
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
: "${AB_A:?socket-directory:port of build A}" "${AB_B:?socket-directory:port of build B}"
AB_DB=${AB_DB:-dpab}
AB_ROWS=${AB_ROWS:-1000000}
AB_ROUNDS=${AB_ROUNDS:-5}
AB_MECHS=${AB_MECHS:-halfspace logistic noisysgd linear ebm train_ebm auto evaluate describe aggregate synthesize loop_count loop_logistic loop_logistic_opts}
tag="$(date -u +%Y%m%dT%H%M%SZ)"
out="$here/../results/ab-$tag.csv"
mkdir -p "$here/../results"

sql_of() { # MECH -> one statement returning one value
    local feats="ARRAY['x1', 'x2', 'x3', 'x4']"
    case $1 in
    halfspace) echo "SELECT dpobj.dp_halfspace(f, y, 1, 1e-12)::text FROM ab.t" ;;
    logistic)  echo "SELECT dpobj.dp_logistic(f, y, 1, 1e-6, '{\"R\": 2}')::text FROM ab.t" ;;
    noisysgd)  echo "SELECT dpobj.dp_noisysgd(f, y, 1, 1e-6, '{\"R\": 2}')::text FROM ab.t" ;;
    linear)    echo "SELECT dpobj.dp_linear_regression(f, yr, 1, 1e-6, '{\"R\": 2, \"y_min\": -1, \"y_max\": 1}')::text FROM ab.t" ;;
    ebm)       echo "SELECT dpobj.dp_ebm(f, y, 1, 1e-6, '{}')::text FROM ab.t" ;;
    train_ebm) echo "SELECT dpobj.train('ab.t', 'ebm', ARRAY['x1', 'x2', 'x3', 'x4', 'c'], 'y', 1, 1e-6)::text" ;;
    auto)      echo "SELECT dpobj.train('ab.t', 'auto', $feats, 'y', 1, 1e-6)::text" ;;
    evaluate)  echo "SELECT dpobj.dp_evaluate(t.f, t.y, 1, 0, mo.o)::text FROM ab.t, ab.mo" ;;
    describe)  echo "SELECT count(*)::text FROM dpobj.describe('ab.t', 1)" ;;
    aggregate) echo "SELECT count(*)::text FROM dpobj.aggregate('ab.t', '[{\"stat\": \"count\"}, {\"stat\": \"mean\", \"column\": \"x1\"}, {\"stat\": \"histogram\", \"column\": \"c\"}]', 1, 0, ARRAY['y'])" ;;
    synthesize) echo "SELECT rows::text FROM dpobj.synthesize('ab.t', 'ab.s_$2', 1, 1e-6, ARRAY['x1', 'x2', 'c', 'y'], '{\"rows\": 10000}')" ;;
    loop_count) echo "SELECT ab.loop('SELECT count(*)::text FROM ab.tiny', 10000)" ;;
    loop_logistic) echo "SELECT ab.loop('SELECT dpobj.dp_logistic(f, y, 1, 1e-6, ''{\"R\": 2}'')::text FROM ab.tiny', 10000)" ;;
    loop_logistic_opts) echo "SELECT ab.loop('SELECT dpobj.dp_logistic(f, y, 1, 1e-6, ''{\"R\": 2, \"method\": \"objective\", \"loss\": \"logistic\", \"h\": 0.5, \"intercept\": true, \"metric\": \"balanced_accuracy\"}'')::text FROM ab.tiny', 10000)" ;;
    *) echo "bench/ab/run.sh: unknown mechanism $1" >&2; exit 2 ;;
    esac
}

# BUILD SOCKDIR:PORT MECH ROUND -> one CSV line
one() {
    local q
    q=$(sql_of "$3" "${tag,,}_${1,,}_$4")
    PGHOST=${2%:*} PGPORT=${2##*:} psql -X -q -At -F ' ' -d "$AB_DB" -v ON_ERROR_STOP=1 <<SQL |
SET client_min_messages = warning;
SELECT pg_backend_pid() AS pid \gset
\setenv BPID :pid
SELECT count(*) FROM ab.t \g /dev/null
SELECT seconds FROM ab.time_sql('SELECT count(*)::text FROM ab.t');
\! awk '/VmHWM/ { print \$2 }' /proc/\$BPID/status
SELECT seconds, coalesce(replace(err, ' ', '_'), 'ok') FROM ab.time_sql(\$q\$$q\$q\$);
SELECT seconds FROM ab.time_sql('SELECT count(*)::text FROM ab.t');
\! awk '/VmHWM/ { print \$2 }' /proc/\$BPID/status
SQL
    tr '\n' ' ' | awk -v r="$4" -v b="$1" -v m="$3" '{ s = ($1 + $5) / 2
        printf "%s,%s,%s,%.4f,%.4f,%.3f,%s,%s,%s\n", r, b, m, s, $3, $3 / s, $2, $6, $4 }'
}

for hp in "$AB_A" "$AB_B"; do
    if ! PGHOST=${hp%:*} PGPORT=${hp##*:} psql -X -At -d "$AB_DB" -c 'SELECT 1 FROM ab.t LIMIT 1' >/dev/null 2>&1; then
        PGHOST=${hp%:*} PGPORT=${hp##*:} createdb "$AB_DB"
        PGHOST=${hp%:*} PGPORT=${hp##*:} psql -X -q -d "$AB_DB" -v nrows="$AB_ROWS" -f "$here/setup.sql" >/dev/null
    fi
done

echo "round,build,mech,scan_s,mech_s,ratio,hwm_before_kB,hwm_after_kB,err" >"$out"
for ((r = 1; r <= AB_ROUNDS; r++)); do
    if ((r % 2)); then order="A B"; else order="B A"; fi
    for m in $AB_MECHS; do
        for b in $order; do
            if [[ $b == A ]]; then hp=$AB_A; else hp=$AB_B; fi
            one "$b" "$hp" "$m" "$r" >>"$out"
        done
    done
done
echo "bench/ab: $out"
python3 "$here/summarize.py" "$out"
