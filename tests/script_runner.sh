#!/usr/bin/env bash
# tests/script_runner.sh — runs test scripts of one folder (tests/concurrency, tests/jobs),
# each printing "ok"/"not ok" lines and, last, "N passed, M failed"; prints their lines and,
# last, the summed "N passed, M failed".  A script that ends without its summary line, or
# exits non-zero with no failure counted, counts as one failure.
#
# Usage: script_runner.sh DIR SERVER_SCRIPT SCRIPT...
#   SERVER_SCRIPT names the one script that controls the server; it needs DPOBJ_PGDATA and
#   DPOBJ_PGCTL and is reported as one failure without them, never skipped silently.
set -uo pipefail
dir=$1
server_script=$2
shift 2
pass=0
fail=0
for t in "$@"; do
    echo "# $t"
    if [[ $t == "$server_script" && ( -z "${DPOBJ_PGDATA:-}" || -z "${DPOBJ_PGCTL:-}" ) ]]; then
        echo "not ok - $t needs DPOBJ_PGDATA and DPOBJ_PGCTL"
        fail=$((fail + 1))
        continue
    fi
    out=$(bash "$dir/$t.sh" 2>&1)
    rc=$?
    printf '%s\n' "$out" | grep -v -E '^[0-9]+ passed, [0-9]+ failed$'
    line=$(printf '%s\n' "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed$' | tail -n 1)
    if [[ -n "$line" ]]; then
        p=${line%% passed*}
        f=${line#*passed, }
        f=${f%% failed}
        pass=$((pass + p))
        fail=$((fail + f))
        [[ $rc -ne 0 && $f -eq 0 ]] && fail=$((fail + 1))
    else
        echo "not ok - $t did not finish (exit $rc)"
        fail=$((fail + 1))
    fi
done
printf '%s passed, %s failed\n' "$pass" "$fail"
[[ $fail -eq 0 ]]
