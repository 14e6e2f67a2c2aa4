#!/usr/bin/env bash
# tests/jobs/settings.sh — a job under the submitting role's own defaults (ALTER ROLE
# itself SET ...) and the database's.  The job worker connects as the role, so it starts
# with them; those that would break its own writes after the charge (storing the model,
# recording the outcome) or end the worker are pinned (src/jobs/jobsettings.c).  For each
# setting: the job succeeds, its model is stored, and the run's ledger row says
# 'released'.  Then the outcomes must stay true when the store itself fails after the
# model was drawn (a superuser's trigger on the job table): the job says failed with the
# store's error and the ledger says 'aborted', not 'released'.
# Needs PGHOST/PGPORT/PGUSER (a superuser) and dpobj preloaded.
set -uo pipefail
DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=tests/jobs/lib.sh
. "$DIR/lib.sh"
DB=dpobj_job_settings
ANALYST=dpobj_js_analyst
NOLOGIN=dpobj_js_nologin
GROUP=dpobj_js_group          # the analyst is a member, with a budget of its own

# the test's own sessions (client backends) keep what they need to submit and look
export PGOPTIONS="-c default_transaction_read_only=off -c statement_timeout=0 -c lock_timeout=0
    -c idle_in_transaction_session_timeout=0 -c idle_session_timeout=0 -c exit_on_error=off
    -c search_path=public -c role=none -c client_min_messages=warning"
t_psql -d postgres -c "DROP ROLE IF EXISTS $ANALYST" -c "CREATE ROLE $ANALYST LOGIN" >/dev/null 2>&1
t_role "$NOLOGIN" >/dev/null
t_role "$GROUP" >/dev/null
t_psql -d postgres -c "GRANT $GROUP TO $ANALYST" >/dev/null
t_fresh_db "$DB" >/dev/null || { echo "not ok - could not create $DB"; t_summary; exit 1; }
t_tables "$DB" "$ANALYST" >/dev/null
t_psql -d "$DB" -c "SELECT 1 FROM dpobj.grant_budget('pts', '$NOLOGIN', 20, 0.01)" \
    -c "SELECT 1 FROM dpobj.grant_budget('pts', '$GROUP', 20, 0.01)" >/dev/null
SUBMIT="SELECT dpobj.submit('pts', 'expmech', ARRAY['a', 'b'], 'y', 0.1, 1e-6)"

# the newest ledger row of ROLE once its outcome is known
last_outcome() {
    local role=$1 o="" i
    for ((i = 0; i < 100; i++)); do
        o=$(t_psql -d "$DB" -c "SELECT outcome FROM dpobj.ledger WHERE rolname = '$role' ORDER BY id DESC LIMIT 1")
        [[ $o != charged ]] && break
        sleep 0.1
    done
    printf '%s' "$o"
}
# run_job ROLE [SET-ROLE]: submit as ROLE (a login, or SET ROLE from the superuser);
# prints "state/model stored/ledger outcome/error"
run_job() {
    local role=$1 job st
    if [[ $role == "$NOLOGIN" ]]; then
        job=$(t_psql -d "$DB" -c "SET ROLE $role" -c "$SUBMIT")
    else
        job=$(t_psql -d "$DB" -U "$role" -c "$SUBMIT")
    fi
    [[ -n $job ]] || { echo "submit failed"; return; }
    st=$(t_wait_state "$DB" "$job" 'succeeded|failed|cancelled' 60)
    echo "$st/$(t_psql -d "$DB" -c "SELECT model IS NOT NULL FROM dpobj.job_queue WHERE id = $job")/$(last_outcome "$role")/$(t_psql -d "$DB" -c "SELECT coalesce(error, '') FROM dpobj.job_queue WHERE id = $job")"
}

t_is "no role default: the job succeeds, its model stored, the ledger says released" \
    "$(run_job "$ANALYST")" "succeeded/t/released/"

# the analyst sets these for itself (user-settable); session_replication_role needs a
# superuser
SETTINGS=(
    "default_transaction_read_only = on"
    "default_transaction_isolation = 'serializable'"
    "default_transaction_deferrable = on"
    "statement_timeout = 1"
    "lock_timeout = 1"
    "idle_in_transaction_session_timeout = 1"
    "idle_session_timeout = 1"
    "exit_on_error = on"
    "search_path = ''"
    "temp_buffers = 100"
    "work_mem = 64"
    "session_replication_role = replica"
    "role = '$GROUP'"
    "transaction_read_only = on"
    "session_authorization = '$GROUP'"
    "standard_conforming_strings = off"
    "array_nulls = off"
    "extra_float_digits = -15"
    "DateStyle = 'SQL, DMY'"
    "IntervalStyle = 'sql_standard'"
    "bytea_output = 'escape'"
    "TimeZone = 'Pacific/Chatham'"
    "force_parallel_mode = on"
    "plan_cache_mode = force_generic_plan"
    "jit_above_cost = 0"
)
for s in "${SETTINGS[@]}"; do
    if [[ $s == session_replication_role* ]]; then
        t_psql -d "$DB" -c "ALTER ROLE $ANALYST IN DATABASE $DB SET $s" >/dev/null
    else
        t_psql -d "$DB" -U "$ANALYST" -c "ALTER ROLE $ANALYST IN DATABASE $DB SET $s" >/dev/null
    fi
    t_is "ALTER ROLE itself SET $s: the job succeeds, model stored, ledger released" \
        "$(run_job "$ANALYST")" "succeeded/t/released/"
    t_psql -d "$DB" -c "ALTER ROLE $ANALYST IN DATABASE $DB RESET ALL" >/dev/null
done

t_is "... under role = the group, the job still ran as the analyst: the group's budget is untouched" \
    "$(t_psql -d "$DB" -c "SELECT count(*) FROM dpobj.ledger WHERE rolname = '$GROUP'")" "0"

# all of them at once, and a job refused after submit (budget gone): its true error,
# not "interrupted", under exit_on_error
for s in "${SETTINGS[@]}"; do
    t_psql -d "$DB" -c "ALTER ROLE $ANALYST IN DATABASE $DB SET $s" >/dev/null
done
t_is "every setting at once: the job succeeds, model stored, ledger released" \
    "$(run_job "$ANALYST")" "succeeded/t/released/"
t_psql -d "$DB" -c "SELECT 1 FROM dpobj.revoke_budget('pts', '$ANALYST')" >/dev/null
t_psql -d "$DB" -c "SELECT 1 FROM dpobj.grant_budget('pts', '$ANALYST', 0.1, 1e-6)" >/dev/null
# one transaction: both pass submit's pre-check before either runs
JJ=$(t_psql -d "$DB" -U "$ANALYST" -c "BEGIN" -c "$SUBMIT" -c "$SUBMIT" -c "COMMIT")
J1=$(sed -n 1p <<<"$JJ"); J2=$(sed -n 2p <<<"$JJ")
t_wait_state "$DB" "$J1" 'succeeded|failed' 60 >/dev/null
t_wait_state "$DB" "$J2" 'succeeded|failed' 60 >/dev/null
t_is "two jobs, budget for one: one succeeds, the other fails with DP004 (not 'interrupted')" \
    "$(t_psql -d "$DB" -c "SELECT string_agg(state || ':' || coalesce(sqlstate, ''), ',' ORDER BY state) FROM dpobj.job_queue WHERE id IN ($J1, $J2)")" \
    "failed:DP004,succeeded:"
t_psql -d "$DB" -c "ALTER ROLE $ANALYST IN DATABASE $DB RESET ALL" \
    -c "SELECT 1 FROM dpobj.grant_budget('pts', '$ANALYST', 10, 0.001)" >/dev/null

# the database's default, for a NOLOGIN role (its worker connects as the bootstrap
# superuser, then becomes the role)
t_psql -d "$DB" -c "ALTER DATABASE $DB SET default_transaction_read_only = on" >/dev/null
t_is "ALTER DATABASE SET default_transaction_read_only (scheduler too), NOLOGIN role: succeeds, released" \
    "$(run_job "$NOLOGIN")" "succeeded/t/released/"
t_is "... and for a login role" "$(run_job "$ANALYST")" "succeeded/t/released/"
t_psql -d "$DB" -c "ALTER DATABASE $DB RESET default_transaction_read_only" >/dev/null

# the store fails after the model was drawn: the outcomes say so
t_psql -d "$DB" -c "CREATE FUNCTION public.fail_store() RETURNS trigger LANGUAGE plpgsql
                      AS \$\$ BEGIN RAISE EXCEPTION 'store refused (test)'; END \$\$" \
    -c "CREATE TRIGGER fail_store BEFORE UPDATE ON dpobj.job_queue FOR EACH ROW
          WHEN (NEW.state = 'succeeded') EXECUTE FUNCTION public.fail_store()" >/dev/null
t_is "the model's store fails after the charge: job failed with that error, ledger aborted" \
    "$(run_job "$ANALYST")" "failed/f/aborted/store refused (test)"
t_psql -d "$DB" -c "DROP TRIGGER fail_store ON dpobj.job_queue" >/dev/null

t_psql -d postgres -c "DROP DATABASE $DB" \
    -c "DROP ROLE $ANALYST" -c "DROP ROLE $NOLOGIN" -c "DROP ROLE $GROUP" >/dev/null
t_summary
