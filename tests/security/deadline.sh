#!/usr/bin/env bash
# tests/security/deadline.sh — the release deadline closes the run-time channel:
#   1. without a deadline two neighbouring-style protected runs (the exponential mechanism
#      over a 7 153-point grid on 8 000 distinct rows against one distinct row) take clearly
#      different times (the channel exists, so the checks below can fail);
#   2. with "deadline": 3 both return at >= 3 s and within 1.5 s after it;
#   3. a sealed failure (OPDisc with GLPK cut short by the deadline: DP006) and a release
#      both come at the deadline;
#   4. the owner's floor (set_release_deadline) holds when the analyst asks for less or
#      nothing; the analyst cannot lower it; a dpobj_admin member may raise it only;
#   5. a run that failed early keeps the ledger outcome 'charged' until the deadline
#      (without a deadline the outcome is visible at once);
#   6. a cancel during the wait ends the call at once, and the ledger says 'cancelled'
#      with the same detail as a cancel during the computation; pg_stat_activity shows no
#      wait event while waiting;
#   7. progress NOTICEs: only "scanning" at the start and "releasing" at the deadline;
#   8. submit(): the job's finish time and state change come at the deadline, its phase
#      stays "scanning" meanwhile.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
DB=dpobj_sec_deadline
A=dpobj_dl_alice
O=dpobj_dl_owner
M=dpobj_dl_admin
t_role $A && t_role $O && t_role $M || exit 1
t_psql -d postgres -c "DO \$\$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'dpobj_admin')
                        THEN CREATE ROLE dpobj_admin NOLOGIN; END IF; END \$\$" -c "GRANT dpobj_admin TO $M" >/dev/null
t_fresh_db "$DB" || exit 1
t_psql -d "$DB" -c "$T_HARD_SQL" -c "$T_TABLE_SQL" \
    -c "$T_SPREAD_SQL" \
    -c "SELECT dpobj.protect(t) FROM unnest(ARRAY['hard', 'pts', 'big', 'small']::regclass[]) t" \
    -c "SELECT 1 FROM unnest(ARRAY['hard', 'pts', 'big', 'small']::regclass[]) t, dpobj.grant_budget(t, '$A', 1000, 0.5)" \
    -c "CREATE TABLE owned (a float8, y boolean); ALTER TABLE owned OWNER TO $O" \
    -c "SELECT dpobj.protect('owned')" >/dev/null || exit 1

as() { local r=$1; shift; t_psql -d "$DB" -c "SET ROLE $r" "$@"; }
expmech() {  # TABLE OPTIONS-EXTRA: the exponential mechanism over a 7 153-point grid
    echo "SELECT (dpobj.train('$1', 'expmech', ARRAY['a','b','c'], 'y', 1, 0.000001, '{\"B\": 12, \"D2\": 144${2:-}}')).weights"
}
# a psql run as alice: its elapsed ms in $MS, its SQLSTATE (or ok) in $OUT_STATE
timed() {
    local t0 t1 out
    t0=$(date +%s%N)
    out=$(psql -X -q -At -d "$DB" -v ON_ERROR_STOP=1 -v VERBOSITY=sqlstate -c "SET ROLE $A" "$@" 2>&1 >/dev/null)
    t1=$(date +%s%N)
    OUT_STATE=$([[ -z $out ]] && echo ok || sed -nE 's/^(psql:[^ ]* )?ERROR:  ([0-9A-Z]{5}).*/\2/p' <<<"$out" | tail -n 1)
    MS=$(((t1 - t0) / 1000000))
}
between() { (($1 >= $2 && $1 <= $3)); }
t_wait_state() {  # DB JOB STATES SECONDS (as tests/jobs/lib.sh)
    local st="" i
    for ((i = 0; i < $4 * 10; i++)); do
        st=$(t_psql -d "$1" -c "SELECT state FROM dpobj.job_queue WHERE id = $2" 2>/dev/null)
        [[ "$st" =~ ^($3)$ ]] && break
        sleep 0.1
    done
    printf '%s' "$st"
}

# --- 1. the channel: without a deadline the run times differ
timed -c "$(expmech big)"; big=$MS
timed -c "$(expmech small)"; small=$MS
echo "# without a deadline: big ${big} ms, small ${small} ms"
t_check "without a deadline the 8 000-row run takes 300 ms longer than the 1-row run" \
    test $((big - small)) -ge 300

# --- 2. with a deadline both come at it
timed -c "$(expmech big ', "deadline": 3')"; big=$MS
timed -c "$(expmech small ', "deadline": 3')"; small=$MS
echo "# deadline 3 s: big ${big} ms, small ${small} ms"
t_check "the 8 000-row run returns at >= 3 s, within 1.5 s after" between "$big" 3000 4500
t_check "the 1-row run returns at >= 3 s, within 1.5 s after" between "$small" 3000 4500

# --- 3. a sealed failure and a release, both at the deadline
HARD="SELECT weights FROM dpobj.train('hard', 'opdisc', ARRAY['a', 'b', 'one'], 'y', 3.5, 0.00001, '{\"oracle\": \"mip\", \"deadline\": 2}')"
EASY="SELECT weights FROM dpobj.train('pts', 'opdisc', ARRAY['a', 'b'], 'y', 0.25, 0.000001, '{\"deadline\": 2}')"
timed -c "$HARD"; ms=$MS
t_is "GLPK cut short by the deadline: a sealed failure (DP006)" "$OUT_STATE" "DP006"
t_check "... delivered at >= 2 s, within 1.5 s after ($ms ms)" between "$ms" 2000 3500
t_is "... the search stopped in time: the ledger says not_certified" \
    "$(t_psql -d "$DB" -c "SELECT outcome FROM dpobj.ledger WHERE relation LIKE '%hard' ORDER BY id DESC LIMIT 1")" "not_certified"
timed -c "$EASY"; ms=$MS
t_is "the easy run releases" "$OUT_STATE" "ok"
t_check "... at >= 2 s, within 1.5 s after ($ms ms)" between "$ms" 2000 3500

# --- 4. the owner's floor
t_is "an analyst cannot set the floor (42501)" \
    "$(sqlstate "$DB" -c "SET ROLE $A" -c "SELECT dpobj.set_release_deadline('pts', 0)")" "42501"
t_is "the owner sets 2 s" "$(as $O -c "SELECT dpobj.set_release_deadline('owned', 2)")" "2"
t_is "a dpobj_admin member raises it to 3 s" "$(as $M -c "SELECT dpobj.set_release_deadline('owned', 3)")" "3"
t_is "... but cannot lower it (42501)" \
    "$(sqlstate "$DB" -c "SET ROLE $M" -c "SELECT dpobj.set_release_deadline('owned', 1)")" "42501"
t_is "the owner lowers it to 1 s" "$(as $O -c "SELECT dpobj.set_release_deadline('owned', 1)")" "1"
t_psql -d "$DB" -c "SELECT dpobj.set_release_deadline('pts', 2)" >/dev/null
t_is "the floor is public to the analyst" \
    "$(as $A -c "SELECT release_deadline FROM dpobj.protected_tables WHERE relid = 'pts'::regclass")" "2"
EASY0="SELECT weights FROM dpobj.train('pts', 'opdisc', ARRAY['a', 'b'], 'y', 0.25, 0.000001)"
timed -c "$EASY0"; ms=$MS
t_check "no option: the floor holds (>= 2 s: $ms ms)" between "$ms" 2000 3500
timed -c "${EASY0%)}, '{\"deadline\": 0}')"; ms=$MS
t_check "\"deadline\": 0 does not lower it ($ms ms)" between "$ms" 2000 3500
timed -c "${EASY0%)}, '{\"deadline\": 3}')"; ms=$MS
t_check "\"deadline\": 3 raises it ($ms ms)" between "$ms" 3000 4500
t_psql -d "$DB" -c "SELECT dpobj.set_release_deadline('pts', 0)" >/dev/null

# --- 5. an early failure's ledger outcome is held to the deadline
t_psql -d postgres -c "ALTER DATABASE $DB SET dpobj.protected_time_limit = 0.3" >/dev/null
outcome_at_2s() {  # OPTIONS: the outcome of alice's newest hard run 2 s after it started
    local before pid out
    before=$(t_psql -d "$DB" -c "SELECT coalesce(max(id), 0) FROM dpobj.ledger")
    psql -X -q -At -d "$DB" -c "SET ROLE $A" \
        -c "SELECT weights FROM dpobj.train('hard', 'opdisc', ARRAY['a', 'b', 'one'], 'y', 3.5, 0.00001, '{\"oracle\": \"mip\"$1}')" >/dev/null 2>&1 &
    pid=$!
    sleep 2
    out=$(t_psql -d "$DB" -c "SELECT outcome FROM dpobj.ledger WHERE id > $before")
    wait "$pid"
    echo "$out"
}
t_is "without a deadline a not-certified run shows at once" "$(outcome_at_2s '')" "not_certified"
t_is "with \"deadline\": 4 it stays 'charged' until the deadline" "$(outcome_at_2s ', "deadline": 4')" "charged"
t_is "... and is recorded after it" \
    "$(t_psql -d "$DB" -c "SELECT outcome FROM dpobj.ledger ORDER BY id DESC LIMIT 1")" "not_certified"
t_psql -d postgres -c "ALTER DATABASE $DB RESET dpobj.protected_time_limit" >/dev/null

# --- 6. a cancel during the wait, and during the computation
WAITEV=$(mktemp)
trap 'rm -f "$WAITEV"' EXIT
cancel_after() {  # SECONDS SQL: cancel alice's run after SECONDS; prints "ms outcome|detail"
    local pid t0 t1 before
    before=$(t_psql -d "$DB" -c "SELECT coalesce(max(id), 0) FROM dpobj.ledger")
    PGAPPNAME=dl_cancel psql -X -q -At -d "$DB" -c "SET ROLE $A" -c "$2" >/dev/null 2>&1 &
    pid=$!
    sleep "$1"
    t_psql -d postgres -c "SELECT coalesce(wait_event_type, '-') FROM pg_stat_activity WHERE application_name = 'dl_cancel'" >"$WAITEV"
    t0=$(date +%s%N)
    t_psql -d postgres -c "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE application_name = 'dl_cancel'" >/dev/null
    wait "$pid"
    t1=$(date +%s%N)
    echo "$(((t1 - t0) / 1000000)) $(t_psql -d "$DB" -c "SELECT outcome || '|' || detail FROM dpobj.ledger WHERE id > $before")"
}
r=$(cancel_after 1.5 "$(expmech small ', "deadline": 10')")
echo "# cancel during the wait: $r"
t_check "a cancel during the wait ends the call within 1.5 s" test "${r%% *}" -le 1500
t_is "... pg_stat_activity showed no wait event while waiting" "$(cat "$WAITEV")" "-"
t_is "... the ledger says cancelled|interrupted" "${r#* }" "cancelled|interrupted"
r=$(cancel_after 0.3 "$(expmech big ', "deadline": 10')")
echo "# cancel during the computation: $r"
t_is "a cancel during the computation leaves the same ledger outcome" "${r#* }" "cancelled|interrupted"

# --- 7. progress NOTICEs
notices() { psql -X -q -At -d "$DB" -c "SET ROLE $A" -c "SET dpobj.progress = on" -c "$1" 2>&1 >/dev/null |
            sed -nE 's/^NOTICE:  dpobj progress: ([a-z]+),.*/\1/p' | uniq | tr '\n' ' '; }
t_is "without a deadline the phases show when the solve starts and ends" \
    "$(notices "${EASY0}")" "scanning solving releasing "
t_is "with a deadline: scanning at the start, releasing at the deadline, nothing between" \
    "$(notices "${EASY0%)}, '{\"deadline\": 1}')")" "scanning releasing "

# --- 8. submit(): the job finishes at the deadline
job=$(as $A -c "SELECT dpobj.submit('pts', 'opdisc', ARRAY['a', 'b'], 'y', 0.25, 0.000001, '{\"deadline\": 3}')")
t_wait_state "$DB" "$job" 'running|succeeded|failed' 30 >/dev/null
sleep 1
t_is "the job's phase stays scanning while it waits" \
    "$(as $A -c "SELECT state || ' ' || coalesce(phase, '-') FROM dpobj.jobs WHERE id = $job")" "running scanning"
state=$(t_wait_state "$DB" "$job" 'succeeded|failed|cancelled' 30)
t_is "the job succeeds" "$state" "succeeded"
t_check "its visible run time is >= 3 s" \
    test "$(t_psql -d "$DB" -c "SELECT extract(epoch FROM finished_at - started_at) >= 3 FROM dpobj.job_queue WHERE id = $job")" = t

t_summary
