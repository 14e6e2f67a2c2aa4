#!/usr/bin/env bash
# bench/scale/accuracy.sh — the accuracy of every train() mechanism on bench/scale's d10 rows
# (a benchmark, not a test):
#
#   BENCH_ROWS=1000000 bash bench/scale/accuracy.sh
#
# Builds and installs dpobj, starts a throwaway cluster (scripts/common.sh), makes a protected
# table of BENCH_ROWS rows with bench/scale/run.sh's d10 generator (ten continuous features,
# every row distinct; label y = l > 0, ylin = l) and a test table of 200 000 further rows, then
# trains each mechanism of BENCH_MECHS BENCH_REPS times (fresh noise) at epsilon = 1,
# delta = 1e-6 and prints the mean test accuracy (linear regression: the test R^2 of ylin) over
# the runs, or the error a run ended with.  Runs with the library of the checkout it is run
# from, so the same script compares versions (copy it into an older checkout).
#
# Environment: BENCH_ROWS [1000000], BENCH_REPS [3], BENCH_MECHS, BENCH_TIMEOUT [600].
set -euo pipefail

# shellcheck source=scripts/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/common.sh"

BENCH_ROWS="${BENCH_ROWS:-1000000}"
BENCH_REPS="${BENCH_REPS:-3}"
BENCH_MECHS="${BENCH_MECHS:-linear passglm logistic output noisysgd opdisc rspm opsamp auto}"
BENCH_TIMEOUT="${BENCH_TIMEOUT:-600}"
DPOBJ_EXTRA_CONF="${DPOBJ_EXTRA_CONF:-}
jit = off"
export DPOBJ_EXTRA_CONF

dpobj_ensure_packages
dpobj_build_install
dpobj_start_cluster
DB=dpobj_bench_accuracy
dpobj_psql -c "CREATE DATABASE $DB" >/dev/null
dpobj_psql -d "$DB" -c "CREATE EXTENSION dpobj" >/dev/null
q() { dpobj_psql -d "$DB" -qAt "$@"; }

cols="$(for j in $(seq 1 10); do printf 'x[%d] AS x%d, ' "$j" "$j"; done)"
gen() { # TABLE N SEED
    q <<SQL
SELECT setseed($3);
CREATE TABLE $1 AS
SELECT ${cols} l > 0 AS y, l AS ylin
  FROM (SELECT x, (SELECT sum((j - 5.5) * x[j]) FROM generate_series(1, 10) j) / 10
                  + 0.2 * (random() - 0.5) AS l
          FROM (SELECT ARRAY(SELECT (2 * random() - 1) / sqrt(10)
                               FROM generate_series(1, 10) k WHERE i > 0) AS x
                  FROM generate_series(1, $2) i) a) b;
VACUUM ANALYZE $1;
SQL
}
dpobj_log "generating $BENCH_ROWS training and 200000 test rows"
gen t "$BENCH_ROWS" 0.42
gen test 200000 0.17
q -c "SELECT dpobj.protect('t')" -c "SELECT dpobj.grant_budget('t', current_user::regrole, 1e12, 0.5)" >/dev/null
feats="ARRAY['x1','x2','x3','x4','x5','x6','x7','x8','x9','x10']"
xs="ARRAY[x1,x2,x3,x4,x5,x6,x7,x8,x9,x10]::float8[]"

printf '| mechanism | runs | test accuracy (linear: R²) | mean s a run | outcome |\n|---|---:|---:|---:|---|\n'
for m in $BENCH_MECHS; do
    mech=$m label="'y'" opts='{"R": 1}'
    case $m in
        linear) opts='{"R": 1, "y_min": -1, "y_max": 1}' label="'ylin'" ;;
        output) mech=logistic opts='{"R": 1, "method": "output"}' ;;
        opdisc|rspm) opts='{}' ;;
        opsamp) opts="{\"R\": 1, \"n\": $BENCH_ROWS}" ;;
    esac
    if [[ $m == linear ]]; then
        score="SELECT 1 - sum((ylin - (SELECT (m).bias FROM mm) - (SELECT sum(w * x) FROM unnest((SELECT (m).weights FROM mm), $xs) u(w, x)))^2)
                      / sum((ylin - (SELECT avg(ylin) FROM test))^2) FROM test"
    else
        score="SELECT avg((dpobj.predict((SELECT m FROM mm), $xs) = y)::int) FROM test"
    fi
    tot=0 n=0 secs=0 outcome=ok
    for s in $(seq 1 "$BENCH_REPS"); do
        out=$(q 2>&1 <<SQL || true
SET statement_timeout = '${BENCH_TIMEOUT}s';

SELECT extract(epoch FROM clock_timestamp()) AS t0 \gset
CREATE TEMP TABLE mm AS SELECT dpobj.train('t', '$mech', $feats, $label, 1, 1e-6, '$opts') AS m;
SELECT extract(epoch FROM clock_timestamp()) - :t0;
$score;
SQL
)
        if grep -q ERROR <<<"$out"; then
            outcome=$(grep -m1 -o 'ERROR:.*' <<<"$out" | cut -c1-70)
            break
        fi
        read -r el acc <<<"$(tr "\n" " " <<<"$out")"
        tot=$(echo "$tot + $acc" | bc -l) secs=$(echo "$secs + $el" | bc -l) n=$((n + 1))
    done
    if ((n > 0)); then
        printf '| %s | %d | %.4f | %.1f | %s |\n' "$m" "$n" "$(echo "$tot / $n" | bc -l)" "$(echo "$secs / $n" | bc -l)" "$outcome"
    else
        printf '| %s | 0 | — | — | %s |\n' "$m" "$outcome"
    fi
done
