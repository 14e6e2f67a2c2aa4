#!/usr/bin/env bash
# tests/script_runner.sh — runs test scripts of one folder (tests/concurrency, tests/jobs),
# each printing "ok"/"not ok" lines and, last, "N passed, M failed"; prints their lines and,
# last, the summed "N passed, M failed".  A script that ends without its summary line, or
# exits non-zero with no failure counted, counts as one failure.
#
# Usage: script_runner.sh DIR SERVER_SCRIPT SCRIPT...
#   SERVER_SCRIPT names the one script that controls the server; it needs DPOBJ_PGDATA and
#   DPOBJ_PGCTL and is reported as one failure without them, never skipped silently.
#   A SCRIPT written "&NAME" starts at once in the background and is collected after the
#   others: for a script that mostly waits on a cluster of its own (pg_cron's minute).
# Each script's time is printed after it ("# NAME: N s"), so a slow one is seen in the log.
set -uo pipefail
dir=$1
server_script=$2
shift 2
pass=0
fail=0
bg_dir=$(mktemp -d "${TMPDIR:-/tmp}/dpobj-runner.XXXXXX")
trap 'kill $(jobs -p) 2>/dev/null || true; wait; rm -rf -- "$bg_dir"' EXIT

# count NAME RC OUTPUT SECONDS: print a finished script's lines and add its counts
count() {
    local t=$1 rc=$2 out=$3 secs=$4 line p f
    echo "# $t"
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
    echo "# $t: $secs s"
}

bg=()
for t in "$@"; do
    [[ $t == \&* ]] || continue
    t=${t#&}
    bg+=("$t")
    ( t0=$SECONDS; bash "$dir/$t.sh" >"$bg_dir/$t.out" 2>&1; echo "$? $((SECONDS - t0))" >"$bg_dir/$t.rc" ) &
done
for t in "$@"; do
    [[ $t == \&* ]] && continue
    if [[ $t == "$server_script" && ( -z "${DPOBJ_PGDATA:-}" || -z "${DPOBJ_PGCTL:-}" ) ]]; then
        echo "# $t"
        echo "not ok - $t needs DPOBJ_PGDATA and DPOBJ_PGCTL"
        fail=$((fail + 1))
        continue
    fi
    t0=$SECONDS
    out=$(bash "$dir/$t.sh" 2>&1)
    count "$t" $? "$out" $((SECONDS - t0))
done
wait
for t in "${bg[@]}"; do
    read -r rc secs <"$bg_dir/$t.rc" 2>/dev/null || { rc=1 secs=0; }
    count "$t (background)" "$rc" "$(cat "$bg_dir/$t.out" 2>/dev/null)" "$secs"
done
printf '%s passed, %s failed\n' "$pass" "$fail"
[[ $fail -eq 0 ]]
