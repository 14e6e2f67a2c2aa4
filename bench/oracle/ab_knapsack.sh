#!/usr/bin/env bash
# bench/oracle/ab_knapsack.sh — back-to-back A/B of two oracle_bench binaries (the measurement
# behind "knapsack shared by the children of a node" in docs/ORACLE.md):
#   BEFORE=/path/oracle_bench_old AFTER=/path/oracle_bench_new bash ab_knapsack.sh
# Each case runs twice, alternating; prints total solve seconds, total nodes, certified draws.
# CASES="args;args;..." replaces the default cases (used for the local search's pair tables).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
BEFORE=${BEFORE:?set BEFORE to the old binary}
AFTER=${AFTER:?set AFTER to the new binary}
cases=("-s d23 -p bal -M opdisc -e 1 -r 0 -n 20 -t 60"
       "-s d40 -p bal -M opdisc -e 0.1 -r 0 -n 3 -t 60"
       "-s d64 -p bal -M rspm -e 0.1 -r 0 -n 3 -t 60"
       "-s d40 -p bal -M opdisc -e 1 -r 0 -n 1 -t 20")
if [[ -n "${CASES:-}" ]]; then
    IFS=';' read -r -a cases <<<"$CASES"
fi
for cs in "${cases[@]}"; do
    for rep in 1 2; do
        for b in before after; do
            bin=$BEFORE
            [[ $b == after ]] && bin=$AFTER
            # shellcheck disable=SC2086
            out=$("$bin" $cs -c sound 2>&1)
            t=$(awk '$1 ~ /^[0-9]+$/ {s+=$3; n+=$4; c+=($2=="OPTIMAL")} END {printf "%.3f s, %d nodes, %d certified", s, n, c}' <<<"$out")
            echo "$cs | $b | rep $rep | $t"
        done
    done
done
