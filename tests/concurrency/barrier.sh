#!/usr/bin/env bash
# tests/concurrency/barrier.sh — a long run does not hold other sessions up: DROP DATABASE
# waits until every backend has absorbed a cluster-wide barrier, which a charged run's loop
# absorbs when it polls for a cancel (mechanism_poll(), src/mechanisms/mechanism.h) and a
# solver when it polls from inside (dpobj_absorb_barrier(), src/base/clientcheck.h: GLPK's
# callback, the exact search's and the minimisers' polls, one function).  Per run -- noisy GD's
# passes, a GLPK MIP that needs minutes -- one long enough to outlast the DROP is started; the DROP
# of another database must return while that run is still running.  A run that ended first
# (a machine so fast that the run is over) fails the test rather than passing it: it proves
# nothing.
#
#   PGHOST=... PGPORT=... PGUSER=<superuser> bash tests/concurrency/barrier.sh
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

DB=dpobj_barrier
OTHER=dpobj_barrier_other
APP=dpobj_barrier_run
t_fresh_db "$DB" || exit 1
t_psql -d "$DB" -c "CREATE TABLE t AS SELECT ARRAY[random(), random(), random()]::float8[] AS f,
                                              random() > 0.5 AS y FROM generate_series(1, 200000)" \
    >/dev/null || exit 1

active() {
    t_psql -d postgres -c "SELECT count(*) FROM pg_stat_activity
                            WHERE application_name = '$APP' AND state = 'active'
                              AND now() - query_start > interval '1 second'"
}
# long_run NAME SQL: SQL runs in the background as $APP; another database is dropped
# under it; the run is cancelled afterwards
long_run() {
    local run start dropped
    t_psql -d postgres -c "DROP DATABASE IF EXISTS $OTHER" -c "CREATE DATABASE $OTHER" >/dev/null || return 1
    PGAPPNAME=$APP psql -X -q -d "$DB" -c "$2" >/dev/null 2>&1 &
    run=$!
    for _ in $(seq 1 120); do
        [[ "$(active)" == 1 ]] && break
        sleep 0.5
    done
    t_is "$1: the long run is under way" "$(active)" "1"
    start=$SECONDS
    # without the barrier absorbed, the DROP would wait for the run's end: a minute is enough
    t_psql -d postgres -c "SET statement_timeout = '60s'" -c "DROP DATABASE $OTHER" >/dev/null 2>&1
    dropped=$?
    t_is "$1: DROP DATABASE succeeds while the run is still running (after $((SECONDS - start)) s)" \
        "$dropped/$(active)" "0/1"
    t_psql -d postgres -c "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE application_name = '$APP'" >/dev/null
    wait "$run"
}

# many passes over 200 000 rows (minutes)
long_run "noisy GD" "SELECT dpobj.dp_noisysgd(f, y, 1, 1e-6, '{\"T\": 50000, \"R\": 2}') FROM t"
# GLPK's branch and cut on hundreds of distinct continuous rows (minutes; tests/03_cancel.sql)
long_run "OPDisc, GLPK MIP" "SELECT dpobj.dp_halfspace(
        ARRAY[(abs(hashint4(g)) % 129 - 64) / 64.0, (abs(hashint4(g + 100000)) % 129 - 64) / 64.0, 1]::float8[],
        hashint4(g + 200000) % 2 = 0, 3.5, 1e-5, '{\"oracle\": \"mip\", \"time_limit\": 0}')
      FROM generate_series(1, 600) g"
t_summary
