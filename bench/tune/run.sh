#!/usr/bin/env bash
# bench/tune/run.sh — private hyperparameter tuning of noisy GD ("tune") against untuned noisy
# GD at its defaults (T = 30, radius 10, the table's R), at epsilon EPS, delta 1e-6, REPS
# seeded runs each, plain accuracy on the fixed test split and balanced accuracy (computed
# exactly: a benchmark, not a release), and each run's wall time (scan included).
# Tables (bench/imbalanced/tables.sh): adult23 (R = 2.65), bank (R = 3.88), german (R = 4.48,
# HELD OUT: nothing was chosen on it).  Arms (ARMS):
#   default   {"R": R}
#   tuned     {"R": R, "tune": {"T": [10, 30, 100], "radius": [1, 10], "R": [R/2, R]}}, default gamma
#   tuned3    the same grid with "tune_gamma": 1/3 (about 3 runs)
#   default_w, tuned_w, tuned3_w: the same with bench/auto_imbalanced's "class_weight"
#             {"false": p / (1 - p)} (adult23 0.32, bank 0.13, german 0.43); the tuned arms
#             then score by "tune_metric" weighted_accuracy (its default with class weights)
#   tuned_bal  the grid without class weights, "tune_metric": "balanced_accuracy" (weights
#             from a private estimate of the label balance, training and scoring)
# Needs a running server (PGHOST/PGPORT/PGUSER, a superuser: dpobj.seed) with dpobj installed;
# uses database dpobj_bench_tune.  Environment: REPS [5], TABLES, EPS [1],
# ARMS ["default tuned tuned3"].
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
DB=dpobj_bench_tune
REPS=${REPS:-5}
TABLES=${TABLES:-"adult23 bank german"}
EPS=${EPS:-1}
ARMS=${ARMS:-"default tuned tuned3"}
. "$REPO/bench/imbalanced/tables.sh"
bench_imbalanced_db "$DB"
psql -X -q -d "$DB" <<'SQL'
CREATE TABLE results (tbl text, arm text, epsilon float8, rep int, accuracy float8,
                      balanced float8, seconds float8, point text, t text, r text, radius text);
CREATE FUNCTION run(tbl text, arm text, eps float8, rep int, opts jsonb) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  m dpobj.model;
  t0 timestamptz;
  secs float8;
BEGIN
  PERFORM set_config('dpobj.seed', (1000 + rep)::text, false);
  t0 := clock_timestamp();
  EXECUTE format('SELECT (m).* FROM (SELECT dpobj.dp_noisysgd(features, label, $1, 1e-6, $2) m
                                      FROM %I WHERE split = ''train'') s', tbl)
    INTO m USING eps, opts;
  secs := extract(epoch FROM clock_timestamp() - t0);
  INSERT INTO results SELECT tbl, arm, eps, rep, s.acc, s.bacc, secs, m.params->>'tune_point',
                             m.params->>'T', m.params->>'R', m.params->>'radius'
    FROM score(tbl::regclass, m) s;
END $$;
SQL
for spec in "adult23 2.65 0.32" "bank 3.88 0.13" "german 4.48 0.43"; do
    read -r tbl R w <<<"$spec"
    [[ " $TABLES " == *" $tbl "* ]] || continue
    half=$(python3 -c "print($R / 2)")
    grid="\"tune\": {\"T\": [10, 30, 100], \"radius\": [1, 10], \"R\": [$half, $R]}"
    weights="\"class_weight\": {\"false\": $w}"
    {
        for eps in $EPS; do
            for ((r = 1; r <= REPS; r++)); do
                for arm in $ARMS; do
                    case $arm in
                        default) o="{\"R\": $R}" ;;
                        tuned) o="{\"R\": $R, $grid}" ;;
                        tuned3) o="{\"R\": $R, $grid, \"tune_gamma\": 0.3333333}" ;;
                        default_w) o="{\"R\": $R, $weights}" ;;
                        tuned_w) o="{\"R\": $R, $weights, $grid}" ;;
                        tuned3_w) o="{\"R\": $R, $weights, $grid, \"tune_gamma\": 0.3333333}" ;;
                        tuned_bal) o="{\"R\": $R, $grid, \"tune_metric\": \"balanced_accuracy\"}" ;;
                        *) echo "unknown arm $arm" >&2; exit 1 ;;
                    esac
                    echo "SELECT run('$tbl', '$arm', $eps, $r, '$o');"
                done
            done
        done
    } | psql -X -q -v ON_ERROR_STOP=1 -d "$DB" >/dev/null
done
# the table into bench/csv/tune.csv (bench/record.py), rendered into docs/BENCHMARKS.md
psql -X -d "$DB" --csv -c "SELECT tbl, epsilon, arm, count(*) AS runs,
                            round(avg(accuracy)::numeric, 3) AS accuracy,
                            round(coalesce(stddev(accuracy), 0)::numeric, 3) AS sd,
                            round(avg(balanced)::numeric, 3) AS balanced,
                            round(avg(seconds)::numeric, 3) AS seconds,
                            string_agg(t || '/' || r || '/' || radius, ' ' ORDER BY rep)
                              FILTER (WHERE arm LIKE 'tuned%') AS chosen_T_R_radius
                       FROM results GROUP BY 1, 2, 3 ORDER BY 1, 2, 3" |
    tee /dev/stderr | python3 "$REPO/bench/record.py" tune "REPS=$REPS TABLES=\"$TABLES\" EPS=\"$EPS\" ARMS=\"$ARMS\" bash bench/tune/run.sh"
psql -X -d "$DB" -c "SELECT tbl, epsilon, round((avg(seconds) FILTER (WHERE arm = 'tuned') /
                                               avg(seconds) FILTER (WHERE arm = 'default'))::numeric, 2) AS time_tuned,
                            round((avg(seconds) FILTER (WHERE arm = 'tuned3') /
                                   avg(seconds) FILTER (WHERE arm = 'default'))::numeric, 2) AS time_tuned3,
                            round((avg(seconds) FILTER (WHERE arm = 'tuned_w') /
                                   avg(seconds) FILTER (WHERE arm = 'default_w'))::numeric, 2) AS time_tuned_w,
                            round((avg(seconds) FILTER (WHERE arm = 'tuned3_w') /
                                   avg(seconds) FILTER (WHERE arm = 'default_w'))::numeric, 2) AS time_tuned3_w,
                            round((avg(seconds) FILTER (WHERE arm = 'tuned_bal') /
                                   avg(seconds) FILTER (WHERE arm = 'default_w'))::numeric, 2) AS time_tuned_bal
                       FROM results GROUP BY 1, 2 ORDER BY 1, 2"
