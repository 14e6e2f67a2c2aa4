#!/usr/bin/env bash
# tests/jobs/cron.sh — periodic retraining with pg_cron.  Starts its own
# throwaway cluster with shared_preload_libraries = 'pg_cron,dpobj' (pg_cron runs in one
# database, cron.database_name; it connects over the cluster's private unix socket,
# cron.host), lets an analyst schedule
#     SELECT dpobj.submit(...)
# and checks that the scheduled command ran as the analyst, that the job it queued ran
# and stored a model, and that the charge went to the analyst's budget; and a scheduled
# dpobj.submit(..., 'synthesize', ...) whose job writes a new table each run.
# pg_cron >= 1.5 accepts '2 seconds'; older versions (Debian 12 ships 1.4.2) run at most
# once a minute, so the test waits up to ~75 s.
#
# Environment: DPOBJ_CRON_PGPORT (default 55434) names the socket; the cluster is created
# under ${DPOBJ_TMPDIR:-/tmp} and removed at exit.  Runs as root (initdb/pg_ctl through
# runuser -u postgres) or as an unprivileged user.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

PORT="${DPOBJ_CRON_PGPORT:-55434}"
if [[ ! -f "$PG_BINDIR/../lib/pg_cron.so" && ! -f "$(pg_config --pkglibdir)/pg_cron.so" ]]; then
    echo "not ok - pg_cron is not installed (Debian package postgresql-${PG_MAJOR:-15}-cron)"
    t_summary
    exit 1
fi
as_pg() { if [[ "$(id -u)" -eq 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi; }

DIR="$(mktemp -d "${DPOBJ_TMPDIR:-/tmp}/dpobj-cron.XXXXXX")"
[[ "$(id -u)" -eq 0 ]] && chown postgres: "$DIR"
cleanup() {
    as_pg "$PG_BINDIR/pg_ctl" -D "$DIR/data" -m immediate -w stop >/dev/null 2>&1
    rm -rf -- "$DIR"
}
trap cleanup EXIT

as_pg "$PG_BINDIR/initdb" -D "$DIR/data" -U postgres -A trust -E UTF8 --locale=C --no-sync \
    >"$DIR/initdb.log" 2>&1 || { cat "$DIR/initdb.log"; echo "not ok - initdb"; exit 1; }
as_pg tee -a "$DIR/data/postgresql.conf" >/dev/null <<CONF
listen_addresses = ''
unix_socket_directories = '$DIR'
port = $PORT
fsync = off
max_worker_processes = 32
shared_preload_libraries = 'pg_cron,dpobj'
cron.database_name = 'dpobj_cron'
cron.host = '$DIR'
log_min_messages = warning
CONF
as_pg "$PG_BINDIR/pg_ctl" -D "$DIR/data" -l "$DIR/server.log" -w -t 60 start >/dev/null ||
    { tail -20 "$DIR/server.log"; echo "not ok - cluster with pg_cron did not start"; exit 1; }
export PGHOST="$DIR" PGPORT="$PORT" PGUSER=postgres
DB=dpobj_cron
ROLE=dpobj_cron_analyst

t_psql -d postgres -c "CREATE DATABASE $DB" -c "CREATE ROLE $ROLE LOGIN" >/dev/null || exit 1
t_psql -d "$DB" -c "CREATE EXTENSION pg_cron" -c "CREATE EXTENSION dpobj" \
    -c "GRANT USAGE ON SCHEMA cron TO $ROLE" >/dev/null || exit 1
t_tables "$DB" "$ROLE" || exit 1
version=$(t_psql -d "$DB" -c "SELECT extversion FROM pg_extension WHERE extname = 'pg_cron'")
echo "# pg_cron $version"
if [[ "$(printf '%s\n1.5\n' "$version" | sort -V | head -n 1)" == "1.5" ]]; then
    schedule='2 seconds'
    wait_s=30
else
    schedule='* * * * *'
    wait_s=80
fi

# the analyst schedules its own periodic retraining
t_psql -d "$DB" -c "SET ROLE $ROLE" -c "SELECT cron.schedule('dpobj-retrain', '$schedule',
    \$\$SELECT dpobj.submit('pts', 'opdisc', ARRAY['a', 'b'], 'y', 0.25, 0.000001)\$\$)" >/dev/null ||
    { echo "not ok - cron.schedule"; exit 1; }
t_is "the schedule is stored for the analyst" \
    "$(t_psql -d "$DB" -c "SELECT username || ' ' || schedule FROM cron.job WHERE jobname = 'dpobj-retrain'")" \
    "$ROLE $schedule"

# and a synthetic copy of table hard, each run into a new table named by its transaction
t_psql -d "$DB" -c "SELECT dpobj.declare_domain('hard', c, -1, 1) FROM unnest(ARRAY['a', 'b']) c" \
    -c "GRANT CREATE ON SCHEMA public TO $ROLE" >/dev/null
t_psql -d "$DB" -c "SET ROLE $ROLE" -c "SELECT cron.schedule('dpobj-synth', '$schedule',
    \$\$SELECT dpobj.submit('hard', 'synthesize', ARRAY['a', 'b'], '', 0.5, 0.000001,
      jsonb_build_object('target', 'public.hard_syn_' || txid_current(), 'model_name', 'hard_syn_' || txid_current()))\$\$)" >/dev/null ||
    { echo "not ok - cron.schedule of synthesize"; exit 1; }

# queued_job MECHANISM: the first job of MECHANISM that pg_cron queued, waiting up to
# wait_s seconds; empty when none came
queued_job() {
    local i id=""
    for ((i = 0; i < wait_s * 2; i++)); do
        id=$(t_psql -d "$DB" -c "SELECT min(id) FROM dpobj.job_queue WHERE mechanism = '$1'")
        [[ -n "$id" ]] && break
        sleep 0.5
    done
    echo "$id"
}
job=$(queued_job opdisc)
t_ok "pg_cron ran dpobj.submit within $wait_s s" test -n "$job"
if [[ -n "$job" ]]; then
    t_is "the scheduled command succeeded" \
        "$(t_psql -d "$DB" -c "SELECT status FROM cron.job_run_details ORDER BY runid LIMIT 1")" "succeeded"
    t_is "the job belongs to the analyst" \
        "$(t_psql -d "$DB" -c "SELECT owner FROM dpobj.job_queue WHERE id = $job")" "$ROLE"
    t_is "the job ran and succeeded" "$(t_wait_state "$DB" "$job" 'succeeded|failed|cancelled' 60)" "succeeded"
    t_is "its model is stored" \
        "$(t_psql -d "$DB" -c "SELECT (model).mechanism || ' ' || array_length((model).weights, 1) FROM dpobj.job_queue WHERE id = $job")" \
        "opdisc 2"
    t_is "the charge went to the analyst's budget, with its ledger row" \
        "$(t_psql -d "$DB" -c "SELECT b.spent_epsilon >= 0.25 AND EXISTS (SELECT 1 FROM dpobj.ledger l WHERE l.budget_id = b.id AND l.rolname = '$ROLE' AND l.outcome = 'released') FROM dpobj.budgets b WHERE b.relid = 'pts'::regclass")" \
        "t"
fi
sjob=$(queued_job synthesize)
t_ok "pg_cron ran dpobj.submit(..., 'synthesize', ...) within $wait_s s" test -n "$sjob"
if [[ -n "$sjob" ]]; then
    t_is "the synthesize job ran and succeeded" "$(t_wait_state "$DB" "$sjob" 'succeeded|failed|cancelled' 60)" "succeeded"
    t_is "its synthetic table belongs to the analyst, its model is stored" \
        "$(t_psql -d "$DB" -c "SELECT (SELECT string_agg(DISTINCT relowner::regrole::text, ',') FROM pg_class
            WHERE relname LIKE 'hard\_syn\_%' AND relkind = 'r') || ' ' || (model).mechanism
            FROM dpobj.job_queue WHERE id = $sjob")" \
        "$ROLE synthesize"
fi
t_psql -d "$DB" -c "SET ROLE $ROLE" -c "SELECT cron.unschedule('dpobj-retrain')" \
    -c "SELECT cron.unschedule('dpobj-synth')" >/dev/null
t_summary
