#!/usr/bin/env bash
# tests/jobs/locks.sh — what one analyst can do to the job machinery of everybody else:
#   1. dpobj.cancel() in a transaction left open must not hold up the cancelled job's
#      worker (it records its outcome at once), and other roles' jobs keep running;
#      a worker that meets a locked job row still records with interrupts enabled:
#      pg_terminate_backend() ends it within seconds, and the scheduler skips the row;
#   2. the queue serves roles round robin: one role's flood does not delay another's
#      job until the flood has run; dpobj.max_jobs_per_role refuses submit() beyond it,
#      before anything is charged;
#   3. cancel() of a missing job and of another role's job give the same error, to the
#      error's location (VERBOSITY verbose).
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
DB=dpobj_jobs_locks
A=dpobj_locks_alice
B=dpobj_locks_bob
t_role $A && t_role $B || exit 1
t_fresh_db "$DB" || exit 1
t_tables "$DB" $A || exit 1
t_psql -d "$DB" -c "SELECT 1 FROM dpobj.grant_budget('pts', '$B', 20, 0.01)" >/dev/null || exit 1

as() { local r="$1"; shift; t_psql -d "$DB" -c "SET ROLE $r" "$@"; }
# until SECONDS CMD...: CMD succeeds within SECONDS of wall-clock time
until_ok() {
    local end=$(($(date +%s%N) + $1 * 1000000000))
    shift
    while (($(date +%s%N) < end)); do
        "$@" && return 0
        sleep 0.1
    done
    return 1
}
state_is() { [[ $(t_psql -d "$DB" -c "SELECT state FROM dpobj.job_queue WHERE id = $1") =~ ^($2)$ ]]; }
gone() { [[ $(t_psql -d postgres -c "SELECT count(*) FROM pg_stat_activity WHERE pid = ${1:-0}") == 0 ]]; }
worker_pid() {  # the worker of the one running job (its bgw_type is "dpobj job")
    t_psql -d postgres -c "SELECT pid FROM pg_stat_activity WHERE backend_type = 'dpobj job' AND datname = '$DB'"
}
release_holders() {
    t_psql -d postgres -c "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'locks_holder'" >/dev/null
}

# --- 1a. cancel() inside a transaction that stays open for a minute
job=$(as $A -c "$HARD_SUBMIT")
t_ok "the hard job runs" until_ok 30 state_is "$job" running
sleep 1
wpid=$(worker_pid)
PGAPPNAME=locks_holder psql -X -q -d "$DB" -c "SET ROLE $A" -c "BEGIN" -c "SELECT dpobj.cancel($job)" \
    -c "SELECT pg_sleep(60)" -c "COMMIT" >/dev/null 2>&1 &
holder=$!
t_ok "the job is cancelled within 8 s while the cancelling transaction is still open" \
    until_ok 8 state_is "$job" cancelled
t_psql -d postgres -c "SELECT pg_terminate_backend($wpid)" >/dev/null 2>&1
t_ok "its worker is gone (pg_terminate_backend() works) within 2 s" until_ok 2 gone "$wpid"
jb=$(as $B -c "$EASY_SUBMIT")
t_ok "another role's job runs meanwhile" until_ok 30 state_is "$jb" succeeded
release_holders
wait "$holder" 2>/dev/null

# --- 1b. a job row locked by somebody else (here a superuser: analysts cannot lock it
# any more) while its worker records the cancel: the worker waits with interrupts
# enabled, so pg_terminate_backend() ends it, and the scheduler skips the row
job=$(as $A -c "$HARD_SUBMIT")
t_ok "a second hard job runs" until_ok 30 state_is "$job" running
sleep 1
wpid=$(worker_pid)
PGAPPNAME=locks_holder psql -X -q -d "$DB" -c "BEGIN" \
    -c "SELECT 1 FROM dpobj.job_queue WHERE id = $job FOR UPDATE" -c "SELECT pg_sleep(60)" >/dev/null 2>&1 &
holder=$!
sleep 0.5
as $A -c "SELECT dpobj.cancel($job)" >/dev/null &
canceller=$!
sleep 1
t_psql -d postgres -c "SELECT pg_terminate_backend($wpid)" >/dev/null
t_ok "pg_terminate_backend() ends the worker waiting for the locked row within 2 s" until_ok 2 gone "$wpid"
jb=$(as $B -c "$EASY_SUBMIT")
t_ok "... and the queue goes on: another role's job runs while the row stays locked" \
    until_ok 30 state_is "$jb" succeeded
release_holders
wait "$holder" "$canceller" 2>/dev/null
sleep 0.5
as $A -c "SELECT 1 FROM dpobj.submit('pts', 'opdisc', ARRAY['a'], 'y', 0.01, 0.000001)" >/dev/null   # wakes the scheduler
t_ok "the unrecorded job is marked failed once the row is free" until_ok 40 state_is "$job" failed

# --- 2a. round robin: alice queues 8 jobs and bob 1 in the same transaction (so the
# scheduler sees them at once); FIFO would start bob's ninth, round robin second
t_psql -d "$DB" -c "SELECT pg_sleep(2)" >/dev/null
ids=$( { echo "BEGIN;"; echo "SET LOCAL ROLE $A;"; for ((i = 0; i < 8; i++)); do echo "$EASY_SUBMIT;"; done
         echo "SET LOCAL ROLE $B;"; echo "$EASY_SUBMIT;"; echo "COMMIT;"; } | t_psql -d "$DB" | tr '\n' ' ')
read -r -a aid <<<"$ids"
jb=${aid[8]}
t_is "bob's job succeeds" "$(t_wait_state "$DB" "$jb" 'succeeded|failed' 60)" "succeeded"
t_is "alice's last job succeeds" "$(t_wait_state "$DB" "${aid[7]}" 'succeeded|failed' 60)" "succeeded"
t_is "bob's job started before alice's second (round robin over roles, not FIFO)" \
    "$(t_psql -d "$DB" -c "SELECT (SELECT started_at FROM dpobj.job_queue WHERE id = $jb)
                                   < (SELECT started_at FROM dpobj.job_queue WHERE id = ${aid[1]})")" "t"

# --- 2b. dpobj.max_jobs_per_role: refused before any charge, other roles unaffected
t_psql -d postgres -c "ALTER DATABASE $DB SET dpobj.max_jobs_per_role = 2" >/dev/null
spent=$(t_psql -d "$DB" -c "SELECT spent_epsilon FROM dpobj.budgets WHERE rolid = '$A'::regrole AND relid = 'pts'::regclass")
out=$(psql -X -q -At -d "$DB" -v VERBOSITY=verbose -c "SET ROLE $A" -c "BEGIN" \
      -c "$EASY_SUBMIT" -c "$EASY_SUBMIT" -c "$EASY_SUBMIT" -c "ROLLBACK" 2>&1)
t_ok "the third queued job of one role is refused (53400)" grep -q 'ERROR:  53400: dpobj.submit: role "'$A'" already has 2 queued or running jobs' <<<"$out"
t_is "... and nothing was charged" \
    "$(t_psql -d "$DB" -c "SELECT spent_epsilon FROM dpobj.budgets WHERE rolid = '$A'::regrole AND relid = 'pts'::regclass")" "$spent"
t_is "another role submits as before" \
    "$(as $B -c "BEGIN" -c "SELECT count(dpobj.submit('pts', 'opdisc', ARRAY['a'], 'y', 0.01, 0.000001)) FROM generate_series(1, 2)" -c "ROLLBACK" | head -n 1)" "2"
t_psql -d postgres -c "ALTER DATABASE $DB RESET dpobj.max_jobs_per_role" >/dev/null

# --- 3. a missing job and another role's job: the same full error, location included
verbose_cancel() {
    psql -X -q -d "$DB" -v VERBOSITY=verbose -c "SET ROLE $B" -c "SELECT dpobj.cancel($1)" 2>&1 | sed "s/\b$1\b/N/g"
}
other=$(verbose_cancel "${aid[0]}")
missing=$(verbose_cancel 987654321)
t_ok "the error has its location" grep -q '^LOCATION:  ' <<<"$other"
t_is "another role's job and a missing job: identical errors (SQLSTATE, message, hint, location)" "$other" "$missing"

t_psql -d postgres -c "DROP DATABASE $DB" >/dev/null
t_summary
