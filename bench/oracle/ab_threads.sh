#!/usr/bin/env bash
# bench/oracle/ab_threads.sh — the exact search with 1 and with N threads, back to back (the
# measurement behind "Threads" in docs/ORACLE.md; raw output in runs/threads_ab.txt):
#   make -C bench/oracle && THREADS="1 2" bash bench/oracle/ab_threads.sh
# Each case runs twice per thread count, alternating; prints total solve seconds, total nodes,
# certified draws, and whether every draw returned the same w as the first thread count.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
THREADS=${THREADS:-"1 2"}
REPS=${REPS:-2}
cases=("-s d23 -p bal -M opdisc -e 1 -r 0 -n 20 -t 60"
       "-s d23 -p bal -M rspm -e 1 -r 0 -n 20 -t 60"
       "-s c10 -p 2000 -M opdisc -e 1 -r 0 -n 10 -t 60"
       "-s d40 -p bal -M opdisc -e 0.1 -r 0 -n 3 -t 60"
       "-s d64 -p bal -M rspm -e 0.1 -r 0 -n 3 -t 60"
       "-s d40 -p bal -M opdisc -e 1 -r 0 -n 1 -t 20")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for cs in "${cases[@]}"; do
    for rep in $(seq 1 "$REPS"); do
        first=""
        for j in $THREADS; do
            # shellcheck disable=SC2086
            ./oracle_bench $cs -c sound -j "$j" 2>&1 | awk '$1 ~ /^[0-9]+$/' >"$tmp/out.$j"
            t=$(awk '{s+=$3; n+=$4; c+=($2=="OPTIMAL")} END {printf "%.3f s, %d nodes, %d certified", s, n, c}' "$tmp/out.$j")
            same=""
            if [[ -z "$first" ]]; then
                first=$j
            else
                # seed, status, objective and w of certified draws must agree
                if diff <(awk '$2=="OPTIMAL" {print $1, $5, $7}' "$tmp/out.$first") \
                        <(awk '$2=="OPTIMAL" {print $1, $5, $7}' "$tmp/out.$j") >/dev/null; then
                    same=", same w as $first thread(s)"
                else
                    same=", w DIFFERS from $first thread(s)"
                fi
            fi
            echo "$cs | threads $j | rep $rep | $t$same"
        done
    done
done
