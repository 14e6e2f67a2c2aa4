#!/usr/bin/env bash
# tests/fuzz/run.sh — a seeded fuzz of dpobj's SQL surface, each case ending in a result or a
# plain error; a crash, a hang or an internal error fails:
#   1. tests/fuzz/fuzz.py: thousands of odd calls of the aggregates, model functions,
#      forged states and helpers (values mutated);
#   2. tests/fuzz/struct.py: the structure-aware model fuzz, real models of every kind with
#      their params' arrays and objects and their weights mutated in shape, through every
#      function that takes a model (tests/fuzz/struct.sql);
#   3. tests/fuzz/query.py: random private SQL queries (plain SELECTs, prepared statements,
#      EXPLAIN, dpobj.query(), constructs that must be refused) as an analyst, over
#      neighbouring protected tables with nasty rows (tests/fuzz/query.sql): released, or
#      refused before any charge, alike on both neighbours.
# tests/fuzz/sanitize.sh runs both (the model classes) against an AddressSanitizer + UBSan
# build; scripts/test.sh runs it as its own suite, "sanitize".
# Needs a running server (PGHOST/PGPORT/PGUSER, a superuser) with dpobj installed; with
# DPOBJ_PGCTL and DPOBJ_PGDATA (scripts/test.sh) a hang that ignores cancel is ended by
# an immediate restart.  DPOBJ_FUZZ_SEED (default 20261128), DPOBJ_FUZZ_CASES (fuzz.py's
# cases, default 6000) and DPOBJ_FUZZ_STRUCT_CASES (struct.py's cases per model, default
# 2000; a campaign: 100000, with DPOBJ_FUZZ_STRUCT_JOBS=2 sessions side by side) and
# DPOBJ_FUZZ_QUERY_CASES (query.py's cases, default 4000) choose the campaign: the same
# seed replays the same cases.
# Last line: "N passed, M failed".
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=tests/concurrency/lib.sh
. "$here/../concurrency/lib.sh"
db=dpobj_fuzz
seed="${DPOBJ_FUZZ_SEED:-20261128}"
if ! t_fresh_db "$db" >/dev/null 2>&1 || ! t_psql -d "$db" -f "$here/setup.sql" >/dev/null; then
    echo "not ok - the fuzz database could not be set up"
    t_summary
    exit 1
fi
t_absorb "fuzz.py" "$(python3 "$here/fuzz.py" "$db" "$seed" "${DPOBJ_FUZZ_CASES:-6000}" 2>&1)"
if t_psql -d "$db" -f "$here/struct.sql" >/dev/null 2>&1; then
    t_absorb "struct.py" "$(python3 "$here/struct.py" "$db" "$seed" "${DPOBJ_FUZZ_STRUCT_CASES:-2000}" 2>&1)"
else
    echo "not ok - the structure-aware fuzz could not be set up (tests/fuzz/struct.sql)"
    T_FAIL=$((T_FAIL + 1))
fi
if t_psql -d "$db" -f "$here/query.sql" >/dev/null 2>&1; then
    t_absorb "query.py" "$(python3 "$here/query.py" "$db" "$seed" "${DPOBJ_FUZZ_QUERY_CASES:-4000}" 2>&1)"
else
    echo "not ok - the private-query fuzz could not be set up (tests/fuzz/query.sql)"
    T_FAIL=$((T_FAIL + 1))
fi
t_psql -d postgres -c "DROP DATABASE IF EXISTS $db" -c "DROP ROLE IF EXISTS fz_analyst" \
    -c "DROP ROLE IF EXISTS fz_qanalyst" >/dev/null 2>&1 || true
t_summary
