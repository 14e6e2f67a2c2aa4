# shellcheck shell=bash
# scripts/common.sh — helpers shared by scripts/test.sh, scripts/demo.sh and bench/run.sh.
# Source it (". scripts/common.sh"): it defines functions and variables and sets an EXIT trap.
#
#   dpobj_ensure_packages [NAME...]  install the packages (default: all of DPOBJ_PACKAGES,
#                           what the tests need) that are missing
#   dpobj_packaged          is postgresql-$PG_MAJOR-dpobj installed (prints its version)?
#   dpobj_build_install     make && make install (as root; sudo when not root); where the
#                           postgresql-$PG_MAJOR-dpobj package is installed, into a private
#                           copy of the installation instead (a packaged file is never
#                           replaced), which PG_BINDIR then names
#   dpobj_start_cluster     throwaway PostgreSQL cluster on a private unix socket;
#                           exports PGHOST, PGPORT, PGUSER, PGDATABASE (and DPOBJ_PGDATA,
#                           DPOBJ_PGCTL, DPOBJ_PGLOG for tests that restart the server);
#                           the EXIT trap stops it and removes its directory
#   dpobj_psql              psql with ON_ERROR_STOP, no ~/.psqlrc
#   dpobj_show_server_log   print the end of the cluster's server log to stderr
#   dpobj_at_exit CMD       run CMD (with the exit status appended) after the cleanup
#   dpobj_bench_runs N FILE CMD...  run CMD once (warm-up, output dropped), then N times
#                           with its output in FILE (bench/ scripts time so)
#   dpobj_median            the median of the numbers on stdin (one per line)
#   dpobj_doc_block DOC FILE  put FILE (a block that starts and ends with its own marker
#                           lines) into DOC: replaces the block with the same markers,
#                           else appends it (bench/ scripts write their results so)
#
# Sourcing this file installs an EXIT trap; scripts that need their own exit actions
# register them with dpobj_at_exit instead of calling trap.
#
# Environment:
#   DPOBJ_PGPORT    port of the throwaway cluster (default 55432).  The server listens on
#                   no TCP address (listen_addresses = ''), so the port only names the
#                   socket file inside the private directory and cannot clash.
#   DPOBJ_KEEP=1    do not stop the cluster on a successful exit; print how to reach it.
#   DPOBJ_TMPDIR    where the cluster directory is created (default /tmp); must be
#                   traversable by the postgres user.
#   DPOBJ_SKIP_APT=1  do not check/install packages.
#   DPOBJ_PG_MAJOR    PostgreSQL major version to build against and test (15 to 18; default:
#                   the version of DPOBJ_PG_BINDIR, else the distribution's default server
#                   (Debian 12: 15, Debian 13: 17, unstable: 18) unless only other versions
#                   are installed, then the newest of those).
#   DPOBJ_PG_BINDIR   bin directory of the PostgreSQL installation to build against and
#                   run (default /usr/lib/postgresql/$PG_MAJOR/bin); a relocated copy of it
#                   lets several checkouts test side by side.
#   DPOBJ_EXTRA_CONF  extra postgresql.conf lines for the throwaway cluster (bench/run.sh).

# Repository root: the parent of this file's directory.
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export REPO

# The PostgreSQL major version (docs/VERSIONS.md): see DPOBJ_PG_MAJOR above.
dpobj_pg_major() {
    local v installed default
    if [[ -n "${DPOBJ_PG_MAJOR:-}" ]]; then
        echo "$DPOBJ_PG_MAJOR"
        return
    fi
    if [[ -n "${DPOBJ_PG_BINDIR:-}" && -x "$DPOBJ_PG_BINDIR/pg_config" ]]; then
        v="$("$DPOBJ_PG_BINDIR/pg_config" --version)"   # "PostgreSQL 17.6 (Debian ...)"
        v="${v#PostgreSQL }"
        echo "${v%%[.a-z ]*}"
        return
    fi
    installed="$(ls /usr/lib/postgresql/*/bin/postgres 2>/dev/null | sed 's|.*/postgresql/\([0-9]*\)/.*|\1|' | sort -n)"
    # the distribution's default: what its "postgresql" package depends on
    default="$(apt-cache depends postgresql 2>/dev/null |
        sed -n 's/^ *Depends: postgresql-\([0-9][0-9]*\)$/\1/p' | head -n 1)"
    if [[ -n "$default" ]] && { [[ -z "$installed" ]] || grep -qx "$default" <<<"$installed"; }; then
        echo "$default"
    elif [[ -n "$installed" ]]; then
        tail -n 1 <<<"$installed"
    else
        echo 15
    fi
}
PG_MAJOR="$(dpobj_pg_major)"
[[ "$PG_MAJOR" =~ ^1[5-8]$ ]] || { echo "ERROR: PostgreSQL $PG_MAJOR: dpobj supports 15 to 18" >&2; exit 1; }
export PG_MAJOR
# DPOBJ_PG_BINDIR: another installation of that version (its bin directory)
PG_BINDIR="${DPOBJ_PG_BINDIR:-/usr/lib/postgresql/${PG_MAJOR}/bin}"
export PG_BINDIR
PG_CONFIG="${PG_BINDIR}/pg_config"
export PG_CONFIG
# Use that version's client programs (psql, createdb, pg_regress's psql) rather than
# Debian's version-picking wrappers.
export PATH="${PG_BINDIR}:${PATH}"

DPOBJ_PACKAGES=(
    make gcc
    "postgresql-$PG_MAJOR" "postgresql-server-dev-$PG_MAJOR"
    libglpk-dev libgsl-dev
    libkrb5-dev                  # gssapi/gssapi.h, included by the server's libpq/libpq-be.h
    "postgresql-$PG_MAJOR-pgtap" libtap-parser-sourcehandler-pgtap-perl   # pgTAP + pg_prove
    "postgresql-$PG_MAJOR-cron"                                          # scheduled jobs (tests/jobs)
    python3                                                              # tests/docs
)
# what the demo needs to build and run from source (no test tools)
DPOBJ_BUILD_PACKAGES=(
    make gcc
    "postgresql-$PG_MAJOR" "postgresql-server-dev-$PG_MAJOR"
    libglpk-dev libgsl-dev libkrb5-dev
)

# "==> [Ns] message": N is the seconds since the script started (where the time goes)
dpobj_log() {
    printf '==> [%ss] %s\n' "$SECONDS" "$*" >&2
}

dpobj_die() {
    printf 'ERROR: %s\n' "$*" >&2
    exit 1
}

# Run a command as root (directly when we are root, else through sudo).
dpobj_as_root() {
    if [[ "$(id -u)" -eq 0 ]]; then
        "$@"
    elif command -v sudo >/dev/null 2>&1; then
        sudo "$@"
    else
        dpobj_die "need root (or sudo) to run: $*"
    fi
}

# Run a command as the unprivileged owner of the cluster.  PostgreSQL refuses to run as
# root, so as root we switch to the Debian "postgres" user; as anybody else we run the
# server as ourselves.
dpobj_as_pg() {
    if [[ "$(id -u)" -eq 0 ]]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

dpobj_pkg_installed() {
    [[ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" == "install ok installed" ]]
}

# Install whatever is missing.  apt-get update runs only when something has to be
# installed, so reruns on a prepared machine make no network access and take no time.
dpobj_ensure_packages() {
    if [[ "${DPOBJ_SKIP_APT:-0}" == 1 ]]; then
        return 0
    fi
    local missing=() p
    [[ $# -gt 0 ]] || set -- "${DPOBJ_PACKAGES[@]}"
    for p in "$@"; do
        dpobj_pkg_installed "$p" || missing+=("$p")
    done
    if [[ ${#missing[@]} -eq 0 ]]; then
        dpobj_log "packages: all present"
        return 0
    fi
    dpobj_log "packages: installing ${missing[*]}"
    dpobj_as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q
    dpobj_as_root env DEBIAN_FRONTEND=noninteractive \
        apt-get install -y -q --no-install-recommends "${missing[@]}"
}

# The version of the installed postgresql-$PG_MAJOR-dpobj package; fails when there is none.
dpobj_packaged() {
    dpobj_pkg_installed "postgresql-$PG_MAJOR-dpobj" &&
        dpkg-query -W -f='${Version}' "postgresql-$PG_MAJOR-dpobj"
}

# Where the package owns the server's dpobj files, a build from source goes into a private
# copy of the installation (Debian layout, relocatable: pg_config answers with the copy's
# directories), which PG_BINDIR, PG_CONFIG and PATH name from then on; removed at exit.
dpobj__private_installation() {
    local libroot sharedir inst
    libroot="$(cd "$PG_BINDIR/.." && pwd)"
    sharedir="$("$PG_CONFIG" --sharedir)"
    inst="$(mktemp -d "${DPOBJ_TMPDIR:-/tmp}/dpobj-inst.XXXXXX")"
    dpobj_at_exit "rm -rf -- '$inst'; :"
    mkdir -p "$inst/lib/postgresql" "$inst/share/postgresql" "$inst/include"
    cp -a "$libroot" "$inst/lib/postgresql/$PG_MAJOR"
    cp -a "$sharedir" "$inst/share/postgresql/$PG_MAJOR"
    ln -s "$("$PG_CONFIG" --includedir)" "$inst/include/postgresql"
    chmod -R a+rX "$inst"
    PG_BINDIR="$inst/lib/postgresql/$PG_MAJOR/bin"
    PG_CONFIG="$PG_BINDIR/pg_config"
    PATH="$PG_BINDIR:$PATH"
    export PG_BINDIR PG_CONFIG PATH
    dpobj_log "postgresql-$PG_MAJOR-dpobj is installed: building into a private copy, $inst"
}

dpobj_build_install() {
    # one compile per core: the build is most of a fresh machine's demo time
    local jobs
    jobs="$(nproc 2>/dev/null || echo 1)"
    if [[ -z "${DPOBJ_PG_BINDIR:-}" ]] && dpobj_packaged >/dev/null; then
        dpobj__private_installation
    fi
    dpobj_log "build: make -C $REPO -j$jobs (PG_CONFIG=$PG_CONFIG)"
    make -C "$REPO" -j"$jobs" PG_CONFIG="$PG_CONFIG"
    dpobj_log "install: make -C $REPO install"
    dpobj_as_root make -C "$REPO" PG_CONFIG="$PG_CONFIG" install
}

dpobj_bench_runs() {
    local reps="$1" file="$2" r
    shift 2
    "$@" >/dev/null
    : >"$file"
    for ((r = 0; r < reps; r++)); do
        "$@" >>"$file"
    done
}

dpobj_median() {
    sort -n | awk '{ a[NR] = $1 }
        END { if (NR % 2) print a[(NR + 1) / 2]; else printf "%.3f\n", (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}

dpobj_doc_block() {
    local doc="$1" file="$2" begin end tmp
    begin="$(head -n 1 "$file")"
    end="$(tail -n 1 "$file")"
    if [[ -f "$doc" ]] && grep -qxF "$begin" "$doc"; then
        tmp="$(mktemp)"
        awk -v b="$begin" -v e="$end" -v f="$file" '
            $0 == b { while ((getline l < f) > 0) print l; skip = 1; next }
            $0 == e { skip = 0; next }
            !skip { print }' "$doc" >"$tmp"
        cat "$tmp" >"$doc"
        rm -f "$tmp"
    else
        printf '\n' >>"$doc"
        cat "$file" >>"$doc"
    fi
}

dpobj_psql() {
    psql -X -q -v ON_ERROR_STOP=1 "$@"
}

DPOBJ_CLUSTER_DIR=""
DPOBJ_LOG_SHOWN=0
DPOBJ_EXIT_HOOKS=()

# Register a command to run at exit, after the cluster is gone (e.g. a summary line).
# It is eval'ed with the script's exit status appended as its last argument.
dpobj_at_exit() {
    DPOBJ_EXIT_HOOKS+=("$*")
}

# Print the end of the server log to stderr (once per run).
dpobj_show_server_log() {
    local n="${1:-40}" log="$DPOBJ_CLUSTER_DIR/server.log"
    if [[ "$DPOBJ_LOG_SHOWN" == 0 && -n "$DPOBJ_CLUSTER_DIR" && -f "$log" ]]; then
        DPOBJ_LOG_SHOWN=1
        printf '\n==> last %s lines of the server log (%s):\n' "$n" "$log" >&2
        tail -n "$n" "$log" >&2
    fi
}

# EXIT trap, installed when this file is sourced: on failure show the end of the server
# log; stop the throwaway cluster and remove its directory (unless DPOBJ_KEEP=1 and the
# script succeeded); run the registered hooks; keep the script's exit status.
dpobj__on_exit() {
    local rc=$? hook
    set +e
    # Clean up even when our output pipe is gone (e.g. "bash scripts/demo.sh | head").
    trap '' PIPE
    if [[ -n "$DPOBJ_CLUSTER_DIR" && -d "$DPOBJ_CLUSTER_DIR" ]]; then
        if [[ $rc -ne 0 ]]; then
            dpobj_show_server_log 40
        fi
        if [[ $rc -eq 0 && "${DPOBJ_KEEP:-0}" == 1 ]]; then
            cat >&2 <<EOF

==> DPOBJ_KEEP=1: the cluster keeps running.
    connect: PGHOST='$PGHOST' PGPORT=$PGPORT PGUSER=postgres psql ${PGDATABASE:-postgres}
    stop:    runuser -u postgres -- '$PG_BINDIR/pg_ctl' -D '$DPOBJ_CLUSTER_DIR/data' -m fast stop && rm -rf '$DPOBJ_CLUSTER_DIR'
EOF
        else
            if [[ -f "$DPOBJ_CLUSTER_DIR/data/postmaster.pid" ]]; then
                dpobj_as_pg "$PG_BINDIR/pg_ctl" -D "$DPOBJ_CLUSTER_DIR/data" \
                    -m immediate -w stop >/dev/null 2>&1
            fi
            rm -rf -- "$DPOBJ_CLUSTER_DIR"
        fi
    fi
    for hook in "${DPOBJ_EXIT_HOOKS[@]}"; do
        eval "$hook $rc"
    done
    exit "$rc"
}
trap dpobj__on_exit EXIT
# Turn Ctrl-C, kill and a closed output pipe into an ordinary exit, so that the EXIT trap
# runs and the cluster does not outlive the script.
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 141' PIPE

dpobj_start_cluster() {
    local port="${DPOBJ_PGPORT:-55432}"
    local base="${DPOBJ_TMPDIR:-/tmp}"

    [[ -x "$PG_BINDIR/initdb" ]] || dpobj_die "$PG_BINDIR/initdb not found (postgresql-$PG_MAJOR missing?)"

    DPOBJ_CLUSTER_DIR="$(mktemp -d "$base/dpobj-pg.XXXXXX")"
    # mktemp -d makes it mode 0700: only its owner (and root) can reach the socket.
    if [[ "$(id -u)" -eq 0 ]]; then
        chown postgres: "$DPOBJ_CLUSTER_DIR"
    fi
    local data="$DPOBJ_CLUSTER_DIR/data"
    local sock="$DPOBJ_CLUSTER_DIR"
    local log="$DPOBJ_CLUSTER_DIR/server.log"

    dpobj_log "cluster: initdb in $data"
    dpobj_as_pg "$PG_BINDIR/initdb" -D "$data" -U postgres -A trust \
        -E UTF8 --locale=C --no-sync >"$DPOBJ_CLUSTER_DIR/initdb.log" 2>&1 \
        || { cat "$DPOBJ_CLUSTER_DIR/initdb.log" >&2; dpobj_die "initdb failed"; }

    # Unix socket only, in the private directory; trust is fine because nothing else can
    # reach the socket.
    dpobj_as_pg tee -a "$data/postgresql.conf" >/dev/null <<EOF

# --- throwaway dpobj cluster (scripts/common.sh) ---
listen_addresses = ''
unix_socket_directories = '$sock'
unix_socket_permissions = 0700
port = $port
fsync = off
synchronous_commit = off
full_page_writes = off
max_worker_processes = 16
max_parallel_workers = 8
logging_collector = off
log_min_messages = warning
log_line_prefix = '%m [%p] %q%u@%d '
${DPOBJ_EXTRA_CONF:-}
EOF
    printf 'local all all trust\n' | dpobj_as_pg tee "$data/pg_hba.conf" >/dev/null

    dpobj_log "cluster: starting on socket $sock (port $port)"
    dpobj_as_pg "$PG_BINDIR/pg_ctl" -D "$data" -l "$log" -w -t 120 start >/dev/null \
        || dpobj_die "pg_ctl start failed"

    export PGHOST="$sock" PGPORT="$port" PGUSER=postgres PGDATABASE=postgres
    # For tests that must stop/restart the server (tests/concurrency/budget_crash.sh):
    # the data directory, a pg_ctl command prefix run as the server's OS user, the log.
    export DPOBJ_PGDATA="$data" DPOBJ_PGLOG="$log"
    if [[ "$(id -u)" -eq 0 ]]; then
        export DPOBJ_PGCTL="runuser -u postgres -- $PG_BINDIR/pg_ctl"
    else
        export DPOBJ_PGCTL="$PG_BINDIR/pg_ctl"
    fi
    unset PGPASSWORD PGSERVICE PGHOSTADDR
    dpobj_psql -c 'SELECT 1' >/dev/null || dpobj_die "cannot connect to the new cluster"
}

# A benchmark's cluster (bench/*/run.sh): dpobj preloaded, no JIT, serial plans; database $1
# with the extension and the public tables named after it (data/<name>/load.sql).
dpobj_bench_cluster() {
    local db="$1" d
    shift
    export DPOBJ_EXTRA_CONF="shared_preload_libraries = 'dpobj'
jit = off
max_parallel_workers_per_gather = 0"
    dpobj_ensure_packages
    dpobj_build_install >&2
    dpobj_start_cluster
    export PGDATABASE="$db"
    dpobj_psql -d postgres -c "CREATE DATABASE $PGDATABASE" >/dev/null
    dpobj_psql -c 'CREATE EXTENSION dpobj' >/dev/null
    for d in "$@"; do
        dpobj_psql -v datadir="$REPO/data/$d" -f "$REPO/data/$d/load.sql" >/dev/null
    done
}
