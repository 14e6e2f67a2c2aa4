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
# shellcheck source=tests/concurrency/privcopy.sh
. "$DIR/../concurrency/privcopy.sh"

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

# --- a private copy of the installation and of this tree (tests/concurrency/privcopy.sh) --
msg=$(privcopy_install) || bail "$msg"
PGC="$BIN/pg_config"
PKGLIB="$INST/lib/postgresql/$MAJOR/lib"
SRC="$ROOT/src"
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
msg=$(privcopy_cluster) || bail "$msg"
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
