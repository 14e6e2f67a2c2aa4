#!/usr/bin/env bash
# bench/oracle/peer.sh — peer row of the oracle benchmark, one command:
#
#   bash bench/oracle/peer.sh
#
# For each instance (feature set, eps, oracle_bench seed) it builds the OPDisc problem
# with bench/oracle/oracle_bench (Adult balanced subset, Q = 64, B = floor(sqrt d),
# D2 = d, delta = 1/n^2), solves it with dpobj's exact search (the reference answer),
# writes dpobj's GLPK MIP (src/core/opdisc_mip.c build_mip, via opdisc_write_mip) as free
# MPS and solves that file with CBC's command line
#   cbc FILE -sec T -threads 1 -solve -solu FILE.sol -quit
# then runs dpobj's GLPK oracle (opdisc_solve_mip) on the same problem with the same
# limit T.  CBC (Debian package coinor-cbc) is installed here when `cbc` is missing.
# One solver at a time, one thread each.
#
# Instances (PEER_PLAN, "set:eps:first_seed:draws:limit_s" entries), default:
#   d4:1:0:3:120 d9:1:0:2:60 d15:1:0:1:150 d23:1:0:1:150
# (about 16 minutes when neither CBC nor GLPK certifies d9..d23.)
# Output: bench/oracle/runs/peer/<UTC stamp>/ (raw oracle_bench output per set and
# summary.md); the MPS files go to a temporary directory that is removed at the end
# (they are derived from the data).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PLAN="${PEER_PLAN:-d4:1:0:3:120 d9:1:0:2:60 d15:1:0:1:150 d23:1:0:1:150}"

if ! command -v cbc >/dev/null 2>&1; then
    echo "==> installing coinor-cbc" >&2
    if [[ "$(id -u)" -eq 0 ]]; then sudo=""; else sudo="sudo"; fi
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -q
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q coinor-cbc
fi
make -C "$HERE" oracle_bench >&2

stamp="$(date -u +%Y%m%dT%H%M%SZ)"
OUT="$HERE/runs/peer/$stamp"
mkdir -p "$OUT"
MPSDIR="$(mktemp -d /tmp/dpobj-peer.XXXXXX)"
trap 'rm -rf -- "$MPSDIR"' EXIT

{
    echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "machine: $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
    echo "cbc: $(dpkg-query -W -f='${Version}' coinor-cbc 2>/dev/null || echo '?')"
    echo "glpk: $(dpkg-query -W -f='${Version}' libglpk-dev 2>/dev/null || echo '?')"
    echo "plan: $PLAN"
    echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
} >"$OUT/meta.txt"

t0=$SECONDS
for item in $PLAN; do
    IFS=: read -r set eps seed draws limit <<<"$item"
    echo "==> $set eps=$eps seeds $seed..$((seed + draws - 1)) limit ${limit}s" >&2
    (cd "$HERE" && ./oracle_bench -c paper -s "$set" -e "$eps" -r "$seed" -n "$draws" -t "$limit" \
        -C "$MPSDIR" -m) | tee "$OUT/${set}_e${eps}.txt"
    rm -f "$MPSDIR"/*
done
echo "seconds: $((SECONDS - t0))" >>"$OUT/meta.txt"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$OUT/meta.txt"

python3 "$HERE/peer_summary.py" "$OUT"/d*.txt >"$OUT/summary.md"
cat "$OUT/meta.txt" "$OUT/summary.md"
