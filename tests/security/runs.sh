#!/usr/bin/env bash
# tests/security/runs.sh — what one analyst's runs can take from everybody else:
#   1. a protected run whose client vanishes (kill -9 of psql, not of the backend) stops
#      within seconds, not at the protected time limit; the ledger says 'cancelled' and
#      the charge stays;
#   2. dpobj.max_runs_per_role: a role's run beyond it (train(), a direct mechanism call)
#      is refused before anything is charged; other roles are not affected; once the
#      role's run ends it may run again.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
DB=dpobj_sec_runs
A=dpobj_runs_alice
B=dpobj_runs_bob
t_role $A && t_role $B || exit 1
t_fresh_db "$DB" || exit 1
# a GLPK MIP that needs minutes, a small table, an unprotected one (lib.sh)
t_psql -d "$DB" -c "$T_HARD_SQL" -c "$T_TABLE_SQL" \
    -c "CREATE TABLE open AS SELECT ARRAY[a, b]::float8[] AS f, y FROM pts; GRANT SELECT ON open TO PUBLIC" \
    -c "SELECT dpobj.protect('hard'), dpobj.protect('pts')" \
    -c "SELECT 1 FROM dpobj.grant_budget('hard', '$A', 20, 0.01)" -c "SELECT 1 FROM dpobj.grant_budget('pts', '$A', 20, 0.01)" \
    -c "SELECT 1 FROM dpobj.grant_budget('hard', '$B', 20, 0.01)" -c "SELECT 1 FROM dpobj.grant_budget('pts', '$B', 20, 0.01)" \
    >/dev/null || exit 1
HARD="SELECT weights FROM dpobj.train('hard', 'opdisc', ARRAY['a', 'b', 'one'], 'y', 3.5, 0.00001, '{\"oracle\": \"mip\"}')"
EASY="SELECT weights FROM dpobj.train('pts', 'opdisc', ARRAY['a', 'b'], 'y', 0.25, 0.000001)"
DIRECT="SELECT (dpobj.dp_halfspace(f, y, 0.5, 0.000001)).weights FROM open"

backend_of() { t_psql -d postgres -c "SELECT pid FROM pg_stat_activity WHERE application_name = '$1'"; }
charged_for() { t_psql -d "$DB" -c "SELECT count(*) FROM dpobj.ledger WHERE rolname = '$1' AND outcome = 'charged'"; }
wait_charged() {  # ROLE: until a run of ROLE is charged and solving (up to 30 s)
    local i
    for ((i = 0; i < 300; i++)); do
        [[ $(charged_for "$1") == 1 ]] && return 0
        sleep 0.1
    done
    return 1
}
gone_within() {  # PID SECONDS: the backend has left within SECONDS of wall-clock time
    local end=$(($(date +%s%N) + $2 * 1000000000))
    while (($(date +%s%N) < end)); do
        [[ $(t_psql -d postgres -c "SELECT count(*) FROM pg_stat_activity WHERE pid = ${1:-0}") == 0 ]] && return 0
        sleep 0.1
    done
    return 1
}

# --- 1. the client goes away during the solve
PGAPPNAME=runs_gone psql -X -q -At -d "$DB" -c "SET ROLE $A" -c "$HARD" >/dev/null 2>&1 &
client=$!
t_check "the protected solve is charged and running" wait_charged $A
sleep 1
bpid=$(backend_of runs_gone)
kill -9 "$client"
wait "$client" 2>/dev/null
t_check "its backend ends within 5 s of the client's death" gone_within "${bpid:-0}" 5
t_is "the ledger says cancelled (the charge stays)" \
    "$(t_psql -d "$DB" -c "SELECT outcome || ' ' || epsilon FROM dpobj.ledger WHERE rolname = '$A' ORDER BY id DESC LIMIT 1")" \
    "cancelled 3.5"
# never leave a 600 s solve behind if the check failed
t_psql -d postgres -c "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'runs_gone'" >/dev/null

# --- 2. dpobj.max_runs_per_role = 1 for this database's sessions
t_psql -d postgres -c "ALTER DATABASE $DB SET dpobj.max_runs_per_role = 1" >/dev/null
PGAPPNAME=runs_first psql -X -q -At -d "$DB" -c "SET ROLE $A" -c "$HARD" >/dev/null 2>&1 &
first=$!
t_check "alice's first run is charged and solving" wait_charged $A
before=$(t_psql -d "$DB" -c "SELECT count(*) || ' ' || sum(epsilon) FROM dpobj.ledger")
out=$(psql -X -q -At -d "$DB" -v VERBOSITY=verbose -c "SET ROLE $A" -c "$EASY" 2>&1)
t_check "alice's second train() is refused (53400)" grep -q "ERROR:  53400: role \"$A\" already holds 1 mechanism runs at a time" <<<"$out"
t_is "... so is her direct mechanism call" "$(sqlstate "$DB" -c "SET ROLE $A" -c "$DIRECT")" "53400"
t_is "... and neither charged anything" "$(t_psql -d "$DB" -c "SELECT count(*) || ' ' || sum(epsilon) FROM dpobj.ledger")" "$before"
t_is "bob's train() runs meanwhile" "$(sqlstate "$DB" -c "SET ROLE $B" -c "$EASY")" "ok"
t_is "... and his direct mechanism call" "$(sqlstate "$DB" -c "SET ROLE $B" -c "$DIRECT")" "ok"
t_is "a superuser is never refused" "$(sqlstate "$DB" -c "$DIRECT")" "ok"
t_psql -d postgres -c "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE application_name = 'runs_first'" >/dev/null
wait "$first" 2>/dev/null
t_is "once her run has ended, alice runs again" "$(sqlstate "$DB" -c "SET ROLE $A" -c "$EASY")" "ok"
t_is "... a cancelled run (statement_timeout) gives its place back too" \
    "$(sqlstate "$DB" -c "SET ROLE $A" -c "SET statement_timeout = '2s'" -c "$HARD" >/dev/null;
       sqlstate "$DB" -c "SET ROLE $A" -c "$DIRECT")" "ok"
t_is "two runs in one session (one at a time) are fine" \
    "$(sqlstate "$DB" -c "SET ROLE $A" -c "BEGIN" -c "$EASY" -c "$DIRECT" -c "COMMIT")" "ok"

t_psql -d postgres -c "DROP DATABASE $DB" >/dev/null
t_summary
