#!/usr/bin/env bash
# tests/jobs/run.sh — the issue 6 job tests that need more than SQL: progress NOTICEs
# (progress.sh), periodic retraining with pg_cron in a cluster of its own (cron.sh), and
# jobs across server restarts (restart.sh, which restarts the server it is given).
# Prints "ok"/"not ok" lines and, last, "N passed, M failed".
#
# Environment: PGHOST, PGPORT, PGUSER (a superuser of a server with
# shared_preload_libraries = 'dpobj'); DPOBJ_PGDATA and DPOBJ_PGCTL (and optionally
# DPOBJ_PGLOG) for restart.sh — without them it is reported as one failure, not skipped.
set -uo pipefail
DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
pass=0
fail=0
for t in progress cron restart; do
    echo "# $t"
    if [[ $t == restart && ( -z "${DPOBJ_PGDATA:-}" || -z "${DPOBJ_PGCTL:-}" ) ]]; then
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
