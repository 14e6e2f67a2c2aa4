#!/usr/bin/env bash
# bench/imbalanced/run.sh — accuracy and balanced accuracy with and without the option
# "class_weight" on two imbalanced tables, per epsilon, against a near non-private fit
# (the same solver at epsilon = 1e5, whose noise and regulariser are negligible):
#   - a synthetic table (fixed seed): 30 000 training and 10 000 test rows, three
#     one-hot groups (5, 4, 3 levels) and three values in [0, 1] (d = 15, ||x|| <= sqrt 6),
#     labels from a logistic model with about 14 % positives;
#   - UCI Adult as it comes (data/adult, d = 23 features of features_d23, 24 % positives
#     in adult.data; scored on adult.test).
# The weight of a negative row is the public prior ratio p / (1 - p) (0.16 and 0.32), or
# 0.3: a value an analyst picks from the majority baseline a private evaluation released.
# Without a class weight the runs take "metric": "accuracy" (the cut-off 0: what the weights
# are compared with; the default cut-off is bench/operating's).
# Metrics are computed exactly on the test split (a benchmark, not a release).
# Writes bench/csv/imbalanced.csv (docs/BENCHMARKS.md, "Imbalanced labels").  Needs a running server
# (PGHOST/PGPORT/PGUSER, a superuser) with dpobj installed; uses database dpobj_bench_imb.
# Seeded noise (dpobj.seed), so a run is reproducible.  The peer: PEER_DIR=dir writes the
# tables for bench/imbalanced/peer.py (IBM diffprivlib on the same rows).
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
DB=dpobj_bench_imb
REPS=${REPS:-10}
. "$REPO/bench/imbalanced/tables.sh"
bench_imbalanced_db "$DB"
psql -X -q -d "$DB" <<'SQL'
CREATE TABLE results (tbl text, cfg text, epsilon float8, rep int, accuracy float8,
                      balanced float8);
SELECT 'synth' AS tbl, split, count(*), round(avg(label::int), 3) AS positives FROM synth GROUP BY 2
UNION ALL
SELECT 'adult23', split, count(*), round(avg(label::int), 3) FROM adult23 GROUP BY 2 ORDER BY 1, 2;
SQL
run() {  # TABLE CFG EPS REP AGGREGATE OPTIONS
    psql -X -q -d "$DB" <<SQL
SET dpobj.seed = $((1000 + $4));
INSERT INTO results
SELECT '$1', '$2', $3, $4, s.acc, s.bacc
  FROM (SELECT dpobj.$5(features, label, $3, 1e-6, '$6') AS m FROM $1 WHERE split = 'train') t,
       LATERAL score('$1', t.m) s;
SQL
}
for spec in "synth 2.45 0.16" "adult23 2.65 0.32"; do
    read -r tbl R w <<<"$spec"
    for eps in 0.5 1 2; do
        for ((r = 1; r <= REPS; r++)); do
            run "$tbl" objective "$eps" "$r" dp_logistic "{\"R\": $R, \"metric\": \"accuracy\"}"
            run "$tbl" "objective, class_weight $w" "$eps" "$r" dp_logistic \
                "{\"R\": $R, \"class_weight\": {\"false\": $w}}"
            run "$tbl" "objective, class_weight 0.3" "$eps" "$r" dp_logistic \
                "{\"R\": $R, \"class_weight\": {\"false\": 0.3}}"
            run "$tbl" noisysgd "$eps" "$r" dp_noisysgd "{\"R\": $R, \"metric\": \"accuracy\"}"
            run "$tbl" "noisysgd, class_weight $w" "$eps" "$r" dp_noisysgd \
                "{\"R\": $R, \"class_weight\": {\"false\": $w}}"
        done
    done
    run "$tbl" "non-private" 100000 1 dp_logistic "{\"R\": $R, \"metric\": \"accuracy\"}"
    run "$tbl" "non-private, class_weight $w" 100000 1 dp_logistic \
        "{\"R\": $R, \"class_weight\": {\"false\": $w}}"
done
# PEER_DIR=dir: also write the two tables for bench/imbalanced/peer.py (diffprivlib)
if [[ -n "${PEER_DIR:-}" ]]; then
    for t in synth adult23; do
        psql -X -q -d "$DB" -c "\\copy (SELECT split, array_to_string(features, ' '), label FROM $t) TO '$PEER_DIR/$t.csv' CSV"
    done
fi
# the table into bench/csv/imbalanced.csv (bench/record.py), rendered into docs/BENCHMARKS.md
# with its plot; ε = 1e5 is the non-private fit ("—")
psql -X -d "$DB" --csv -c "SELECT tbl AS \"table\",
                            CASE WHEN epsilon >= 1e5 THEN '—' ELSE epsilon::text END AS \"ε\",
                            cfg AS model, round(avg(accuracy)::numeric, 3) AS accuracy,
                            round(avg(balanced)::numeric, 3) || ' (' ||
                              round(coalesce(stddev(balanced), 0)::numeric, 3) || ')'
                              AS \"balanced accuracy (sd)\"
                       FROM results GROUP BY 1, 2, 3, epsilon ORDER BY 1, epsilon, 3" |
    tee /dev/stderr | python3 "$REPO/bench/record.py" imbalanced "REPS=$REPS bash bench/imbalanced/run.sh"
