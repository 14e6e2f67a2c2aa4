#!/usr/bin/env bash
# tests/concurrency/ledger_stress.sh — direct aggregate runs in several concurrent
# sessions that end in every way a session can end: completed, ROLLBACK, an error later in
# the statement, statement_timeout, pg_cancel_backend and pg_terminate_backend arriving at
# random moments (also while the charge is being written), and cancels that reach the
# ledger writer itself.  Afterwards no ledger row may
# stay 'charged': every run's outcome is posted, also when the session is cancelled or
# terminated while its outcomes are still on their way to the ledger writer.
#
# Bounded: STRESS_SESSIONS sessions x STRESS_ROUNDS rounds (defaults 4 x 25), a killer
# loop for as long as they run; well under 60 s.
#
#   PGHOST=... PGPORT=... PGUSER=<superuser> bash tests/concurrency/ledger_stress.sh
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

DB=dpobj_stress
SESSIONS=${STRESS_SESSIONS:-4}
ROUNDS=${STRESS_ROUNDS:-25}
WORK="$(mktemp -d "${TMPDIR:-/tmp}/dpobj-stress.XXXXXX")"
trap 'rm -rf -- "$WORK"' EXIT

t_fresh_db "$DB" || exit 1
t_psql -d "$DB" -c "$T_TABLE_SQL" \
    -c "CREATE TABLE direct AS SELECT ARRAY[a, b, 1]::float8[] AS f, y FROM pts" >/dev/null || exit 1

HS="dpobj.dp_halfspace(f, y, 0.5, 1e-6)"
LOG="dpobj.dp_logistic(ARRAY[a, b], y, 0.5, 1e-6, '{\"R\": 2}')"
LATE="1 / (0 * cardinality((m).weights))"
# one round of a session: NUL-free SQL on stdin for one psql (several statements)
round_sql() {
    case $((RANDOM % 7)) in
        0) echo "SELECT ($HS).weights FROM direct;" ;;
        1) echo "BEGIN; SELECT ($HS).weights FROM direct; ROLLBACK;" ;;
        2) echo "SELECT (m).weights, $LATE FROM (SELECT $HS AS m FROM direct) s;" ;;
        3) echo "SET statement_timeout = '$((RANDOM % 40 + 1))ms'; SELECT (m).weights, pg_sleep(0.05) FROM (SELECT $HS AS m FROM direct) s;" ;;
        4) echo "BEGIN; SAVEPOINT a; SELECT (m).weights, $LATE FROM (SELECT $LOG AS m FROM pts) s; ROLLBACK TO a; SELECT ($LOG).weights FROM pts; COMMIT;" ;;
        5) echo "SELECT ($LOG).weights, pg_sleep(0.02 * random()) FROM pts;" ;;
        6) echo "BEGIN; SELECT ($HS).weights FROM direct; SELECT ($LOG).weights FROM pts; SELECT $LATE FROM (SELECT $HS AS m FROM direct) s; COMMIT;" ;;
    esac
}
session() {
    local r
    for ((r = 0; r < ROUNDS; r++)); do
        round_sql | PGAPPNAME=dpobj_stress psql -X -q -At -d "$DB" >/dev/null 2>&1
    done
    touch "$WORK/done.$1"
}

for ((s = 0; s < SESSIONS; s++)); do
    session "$s" &
done
# the killer: cancels and terminates stress sessions at random moments
kills=0
while [[ $(ls "$WORK" | grep -c '^done\.') -lt $SESSIONS ]]; do
    if ((RANDOM % 3 == 0)); then fn=pg_terminate_backend; else fn=pg_cancel_backend; fi
    t_psql -d "$DB" -c "SELECT $fn(pid) FROM pg_stat_activity
                         WHERE application_name = 'dpobj_stress' AND random() < 0.5" >/dev/null 2>&1
    # a cancel that reaches the ledger writer itself (an administrator's sweep)
    t_psql -d "$DB" -c "SELECT pg_cancel_backend(pid) FROM pg_stat_activity
                         WHERE backend_type = 'dpobj ledger writer'" >/dev/null 2>&1
    kills=$((kills + 1))
    sleep "0.0$((RANDOM % 9 + 1))"
done
wait
echo "# $SESSIONS sessions x $ROUNDS rounds, $kills cancel/terminate sweeps"

runs=$(t_psql -d "$DB" -c "SELECT count(*) FROM dpobj.ledger")
t_check "the stress ran charged runs ($runs)" test "$runs" -gt "$SESSIONS"
# the outcomes are written by the ledger writer after their sessions ended: poll a while
charged=""
for ((i = 0; i < 100; i++)); do
    charged=$(t_psql -d "$DB" -c "SELECT count(*) FROM dpobj.ledger WHERE outcome = 'charged'")
    [[ "$charged" == 0 ]] && break
    sleep 0.1
done
t_is "no run is left 'charged'" "$charged" "0"
t_psql -d "$DB" -c "SELECT outcome, count(*) FROM dpobj.ledger GROUP BY 1 ORDER BY 1" | sed 's/^/# /'

t_psql -d postgres -c "DROP DATABASE $DB WITH (FORCE)" >/dev/null
t_summary
