#!/bin/sh
# Full oracle benchmark: every feature set x epsilon, seeds 0..N-1.
# Usage: ./run_all.sh [N] [outdir]   (one process at a time)
N=${1:-100}
OUT=${2:-runs/final}
mkdir -p "$OUT"
for s in d4 d9 d15 d23; do
	for e in 0.1 0.5 1; do
		./adult_bench -s $s -e $e -r 0 -n $N -t 600 > "$OUT/${s}_e$e.txt" 2>&1
	done
done
./summarize.py "$OUT"/*.txt
