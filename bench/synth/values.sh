#!/usr/bin/env bash
# bench/synth/values.sh — what the synthetic twin holds, through SQL: dpobj.synthesize() with its
# defaults (no options) at ε 1, δ 1e-6 on Adult (train + test, 48 842 rows), bank_marketing
# (4 521 rows) and german_credit (1 000 rows, held out of all tuning), BENCH_REPS [3] runs each;
# values.py scores every twin against its source: invented NULLs (cells NULL in the twin of a
# column without NULL in the source), values outside the source's [min, max], real levels of
# >= 50 rows missing, each numeric column's mean against the truth, and the mean total
# variation distance of all 2-way and of 300 3-way marginals (numerics cut at the source's
# deciles, for scoring only), and how many numeric columns' twin means lie within the 95 %
# interval of dpobj.aggregate()'s mean (epsilon 1, once a table).  Domains: text columns by
# their levels, numerics by prep.py's bounds (german_credit: bounds written here).  Needs a running server through
# PGHOST/PGPORT/PGUSER (a superuser).  Writes OUT [bench/synth/values.csv] (one row a run);
# OPTS: synthesize()'s options [{}], TABLES: a subset.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
REPS="${BENCH_REPS:-3}"
OPTS_JSON="${OPTS:-"{}"}"
CSV="${OUT:-$REPO/bench/synth/values.csv}"
LABEL="${LABEL_RUN:-$(git -C "$REPO" rev-parse --short HEAD)}"
DB=dpobj_synthvals
TMP="$(mktemp -d)"
trap 'rm -rf -- "$TMP"' EXIT
cd "$REPO"
# shellcheck source=bench/synth/tables.sh
. "$REPO/bench/synth/tables.sh"
[[ -s "$CSV" ]] || echo "label,table,run,rows,invented_null,out_of_range,missing_levels,mean_sd_max,mean_rel_max,tv2,tv3,means_in_ci" > "$CSV"
for t in ${TABLES:-adult.full bank.marketing german.credit}; do
    # the numerics' means with 95 % intervals, dpobj.aggregate() at epsilon 1, once a table
    tn=$(echo "$t" | tr . _)
    what=$(for c in ${NUMS[$t]}; do printf '{"stat": "mean", "column": "%s"}, ' "$c"; done)
    q -c "CREATE TABLE syn.ci_$tn AS SELECT column_name, ci_low, ci_high FROM dpobj.aggregate('$t', '[${what%, }]', 1, 0)" >/dev/null
    for r in $(seq 1 "$REPS"); do
        tgt="syn.$(echo "$t" | tr . _)_$r"
        q -c "SELECT dpobj.synthesize('$t', '$tgt', 1, 1e-6, NULL, '$OPTS_JSON')" >/dev/null 2>"$TMP/err" || { cat "$TMP/err"; exit 1; }
        cols=$(q -At -c "SELECT string_agg(quote_ident(attname), ', ' ORDER BY attnum) FROM pg_attribute WHERE attrelid = '$tgt'::regclass AND attnum > 0")
        q -c "\\copy (SELECT $cols FROM $t) TO '$TMP/src.csv' WITH (FORMAT csv, HEADER true)"
        q -c "\\copy (SELECT * FROM $tgt) TO '$TMP/syn.csv' WITH (FORMAT csv, HEADER true)"
        # the twin's mean of each numeric column within that interval: "k/n"
        inci=$(q -At -c "SELECT count(*) FILTER (WHERE z.m BETWEEN c.ci_low AND c.ci_high) || '/' || count(*)
                           FROM syn.ci_$tn c, LATERAL (SELECT avg((to_jsonb(x) ->> c.column_name)::float8) AS m FROM $tgt x) z")
        echo "$LABEL,$t,$r,$(python3 bench/synth/values.py "$TMP/src.csv" "$TMP/syn.csv"),$inci" | tee -a "$CSV"
    done
done
