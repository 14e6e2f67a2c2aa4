#!/usr/bin/env bash
# bench/auto_imbalanced/run.sh — 'auto' against each single mechanism on imbalanced tables,
# all with the same "class_weight", at epsilon 0.5, 1 and 2 (REPS seeded runs each), and a
# near non-private fit (objective at epsilon = 1e5).  Accuracy and balanced accuracy are
# computed exactly on each table's fixed test split (a benchmark, not a release).
# Tables (positives = the minority class; negative weight = the public prior ratio
# p / (1 - p) of bench/imbalanced, positive weight 1):
#   synth    bench/imbalanced's synthetic table (d = 15, 13.7 %, weight 0.16, R = sqrt 6)
#   adult23  UCI Adult, adult.features_d23 (d = 23, 24.1 %, weight 0.32, R = sqrt 7)
#   bank     UCI Bank Marketing bank.csv, bank.features (d = 50, 11.7 %, weight 0.13, R = sqrt 15)
#   german   UCI German Credit, german.features (d = 63, 30.1 %, weight 0.43, R = sqrt 20);
#            HELD OUT: no default was chosen on it (docs/BENCHMARKS.md).
# Arms: the direct aggregates train() runs, delta = 1e-6, intercept, each mechanism's defaults
# (noisy GD without "n"): objective, output, cms, noisysgd; auto with its defaults
# ("metric" weighted_accuracy follows class_weight; no "groups", so no ebm candidate); auto_acc: the same with "metric":
# "accuracy" (0.3's score); auto_oc / auto_ocn / auto_on: candidates objective+cms (the
# default set; not run unless ARMS names it), +noisysgd, objective+noisysgd.
# Without "class_weight" (not run unless ARMS names them): auto_plain, auto with its
# defaults (accuracy, objective+cms); auto_bal, auto with "metric": "balanced_accuracy" (its
# weights estimated privately, also training the candidates).
# auto_hN (not run unless ARMS names it): auto with "noisysgd_head_start": N.
# Without "class_weight" too (not run unless ARMS names them): auto_plain_on (candidates
# objective and noisysgd), objective_plain, noisysgd_plain.
# No peer here: IBM diffprivlib is not installed on the benchmark machine (bench/imbalanced/
# peer.py runs it on synth and adult23 where it is).
# Needs a running server (PGHOST/PGPORT/PGUSER, a superuser: dpobj.seed) with dpobj
# installed; uses database dpobj_bench_autoimb.  Environment: REPS [5], TABLES, ARMS, EPS.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
DB=dpobj_bench_autoimb
REPS=${REPS:-5}
TABLES=${TABLES:-"synth adult23 bank german"}
ARMS=${ARMS:-"objective output cms noisysgd auto auto_acc auto_ocn auto_on"}
EPS=${EPS:-"0.5 1 2"}
. "$REPO/bench/imbalanced/tables.sh"
bench_imbalanced_db "$DB"
psql -X -q -d "$DB" <<'SQL'
CREATE TABLE results (tbl text, arm text, epsilon float8, rep int, accuracy float8,
                      balanced float8, selected text);
-- one run: the arm's aggregate and options on the training split, scored on the test split
CREATE FUNCTION run(tbl text, arm text, eps float8, rep int, opts jsonb) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  agg text := CASE WHEN arm LIKE 'auto%' THEN 'dp_auto' WHEN arm LIKE 'noisysgd%' THEN 'dp_noisysgd'
                   ELSE 'dp_logistic' END;
  o jsonb := CASE WHEN arm IN ('auto_plain', 'auto_bal', 'auto_plain_on', 'objective_plain',
                               'noisysgd_plain') THEN opts - 'class_weight'
                 ELSE opts END || CASE arm
      WHEN 'auto_bal' THEN '{"metric": "balanced_accuracy"}'
      WHEN 'auto_acc' THEN '{"metric": "accuracy"}'
      WHEN 'auto_oc' THEN '{"candidates": ["objective", "cms"]}'
      WHEN 'auto_ocn' THEN '{"candidates": ["objective", "cms", "noisysgd"]}'
      WHEN 'auto_on' THEN '{"candidates": ["objective", "noisysgd"]}'
      WHEN 'auto_plain_on' THEN '{"candidates": ["objective", "noisysgd"]}'
      WHEN 'objective_plain' THEN '{"method": "objective"}'
      WHEN 'objective' THEN '{"method": "objective"}' WHEN 'output' THEN '{"method": "output"}'
      WHEN 'cms' THEN '{"method": "cms"}' WHEN 'nonprivate' THEN '{"method": "objective"}'
      ELSE '{}' END::jsonb
      || CASE WHEN arm LIKE 'auto\_h%' THEN jsonb_build_object('noisysgd_head_start', substr(arm, 7)::float8)
              ELSE '{}' END;
  m dpobj.model;
BEGIN
  PERFORM set_config('dpobj.seed', (1000 + rep)::text, false);
  EXECUTE format('SELECT (m).* FROM (SELECT dpobj.%I(features, label, $1, 1e-6, $2) m
                                      FROM %I WHERE split = ''train'') s',
                 agg, tbl) INTO m USING eps, o;
  INSERT INTO results SELECT tbl, arm, eps, rep, s.acc, s.bacc, m.params->>'selected'
    FROM score(tbl::regclass, m) s;
END $$;
SELECT tbl, split, count(*), round(avg(label::int), 3) AS positives
  FROM (SELECT 'synth' tbl, * FROM synth UNION ALL SELECT 'adult23', * FROM adult23
        UNION ALL SELECT 'bank', * FROM bank UNION ALL SELECT 'german', * FROM german) t
 GROUP BY 1, 2 ORDER BY 1, 2;
SQL
for spec in "synth 2.45 0.16" "adult23 2.65 0.32" "bank 3.88 0.13" "german 4.48 0.43"; do
    read -r tbl R w <<<"$spec"
    [[ " $TABLES " == *" $tbl "* ]] || continue
    opts="{\"R\": $R, \"class_weight\": {\"false\": $w}}"
    {
        for eps in $EPS; do
            for arm in $ARMS; do
                for ((r = 1; r <= REPS; r++)); do
                    echo "SELECT run('$tbl', '$arm', $eps, $r, '$opts');"
                done
            done
        done
        echo "SELECT run('$tbl', 'nonprivate', 100000, 1, '$opts');"
    } | psql -X -q -v ON_ERROR_STOP=1 -d "$DB" >/dev/null
done
# every arm and epsilon on stderr; pivot.sql's table into bench/csv/auto_imbalanced.csv
# (bench/record.py), rendered into docs/BENCHMARKS.md
psql -X -d "$DB" --csv -c "SELECT tbl, epsilon, arm, count(*) AS runs,
                            round(avg(accuracy)::numeric, 3) AS accuracy,
                            round(avg(balanced)::numeric, 3) AS balanced,
                            round(coalesce(stddev(balanced), 0)::numeric, 3) AS sd_balanced,
                            round((percentile_cont(0.5) WITHIN GROUP (ORDER BY balanced))::numeric, 3)
                              AS median_balanced,
                            (SELECT string_agg(selected || ' ' || c, ', ' ORDER BY selected)
                               FROM (SELECT selected, count(*) c FROM results r2
                                      WHERE (r2.tbl, r2.arm, r2.epsilon) = (r.tbl, r.arm, r.epsilon)
                                        AND selected IS NOT NULL GROUP BY 1) x) AS selected
                       FROM results r GROUP BY 1, 2, 3 ORDER BY 1, 2, 3" >&2
psql -X -At -d "$DB" -f "$REPO/bench/auto_imbalanced/pivot.sql" |
    python3 "$REPO/bench/record.py" auto_imbalanced "REPS=$REPS TABLES=\"$TABLES\" EPS=\"$EPS\" ARMS=\"$ARMS\" bash bench/auto_imbalanced/run.sh"
