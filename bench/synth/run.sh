#!/bin/bash
# bench/synth/run.sh -- the synthesizer's core on Adult and bank (declared domains):
# SEEDS seeds at each EPSILONS, delta 1e-6; scores each synthetic table (score.py) and
# appends a line to bench/synth/results.csv:
#   table,epsilon,seed,err1,err2,err3,bacc,user_s,wall_s,scan_s,rounds_s,sample_s,rounds,model_cells,peak_kb
# Usage: bash bench/synth/run.sh [extra synthrun key=value ...]
# Environment: SEEDS (5), EPSILONS ("0.5 1 4"), TABLES ("adult bank"), OUT (results.csv),
# LABEL (1: the table's target as "label", as an analyst who will train on it gives it; 0: none)
set -e
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
tmp=${TMPDIR:-/tmp}/synthbench.$$
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
make -s -C "$here" synthrun
/usr/bin/python3 "$here/prep.py" "$repo" "$tmp"
out=${OUT:-$here/results.csv}
[ -s "$out" ] || echo "table,epsilon,seed,err1,err2,err3,bacc,user_s,wall_s,scan_s,rounds_s,sample_s,rounds,model_cells,peak_kb" > "$out"
declare -A target=([adult]=income_gt_50k [bank]=y)
for t in ${TABLES:-adult bank}; do
  for e in ${EPSILONS:-0.5 1 4}; do
    for s in $(seq 1 "${SEEDS:-5}"); do
      stats=$(/usr/bin/time -f "user=%U wall=%e peak=%M" -o "$tmp/time" \
        "$here/synthrun" "$tmp/$t.domain" "$tmp/$t.train.csv" "$tmp/syn.csv" "$s" "$e" 1e-6 \
        $([ "${LABEL:-1}" = 1 ] && echo "label=${target[$t]}") "$@")
      score=$(/usr/bin/python3 "$here/score.py" "$tmp/$t.domain" "$tmp/$t.train.csv" "$tmp/syn.csv" \
        "$tmp/$t.test.csv" "${target[$t]}")
      line="$stats $score $(cat "$tmp/time")"
      get() { echo "$line" | tr ' ' '\n' | sed -n "s/^$1=//p" | head -1; }
      echo "$t,$e,$s,$(get err1),$(get err2),$(get err3),$(get bacc),$(get user),$(get wall),$(get scan_s),$(get rounds_s),$(get sample_s),$(get rounds),$(get model_cells),$(get peak)" | tee -a "$out"
    done
  done
done
