#!/usr/bin/env bash
# tests/concurrency/alter_system.sh — ALTER SYSTEM SET dpobj.… in a session that has not
# loaded dpobj, as docs/REFERENCE.md ("settings") states it per version: PostgreSQL 17 and
# later accept it (the server takes unknown custom settings in ALTER SYSTEM) and the value
# takes effect once dpobj is loaded; 15 and 16 refuse it (42704) until LOAD 'dpobj'.
# Its own cluster without shared_preload_libraries (a private socket directory), restarted
# once with dpobj preloaded.  Needs PG_BINDIR (scripts/common.sh) and dpobj installed there.
# Last line: "N passed, M failed".
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

as_pg() { if [[ "$(id -u)" -eq 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi; }
ROOT="$(mktemp -d "${DPOBJ_TMPDIR:-/tmp}/dpobj-altersys.XXXXXX")"
[[ "$(id -u)" -eq 0 ]] && chown postgres: "$ROOT"
cleanup() {
    [[ -f "$ROOT/data/postmaster.pid" ]] &&
        as_pg "$PG_BINDIR/pg_ctl" -D "$ROOT/data" -m immediate -w stop >/dev/null 2>&1
    rm -rf -- "$ROOT"
}
trap cleanup EXIT
bail() { echo "not ok - $*"; T_FAIL=$((T_FAIL + 1)); t_summary; exit 1; }

as_pg "$PG_BINDIR/initdb" -D "$ROOT/data" -U postgres -A trust --locale=C --no-sync >/dev/null 2>&1 ||
    bail "initdb failed"
printf "listen_addresses = ''\nunix_socket_directories = '%s'\nport = 5432\n" "$ROOT" |
    as_pg tee -a "$ROOT/data/postgresql.conf" >/dev/null
as_pg "$PG_BINDIR/pg_ctl" -D "$ROOT/data" -l "$ROOT/log" -w start >/dev/null ||
    bail "the cluster did not start"
export PGHOST="$ROOT" PGPORT=5432 PGUSER=postgres PGDATABASE=postgres

major=$(t_psql -c "SELECT current_setting('server_version_num')::int / 10000")
# the outcome of statements (one -c each) in a new session: "ok" or the error's SQLSTATE
outcome() {
    local args=() q err
    for q in "$@"; do args+=(-c "$q"); done
    err=$(psql -X -q -At -v ON_ERROR_STOP=1 -v VERBOSITY=verbose "${args[@]}" 2>&1 >/dev/null)
    [[ -z "$err" ]] && { echo ok; return; }
    sed -n 's/^ERROR: *\([0-9A-Z]\{5\}\):.*/\1/p' <<<"$err" | grep . || echo "$err"
}
t_is "dpobj is not loaded in a new session" \
    "$(t_psql -c "SELECT count(*) FROM pg_settings WHERE name LIKE 'dpobj.%'")" "0"
if [[ $major -ge 17 ]]; then
    t_is "PostgreSQL $major: ALTER SYSTEM SET dpobj.max_jobs without the library" \
        "$(outcome "ALTER SYSTEM SET dpobj.max_jobs = 3")" "ok"
else
    t_is "PostgreSQL $major: ALTER SYSTEM SET dpobj.max_jobs without the library is refused (42704)" \
        "$(outcome "ALTER SYSTEM SET dpobj.max_jobs = 3")" "42704"
    t_is "PostgreSQL $major: ... and works after LOAD 'dpobj' in the same session" \
        "$(outcome "LOAD 'dpobj'" "ALTER SYSTEM SET dpobj.max_jobs = 3")" "ok"
fi
t_is "postgresql.auto.conf holds the setting" \
    "$(as_pg grep -c "^dpobj.max_jobs = '3'" "$ROOT/data/postgresql.auto.conf")" "1"

# the value is the server's once dpobj is preloaded
printf "shared_preload_libraries = 'dpobj'\n" | as_pg tee -a "$ROOT/data/postgresql.conf" >/dev/null
as_pg "$PG_BINDIR/pg_ctl" -D "$ROOT/data" -l "$ROOT/log" -m fast -w restart >/dev/null ||
    bail "the cluster did not restart with dpobj preloaded"
t_is "after a restart with dpobj preloaded, dpobj.max_jobs is the value set" \
    "$(t_psql -c "SHOW dpobj.max_jobs")" "3"
t_summary
