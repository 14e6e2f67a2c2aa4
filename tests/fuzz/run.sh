#!/usr/bin/env bash
# tests/fuzz/run.sh — a seeded fuzz of dpobj's SQL surface (tests/fuzz/fuzz.py): thousands of
# odd calls of the aggregates, model functions, forged states and helpers, each of which
# must end in a result or a plain error; a crash, a hang or an internal error fails.
# Needs a running server (PGHOST/PGPORT/PGUSER, a superuser) with dpobj installed; with
# DPOBJ_PGCTL and DPOBJ_PGDATA (scripts/test.sh) a hang that ignores cancel is ended by
# an immediate restart.  DPOBJ_FUZZ_SEED (default 20261128) and DPOBJ_FUZZ_CASES (default
# 6000) choose the campaign: the same seed replays the same cases.
# Last line: "N passed, M failed".
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=tests/concurrency/lib.sh
. "$here/../concurrency/lib.sh"
db=dpobj_fuzz
if ! t_fresh_db "$db" >/dev/null 2>&1 || ! t_psql -d "$db" -f "$here/setup.sql" >/dev/null; then
    echo "not ok - the fuzz database could not be set up"
    t_summary
    exit 1
fi
python3 "$here/fuzz.py" "$db" "${DPOBJ_FUZZ_SEED:-20261128}" "${DPOBJ_FUZZ_CASES:-6000}"
rc=$?
t_psql -d postgres -c "DROP DATABASE IF EXISTS $db" -c "DROP ROLE IF EXISTS fz_analyst" >/dev/null 2>&1 || true
exit $rc
