#!/usr/bin/env bash
# tests/concurrency/budget_crash.sh — the server crashes (pg_ctl stop -m
# immediate) after the budget was debited and while the mechanism runs, before any
# release.  After restart the charge is kept: the ledger row stays "charged", and the
# ledger and the budget's spend agree.
#
# Needs control of the server:
#   PGHOST, PGPORT, PGUSER   a superuser connection to the server
#   DPOBJ_PGDATA             its data directory
#   DPOBJ_PGCTL              command prefix that runs pg_ctl as the server's OS user,
#                            e.g. "runuser -u postgres -- /usr/lib/postgresql/15/bin/pg_ctl"
#   DPOBJ_PGLOG              (optional) server log file for the restart; default:
#                            $(dirname "$DPOBJ_PGDATA")/server.log (scripts/common.sh layout)
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

: "${DPOBJ_PGDATA:?set DPOBJ_PGDATA to the server's data directory}"
: "${DPOBJ_PGCTL:?set DPOBJ_PGCTL to a pg_ctl command prefix run as the server's user}"
PGLOG="${DPOBJ_PGLOG:-$(dirname "$DPOBJ_PGDATA")/server.log}"
DB=dpobj_crash
read -r -a PGCTL <<<"$DPOBJ_PGCTL"

t_role dpobj_crash_analyst || exit 1
t_fresh_db "$DB" || exit 1
# a GLPK MIP that needs minutes (lib.sh)
t_psql -d "$DB" -c "$T_HARD_SQL" \
    -c "SELECT dpobj.protect('hard')" \
    -c "SELECT dpobj.grant_budget('hard', 'dpobj_crash_analyst', 5, 0.001)" >/dev/null || exit 1

# (runs until stopped: dpobj.protected_time_limit is 0 = none by default, and the analyst cannot set one)
psql -X -q -At -d "$DB" -c "SET ROLE dpobj_crash_analyst" \
    -c "SELECT weights FROM dpobj.train('hard', 'opdisc', ARRAY['a', 'b', 'one'], 'y', 3.5, 0.00001,
                                        '{\"oracle\": \"mip\"}')" \
    >/dev/null 2>&1 &
trainer=$!

# wait until the debit is committed and the solve is running
charged=0
for ((i = 0; i < 300; i++)); do
    charged=$(t_psql -d "$DB" -c "SELECT count(*) FROM dpobj.ledger WHERE outcome = 'charged'" 2>/dev/null)
    [[ "$charged" == 1 ]] && break
    sleep 0.1
done
t_is "the debit is committed while the mechanism runs" "$charged" "1"
sleep 1
t_is "the training statement is still running" \
    "$(t_psql -d "$DB" -c "SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%dpobj.train(%' AND state = 'active' AND pid <> pg_backend_pid()")" "1"

"${PGCTL[@]}" -D "$DPOBJ_PGDATA" -m immediate -w stop >/dev/null
wait "$trainer" 2>/dev/null
"${PGCTL[@]}" -D "$DPOBJ_PGDATA" -l "$PGLOG" -w -t 120 start >/dev/null ||
    { echo "not ok - restart failed"; exit 1; }

t_is "after the crash the ledger row is still charged (not released)" \
    "$(t_psql -d "$DB" -c "SELECT string_agg(outcome || ' ' || epsilon || ' ' || delta, ',') FROM dpobj.ledger")" \
    "charged 3.5 0.00001"
t_is "the budget's spend kept the charge" \
    "$(t_psql -d "$DB" -c "SELECT spent_epsilon || ' ' || spent_delta FROM dpobj.budgets")" "3.5 0.00001"
t_is "ledger totals = spend after the crash" \
    "$(t_psql -d "$DB" -c "SELECT sum(l.epsilon) = b.spent_epsilon AND sum(l.delta) = b.spent_delta
                             FROM dpobj.budgets b JOIN dpobj.ledger l ON l.budget_id = b.id GROUP BY b.id")" "t"

t_psql -d postgres -c "DROP DATABASE $DB" >/dev/null
t_summary
