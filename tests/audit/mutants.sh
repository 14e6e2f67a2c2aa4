#!/usr/bin/env bash
# tests/audit/mutants.sh — the audit's power (docs/PRIVACY.md "Empirical audit"): for each
# mutant family of src/core/auditmutant.h, dpobj built with -DDPOBJ_AUDIT_MUTANT=<family>
# and -DDPOBJ_AUDIT_MUTANT_FACTOR=f (one calibration f times too small, or a privacy
# amount f times too large; f = DPOBJ_AUDIT_FACTOR, 1.25 unless set: CI's; bench/audit
# builds 1.1 with DPOBJ_AUDIT_RUNS=bench) must be flagged by every audit row that names the
# family in its audit row (tests/families/README); mechanisms.sh runs only those rows against the mutant library.
#
# The mutants never touch the installation under test: a private copy of the PostgreSQL
# installation (as tests/upgrade/run.sh makes) gets a private build of this tree; each
# mutant recompiles only the files that include auditmutant.h (make's dependency files),
# its dpobj.so replaces the copy's, and the copy's own cluster restarts on it.
#
# Environment: PG_BINDIR (default /usr/lib/postgresql/$PG_MAJOR/bin, 15 when unset; Debian layout),
# DPOBJ_AUDIT_PGPORT (default 55437; names the socket only), DPOBJ_TMPDIR,
# DPOBJ_AUDIT_MUTANTS (the families, default all), DPOBJ_AUDIT_FACTOR (1.25),
# DPOBJ_AUDIT_RUNS (ci; bench: the rows' bench runs).  Last line: "N passed, M failed".
set -uo pipefail
DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$DIR/../.." && pwd)"
# shellcheck source=tests/concurrency/lib.sh
. "$DIR/../concurrency/lib.sh"

PG_BINDIR="${PG_BINDIR:-/usr/lib/postgresql/${PG_MAJOR:-15}/bin}"
# the major version: the name of the directory above bin (Debian layout)
MAJOR="$(basename "$(dirname "$PG_BINDIR")")"
PORT="${DPOBJ_AUDIT_PGPORT:-55437}"
MUTANTS="${DPOBJ_AUDIT_MUTANTS:-sigma laplace shift cms expmech multiclass units adassp gradclip keysel}"
FACTOR="${DPOBJ_AUDIT_FACTOR:-1.25}"
export DPOBJ_AUDIT_FACTOR="$FACTOR"
as_pg() { if [[ "$(id -u)" -eq 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi; }
bail() { echo "not ok - $*"; T_FAIL=$((T_FAIL + 1)); t_summary; exit 1; }

ROOT="$(mktemp -d "${DPOBJ_TMPDIR:-/tmp}/dpobj-mutants.XXXXXX")"
chmod 755 "$ROOT"
INST="$ROOT/inst"
BIN="$INST/lib/postgresql/$MAJOR/bin"
DATA="$ROOT/data"
cleanup() {
    [[ -f "$DATA/postmaster.pid" ]] && as_pg "$BIN/pg_ctl" -D "$DATA" -m immediate -w stop >/dev/null 2>&1
    rm -rf -- "$ROOT"
}
trap cleanup EXIT

# --- a private copy of the installation (Debian layout, relocatable) --------------------
libroot="$(cd "$PG_BINDIR/.." && pwd)"
prefix="$(cd "$libroot/../../.." && pwd)"
sharedir="$("$PG_BINDIR/pg_config" --sharedir)"
[[ "$sharedir" == "$prefix/share/postgresql/$MAJOR" ]] ||
    bail "installation under $PG_BINDIR is not laid out as Debian's (sharedir $sharedir)"
mkdir -p "$INST/lib/postgresql" "$INST/share/postgresql" "$INST/include"
if ! cp -a "$libroot" "$INST/lib/postgresql/$MAJOR" || ! cp -a "$sharedir" "$INST/share/postgresql/$MAJOR"; then
    bail "could not copy the PostgreSQL installation"
fi
ln -s "$prefix/include/postgresql" "$INST/include/postgresql"
PGC="$BIN/pg_config"
[[ "$("$PGC" --pkglibdir)" == "$INST/lib/postgresql/$MAJOR/lib" ]] ||
    bail "the copied installation does not relocate ($("$PGC" --pkglibdir))"
PKGLIB="$INST/lib/postgresql/$MAJOR/lib"

# --- a private build of this tree ---------------------------------------------------------
SRC="$ROOT/src"
mkdir -p "$SRC/docs"
if ! cp -a "$REPO/Makefile" "$REPO/dpobj.control" "$REPO/sql" "$REPO/src" "$SRC/" ||
    ! cp -a "$REPO/docs/REFERENCE.md" "$SRC/docs/"; then
    bail "could not copy the source tree"
fi
find "$SRC/src" \( -name '*.o' -o -name '*.bc' -o -name '*.so' \) -delete
rm -rf "$SRC/.deps" "$SRC/dpobj.so"
# (no JIT bitcode: the audit's cluster runs with jit = off, and each build takes half the time)
make_q() { make -C "$SRC" -j2 PG_CONFIG="$PGC" with_llvm=no "$@" >"$ROOT/make.log" 2>&1; }
if ! make_q || ! make_q install; then
    tail -n 20 "$ROOT/make.log"
    bail "the real build of the private copy"
fi
cp "$PKGLIB/dpobj.so" "$ROOT/real.so"
MUTANT_FILES=$(grep -rl --include='*.c' '^#include "core/auditmutant.h"' "$SRC/src" | wc -l)

# --- the copy's cluster (its data directory and socket owned by the server's user) -------
SOCK="$ROOT/sock"
mkdir -p "$DATA" "$SOCK"
chmod 700 "$DATA" "$SOCK"
[[ "$(id -u)" -eq 0 ]] && chown postgres: "$DATA" "$SOCK"
as_pg "$BIN/initdb" -D "$DATA" -U postgres -A trust -E UTF8 --locale=C --no-sync \
    >"$ROOT/initdb.log" 2>&1 || bail "initdb of the mutants' cluster"
as_pg tee -a "$DATA/postgresql.conf" >/dev/null <<EOF
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
EOF
export PGHOST="$SOCK" PGPORT="$PORT" PGUSER=postgres PGDATABASE=postgres
unset PGPASSWORD PGSERVICE PGHOSTADDR

for m in $MUTANTS; do
    echo "# mutant $m: -DDPOBJ_AUDIT_MUTANT=$m -DDPOBJ_AUDIT_MUTANT_FACTOR=$FACTOR"
    touch "$SRC/src/core/auditmutant.h"
    if ! make_q CPPFLAGS+="-DDPOBJ_AUDIT_MUTANT=$m -DDPOBJ_AUDIT_MUTANT_FACTOR=$FACTOR"; then
        tail -n 20 "$ROOT/make.log"
        echo "not ok - mutant $m builds"
        T_FAIL=$((T_FAIL + 1))
        continue
    fi
    # the files that include auditmutant.h, and only they, were compiled again with the flag
    t_is "mutant $m: the $MUTANT_FILES files with mutant hooks compiled with the flag" \
        "$(grep -c -- "-DDPOBJ_AUDIT_MUTANT=$m .*-c -o [^ ]*\.o " "$ROOT/make.log")" "$MUTANT_FILES"
    t_check "mutant $m: its library differs from the real build's" \
        test "$(cmp -s "$SRC/dpobj.so" "$ROOT/real.so"; echo $?)" = 1
    [[ -f "$DATA/postmaster.pid" ]] && as_pg "$BIN/pg_ctl" -D "$DATA" -m fast -w stop >/dev/null 2>&1
    cp "$SRC/dpobj.so" "$PKGLIB/dpobj.so"
    if ! as_pg "$BIN/pg_ctl" -D "$DATA" -l "$SOCK/server.log" -w -t 60 start >/dev/null; then
        tail -n 20 "$SOCK/server.log"
        echo "not ok - mutant $m: the cluster starts"
        T_FAIL=$((T_FAIL + 1))
        continue
    fi
    out=$(PATH="$BIN:$PATH" DPOBJ_AUDIT_MUTANT="$m" bash "$DIR/mechanisms.sh" 2>&1)
    t_absorb "mutant $m: mechanisms.sh" "$out"
done
t_summary
