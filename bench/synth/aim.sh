#!/usr/bin/env bash
# bench/synth/aim.sh — dpobj's synthetic twin against the authors' AIM (McKenna et al.,
# private-pgm) on Adult (adult.full, 48 842 rows), bank.marketing (4 521) and german.credit
# (1 000 rows, held out of all tuning), at ε 1, δ 1e-6, scored by one scorer on the same
# coded columns.
#
#   dpobj  dpobj.synthesize() through SQL with its defaults (no options), DPOBJ_REPS [3] runs
#          a table; time: the call's wall time (scan, rounds, twin written).
#   AIM    aim_run.py on the source coded as twinscore.py codes it (text columns by level,
#          numerics at the source's deciles: the scorer's cut, given to AIM for free),
#          workload every 3-way marginal of <= 10 000 cells (AIM selects from its downward
#          closure), AIM's defaults but max_iters 100 (mirror-descent iterations of each
#          estimation; AIM's default 1000), under nice, AIM_REPS [1] runs a table (seeds
#          AIM_FIRST [1] on); time: AIM's run (the coding and loading excluded).  AIM_ARMS ["aim
#          aim_replace"]: aim, at AIM's own neighbours (add/remove a row); aim_replace, at
#          dpobj's (one row replaced, docs/PRIVACY.md), which cost AIM half its zCDP budget
#          and twice its selection's sensitivity (aim_run.py).
#   core   CORE_REPS [3] runs (seeds 1..) of dpobj's rounds alone (bench/synth/synthrun, the
#          plain-C core with synthesize()'s schedule) on AIM's very input: the same cells, no
#          private bins or values drawn within them: it parts the gap into the rounds and the
#          numeric columns' handling.
#   score  twinscore.py: mean total variation distance over every pair (tv2) and every
#          triple (tv3) of columns, the twin coded at the source's cut.
#
# AIM_DIR (required): a private-pgm checkout of the numpy `mbi` (before its move to JAX, e.g.
# commit 93b29479f7832b1665ae97b12322527f9b771c4e), run with /usr/bin/python3 and Debian's
# python3-numpy, -scipy, -pandas, -networkx.  Needs a running server through
# PGHOST/PGPORT/PGUSER (a superuser).  TABLES: a subset.  Writes bench/synth/aim.csv (every
# run, labelled RUN_LABEL [the commit]; DPOBJ_REPS=0 or AIM_REPS=0 skips an arm, so that runs
# can be spread over calls of one label), then bench/synth/aim.md and bench/csv/synth_aim.csv
# (medians of the label's runs, AIM's arms of AIM_LABEL's [the label]: AIM_REPS=0 and an
# earlier label reuse its AIM runs; bench/record.py, the command it names: RECORD_COMMAND),
# rendered into docs/BENCHMARKS.md.  Not part
# of any test suite.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
if [[ -z "${AIM_DIR:-}" || ! -f "${AIM_DIR:-}/mechanisms/aim.py" || ! -d "${AIM_DIR:-}/src/mbi" ]]; then
    echo "aim.sh: set AIM_DIR to a private-pgm checkout (numpy mbi, e.g. commit 93b2947): mechanisms/aim.py and src/mbi not found in '${AIM_DIR:-}'" >&2
    exit 2
fi
PY=/usr/bin/python3
DREPS="${DPOBJ_REPS:-3}"
AREPS="${AIM_REPS:-1}"
CSV="$REPO/bench/synth/aim.csv"
DB="${BENCH_DB:-dpobj_synthaim}"
TMP="$(mktemp -d)"
trap 'rm -rf -- "$TMP"' EXIT
cd "$REPO"
# shellcheck source=bench/synth/tables.sh
. "$REPO/bench/synth/tables.sh"
make -s -C bench/synth synthrun
[[ -s "$CSV" ]] || echo "label,table,method,run,tv2,tv3,seconds,rows" >"$CSV"
label="${RUN_LABEL:-$(git rev-parse --short HEAD)}"
score() { $PY bench/synth/twinscore.py score "$1/src.codes.csv" "$1/$2.codes.csv"; }
get() { tr ' ' '\n' <<<"$1" | sed -n "s/^$2=//p" | tail -n 1; }
for t in ${TABLES:-adult.full bank.marketing german.credit}; do
    tn=$(tr . _ <<<"$t")
    d="$TMP/$tn"
    mkdir -p "$d"
    twins=()
    for r in $(seq 1 "$DREPS"); do
        tgt="syn.${tn}_$r"
        t0=$(date +%s.%N)
        q -c "SELECT dpobj.synthesize('$t', '$tgt', 1, 1e-6, NULL, '{}')" >/dev/null
        secs[$r]=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
        q -c "\\copy (SELECT * FROM $tgt) TO '$d/dpobj_$r.csv' WITH (FORMAT csv, HEADER true)"
        twins+=("$d/dpobj_$r.csv")
    done
    # the source in the twin's columns: those with a declared domain
    cols=$(q -At -c "SELECT string_agg(quote_ident(a.attname), ', ' ORDER BY a.attnum) FROM pg_attribute a
                     JOIN dpobj.feature_domains f ON f.relid = a.attrelid AND f.column_name = a.attname
                     WHERE a.attrelid = '$t'::regclass AND a.attnum > 0 AND NOT a.attisdropped")
    q -c "\\copy (SELECT $cols FROM $t) TO '$d/src.csv' WITH (FORMAT csv, HEADER true)"
    $PY bench/synth/twinscore.py encode "$d/src.csv" "$d" "${twins[@]+"${twins[@]}"}"
    for r in $(seq 1 "$DREPS"); do
        s=$(score "$d" "dpobj_$r")
        echo "$label,$t,dpobj,$r,$(get "$s" tv2),$(get "$s" tv3),${secs[$r]},$(get "$s" rows)" | tee -a "$CSV"
    done
    for r in $(seq 1 "${CORE_REPS:-3}"); do
        s=$(bench/synth/synthrun "$d/domain.txt" "$d/src.codes.csv" "$d/core_$r.codes.csv" "$r" 1 1e-6)
        c=$(score "$d" "core_$r")
        echo "$label,$t,core,$r,$(get "$c" tv2),$(get "$c" tv3),$(awk -v a="$(get "$s" scan_s)" -v b="$(get "$s" rounds_s)" -v c="$(get "$s" sample_s)" 'BEGIN { printf "%.1f", a + b + c }'),$(get "$c" rows)" | tee -a "$CSV"
    done
    for arm in ${AIM_ARMS:-aim aim_replace}; do
        nb=add_remove
        [[ $arm == aim_replace ]] && nb=replace
        for r in $(seq "${AIM_FIRST:-1}" $((${AIM_FIRST:-1} + AREPS - 1))); do
            out=$(OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 nice $PY bench/synth/aim_run.py "$AIM_DIR" \
                "$d/src.codes.csv" "$d/domain.json" "$d/${arm}_$r.codes.csv" "$r" 1 1e-6 100 $nb 2>"$d/aim.err") ||
                { tail -n 20 "$d/aim.err" >&2; exit 1; }
            s=$(score "$d" "${arm}_$r")
            echo "$label,$t,$arm,$r,$(get "$s" tv2),$(get "$s" tv3),$(get "$out" aim_s),$(get "$s" rows)" | tee -a "$CSV"
        done
    done
done
psql -X -q -d postgres -c "DROP DATABASE $DB"
# medians per table and method of the label's runs, dpobj over AIM
$PY - "$CSV" "$label" "${AIM_LABEL:-$label}" <<'EOF' | tee bench/synth/aim.md | $PY bench/record.py synth_aim \
    "${RECORD_COMMAND:-AIM_DIR=... DPOBJ_REPS=$DREPS AIM_REPS=$AREPS nice bash bench/synth/aim.sh}"
import csv, statistics, sys
rows = [r for r in csv.DictReader(open(sys.argv[1]))
        if r["label"] == (sys.argv[3] if r["method"].startswith("aim") else sys.argv[2])]
med = lambda t, m, k: statistics.median(float(r[k]) for r in rows if r["table"] == t and r["method"] == m)
print("# dpobj's twin against AIM (bench/synth/aim.sh)\n")
print("| table | method | runs | 2-way TV | 3-way TV | seconds | 2-way: dpobj / it | 3-way: dpobj / it |")
print("|---|---|---:|---:|---:|---:|---:|---:|")
secs = lambda x: f"{x:.1f}" if x < 10 else f"{x:.0f}"
names = {"dpobj": "dpobj", "core": "dpobj's rounds on AIM's input", "aim": "AIM (add/remove)", "aim_replace": "AIM (replace, as dpobj)"}
for t in dict.fromkeys(r["table"] for r in rows):
    n = lambda m: sum(r["table"] == t and r["method"] == m for r in rows)
    if not n("dpobj"):
        continue
    d2, d3 = med(t, "dpobj", "tv2"), med(t, "dpobj", "tv3")
    for m in names:
        if not n(m):
            continue
        a2, a3 = med(t, m, "tv2"), med(t, m, "tv3")
        ratio = " | |" if m in ("dpobj", "core") else f" {d2 / a2:.2f} | {d3 / a3:.2f} |"
        name = t + (" (held out)" if t == "german.credit" else "")
        print(f"| {name} | {names[m]} | {n(m)} | {a2:.4f} | {a3:.4f} | {secs(med(t, m, 'seconds'))} |" + ratio)
EOF
