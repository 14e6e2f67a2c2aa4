#!/usr/bin/env bash
# tests/concurrency/barrier.sh — a long run does not hold other sessions up: DROP DATABASE
# waits until every backend has absorbed a cluster-wide barrier, which a charged run's loop
# absorbs when it polls for a cancel (mechanism_poll(), src/mechanisms/mechanism.h).  A
# noisy-GD run long enough to outlast the DROP is started; the DROP of another database
# must return while that run is still running.  A run that ended first (a machine so fast
# that the run is over) fails the test rather than passing it: it proves nothing.
#
#   PGHOST=... PGPORT=... PGUSER=<superuser> bash tests/concurrency/barrier.sh
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

DB=dpobj_barrier
OTHER=dpobj_barrier_other
APP=dpobj_barrier_run
t_fresh_db "$DB" || exit 1
t_psql -d postgres -c "DROP DATABASE IF EXISTS $OTHER" -c "CREATE DATABASE $OTHER" >/dev/null || exit 1
t_psql -d "$DB" -c "CREATE TABLE t AS SELECT ARRAY[random(), random(), random()]::float8[] AS f,
                                              random() > 0.5 AS y FROM generate_series(1, 200000)" \
    >/dev/null || exit 1

# the run: many passes over 200 000 rows (minutes); cancelled once the DROP is checked
PGAPPNAME=$APP psql -X -q -d "$DB" \
    -c "SELECT dpobj.dp_noisysgd(f, y, 1, 1e-6, '{\"T\": 50000, \"R\": 2}') FROM t" >/dev/null 2>&1 &
run=$!
active() {
    t_psql -d postgres -c "SELECT count(*) FROM pg_stat_activity
                            WHERE application_name = '$APP' AND state = 'active'
                              AND now() - query_start > interval '1 second'"
}
for _ in $(seq 1 120); do
    [[ "$(active)" == 1 ]] && break
    sleep 0.5
done
t_is "the long run is under way" "$(active)" "1"
start=$SECONDS
# without the barrier absorbed, the DROP would wait for the run's end: a minute is enough
t_psql -d postgres -c "SET statement_timeout = '60s'" -c "DROP DATABASE $OTHER" >/dev/null 2>&1
dropped=$?
t_is "DROP DATABASE succeeds while the run is still running (after $((SECONDS - start)) s)" \
    "$dropped/$(active)" "0/1"
t_psql -d postgres -c "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE application_name = '$APP'" >/dev/null
wait "$run"
t_summary
