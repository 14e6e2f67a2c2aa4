# shellcheck shell=bash
# tests/citus/cluster.sh — a throwaway Citus cluster on one machine: a coordinator and two
# workers on 127.0.0.1, all running the PostgreSQL installation under test (PG_BINDIR,
# from scripts/common.sh) with 'citus,dpobj' preloaded.  Sourced by tests/citus/run.sh and
# bench/citus/run.sh after scripts/common.sh and tests/citus/build.sh.
#
#   citus_cluster_start BASEPORT [EXTRA_CONF]
#       sets CITUS_PORTS (coordinator, worker, worker) and CITUS_DIR; starts the nodes,
#       creates citus and dpobj in database postgres on each and adds the workers; the
#       cluster is stopped and removed at exit (dpobj_at_exit).  Returns non-zero with a
#       message on stderr when a port is taken or a node does not come up.
#   cq PORT PSQL-ARGS...   psql -At on one node as the superuser, database postgres

CITUS_PORTS=()
CITUS_DIR=""

cq() {
    local port=$1
    shift
    psql -X -q -At -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -U postgres -d postgres "$@"
}

citus_cluster_stop() {
    local n
    [[ -n "$CITUS_DIR" ]] || return 0
    for n in 0 1 2; do
        [[ -f "$CITUS_DIR/n$n/postmaster.pid" ]] &&
            dpobj_as_pg "$PG_BINDIR/pg_ctl" -D "$CITUS_DIR/n$n" -m immediate -w stop >/dev/null 2>&1
    done
    rm -rf -- "$CITUS_DIR"
    CITUS_DIR=""
}

citus_cluster_start() {
    local base=$1 extra="${2:-}" n port
    CITUS_PORTS=("$base" $((base + 1)) $((base + 2)))
    for port in "${CITUS_PORTS[@]}"; do
        if (echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
            echo "port $port on 127.0.0.1 is taken" >&2
            return 1
        fi
    done
    CITUS_DIR="$(mktemp -d "${DPOBJ_TMPDIR:-/tmp}/dpobj-citus.XXXXXX")"
    chmod 755 "$CITUS_DIR"
    [[ "$(id -u)" -eq 0 ]] && chown postgres: "$CITUS_DIR"
    dpobj_at_exit "citus_cluster_stop; :"
    for n in 0 1 2; do
        port=${CITUS_PORTS[$n]}
        dpobj_as_pg "$PG_BINDIR/initdb" -D "$CITUS_DIR/n$n" -U postgres -A trust -E UTF8 \
            --locale=C --no-sync >"$CITUS_DIR/initdb$n.log" 2>&1 ||
            { cat "$CITUS_DIR/initdb$n.log" >&2; return 1; }
        dpobj_as_pg tee -a "$CITUS_DIR/n$n/postgresql.conf" >/dev/null <<CONF
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$CITUS_DIR'
shared_preload_libraries = 'citus,dpobj'
fsync = off
max_connections = 60
max_worker_processes = 24
$extra
CONF
        dpobj_as_pg "$PG_BINDIR/pg_ctl" -D "$CITUS_DIR/n$n" -l "$CITUS_DIR/n$n.log" -w start \
            >/dev/null || { tail -20 "$CITUS_DIR/n$n.log" >&2; return 1; }
    done
    for port in "${CITUS_PORTS[@]}"; do
        cq "$port" -c "CREATE EXTENSION citus" -c "CREATE EXTENSION dpobj" >/dev/null || return 1
    done
    cq "${CITUS_PORTS[0]}" -c "SELECT citus_set_coordinator_host('127.0.0.1', ${CITUS_PORTS[0]})" \
        -c "SELECT citus_add_node('127.0.0.1', ${CITUS_PORTS[1]})" \
        -c "SELECT citus_add_node('127.0.0.1', ${CITUS_PORTS[2]})" >/dev/null
}
