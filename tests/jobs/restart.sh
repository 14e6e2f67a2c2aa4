#!/usr/bin/env bash
# tests/jobs/restart.sh — jobs survive a server restart.  With dpobj.max_jobs = 1
# a long job runs and a second one waits in the queue; then the server stops (a crash,
# pg_ctl stop -m immediate, and a clean pg_ctl stop -m fast).  After the restart:
#   - the job that was running is marked failed (SQLSTATE 57P01), is not run again, and
#     its charge stays (ledger row "charged", budget spent);
#   - the job that was queued runs and succeeds.
#
# Needs PGHOST, PGPORT, PGUSER (superuser), DPOBJ_PGDATA, DPOBJ_PGCTL (a pg_ctl command
# prefix run as the server's OS user) and optionally DPOBJ_PGLOG; the server must have
# shared_preload_libraries = 'dpobj'.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

: "${DPOBJ_PGDATA:?set DPOBJ_PGDATA to the server's data directory}"
: "${DPOBJ_PGCTL:?set DPOBJ_PGCTL to a pg_ctl command prefix run as the server's user}"
PGLOG="${DPOBJ_PGLOG:-$(dirname "$DPOBJ_PGDATA")/server.log}"
read -r -a PGCTL <<<"$DPOBJ_PGCTL"
DB=dpobj_jobs_restart
ROLE=dpobj_jobs_restart_analyst

t_role "$ROLE" || exit 1
t_fresh_db "$DB" || exit 1
t_tables "$DB" "$ROLE" || exit 1
t_psql -d postgres -c "ALTER SYSTEM SET dpobj.max_jobs = 1" -c "SELECT pg_reload_conf()" >/dev/null
sleep 0.5

for mode in immediate fast; do
    echo "# server stop -m $mode"
    lmax=$(t_psql -d "$DB" -c "SELECT coalesce(max(id), 0) FROM dpobj.ledger")
    long=$(t_psql -d "$DB" -c "SET ROLE $ROLE" -c "$HARD_SUBMIT")
    queued=$(t_psql -d "$DB" -c "SET ROLE $ROLE" -c "$EASY_SUBMIT")
    t_is "[$mode] the long job is running" "$(t_wait_state "$DB" "$long" running 30)" "running"
    # the debit is committed before the solve starts; wait for it
    for ((i = 0; i < 300; i++)); do
        c=$(t_psql -d "$DB" -c "SELECT count(*) FROM dpobj.ledger WHERE id > $lmax AND relation = 'public.hard'")
        [[ "$c" == 1 ]] && break
        sleep 0.1
    done
    t_is "[$mode] its charge is committed while it solves" "$c" "1"
    sleep 1
    t_is "[$mode] the second job waits in the queue" \
        "$(t_psql -d "$DB" -c "SELECT state FROM dpobj.job_queue WHERE id = $queued")" "queued"
    spent_before=$(t_psql -d "$DB" -c "SELECT spent_epsilon FROM dpobj.budgets WHERE relid = 'hard'::regclass")

    "${PGCTL[@]}" -D "$DPOBJ_PGDATA" -m "$mode" -t 60 -w stop >/dev/null ||
        { echo "not ok - [$mode] server stop failed"; T_FAIL=$((T_FAIL + 1)); }
    "${PGCTL[@]}" -D "$DPOBJ_PGDATA" -l "$PGLOG" -w -t 120 start >/dev/null ||
        { echo "not ok - [$mode] restart failed"; exit 1; }

    t_is "[$mode] after the restart the running job is marked failed" \
        "$(t_wait_state "$DB" "$long" 'failed|succeeded|cancelled|queued' 30)" "failed"
    t_is "[$mode] ... with SQLSTATE 57P01 and an explanation" \
        "$(t_psql -d "$DB" -c "SELECT sqlstate || ' ' || (error LIKE '%not run again%') FROM dpobj.job_queue WHERE id = $long")" \
        "57P01 true"
    t_is "[$mode] the job queued before the restart runs after it" \
        "$(t_wait_state "$DB" "$queued" 'succeeded|failed|cancelled' 60)" "succeeded"
    sleep 2
    # (-m fast may or may not manage to record "cancelled" before the server stops)
    t_is "[$mode] the interrupted job was not run again (one charge, never released)" \
        "$(t_psql -d "$DB" -c "SELECT count(*) || ' ' || bool_and(outcome IN ('charged', 'cancelled')) FROM dpobj.ledger WHERE id > $lmax AND relation = 'public.hard'")" \
        "1 true"
    t_is "[$mode] its charge stays in the budget" \
        "$(t_psql -d "$DB" -c "SELECT spent_epsilon FROM dpobj.budgets WHERE relid = 'hard'::regclass")" "$spent_before"
    t_is "[$mode] ledger totals = spend" \
        "$(t_psql -d "$DB" -c "SELECT bool_and(s) FROM (SELECT sum(l.epsilon) = b.spent_epsilon AS s FROM dpobj.budgets b JOIN dpobj.ledger l ON l.budget_id = b.id GROUP BY b.id) x")" "t"
done

t_psql -d postgres -c "ALTER SYSTEM RESET dpobj.max_jobs" -c "SELECT pg_reload_conf()" >/dev/null
t_psql -d postgres -c "DROP DATABASE $DB" >/dev/null
t_summary
