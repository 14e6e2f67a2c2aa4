#!/usr/bin/env bash
# bench/noisysgd/run.sh — noisy GD (dp_noisysgd without "n") per step configuration:
# accuracy (no class weight, "metric": "accuracy") and balanced accuracy (with the class weight of
# bench/auto_imbalanced) on each table's fixed test split, at epsilon 0.5, 1 and 2, REPS
# seeded runs each (dpobj.seed: a superuser test run, not a release).
# Tables: synth (bench/imbalanced/synth.sql), adult23, bank, and german -- HELD OUT: no
# default was chosen on it; run it only for the final choice (TABLES="german").
# A configuration is "name|options" (no spaces): options (jsonb) are added to the table's
# R, e.g. CONFIGS='t1000|{"T":1000} t20|{"T":20}'.  The rule is the installed build's: the
# "before" column of docs/BENCHMARKS.md ("Noisy GD step") ran t1000 on the build before
# the AdaGrad step.  Needs a running server (PGHOST/PGPORT/PGUSER, a superuser) with dpobj
# installed; uses database dpobj_bench_ngd (KEEP_DB=1 keeps its results table between
# calls and replaces only the rows of the configurations run).  Environment: REPS [5],
# TABLES, EPS, CONFIGS.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
DB=dpobj_bench_ngd
REPS=${REPS:-5}
TABLES=${TABLES:-"synth adult23 bank"}
EPS=${EPS:-"0.5 1 2"}
CONFIGS=${CONFIGS:-'t1000|{"T":1000} default|{}'}
if [[ "${KEEP_DB:-0}" != 1 ]] || ! psql -X -q -d "$DB" -c "SELECT 1 FROM results LIMIT 1" >/dev/null 2>&1; then
. "$REPO/bench/imbalanced/tables.sh"
bench_imbalanced_db "$DB"
psql -X -q -d "$DB" <<'SQL'
CREATE TABLE results (tbl text, cfg text, weighted bool, epsilon float8, rep int,
                      accuracy float8, balanced float8, ms float8);
CREATE FUNCTION run(tbl text, cfg text, weighted bool, eps float8, rep int, opts jsonb)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  m dpobj.model;
  t0 timestamptz := clock_timestamp();
  ms float8;
BEGIN
  PERFORM set_config('dpobj.seed', (1000 + rep)::text, false);
  EXECUTE format('SELECT (m).* FROM (SELECT dpobj.dp_noisysgd(features, label, $1, 1e-6, $2) m
                                      FROM %I WHERE split = ''train'') s', tbl)
    INTO m USING eps, opts;
  ms := extract(epoch FROM clock_timestamp() - t0) * 1000;
  INSERT INTO results SELECT tbl, cfg, weighted, eps, rep, s.acc, s.bacc, ms
    FROM score(tbl::regclass, m) s;
END $$;
SQL
fi
for spec in "synth 2.45 0.16" "adult23 2.65 0.32" "bank 3.88 0.13" "german 4.48 0.43"; do
    read -r tbl R w <<<"$spec"
    [[ " $TABLES " == *" $tbl "* ]] || continue
    {
        for c in $CONFIGS; do
            name=${c%%|*}; o=${c#*|}
            psql -X -q -d "$DB" -c "DELETE FROM results WHERE tbl = '$tbl' AND cfg = '$name'" >/dev/null
            for eps in $EPS; do
                for ((r = 1; r <= REPS; r++)); do
                    echo "SELECT run('$tbl', '$name', false, $eps, $r, '{\"R\": $R, \"metric\": \"accuracy\"}'::jsonb || '$o');"
                    echo "SELECT run('$tbl', '$name', true, $eps, $r, '{\"R\": $R, \"class_weight\": {\"false\": $w}}'::jsonb || '$o');"
                done
            done
        done
    } | psql -X -q -v ON_ERROR_STOP=1 -d "$DB" >/dev/null
done
# the table into bench/csv/noisysgd_clip.csv (bench/record.py), rendered into docs/BENCHMARKS.md
psql -X -d "$DB" --csv -c "SELECT tbl, epsilon, cfg, count(*) / 2 AS runs,
        round(avg(accuracy) FILTER (WHERE NOT weighted)::numeric, 3) AS acc,
        round(coalesce(stddev(accuracy) FILTER (WHERE NOT weighted), 0)::numeric, 3) AS sd_acc,
        round(avg(balanced) FILTER (WHERE weighted)::numeric, 3) AS bacc_w,
        round(coalesce(stddev(balanced) FILTER (WHERE weighted), 0)::numeric, 3) AS sd_bacc_w,
        round(avg(ms)::numeric) AS ms
   FROM results GROUP BY 1, 2, 3 ORDER BY 1, 2, 3" |
    tee /dev/stderr | python3 "$REPO/bench/record.py" noisysgd_clip "REPS=$REPS TABLES=\"$TABLES\" EPS=\"$EPS\" CONFIGS='$CONFIGS' bash bench/noisysgd/run.sh"
