#!/usr/bin/env bash
# tests/concurrency/ledger_slots.sh — a busy server does not make the ledger
# unusable, and no wait on the charge path is unbounded or uncancellable.
#
# Any role can take every background-worker slot with one parallel query
# (max_parallel_workers and max_parallel_workers_per_gather are user settings).  With
# every dynamic slot taken:
#   preloaded (shared_preload_libraries = 'dpobj', the ledger writers hold slots reserved
#   for them): a charge succeeds at once; a writer killed (pg_terminate_backend) is
#   replaced and the next charge still succeeds;
#   not preloaded (the one-shot worker per write): a charge waits at most
#   dpobj.ledger_timeout and fails with DP002 (nothing charged, nothing drawn), and a
#   cancel ends the wait at once.
# Also: more databases training at once than writers, and DROP DATABASE right after a
# training (a writer connected to the database must leave it).
#
# Needs control of the server (it is restarted without preloading, then with):
#   PGHOST, PGPORT, PGUSER (a superuser); DPOBJ_PGDATA; DPOBJ_PGCTL (a pg_ctl command
#   prefix run as the server's OS user); DPOBJ_PGLOG (optional).
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

: "${DPOBJ_PGDATA:?set DPOBJ_PGDATA to the server's data directory}"
: "${DPOBJ_PGCTL:?set DPOBJ_PGCTL to a pg_ctl command prefix run as the server's user}"
PGLOG="${DPOBJ_PGLOG:-$(dirname "$DPOBJ_PGDATA")/server.log}"
read -r -a PGCTL <<<"$DPOBJ_PGCTL"
DB=dpobj_slots
WORK="$(mktemp -d "${TMPDIR:-/tmp}/dpobj-slots.XXXXXX")"
filler=""
# (fill_slots runs in a command substitution, so $filler may be unknown here: the filler
# is found by its query)
stop_filler() {
    t_psql -d "$DB" -c "SELECT pg_cancel_backend(pid) FROM pg_stat_activity
                         WHERE query LIKE '%FROM filler%' AND backend_type = 'client backend'
                           AND pid <> pg_backend_pid()" >/dev/null 2>&1
    [[ -n "$filler" ]] && wait "$filler" 2>/dev/null
    filler=""
    local n
    for _ in $(seq 1 100); do      # its workers give their slots back (no database: none)
        n="$(t_psql -d "$DB" -c "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'parallel worker'" 2>/dev/null)" || break
        [[ "$n" == 0 ]] && break
        sleep 0.1
    done
}
server() {   # server start [extra postgres options]
    "${PGCTL[@]}" -D "$DPOBJ_PGDATA" -l "$PGLOG" -w -t 120 "$@" >/dev/null
}
cleanup() {
    stop_filler
    # leave the server as we found it: preloaded
    if [[ "$(t_psql -d postgres -c "SHOW shared_preload_libraries" 2>/dev/null)" != *dpobj* ]]; then
        "${PGCTL[@]}" -D "$DPOBJ_PGDATA" -m fast -w stop >/dev/null 2>&1
        server start
    fi
    rm -rf -- "$WORK"
}
trap cleanup EXIT

[[ "$(t_psql -d postgres -c "SHOW shared_preload_libraries")" == *dpobj* ]] ||
    { echo "not ok - the server must preload dpobj"; t_summary; exit 1; }
t_fresh_db "$DB" || exit 1
t_psql -d "$DB" -c "$T_TABLE_SQL" \
    -c "CREATE TABLE direct AS SELECT ARRAY[a, b, 1]::float8[] AS f, y FROM pts" \
    -c "CREATE TABLE filler (x int, pad text) WITH (fillfactor = 10)" \
    -c "INSERT INTO filler SELECT g, repeat('x', 1000) FROM generate_series(1, 3000) g" \
    -c "ALTER TABLE filler SET (parallel_workers = 1024)" \
    -c "VACUUM ANALYZE filler" >/dev/null || exit 1

PARALLEL="SET max_parallel_workers = 1024; SET max_parallel_workers_per_gather = 1024;
          SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0;
          SET min_parallel_table_scan_size = 0; SET parallel_leader_participation = off;"
# fill_slots: one parallel query takes every free dynamic worker slot for minutes; prints
# how many workers a second parallel query then gets (0: every slot is taken)
fill_slots() {
    psql -X -q -d "$DB" -c "$PARALLEL" \
        -c "SELECT count(*) FROM filler WHERE pg_sleep(0.5) IS NOT NULL" >/dev/null 2>&1 &
    filler=$!
    local i n=0 launched
    for ((i = 0; i < 100; i++)); do
        sleep 0.2
        n=$(t_psql -d "$DB" -c "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'parallel worker'")
        [[ "$n" -gt 0 ]] && break
    done
    sleep 0.5
    launched=$(psql -X -q -At -d "$DB" -c "$PARALLEL" \
                   -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) SELECT count(*) FROM filler WHERE x < 0" |
               sed -n 's/.*Workers Launched: \([0-9]*\).*/\1/p')
    echo "# $n parallel workers hold the slots" >&2
    echo "${launched:-none}"
}
# charge [psql options...]: one direct run; prints "ok", or the SQLSTATE; then the time in ms
charge() {
    local start out
    start=$(date +%s%N)
    out=$(psql -X -q -At -d "$DB" -c '\set VERBOSITY sqlstate' "$@" \
              -c "SELECT 'ok' FROM (SELECT dpobj.dp_halfspace(f, y, 0.5, 1e-6) AS m FROM direct) s
                  WHERE (m).weights IS NOT NULL" 2>&1)
    echo "$(echo "$out" | sed -n 's/^ok$/ok/p; s/^ERROR:  \([0-9A-Z]*\)$/\1/p' | head -n 1) $(( ($(date +%s%N) - start) / 1000000 ))"
}

echo "# preloaded: the writers' slots are reserved"
charge >/dev/null   # a writer connects to $DB
t_is "one parallel query takes every free worker slot (another gets 0 workers)" "$(fill_slots)" "0"
read -r res ms < <(charge)
t_is "a charge succeeds with every dynamic slot taken" "$res" "ok"
t_check "... promptly (${ms} ms)" test "$ms" -lt 3000
t_psql -d "$DB" -c "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE backend_type = 'dpobj ledger writer'" >/dev/null
read -r res ms < <(charge)
t_is "with its writers killed and every slot taken, the next charge succeeds" "$res" "ok"
t_check "... within 5 s (${ms} ms)" test "$ms" -lt 5000
t_is "the writers came back" \
    "$(t_psql -d "$DB" -c "SELECT count(*) > 0 FROM pg_stat_activity WHERE backend_type = 'dpobj ledger writer'")" "t"
stop_filler

echo "# more databases than writers, and DROP DATABASE right after training"
writers=$(t_psql -d postgres -c "SHOW dpobj.ledger_writers")
dbs=()
for ((k = 0; k <= writers; k++)); do
    dbs+=("${DB}_$k")
    t_fresh_db "${DB}_$k" >/dev/null && t_psql -d "${DB}_$k" -c "$T_TABLE_SQL" >/dev/null
done
for d in "${dbs[@]}"; do
    psql -X -q -At -d "$d" -c "SELECT count(w) FROM generate_series(1, 5) g,
                                LATERAL (SELECT (dpobj.dp_halfspace(ARRAY[a, b, 1]::float8[], y, 0.1, 1e-6)).weights AS w
                                           FROM pts WHERE g > 0) s" >"$WORK/$d.out" 2>&1 &
done
wait
ok=0
for d in "${dbs[@]}"; do
    [[ "$(cat "$WORK/$d.out")" == 5 ]] && ok=$((ok + 1))
done
t_is "$((writers + 1)) databases trained at once with $writers writers" "$ok" "$((writers + 1))"
t_is "... and every run was released" \
    "$(for d in "${dbs[@]}"; do t_psql -d "$d" -c "SELECT count(*) FROM dpobj.ledger WHERE outcome = 'released'"; done | awk '{ s += $1 } END { print s }')" \
    "$((5 * (writers + 1)))"
dropped=0
for d in "${dbs[@]}"; do
    t_psql -d postgres -c "DROP DATABASE $d" >/dev/null 2>"$WORK/drop.err" && dropped=$((dropped + 1))
done
t_is "DROP DATABASE right after training succeeds (the writer leaves)" "$dropped" "${#dbs[@]}"

echo "# not preloaded: one worker per write, bounded and cancellable"
"${PGCTL[@]}" -D "$DPOBJ_PGDATA" -m fast -w stop >/dev/null
server start -o "-c shared_preload_libraries="
t_is "the server runs without dpobj preloaded" \
    "$(t_psql -d postgres -c "SHOW shared_preload_libraries")" ""
read -r res ms < <(charge)
t_is "a charge works without preloading" "$res" "ok"
t_is "one parallel query takes every free worker slot (another gets 0 workers)" "$(fill_slots)" "0"
read -r res ms < <(charge -c "SET dpobj.ledger_timeout = '1500ms'")
t_is "with every slot taken the charge fails closed (DP002)" "$res" "DP002"
t_check "... after dpobj.ledger_timeout, not 30 s (${ms} ms)" test "$ms" -ge 1400 -a "$ms" -lt 6000
start=$(date +%s%N)
psql -X -q -At -d "$DB" -c "SELECT dpobj.dp_halfspace(f, y, 0.7, 1e-6) FROM direct" >"$WORK/cancel.out" 2>&1 &
caller=$!
sleep 1
t_psql -d "$DB" -c "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE query LIKE '%0.7, 1e-6%' AND pid <> pg_backend_pid()" >/dev/null
wait "$caller"
ms=$(( ($(date +%s%N) - start) / 1000000 ))
t_is "waiting for a slot can be cancelled" "$(grep -c 'canceling statement due to user request' "$WORK/cancel.out")" "1"
t_check "... at once (${ms} ms in all)" test "$ms" -lt 4000
stop_filler

# a charged run whose session is terminated while every worker slot is taken: its outcome
# waits for a slot (up to dpobj.ledger_timeout) instead of being dropped at exit
psql -X -q -At -d "$DB" -c "SET dpobj.ledger_timeout = '60s'" -c "SELECT (m).weights IS NOT NULL, pg_sleep(30)
                              FROM (SELECT dpobj.dp_halfspace(f, y, 0.9, 1e-6) AS m FROM direct) s" \
    >"$WORK/victim.out" 2>&1 &
victim=$!
for _ in $(seq 1 100); do
    [[ "$(t_psql -d "$DB" -c "SELECT count(*) FROM dpobj.ledger WHERE epsilon = 0.9")" == 1 ]] && break
    sleep 0.1
done
t_is "the run was charged (its outcome still open)" \
    "$(t_psql -d "$DB" -c "SELECT outcome FROM dpobj.ledger WHERE epsilon = 0.9")" "charged"
t_is "every worker slot is taken again" "$(fill_slots)" "0"
t_psql -d "$DB" -c "SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                     WHERE query LIKE '%0.9, 1e-6%' AND pid <> pg_backend_pid()" >/dev/null
sleep 2          # the terminated backend waits for a slot (its client until it exits)
stop_filler
wait "$victim"
for _ in $(seq 1 150); do
    out=$(t_psql -d "$DB" -c "SELECT outcome FROM dpobj.ledger WHERE epsilon = 0.9")
    [[ "$out" != charged ]] && break
    sleep 0.1
done
t_is "... and its outcome is written once a slot frees up: aborted, not left charged" "$out" "aborted"

t_is "nothing was charged by the refused and cancelled attempts" \
    "$(t_psql -d "$DB" -c "SELECT count(*) FROM dpobj.ledger WHERE epsilon = 0.7 OR outcome = 'charged'")" "0"

"${PGCTL[@]}" -D "$DPOBJ_PGDATA" -m fast -w stop >/dev/null
server start
t_psql -d postgres -c "DROP DATABASE $DB" >/dev/null
t_summary
