#!/usr/bin/env bash
# tests/concurrency/run.sh — the scripts that need more than one session or control of
# the server: the budget race, the crash between debit and release, pg_dump/pg_restore
#; the ledger's outcomes and its behaviour with every worker slot taken
# (ledger_slots restarts the server and also needs DPOBJ_PGDATA/DPOBJ_PGCTL); two calls
# racing for one name created after their charge (name_race); a unit join against its
# partner's move out of the budget domain (unitjoin_race).
# Prints "ok"/"not ok" lines and, last, "N passed, M failed".
#
# Environment (see each script): PGHOST, PGPORT, PGUSER (a superuser); for the crash
# test DPOBJ_PGDATA and DPOBJ_PGCTL (and optionally DPOBJ_PGLOG) — without them the
# crash test is reported as one failure, not skipped silently.
set -uo pipefail
DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
exec bash "$DIR/../script_runner.sh" "$DIR" budget_crash budget_race budget_race_zcdp budget_race_domain budget_dump budget_crash \
    ledger_outcomes ledger_slots ledger_stress alter_system barrier name_race unitjoin_race
