#!/usr/bin/env bash
# tests/fuzz/sanitize.sh — the model fuzz under AddressSanitizer and UBSan: dpobj built with
# -fsanitize=address,undefined,float-cast-overflow -fno-sanitize-recover=all (less the
# alignment check, below) into a private
# copy of the PostgreSQL installation (as tests/audit/mutants.sh builds its mutants), a
# cluster of its own started with the sanitizer runtime preloaded (LD_PRELOAD of gcc's
# libasan, and tests/fuzz/asaninit.c: the server itself is not instrumented), then tests/fuzz/struct.py (the
# structure-aware model fuzz), fuzz.py's model and state classes and a short run of
# tests/fuzz/query.py (private SQL queries: the compiler and the C expression evaluator)
# against it.  A
# sanitizer report in the server log fails the suite and is printed: with
# abort_on_error the backend aborts at the first one, so a report is also a lost
# connection the drivers name the case of.
#
# What it sees: dpobj's own code (every read past a malloc'd buffer of the plain-C core,
# the stack and globals; undefined behaviour: signed overflow, shifts, misaligned access,
# out-of-range float-to-int conversions, invalid bools and enums); a segmentation fault
# with its stack.  What it cannot see: an overrun inside a palloc'd block (PostgreSQL's
# allocator hands out pieces of larger malloc'd blocks and is not instrumented).
#
# Alignment is checked too: dpobj's exact-sum arrays of __int128 are allocated 16-byte
# aligned (dp_palloc0_int128; palloc aligns to 8), and PostgreSQL's own int128 type is
# declared 8-aligned.  No suppression file: with -fno-sanitize-recover every report is fatal.
#
# Environment: PG_BINDIR (default /usr/lib/postgresql/$PG_MAJOR/bin, 15 when unset; Debian
# layout), DPOBJ_SANITIZE_PGPORT (default 55438; names the socket only), DPOBJ_TMPDIR,
# DPOBJ_FUZZ_SEED (20261128), DPOBJ_FUZZ_STRUCT_CASES (cases per model, default 300),
# DPOBJ_FUZZ_STRUCT_JOBS (sessions side by side, default 1), DPOBJ_FUZZ_CASES (fuzz.py's
# cases, default 600), DPOBJ_FUZZ_QUERY_CASES (query.py's, default 400), DPOBJ_SANITIZE_KEEP=1 (leave the copy and its cluster running:
# a campaign's follow-up).  Last line: "N passed, M failed".
set -uo pipefail
DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$DIR/../.." && pwd)"
# shellcheck source=tests/concurrency/lib.sh
. "$DIR/../concurrency/lib.sh"
# shellcheck source=tests/concurrency/privcopy.sh
. "$DIR/../concurrency/privcopy.sh"

PG_BINDIR="${PG_BINDIR:-/usr/lib/postgresql/${PG_MAJOR:-15}/bin}"
MAJOR="$(basename "$(dirname "$PG_BINDIR")")"
PORT="${DPOBJ_SANITIZE_PGPORT:-55438}"
SEED="${DPOBJ_FUZZ_SEED:-20261128}"
as_pg() { if [[ "$(id -u)" -eq 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi; }
bail() { echo "not ok - $*"; T_FAIL=$((T_FAIL + 1)); t_summary; exit 1; }

ROOT="$(mktemp -d "${DPOBJ_TMPDIR:-/tmp}/dpobj-sanitize.XXXXXX")"
chmod 755 "$ROOT"
INST="$ROOT/inst"
BIN="$INST/lib/postgresql/$MAJOR/bin"
DATA="$ROOT/data"
SOCK="$ROOT/sock"
LOG="$SOCK/server.log"
cleanup() {
    [[ "${DPOBJ_SANITIZE_KEEP:-0}" == 1 ]] && { echo "# kept: $ROOT (PGHOST=$SOCK PGPORT=$PORT)"; return; }
    [[ -f "$DATA/postmaster.pid" ]] && as_pg "$BIN/pg_ctl" -D "$DATA" -m immediate -w stop >/dev/null 2>&1
    rm -rf -- "$ROOT"
}
trap cleanup EXIT

# --- the sanitizer runtime: gcc's libasan (Debian's gcc depends on it) ----------------------
ASAN_LIB="$(gcc -print-file-name=libasan.so)"
ASAN_LIB="$(readlink -f "$ASAN_LIB")"
[[ -f "$ASAN_LIB" ]] || bail "gcc's libasan.so (gcc -print-file-name=libasan.so: $ASAN_LIB)"
# preloaded after it: the runtime initialised before a library constructor's gettext lock
# (tests/fuzz/asaninit.c says why)
gcc -shared -fPIC -O1 -o "$ROOT/asaninit.so" "$DIR/asaninit.c" -ldl || bail "tests/fuzz/asaninit.c builds"

# --- a private copy of the installation and a private build of this tree -----------------
# (tests/concurrency/privcopy.sh)
msg=$(privcopy_install) || bail "$msg"
PGC="$BIN/pg_config"
SRC="$ROOT/src"
# COPT reaches both the compiler and the link (PGXS); -O1 keeps the stacks readable
SAN="-fsanitize=address,undefined,float-cast-overflow -fno-sanitize-recover=all"
SAN+=" -fno-omit-frame-pointer -O1 -g"
t0=$SECONDS
if ! make -C "$SRC" -j"$(nproc 2>/dev/null || echo 2)" PG_CONFIG="$PGC" with_llvm=no COPT="$SAN" \
        >"$ROOT/make.log" 2>&1 ||
    ! make -C "$SRC" PG_CONFIG="$PGC" with_llvm=no COPT="$SAN" install >>"$ROOT/make.log" 2>&1; then
    tail -n 20 "$ROOT/make.log"
    bail "the sanitizer build of the private copy"
fi
echo "# sanitizer build: $((SECONDS - t0)) s"
t_check "the private copy's dpobj.so is instrumented (links libasan and libubsan)" \
    bash -c "ldd '$INST/lib/postgresql/$MAJOR/lib/dpobj.so' | grep -q libasan &&
             ldd '$INST/lib/postgresql/$MAJOR/lib/dpobj.so' | grep -q libubsan"

# --- its cluster, the runtime preloaded ---------------------------------------------------
msg=$(privcopy_cluster) || bail "$msg"
# detect_leaks=0: a backend frees its memory by ending; abort_on_error: a report ends the
# backend (a lost connection the drivers name); the reports go to the server log (stderr)
SAN_ENV="LD_PRELOAD=$ASAN_LIB:$ROOT/asaninit.so ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:disable_coredump=1:print_summary=1"
SAN_ENV+=" UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:abort_on_error=1"
if [[ "$(id -u)" -eq 0 ]]; then
    export DPOBJ_PGCTL="runuser -u postgres -- env $SAN_ENV $BIN/pg_ctl"
else
    export DPOBJ_PGCTL="env $SAN_ENV $BIN/pg_ctl"
fi
export DPOBJ_PGDATA="$DATA" DPOBJ_PGLOG="$LOG"
# shellcheck disable=SC2086
$DPOBJ_PGCTL -D "$DATA" -l "$LOG" -w -t 120 start >/dev/null || { tail -n 30 "$LOG"; bail "the sanitizer cluster starts"; }
export PGHOST="$SOCK" PGPORT="$PORT" PGUSER=postgres PGDATABASE=postgres PATH="$BIN:$PATH"
unset PGPASSWORD PGSERVICE PGHOSTADDR
t_check "the server runs with the sanitizer runtime" \
    grep -q libasan "/proc/$(head -n 1 "$DATA/postmaster.pid")/maps"

# --- the fuzz against it ----------------------------------------------------------------------
db=dpobj_fuzz
if ! t_fresh_db "$db" >/dev/null 2>&1 || ! t_psql -d "$db" -f "$DIR/setup.sql" >/dev/null ||
    ! t_psql -d "$db" -f "$DIR/struct.sql" >/dev/null 2>&1; then
    tail -n 30 "$LOG"
    bail "the fuzz database could not be set up"
fi
t0=$SECONDS
# (its lines into a file as they come: a campaign's progress is $ROOT/struct.out)
python3 "$DIR/struct.py" "$db" "$SEED" "${DPOBJ_FUZZ_STRUCT_CASES:-300}" >"$ROOT/struct.out" 2>&1
t_absorb "struct.py" "$(cat "$ROOT/struct.out")"
echo "# struct.py: $((SECONDS - t0)) s"
t0=$SECONDS
out=$(DPOBJ_FUZZ_CLASSES="model state" python3 "$DIR/fuzz.py" "$db" "$SEED" "${DPOBJ_FUZZ_CASES:-600}" 2>&1)
t_absorb "fuzz.py (model and state classes)" "$out"
echo "# fuzz.py: $((SECONDS - t0)) s"
t0=$SECONDS
if t_psql -d "$db" -f "$DIR/query.sql" >/dev/null 2>&1; then
    t_absorb "query.py" "$(python3 "$DIR/query.py" "$db" "$SEED" "${DPOBJ_FUZZ_QUERY_CASES:-400}" 2>&1)"
else
    t_check "the private-query fuzz is set up (tests/fuzz/query.sql)" false
fi
echo "# query.py: $((SECONDS - t0)) s"

# --- every sanitizer report in the server log fails --------------------------------------------
reports=$(grep -c -E '^==[0-9]+==ERROR: (AddressSanitizer|LeakSanitizer)|runtime error: ' "$LOG")
if [[ "$reports" -eq 0 ]]; then
    t_check "no sanitizer report in the server log" true
else
    t_check "no sanitizer report in the server log ($reports)" false
    # each report: its first line to the end of its stack (at most 60 lines each, 5 reports)
    awk '/^==[0-9]+==ERROR: |runtime error: / { n++; k = 60 } n <= 5 && k > 0 { print "#   " $0; k-- }' "$LOG"
fi
t_summary
