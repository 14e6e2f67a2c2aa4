#!/usr/bin/env bash
# tests/jobs/inflight.sh — runs on one budget are charged in the order they start, whatever
# their run times: a session's train() on a large member table of a budget domain is in its
# scan (not yet charged) when (1) the role submits a job on a small member table of the same
# domain, and (2) when another session of the role runs train() on the small table: the job
# or the second session used to be charged first; now it waits for the session run.
# Needs PGHOST/PGPORT/PGUSER (a superuser) and dpobj preloaded.
set -uo pipefail
DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=tests/jobs/lib.sh
. "$DIR/lib.sh"
DB=dpobj_job_inflight
ANALYST=dpobj_jif_analyst

t_role "$ANALYST" >/dev/null
t_fresh_db "$DB" >/dev/null || { echo "not ok - could not create $DB"; t_summary; exit 1; }
t_psql -d "$DB" -c "CREATE TABLE big AS
      SELECT i AS person, (i % 7) / 4.0 - 0.75 AS a, (i % 5) / 4.0 - 0.5 AS b, (i % 7) > 3 AS y
        FROM generate_series(1, 1500000) i;
    CREATE TABLE small AS SELECT * FROM big WHERE person <= 200;
    REVOKE ALL ON big, small FROM PUBLIC" \
    -c "SELECT dpobj.create_budget_domain('people')" \
    -c "SELECT dpobj.protect('big', 'person', 1, 'people'), dpobj.protect('small', 'person', 1, 'people')" \
    -c "SELECT 1 FROM dpobj.grant_domain_budget('people', '$ANALYST', 10, 0.001)" >/dev/null

run() { echo "SELECT dpobj.$1('$2', 'expmech', ARRAY['a', 'b'], 'y', 0.1, 1e-6) IS NOT NULL"; }
# starts the session run on big in the background; returns once it holds a lock on big (it
# runs) and then its budget's run lock (advisory, class 0x4452; at most 0.1 s more: the old
# code took none), polling in one session, every 10 ms
start_big() {
    t_psql -d "$DB" -c "SET ROLE $ANALYST" -c "$(run train big)" >/dev/null 2>&1 &
    BIG=$!
    t_psql -d "$DB" -c "DO \$\$ BEGIN
        FOR i IN 1..1000 LOOP
            EXIT WHEN EXISTS (SELECT 1 FROM pg_locks WHERE relation = 'big'::regclass AND mode = 'AccessShareLock'
                                                       AND pid <> pg_backend_pid());
            PERFORM pg_sleep(0.01);
        END LOOP;
        FOR i IN 1..10 LOOP
            EXIT WHEN EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 17490
                                                       AND mode = 'ExclusiveLock' AND granted);
            PERFORM pg_sleep(0.01);
        END LOOP;
    END \$\$"
}
charged() {
    t_psql -d "$DB" -c "SELECT string_agg(relation, ',' ORDER BY id) FROM dpobj.ledger WHERE budget_domain = 'people'"
}

# 1. a job submitted while a session run on its budget scans
start_big
J=$(t_psql -d "$DB" -c "SET ROLE $ANALYST" \
    -c "SELECT dpobj.submit('small', 'expmech', ARRAY['a', 'b'], 'y', 0.1, 1e-6)")
t_wait_state "$DB" "$J" 'succeeded|failed' 300 >/dev/null
wait "$BIG"
t_is "the job succeeds" "$(t_psql -d "$DB" -c "SELECT state FROM dpobj.job_queue WHERE id = $J")" "succeeded"
t_is "the session run (started first) is charged before the job" "$(charged)" "public.big,public.small"

# 2. a second session of the role while the first one's run scans
start_big
OUT=$(t_psql -d "$DB" -c "SET ROLE $ANALYST" -c "$(run train small)" 2>&1)
wait "$BIG"
t_is "a second session's run on the budget succeeds" "$OUT" "t"
t_is "the first session's run is charged before it" "$(charged)" "public.big,public.small,public.big,public.small"

t_psql -d postgres -c "DROP DATABASE $DB" >/dev/null
t_summary
