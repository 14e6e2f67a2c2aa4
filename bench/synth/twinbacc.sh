#!/usr/bin/env bash
# bench/synth/twinbacc.sh — the issue's booster number through SQL: dpobj.synthesize() at ε 1,
# δ 1e-6 on the training split only (Adult's train file; bank's first 3 165 rows in md5(id)
# order, load.sql's split), the target as "label" (LABEL_OPT=0: none), REPS [8] runs a table;
# twinbacc.py trains score.py's booster on each twin and scores it on the real test split.
# The twin's 2-/3-way TV against its source as aim.sh scores it (twinscore.py: numerics at the
# source's deciles).  Needs a running server through PGHOST/PGPORT/PGUSER (a superuser).  Appends
# "tag,table,run,bacc,auc,tv2,tv3,rows" lines to OUT [/tmp/twinbacc.csv]; TAG names the arm, TABLES a subset
# of "bank adult"; OPTS: more of synthesize()'s options (a JSON object's members).
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
DB=dpobj_twinbacc
TMP="$(mktemp -d)"
trap 'rm -rf -- "$TMP"' EXIT
CSV="${OUT:-/tmp/twinbacc.csv}"
[[ -s "$CSV" ]] || echo "tag,table,run,bacc,auc,tv2,tv3,rows" > "$CSV"
cd "$REPO"
if [[ "${RELOAD:-1}" = 1 ]]; then
    # shellcheck source=bench/synth/tables.sh
    . "$REPO/bench/synth/tables.sh"
    q >/dev/null <<'SQL'
CREATE TABLE bank.train AS SELECT m.age, m.job, m.marital, m.education, m."default", m.balance,
    m.housing, m.loan, m.contact, m.day, m.month, m.duration, m.campaign, m.pdays, m.previous,
    m.poutcome, m.y FROM bank.marketing m JOIN bank.features f USING (id) WHERE f.split = 'train';
CREATE TABLE adult.trainonly AS SELECT age, workclass, fnlwgt, education, education_num,
    marital_status, occupation, relationship, race, sex, capital_gain, capital_loss,
    hours_per_week, native_country, income_gt_50k::text AS income_gt_50k FROM adult.train;
SQL
    declare_domains bank.train age 18 95 balance -2000 10000 day 1 31 duration 0 3000 campaign 1 63 \
        pdays -1 999 previous 0 50
    declare_domains adult.trainonly age 17 90 fnlwgt 0 1500000 education_num 1 16 capital_gain 0 99999 \
        capital_loss 0 4356 hours_per_week 1 99
else
    q() { psql -X -q -d "$DB" -v ON_ERROR_STOP=1 "$@"; }
fi
declare -A SRC=([bank]=bank.train [adult]=adult.trainonly) TGT=([bank]=y [adult]=income_gt_50k)
for t in ${TABLES:-bank adult}; do
    for r in $(seq 1 "${REPS:-8}"); do
        lab=""
        [[ "${LABEL_OPT:-1}" = 1 ]] && lab="\"label\": \"${TGT[$t]}\""
        opts="{${lab}${OPTS:+${lab:+, }$OPTS}}"
        q -c "DROP TABLE IF EXISTS syn.twin" -c "SELECT dpobj.drop_model('twin')" >/dev/null 2>&1 || true
        q -c "SELECT dpobj.synthesize('${SRC[$t]}', 'syn.twin', 1, 1e-6, NULL, '$opts')" >/dev/null 2>"$TMP/err" || { cat "$TMP/err"; exit 1; }
        q -c "\\copy (SELECT * FROM syn.twin) TO '$TMP/syn.csv' WITH (FORMAT csv, HEADER true)"
        [[ -s "$TMP/src.$t.csv" ]] || q -c "\\copy (SELECT * FROM ${SRC[$t]}) TO '$TMP/src.$t.csv' WITH (FORMAT csv, HEADER true)"
        /usr/bin/python3 bench/synth/twinscore.py encode "$TMP/src.$t.csv" "$TMP/codes" "$TMP/syn.csv"
        s="$(/usr/bin/python3 bench/synth/twinbacc.py "$REPO" "$t" "$TMP/syn.csv") $(/usr/bin/python3 bench/synth/twinscore.py score "$TMP/codes/src.codes.csv" "$TMP/codes/syn.codes.csv")"
        get() { echo "$s" | tr ' ' '\n' | sed -n "s/^$1=//p" | head -1; }
        echo "${TAG:-base},$t,$r,$(get bacc),$(get auc),$(get tv2),$(get tv3),$(get rows)" | tee -a "$CSV"
    done
done
