#!/usr/bin/env bash
# bench/oracle/run_ladder.sh — the oracle's ladder with oracle_bench:
# Adult feature sets (balanced subset) and synthetic dense sets, OPDisc and RSPM, sound
# calibration, delta = 1/n^2.  Each cell runs draws 0..DRAWS-1 one at a time with a
# time limit of LIMIT seconds and stops after STOP timeouts (the remaining draws are
# reported as not run).  Prints one summary line per cell, keeps the raw output and writes
# the table to bench/csv/oracle_ladder.csv (bench/record.py).
#
#   DRAWS=30 LIMIT=600 STOP=31 EPS="0.1 0.5 1 2 5" bash run_ladder.sh   # the full protocol
#   DRAWS=3 LIMIT=20 STOP=1 EPS="0.1 1 5" bash run_ladder.sh            # a reduced run
#
# Environment: GRID (OPDisc's grid: "default", the rule of opdisc_default_grid(), or
# "paper", B = floor(sqrt d) and D2 = d, the default before 0.3.0),
# SETS (default "d23 d40 d64 d108 c10 c20 c30"), MECHS ("opdisc rspm"),
# THREADS (exact search threads, default 1), CAL (sound|paper), SYN_ROWS (rows of the
# synthetic sets, default 2000), OUT (raw output directory, default runs/ladder).  One
# process at a time: timings are wall clock; the load average is printed with every cell.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
DRAWS=${DRAWS:-3}
LIMIT=${LIMIT:-20}
STOP=${STOP:-1}
EPS=${EPS:-"0.1 1 5"}
SETS=${SETS:-"d23 d40 d64 d108 c10 c20 c30"}
MECHS=${MECHS:-"opdisc rspm"}
CAL=${CAL:-sound}
THREADS=${THREADS:-1}
SYN_ROWS=${SYN_ROWS:-2000}
OUT=${OUT:-runs/ladder}
GRID=${GRID:-default}
mkdir -p "$OUT"
make -s oracle_bench
{
printf '| set | mech | eps | certified | run | median s | max s | median nodes | load |\n'
printf '|---|---|---|---|---|---|---|---|---|\n'
for set in $SETS; do
    subset=bal
    [[ $set == c* ]] && subset=$SYN_ROWS
    grid=()
    if [[ $GRID == paper ]]; then
        d=${set#[dc]}   # the set's name ends in its dimension
        grid=(-B "$(awk -v d="$d" 'BEGIN { print int(sqrt(d) + 1e-9) }')" -D "$d")
    fi
    for mech in $MECHS; do
        for eps in $EPS; do
            raw="$OUT/${set}_${mech}_${CAL}_e${eps}.txt"
            : >"$raw"
            ok=0 bad=0 times=() nodes=()
            for ((s = 0; s < DRAWS; s++)); do
                line=$(./oracle_bench -s "$set" -p "$subset" -M "$mech" -c "$CAL" -e "$eps" \
                    -j "$THREADS" -r "$s" -n 1 -t "$LIMIT" "${grid[@]}" 2>&1 | tee -a "$raw" | awk '$1 ~ /^[0-9]+$/ {print; exit}')
                read -r _ st sec nd _ <<<"$line"
                times+=("$sec") nodes+=("$nd")
                if [[ $st == OPTIMAL ]]; then ok=$((ok + 1)); else bad=$((bad + 1)); fi
                [[ $bad -ge $STOP ]] && break
            done
            run=$((ok + bad))
            med=$(printf '%s\n' "${times[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
            mx=$(printf '%s\n' "${times[@]}" | sort -g | tail -n 1)
            mn=$(printf '%s\n' "${nodes[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
            printf '| %s | %s | %s | %d/%d | %d/%d | %s | %s | %s | %s |\n' "$set" "$mech" "$eps" \
                "$ok" "$run" "$run" "$DRAWS" "$med" "$mx" "$mn" "$(cut -d' ' -f1 /proc/loadavg)"
        done
    done
done
} | tee "$OUT/table.md"
# the table into bench/csv/oracle_ladder.csv (bench/record.py), rendered into docs/BENCHMARKS.md
python3 ../record.py oracle_ladder "DRAWS=$DRAWS LIMIT=$LIMIT STOP=$STOP EPS=\"$EPS\" THREADS=$THREADS GRID=$GRID bash bench/oracle/run_ladder.sh" <"$OUT/table.md"
