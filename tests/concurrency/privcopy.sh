# shellcheck shell=bash
# tests/concurrency/privcopy.sh — a private installation, build tree and cluster for a test
# that must run its own build of dpobj beside the suites' (tests/audit/mutants.sh: the audit's
# mutants; tests/fuzz/sanitize.sh: an AddressSanitizer + UBSan build).  Source it after
# setting PG_BINDIR (the installation to copy), MAJOR, REPO, ROOT (a private directory),
# INST, BIN, DATA, SOCK and PORT; each function prints why and fails on a problem.

privcopy_as_pg() { if [[ "$(id -u)" -eq 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi; }

# privcopy_install: a relocatable copy of the installation (Debian layout) into $INST, and
# this tree's sources without build outputs into $ROOT/src (the copy's pg_config: $BIN/pg_config)
privcopy_install() {
    local libroot prefix sharedir
    libroot="$(cd "$PG_BINDIR/.." && pwd)"
    prefix="$(cd "$libroot/../../.." && pwd)"
    sharedir="$("$PG_BINDIR/pg_config" --sharedir)"
    [[ "$sharedir" == "$prefix/share/postgresql/$MAJOR" ]] ||
        { echo "installation under $PG_BINDIR is not laid out as Debian's (sharedir $sharedir)"; return 1; }
    mkdir -p "$INST/lib/postgresql" "$INST/share/postgresql" "$INST/include"
    cp -a "$libroot" "$INST/lib/postgresql/$MAJOR" && cp -a "$sharedir" "$INST/share/postgresql/$MAJOR" ||
        { echo "could not copy the PostgreSQL installation"; return 1; }
    ln -s "$prefix/include/postgresql" "$INST/include/postgresql"
    [[ "$("$BIN/pg_config" --pkglibdir)" == "$INST/lib/postgresql/$MAJOR/lib" ]] ||
        { echo "the copied installation does not relocate ($("$BIN/pg_config" --pkglibdir))"; return 1; }
    mkdir -p "$ROOT/src/docs"
    cp -a "$REPO/Makefile" "$REPO/dpobj.control" "$REPO/sql" "$REPO/src" "$ROOT/src/" &&
        cp -a "$REPO/docs/REFERENCE.md" "$ROOT/src/docs/" || { echo "could not copy the source tree"; return 1; }
    find "$ROOT/src/src" \( -name '*.o' -o -name '*.bc' -o -name '*.so' \) -delete
    rm -rf "$ROOT/src/.deps" "$ROOT/src/dpobj.so"
}

# privcopy_cluster: initdb of $DATA (owned by the server's user), a socket in $SOCK on
# port $PORT, dpobj preloaded, no JIT; not started
privcopy_cluster() {
    mkdir -p "$DATA" "$SOCK"
    chmod 700 "$DATA" "$SOCK"
    [[ "$(id -u)" -eq 0 ]] && chown postgres: "$DATA" "$SOCK"
    privcopy_as_pg "$BIN/initdb" -D "$DATA" -U postgres -A trust -E UTF8 --locale=C --no-sync \
        >"$ROOT/initdb.log" 2>&1 || { echo "initdb of the private cluster"; return 1; }
    privcopy_as_pg tee -a "$DATA/postgresql.conf" >/dev/null <<CONF
listen_addresses = ''
unix_socket_directories = '$SOCK'
port = $PORT
fsync = off
synchronous_commit = off
full_page_writes = off
jit = off
shared_preload_libraries = 'dpobj'
max_worker_processes = 16
logging_collector = off
log_min_messages = warning
CONF
}
