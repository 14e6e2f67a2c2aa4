#!/usr/bin/env bash
# bench/synth/widefit.sh — dpobj.synthesize() with its defaults on a wide-level table (the
# shape of sql/synthesize.sql's, at Adult's 48 842 rows: 14 columns declared as levels,
# five of 85-100): at dpobj.max_state_memory 64MB, 256MB (the default) and 1GB, each run's
# bound from its NOTICE (never above the cap), the workload sets left out, wall time and
# the backend's peak RSS (bench/measure.sh); then dpobj.synth_fidelity() of the 256MB
# run's model into widefit_fidelity.csv, drawn by bench/render.py (docs/img/synth_fidelity.png).
#
# Needs a running server through PGHOST/PGPORT/PGUSER (a superuser).  Writes
# bench/synth/widefit.md and widefit_fidelity.csv.  Not part of any suite.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
DB=dpobj_widefit
OUT="$(mktemp -d)"
trap 'rm -rf -- "$OUT"' EXIT
cd "$REPO"
psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB"
psql -X -q -d "$DB" -v ON_ERROR_STOP=1 >/dev/null <<'SQL'
CREATE EXTENSION dpobj;
CREATE TABLE wide AS
SELECT 'v' || (i % 100) AS w1, 'v' || (i * 7 % 95) AS w2, 'v' || (i * 13 % 90) AS w3,
       'v' || (i * 3 % 85) AS w4, 'v' || (i * 11 % 100) AS w5, 'v' || (i % 7) AS s1,
       'v' || (i % 9) AS s2, 'v' || (i % 16) AS s3, 'v' || (i % 5) AS s4, 'v' || (i % 6) AS s5,
       'v' || (i % 2) AS s6, 'v' || (i % 3) AS s7, 'v' || (i % 40) AS s8, 'v' || (i % 2) AS s9
  FROM generate_series(1, 48842) i;
SELECT count(dpobj.declare_domain('wide', c,
                                  (SELECT array_agg('v' || g ORDER BY g) FROM generate_series(0, n - 1) g)))
  FROM (VALUES ('w1', 100), ('w2', 95), ('w3', 90), ('w4', 85), ('w5', 100), ('s1', 7), ('s2', 9),
               ('s3', 16), ('s4', 5), ('s5', 6), ('s6', 2), ('s7', 3), ('s8', 40), ('s9', 2)) v(c, n);
SELECT dpobj.protect('wide');
SELECT dpobj.grant_budget('wide', current_user::regrole, 1e9, 0.5);
SQL
# shellcheck source=bench/measure.sh
. "$REPO/bench/measure.sh"
{
    echo "# dpobj.synthesize() on a wide-level table (bench/synth/widefit.sh)"
    echo
    echo "$(date -u '+%Y-%m-%d %H:%M') UTC, $(git rev-parse --short HEAD), load $(cut -d' ' -f1-3 /proc/loadavg); 48 842 rows, 14 level columns (five of 85-100), epsilon 1, delta 1e-6, defaults."
    echo
    echo "| dpobj.max_state_memory | bound (NOTICE) MB | sets left out | synthesize ms | peak RSS MB | status |"
    echo "|---|---:|---:|---:|---:|---|"
    for cap in 64MB 256MB 1GB; do
        read -r ms kb st < <(bench_measure "$DB" "$OUT" "SET dpobj.max_state_memory = '$cap'; SET client_min_messages = notice;" \
            "SELECT rows FROM dpobj.synthesize('wide', 'public.syn_$cap', 1, 1e-6, NULL, '{\"model_name\": \"syn_$cap\"}');")
        bound=$(sed -n 's/.*the run needs up to \([0-9]*\) MB.*/\1/p' "$OUT/err" | head -n 1)
        left=$(sed -n 's/.*NOTICE:  dpobj.synthesize: \([0-9]*\) of the.*/\1/p' "$OUT/err" | head -n 1)
        printf '| %s | %s | %s | %.0f | %.0f | %s |\n' "$cap" "${bound:-}" "${left:-0}" "$ms" \
            "$(awk -v k="$kb" 'BEGIN { print k / 1024 }')" "$st"
    done
} | tee bench/synth/widefit.md
psql -X -q -d "$DB" --csv -c "SELECT array_to_string(columns, ' ') AS columns, cells, distance, expected_noise, ratio FROM dpobj.synth_fidelity('syn_256MB')" \
    >bench/synth/widefit_fidelity.csv
printf '\n%s\n\n%s\n' "dpobj.synth_fidelity() of the 256MB run's model: each measurement's l1 distance to the model over what its noise alone gives (1: fitted up to the noise)." \
    "![synth_fidelity ratios](../../docs/img/synth_fidelity.png)" >>bench/synth/widefit.md
psql -X -q -d postgres -c "DROP DATABASE $DB"
