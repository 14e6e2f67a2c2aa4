#!/usr/bin/env bash
# tests/concurrency/run.sh — the issue 4 scripts that need more than one session or
# control of the server: the budget race, the crash between debit and release, and
# pg_dump/pg_restore.  Prints "ok"/"not ok" lines and, last, "N passed, M failed".
#
# Environment (see each script): PGHOST, PGPORT, PGUSER (a superuser); for the crash
# test DPOBJ_PGDATA and DPOBJ_PGCTL (and optionally DPOBJ_PGLOG) — without them the
# crash test is reported as one failure, not skipped silently.
set -uo pipefail
DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
pass=0
fail=0
for t in budget_race budget_dump budget_crash; do
    echo "# $t"
    if [[ $t == budget_crash && ( -z "${DPOBJ_PGDATA:-}" || -z "${DPOBJ_PGCTL:-}" ) ]]; then
        echo "not ok - $t needs DPOBJ_PGDATA and DPOBJ_PGCTL"
        fail=$((fail + 1))
        continue
    fi
    out=$(bash "$DIR/$t.sh" 2>&1)
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
