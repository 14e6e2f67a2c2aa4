#!/usr/bin/env bash
# tests/security/waitevents.sh — the wait events of a protected run (docs/SECURITY.md).
# pg_stat_activity shows a backend's current wait event to every session of the same role.
# At a 64kB cap a privacy unit's bounding counts 922 units in memory and sorts 923, and
# the sort of 151 921 rows writes temporary files (IO:BufFileWrite/BufFileRead): a second
# session of the analyst, polling its own train() call (or its submit() job's worker, which
# logs in as the analyst), would tell the neighbours apart, with or without a release
# deadline.  The two tables differ in one row (moved into a new unit); the poller collects
# the distinct wait events of the run, which must be the same set for both (none), and no
# BufFile event; the superuser's direct sort shows that the far table does spill, so the
# comparison has something to hide.
# Needs PGHOST/PGPORT/PGUSER (a superuser), dpobj installed and preloaded.
set -uo pipefail
DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=tests/security/lib.sh
. "$DIR/lib.sh"
DB=dpobj_waitevents
ROLE=dpobj_waitevents_analyst
APP=dpobj_waitevents_run

t_psql -d postgres -c "DROP ROLE IF EXISTS $ROLE" -c "CREATE ROLE $ROLE LOGIN" >/dev/null &&
    t_fresh_db "$DB" >/dev/null || exit 1
# unear: 151 921 rows in 922 units; ufar: the last row moved into a 923rd unit
t_psql -d "$DB" \
    -c "CREATE TABLE unear AS SELECT g % 922 AS u, (g % 7) / 4.0 - 0.75 AS a,
          (g % 5) / 4.0 - 0.5 AS b, g % 3 = 0 AS y FROM generate_series(1, 151921) g" \
    -c "CREATE TABLE ufar AS SELECT CASE WHEN g = 151921 THEN 999999 ELSE g % 922 END AS u,
          (g % 7) / 4.0 - 0.75 AS a, (g % 5) / 4.0 - 0.5 AS b, g % 3 = 0 AS y
          FROM generate_series(1, 151921) g" \
    -c "ALTER TABLE unear SET (autovacuum_enabled = off)" \
    -c "ALTER TABLE ufar SET (autovacuum_enabled = off)" \
    -c "REVOKE ALL ON ufar, unear FROM PUBLIC" \
    -c "ANALYZE ufar, unear" \
    -c "SELECT count(*) FROM unnest(ARRAY['ufar', 'unear']) t,
          dpobj.protect(t, privacy_unit => 'u', max_rows_per_unit => 3)" \
    -c "SELECT count(*) FROM unnest(ARRAY['ufar', 'unear']) t,
          dpobj.grant_budget(t, '$ROLE', 1000, 0.5)" \
    -c "ALTER DATABASE $DB SET dpobj.max_state_memory = '64kB'" \
    -c "CREATE FUNCTION public.poll_waits(app text, secs float8) RETURNS text
          LANGUAGE plpgsql AS \$\$
        DECLARE
          seen text[] := '{}';
          st text;
          ev text;
          was_active bool := false;
          t0 timestamptz := clock_timestamp();
        BEGIN
          LOOP
            PERFORM pg_stat_clear_snapshot();
            SELECT state, wait_event_type || ':' || wait_event INTO st, ev
              FROM pg_stat_activity WHERE application_name = app;
            IF st = 'active' THEN
              was_active := true;
              IF ev IS NOT NULL AND NOT ev = ANY (seen) THEN seen := seen || ev; END IF;
            ELSIF was_active THEN
              EXIT;
            END IF;
            EXIT WHEN clock_timestamp() - t0 > secs * interval '1 second';
            PERFORM pg_sleep(0.005);
          END LOOP;
          RETURN CASE WHEN was_active THEN 'events:' || array_to_string(
                   ARRAY(SELECT e FROM unnest(seen) e ORDER BY 1), ',') ELSE 'never active' END;
        END \$\$" >/dev/null || exit 1

t_check "the far table's sorted bounding spills past 64kB (the superuser's direct sort)" \
    test "$(t_psql -d "$DB" -c "SET work_mem = '64kB'" -c "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, SUMMARY OFF)
        SELECT count(*) FROM (SELECT a, b, y, row_number() OVER (PARTITION BY u ORDER BY dpobj.unit_row_key()) r
                                FROM ufar) s WHERE r <= 3" | grep -c 'temp read')" -gt 0

# events FN TABLE OPTS: the distinct wait events a second session of the analyst sees while
# the analyst's train() (FN train) or submit() job (FN submit) on TABLE runs (three observed
# runs, to catch short events; a run the 5 ms poll never saw active, as a job's short run
# under load can be, is repeated, up to 10 runs; "never active" if fewer were seen)
events() {
    local fn="$1" tbl="$2" opts="$3" app=$APP seen=0 tries=0 poll all=""
    [[ $fn == submit ]] && app="dpobj job"
    while ((seen < 3 && tries < 10)); do
        tries=$((tries + 1))
        psql -X -q -At -d "$DB" -U "$ROLE" -c "SELECT public.poll_waits('$app', 20)" >"$OUT.poll" 2>&1 &
        poll=$!
        sleep 0.2
        PGAPPNAME=$APP psql -X -q -At -d "$DB" -U "$ROLE" \
            -c "SELECT 1 FROM dpobj.$fn('$tbl', 'logistic', ARRAY['a', 'b'], 'y', 1, 1e-6, '$opts')" \
            >"$OUT.run" 2>&1 || { echo "run failed: $(cat "$OUT.run")"; }
        wait "$poll"
        grep -qx 'never active' "$OUT.poll" && continue
        seen=$((seen + 1))
        all="$all,$(sed 's/^events://' "$OUT.poll")"
    done
    ((seen == 3)) || all="$all,never active"
    # the ledger's outcome posting after the release (src/ledger/ledgerrun.c) waits in 10 ms
    # latch sleeps (Extension:Extension), outside the run, which a poll catches or not
    tr ',' '\n' <<<"$all" | grep -v -e '^$' -e '^Extension:Extension$' | sort -u | paste -sd, -
}
OUT=$(mktemp "${TMPDIR:-/tmp}/dpobj-waitevents.XXXXXX")
trap 'rm -f "$OUT" "$OUT".*' EXIT

while read -r fn opts; do
    near=$(events "$fn" unear "$opts")
    far=$(events "$fn" ufar "$opts")
    echo "# $fn $opts: near {$near}, far {$far}"
    t_is "$fn $opts: the analyst sees the same wait events on both tables" "$far" "$near"
    t_check "$fn $opts: ... and no temporary-file I/O" \
        bash -c "! grep -q BufFile <<<'$near,$far'"
done <<'RUNS'
train {"R": 2, "encode": false}
train {"R": 2, "encode": false, "deadline": 2}
submit {"R": 2, "encode": false}
RUNS

# A parallel worker of the sealed query waits into the sink from its start, before its first
# row (dpobj.sealed_scan, which seal.c pins and the workers inherit): a parallel query that
# sleeps in its workers shows their sleep with the setting off, nothing with it on.
t_psql -d "$DB" -c "CREATE TABLE pw AS SELECT g FROM generate_series(1, 200000) g" -c "ANALYZE pw" >/dev/null
worker_waits() { # SETTING: the distinct wait events of the workers of a parallel query
    psql -X -q -At -d "$DB" >/dev/null 2>&1 <<SQL &
SET dpobj.sealed_scan = $1; SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0; SET max_parallel_workers_per_gather = 2;
SELECT count(*) FROM pw WHERE CASE WHEN g % 20000 = 0 THEN pg_sleep(0.3) IS NOT NULL ELSE false END;
SQL
    local seen="" i
    for ((i = 0; i < 40; i++)); do
        seen+="$(t_psql -d postgres -c "SELECT string_agg(DISTINCT wait_event_type || ':' || wait_event, ',')
                  FROM pg_stat_activity WHERE backend_type = 'parallel worker'"),"
        sleep 0.02
    done
    wait
    tr ',' '\n' <<<"$seen" | grep -v '^$' | sort -u | paste -sd,
}
# (the control: the workers' sleep is among what the poll sees; a worker may also wait on a
# lock at its start, e.g. LWLock:LockManager, which says nothing about the poll)
t_is "a parallel worker's sleep shows without dpobj.sealed_scan (the poll sees workers)" \
    "$(worker_waits off | tr ',' '\n' | grep -cx 'Timeout:PgSleep')" "1"
t_is "... and no wait event of a worker shows with it (from the worker's start)" "$(worker_waits on)" ""

t_psql -d postgres -c "DROP DATABASE $DB" -c "DROP ROLE $ROLE" >/dev/null
t_summary
