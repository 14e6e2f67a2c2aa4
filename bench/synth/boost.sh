#!/usr/bin/env bash
# bench/synth/boost.sh — what a booster trained on a private twin reaches, through SQL, against
# references, at ε 1, δ 1e-6, on Adult (adult.train / adult.test: 32 561 / 16 281 rows),
# bank.marketing (load.sql's md5 split: 3 165 / 1 356) and german.credit (700 / 300, held out
# of all tuning).  Each table's training rows are a protected table with tables.sh's domains
# (Adult's income_gt_50k declared too); the test rows are scored in the clear.
#
#   real         the booster trained on the real training rows; real_rate: cut at their
#                positive share (dpobj's classifiers' cut) rather than at ½.
#   dpobj_label  dpobj.synthesize() of the training rows with its defaults but "label" (the
#                target), DPOBJ_REPS [8] runs;  dpobj: with no options, DPOBJ_REPS runs.
#                DPOBJ_ARMS ["dpobj_label dpobj"]; dpobj_label_width: "label" and "quantile":
#                false (equal-width bins), a diagnostic.
#   aim          aim_run.py (aim.sh's settings) on the training rows coded as aim.sh codes
#                them (twinscore.py: levels, numerics at the training rows' deciles); aim at
#                AIM's neighbours, aim_replace at dpobj's; AIM_REPS [2] runs an arm, under
#                nice; AIM_ARMS_<table> (e.g. AIM_ARMS_adult="aim") narrows a table's arms.
#                Its codes are decoded (boost.py decode: a decile to the median of its rows).
#   direct       dpobj.train(training rows, 'auto', every other declared column, the target
#                as a boolean, 1, 1e-6) with its defaults, predict_raw() on each test row
#                (on_unknown 'other'): a private model without a twin, DPOBJ_REPS runs.
#   score        boost.py: score.py's booster (GradientBoostingClassifier, defaults,
#                random_state 0) on the raw columns (levels one-hot, numbers as numbers),
#                balanced accuracy on the test rows; bacc_dec: numerics at the deciles.
#   rate         every twin scored again with the booster cut at its rows' positive share
#                (<arm>_rate), after the runs: the twins BOOST_DIR holds, once a label.
#
# STEPS ["prep real dpobj direct aim rate report"]: prep loads the tables (tables.sh, database
# $BENCH_DB [dpobj_synthboost]) and writes the splits into BOOST_DIR [/tmp/dpobj_boost]; the
# other steps read them (the database is kept for them: drop it when done), so that AIM (the
# long pole) can run in a call of its own beside the rest.  TABLES: a subset of "adult bank german".  Needs a server through PGHOST/PGPORT/PGUSER
# (a superuser), AIM_DIR as aim.sh does, Debian's python3-sklearn.  Writes
# bench/synth/boost.csv (every run, labelled RUN_LABEL [the commit]; AIM_LABEL: AIM's arms from
# that label's runs, as aim.sh does), then boost.md and
# bench/csv/synth_boost.csv (medians of the label's runs; bench/record.py), rendered into
# docs/BENCHMARKS.md.  Not part of any test suite.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
PY=/usr/bin/python3
DREPS="${DPOBJ_REPS:-8}"
AREPS="${AIM_REPS:-2}"
CSV="$REPO/bench/synth/boost.csv"
DB="${BENCH_DB:-dpobj_synthboost}"
W="${BOOST_DIR:-/tmp/dpobj_boost}"
STEPS="${STEPS:-prep real dpobj direct aim rate report}"
TABLES="${TABLES:-adult bank german}"
cd "$REPO"
label="${RUN_LABEL:-$(git rev-parse --short HEAD)}"
[[ -s "$CSV" ]] || echo "label,table,method,run,bacc,bacc_dec,rows,seconds" >"$CSV"
has() { [[ " $STEPS " == *" $1 "* ]]; }
get() { tr ' ' '\n' <<<"$1" | sed -n "s/^$2=//p" | tail -n 1; }
secs() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }
# per table: the source (tables.sh), the split (rows by md5(id::text), id: the first k train),
# the target and its positive value (as text)
declare -A SRC=([adult]=adult.full [bank]=bank.marketing [german]=german.credit)
declare -A TRAIN=([adult]="adult.train" [bank]="bank.marketing" [german]="german.credit")
declare -A TEST=([adult]="adult.test" [bank]="bank.marketing" [german]="german.credit")
declare -A CUT=([adult]="" [bank]=3165 [german]=700)
declare -A TARGET=([adult]=income_gt_50k [bank]=y [german]=class)
declare -A POS=([adult]=t [bank]=yes [german]=2)
declare -A POSSQL=([adult]=income_gt_50k [bank]="y = 'yes'" [german]="class = 2")
if has prep; then
    # shellcheck source=bench/synth/tables.sh
    . "$REPO/bench/synth/tables.sh"
else
    q() { psql -X -q -d "$DB" -v ON_ERROR_STOP=1 "$@"; }
fi
for tb in $TABLES; do
    d="$W/$tb"
    tg=${TARGET[$tb]}
    if has prep; then
        mkdir -p "$d"
        src=${SRC[$tb]}
        cols=$(q -At -c "SELECT string_agg(quote_ident(attname), ', ' ORDER BY attnum) FROM pg_attribute
                         WHERE attrelid = '$src'::regclass AND attnum > 0 AND NOT attisdropped AND attname <> 'id'")
        if [[ -z ${CUT[$tb]} ]]; then
            trn="SELECT $cols FROM ${TRAIN[$tb]}"
            tst="SELECT $cols FROM ${TEST[$tb]}"
        else
            rk="(SELECT *, row_number() OVER (ORDER BY md5(id::text), id) AS r FROM $src) s"
            trn="SELECT $cols FROM $rk WHERE r <= ${CUT[$tb]}"
            tst="SELECT $cols FROM $rk WHERE r > ${CUT[$tb]}"
        fi
        # the training rows, protected, with the source's NOT NULLs and declarations (the
        # target a boolean "pos" for train()); the test rows in the clear
        q >/dev/null <<SQL
CREATE TABLE syn.${tb}_trn AS SELECT *, (${POSSQL[$tb]}) AS pos FROM ($trn) t;
CREATE TABLE syn.${tb}_tst AS SELECT *, (${POSSQL[$tb]}) AS pos FROM ($tst) t;
SELECT format('ALTER TABLE syn.${tb}_trn ALTER COLUMN %I SET NOT NULL', attname) FROM pg_attribute
 WHERE attrelid = '$src'::regclass AND attnum > 0 AND attnotnull AND attname <> 'id' \gexec
SELECT CASE WHEN levels IS NULL THEN dpobj.declare_domain('syn.${tb}_trn', column_name, lo, hi)
            ELSE dpobj.declare_domain('syn.${tb}_trn', column_name, levels) END
  FROM dpobj.feature_domains WHERE relid = '$src'::regclass;
SELECT dpobj.declare_domain('syn.${tb}_trn', '$tg', '{false,true}')
 WHERE NOT EXISTS (SELECT FROM dpobj.feature_domains WHERE relid = '$src'::regclass AND column_name = '$tg');
SELECT dpobj.protect('syn.${tb}_trn');
SELECT dpobj.grant_budget('syn.${tb}_trn', current_user::regrole, 1e9, 0.5);
ANALYZE syn.${tb}_trn;
SQL
        dcols=$(q -At -c "SELECT string_agg(quote_ident(a.attname), ', ' ORDER BY a.attnum) FROM pg_attribute a
                          JOIN dpobj.feature_domains f ON f.relid = a.attrelid AND f.column_name = a.attname
                          WHERE a.attrelid = 'syn.${tb}_trn'::regclass AND a.attnum > 0")
        q -c "\\copy (SELECT $dcols FROM syn.${tb}_trn) TO '$d/train.csv' WITH (FORMAT csv, HEADER true)"
        q -c "\\copy (SELECT $dcols FROM syn.${tb}_tst) TO '$d/test.csv' WITH (FORMAT csv, HEADER true)"
        $PY bench/synth/twinscore.py encode "$d/train.csv" "$d"
        echo "boost.sh: $tb: $(($(wc -l <"$d/train.csv") - 1)) training rows, $(($(wc -l <"$d/test.csv") - 1)) test rows" >&2
    fi
    score() { $PY bench/synth/boost.py score "$d/train.csv" "$d/test.csv" "$tg" "${POS[$tb]}" "$@"; }
    row() { echo "$label,$tb,$1,$2,$(get "$3" bacc),$(get "$3" bacc_dec),$(get "$3" rows),$4" | tee -a "$CSV"; }
    if has real; then
        row real 1 "$(score "$d/train.csv")" ""
        row real_rate 1 "$(score "$d/train.csv" --rate)" ""
    fi
    if has dpobj; then
        for arm in ${DPOBJ_ARMS:-dpobj_label dpobj}; do
            case $arm in
                dpobj_label) opt="{\"label\": \"$tg\"}" ;;
                dpobj_label_width) opt="{\"label\": \"$tg\", \"quantile\": false}" ;;
                *) opt='{}' ;;
            esac
            for r in $(seq 1 "$DREPS"); do
                tgt="syn.${tb}_${arm}_$$_$r"
                t0=$(date +%s.%N)
                q -c "SELECT dpobj.synthesize('syn.${tb}_trn', '$tgt', 1, 1e-6, NULL, '$opt')" >/dev/null 2>&1
                s=$(secs "$t0")
                q -c "\\copy (SELECT * FROM $tgt) TO '$d/${arm}_$r.csv' WITH (FORMAT csv, HEADER true)"
                q -c "DROP TABLE $tgt" -c "SELECT dpobj.drop_model('${tgt#syn.}')" >/dev/null
                row "$arm" "$r" "$(score "$d/${arm}_$r.csv")" "$s"
            done
        done
    fi
    if has direct; then
        feats=$(q -At -c "SELECT string_agg(quote_literal(column_name), ', ') FROM dpobj.feature_domains
                          WHERE relid = 'syn.${tb}_trn'::regclass AND column_name <> '$tg'")
        for r in $(seq 1 "$DREPS"); do
            mn="boost_${tb}_$$_$r"
            t0=$(date +%s.%N)
            q -c "SELECT 1 FROM dpobj.train('syn.${tb}_trn', 'auto', ARRAY[$feats], 'pos', 1, 1e-6, '{}', '$mn')" >/dev/null 2>&1
            s=$(secs "$t0")
            b=$(q -At -c "SELECT round((0.5 * (avg(p::int) FILTER (WHERE pos) + avg((NOT p)::int) FILTER (WHERE NOT pos)))::numeric, 4),
                                 count(*), (SELECT (m).params->>'selected' FROM dpobj.get_model('$mn') m)
                            FROM (SELECT t.pos, dpobj.predict_raw(m, to_jsonb(t), 'other') AS p
                                    FROM syn.${tb}_tst t, dpobj.get_model('$mn') m) x")
            q -c "SELECT dpobj.drop_model('$mn')" >/dev/null
            IFS='|' read -r ba n sel <<<"$b"
            echo "$label,$tb,direct,$r,$ba,,$n,$s" | tee -a "$CSV"
            echo "boost.sh: $tb direct $r: selected ${sel:-?}" >&2
        done
    fi
    if has aim; then
        arms_var="AIM_ARMS_$tb"
        for arm in ${!arms_var:-${AIM_ARMS:-aim aim_replace}}; do
            nb=add_remove
            [[ $arm == aim_replace ]] && nb=replace
            for r in $(seq "${AIM_FIRST:-1}" $((${AIM_FIRST:-1} + AREPS - 1))); do
                out=$(OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 nice $PY bench/synth/aim_run.py "$AIM_DIR" \
                    "$d/src.codes.csv" "$d/domain.json" "$d/${arm}_$r.codes.csv" "$r" 1 1e-6 100 $nb 2>"$d/aim_$arm.err") ||
                    { tail -n 20 "$d/aim_$arm.err" >&2; exit 1; }
                $PY bench/synth/boost.py decode "$d/train.csv" "$d/${arm}_$r.codes.csv" "$d/${arm}_$r.csv"
                row "$arm" "$r" "$(score "$d/${arm}_$r.csv")" "$(get "$out" aim_s)"
            done
        done
    fi
done
# rate: every twin this BOOST_DIR holds scored again at the --rate cut (method <arm>_rate)
if has rate; then
    for tb in $TABLES; do
        d="$W/$tb"
        for f in "$d"/dpobj*_[0-9]*.csv "$d"/aim*_[0-9]*.csv; do
            [[ -e $f && $f != *.codes.csv ]] || continue
            b=$(basename "$f" .csv)
            grep -q "^$label,$tb,${b%_*}_rate,${b##*_}," "$CSV" && continue
            s=$($PY bench/synth/boost.py score "$d/train.csv" "$d/test.csv" "${TARGET[$tb]}" "${POS[$tb]}" "$f" --rate)
            echo "$label,$tb,${b%_*}_rate,${b##*_},$(get "$s" bacc),$(get "$s" bacc_dec),$(get "$s" rows)," | tee -a "$CSV"
        done
    done
fi
if has report; then
    $PY bench/synth/boost.py report "$CSV" "$label" "${AIM_LABEL:-$label}" | tee bench/synth/boost.md |
        $PY bench/record.py synth_boost "${RECORD_COMMAND:-AIM_DIR=... nice bash bench/synth/boost.sh}"
fi
