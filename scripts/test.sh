#!/usr/bin/env bash
# scripts/test.sh — dpobj's whole test suite, from a clean clone, in one command:
#
#   bash scripts/test.sh
#
# 1. installs the Debian packages that are missing (see scripts/common.sh),
# 2. builds and installs the extension (make && make install, as root),
# 3. starts a throwaway PostgreSQL cluster (the version scripts/common.sh finds) on a
#    private unix socket,
# 4. runs the pg_regress tests (make installcheck; regression.diffs printed on failure),
# 5. runs the pgTAP tests tests/*.sql with pg_prove in a database with pgtap + dpobj,
# 6. runs the script suites: the check that every header the build includes and every
#    program the tests run comes from the declared Debian packages (tests/packages),
#    multi-session / server-control tests (tests/concurrency), the
#    jobs tests that restart the server or need pg_cron (tests/jobs), the upgrade from the
#    0.1.0 and 0.2.0 releases (tests/upgrade), the
#    sealed protected path's attacks and neighbour harness (tests/security), the check
#    that the tree and the documents agree and README.md's path runs as written
#    (tests/docs), a seeded fuzz of the SQL surface that fails on a crash, a hang or an
#    internal error (tests/fuzz; its model fuzz again against an AddressSanitizer + UBSan
#    build: tests/fuzz/sanitize.sh, suite "sanitize"), the empirical privacy audit of
#    every mechanism (tests/audit: lower bounds on mu or epsilon from thousands of runs on
#    neighbouring tables, and mutant builds it must flag: those build and run in the
#    background from step 2 on, after the Citus build, on their own installation copy and
#    cluster), and a three-node Citus cluster (tests/citus; builds Citus from
#    ../shared/vendor/citus once per machine, cached outside the repository),
# 7. runs the standalone C unit tests (make -C tests/unit check) when tests/unit/Makefile
#    exists.
#
# The last line of output is "N passed, N failed".  What is counted:
#   - each pg_regress test (one sql/<name>.sql file) is one test;
#   - each pgTAP assertion (one "ok"/"not ok" line) is one test; when a test file dies or
#     runs fewer tests than it planned, the planned tests that never ran count as failed
#     (one failure if it has no usable plan);
#   - the script suites and the C unit tests (tests/unit) count the checks they
#     report in their own last "N passed, M failed" line; without such a line (or with a
#     non-zero exit and no failure reported) the step counts as one failure, except that a
#     unit "make check" that passes without such a line counts as one passed test;
#   - a step that cannot run at all (packages, build, cluster, CREATE EXTENSION, no
#     pgTAP files) counts as one failure.
# DPOBJ_SKIP_SUITES="audit citus ..." leaves out the named script suites (audit also leaves
# out its mutant builds); each is reported as skipped, never counted as passed (.ci/run uses
# it to fit the version matrix in CI's time, docs/VERSIONS.md).
# Exit status: 0 when nothing failed, 1 otherwise.
set -euo pipefail

# shellcheck source=scripts/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

PASSED=0
FAILED=0
SUMMARY_PRINTED=0

print_summary() {
    if [[ "$SUMMARY_PRINTED" == 0 ]]; then
        SUMMARY_PRINTED=1
        [[ -z "$STEP_TIMES" ]] || printf '==> step times (s):%s\n' "$STEP_TIMES"
        printf '%s passed, %s failed\n' "$PASSED" "$FAILED"
    fi
}

# Each step's wall time, printed as it ends and summed up before the last line (.ci/run
# collects that line per root), so that a slow suite is seen the day it appears.
STEP_TIMES=""
step_time() { # NAME START_SECONDS
    local t=$((SECONDS - $2))
    STEP_TIMES+=" $1 $t"
    dpobj_log "$1: $t s"
}

# Runs at exit (after the cluster is gone) if the script dies before the end: whatever
# stopped it (packages, build, cluster start) is one failure.
on_early_exit() {
    local rc="$1"
    if [[ "$SUMMARY_PRINTED" == 0 ]]; then
        [[ "$rc" -ne 0 ]] && FAILED=$((FAILED + 1))
        print_summary
    fi
}
dpobj_at_exit on_early_exit

WORK="$(mktemp -d "${TMPDIR:-/tmp}/dpobj-test.XXXXXX")"
dpobj_at_exit "rm -rf -- '$WORK'; :"

t0=$SECONDS
dpobj_ensure_packages
step_time packages-install "$t0"
t0=$SECONDS
dpobj_build_install
step_time build "$t0"
# The Citus suite's build (tests/citus/build.sh: cached, one build per machine, serialised
# by a lock) starts now at the lowest CPU priority: the suites before it mostly use one
# core, so it finishes on the idle one instead of adding its minutes at the end.  Its
# packages are installed first, in the foreground (one apt at a time).
# After it, on the same core, the audit's mutant builds (tests/audit/mutants.sh: a private
# installation copy, build and cluster of their own, nothing shared with the cluster below)
# run at a low priority too; the audit suite collects their output when it gets there.
. "$REPO/tests/citus/build.sh"
# a suite named in DPOBJ_SKIP_SUITES
skipped() {
    [[ " ${DPOBJ_SKIP_SUITES:-} " == *" $1 "* ]]
}
citus_prebuild=false
if ! skipped citus && dpobj_citus_source >/dev/null; then
    dpobj_citus_packages
    citus_prebuild=true
fi
(
    trap - EXIT
    if $citus_prebuild; then
        nice -n 19 bash -c '. "$1/scripts/common.sh"; . "$1/tests/citus/build.sh"; dpobj_citus_build' \
            _ "$REPO" >"$WORK/citus-prebuild.log" 2>&1 || true
    fi
    if ! skipped audit; then
        rc=0
        PG_BINDIR="$PG_BINDIR" nice -n 10 bash "$REPO/tests/audit/mutants.sh" >"$WORK/audit-mutants.out" 2>&1 || rc=$?
        echo "$rc" >"$WORK/audit-mutants.rc"
    fi
) &
AUDIT_MUTANTS_PID=$!
# should this script end before it collects them: stop the background job (mutants.sh's
# own exit trap stops its cluster and removes its copy)
dpobj_at_exit "pkill -TERM -P $AUDIT_MUTANTS_PID 2>/dev/null; wait $AUDIT_MUTANTS_PID 2>/dev/null; :"
# Training jobs need dpobj preloaded (the job launcher is a static background
# worker; docs/USAGE.md, "Jobs"), so the test cluster preloads it.
DPOBJ_EXTRA_CONF="${DPOBJ_EXTRA_CONF:-}
shared_preload_libraries = 'dpobj'"
export DPOBJ_EXTRA_CONF
dpobj_start_cluster

# --- pg_regress -----------------------------------------------------------------------
dpobj_log "pg_regress: make -C $REPO installcheck"
rm -f "$REPO/regression.diffs" "$REPO/regression.out"
t0=$SECONDS
set +e
make -C "$REPO" PG_CONFIG="$PG_CONFIG" installcheck 2>&1 | tee "$WORK/regress.out"
regress_rc=${PIPESTATUS[0]}
set -e
step_time pg_regress "$t0"
# pg_regress prints one line per test.  15: "test NAME ... ok" (or, inside a parallel
# group, "     NAME ... ok"); tolerated failures say "failed (ignored)".  16 and later
# (TAP): "ok N - NAME  T ms" or "not ok N - NAME ..." ("+" for a parallel group), a
# tolerated failure marked "# (ignored)".  Any other outcome (FAILED, not ok, or a test
# whose script could not even run) is a failure.
r_all=$(grep -cE '^((test +)?[[:space:]]*[^[:space:]]+ +\.\.\. |(not )?ok [0-9]+ +[-+] )' \
    "$WORK/regress.out" || true)
r_ok=$(grep -cE '^((test +)?[[:space:]]*[^[:space:]]+ +\.\.\. +(ok|failed \(ignored\))|ok [0-9]+ +[-+] |not ok [0-9]+ +[-+] .*# \(ignored\))' \
    "$WORK/regress.out" || true)
r_bad=$((r_all - r_ok))
if [[ $regress_rc -ne 0 && $r_bad -eq 0 ]]; then
    r_bad=1     # pg_regress itself failed (could not create the database, ...)
fi
PASSED=$((PASSED + r_ok))
FAILED=$((FAILED + r_bad))
if [[ $regress_rc -ne 0 ]]; then
    if [[ -f "$REPO/regression.diffs" ]]; then
        printf '\n==> regression.diffs:\n' >&2
        cat "$REPO/regression.diffs" >&2
    fi
fi
dpobj_log "pg_regress: $r_ok passed, $r_bad failed"

# --- pgTAP ----------------------------------------------------------------------------
shopt -s nullglob
tap_files=("$REPO"/tests/*.sql)
shopt -u nullglob
if [[ ${#tap_files[@]} -eq 0 ]]; then
    dpobj_log "pgTAP: no test files in $REPO/tests/*.sql"
    FAILED=$((FAILED + 1))
elif ! { dpobj_psql -c 'DROP DATABASE IF EXISTS dpobj_tap' -c 'CREATE DATABASE dpobj_tap' &&
         dpobj_psql -d dpobj_tap -c 'CREATE EXTENSION pgtap' -c 'CREATE EXTENSION dpobj'; }; then
    dpobj_log "pgTAP: could not create database dpobj_tap with pgtap and dpobj"
    FAILED=$((FAILED + 1))
else
    dpobj_log "pgTAP: pg_prove -d dpobj_tap ${#tap_files[@]} file(s)"
    t0=$SECONDS
    set +e
    pg_prove -d dpobj_tap "${tap_files[@]}" 2>&1 | tee "$WORK/tap.out"
    tap_rc=${PIPESTATUS[0]}
    set -e
    step_time pgTAP "$t0"
    # TAP::Harness summary: "Files=F, Tests=T, ..." (tests run, passed or not) and, per
    # failing file, "FILE (Wstat: W Tests: T Failed: F)" in the Test Summary Report.
    t_total=$(sed -n 's/^Files=[0-9]*, Tests=\([0-9]*\),.*/\1/p' "$WORK/tap.out" | tail -n 1)
    t_total=${t_total:-0}
    # Sum F over those lines.  A file that died or ran fewer tests than it planned says so
    # in its report block: "Parse errors: Bad plan.  You planned P tests but ran R." adds
    # the P - R tests that never ran as failures; any other parse error or a non-zero exit
    # status with no failed test adds one failure.
    read -r t_bad t_broken < <(awk '
        function flush() {
            if (cur) { if (missing > 0) broken += missing; else if (odd && curfail == 0) broken++ }
            cur = 0
        }
        /\(Wstat: .* Tests: [0-9]+ Failed: [0-9]+\)/ {
            flush(); f = $0; sub(/.*Failed: /, "", f); sub(/\).*/, "", f)
            cur = 1; curfail = f + 0; missing = 0; odd = 0; bad += curfail; next }
        cur && /^ +Parse errors: Bad plan\. +You planned [0-9]+ tests but ran [0-9]+/ {
            p = $0; sub(/.*You planned /, "", p); r = p
            sub(/ .*/, "", p); sub(/.* but ran /, "", r); sub(/[^0-9].*/, "", r)
            if (p - r > 0) missing = p - r; odd = 1; next }
        cur && /^ +(Parse errors:|Non-zero (exit|wait) status:)/ { odd = 1; next }
        /^[^ ]/ { flush() }
        END { flush(); print bad + 0, broken + 0 }' "$WORK/tap.out")
    t_ok=$((t_total - t_bad))
    t_bad=$((t_bad + t_broken))
    if [[ $tap_rc -ne 0 && $t_bad -eq 0 ]]; then
        t_bad=1
    fi
    PASSED=$((PASSED + t_ok))
    FAILED=$((FAILED + t_bad))
    dpobj_log "pgTAP: $t_ok passed, $t_bad failed"
fi

# --- script suites ---------------------------------------------------------------------
# Each prints "ok"/"not ok" lines and, last, "N passed, M failed"; it gets PGHOST/PGPORT/
# PGUSER and DPOBJ_PGDATA/DPOBJ_PGCTL/DPOBJ_PGLOG from dpobj_start_cluster and may restart
# the server.  A suite that ends without its summary line, or exits non-zero with no
# failure counted, counts as one failure.
run_suite() {
    local name="$1" script="$2" rc
    [[ -f "$script" ]] || return 0
    if skipped "$name"; then
        dpobj_log "$name: skipped (DPOBJ_SKIP_SUITES)"
        return 0
    fi
    dpobj_log "$name: bash ${script#"$REPO"/}"
    local t0=$SECONDS
    set +e
    bash "$script" 2>&1 | tee "$WORK/$name.out"
    rc=${PIPESTATUS[0]}
    set -e
    step_time "$name" "$t0"
    count_suite "$name" "$rc"
}

# Counts a suite's output $WORK/NAME.out, its exit status RC.
count_suite() {
    local name="$1" rc="$2" out="$WORK/$1.out" line ok bad
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$out" | tail -n 1 || true)
    if [[ -n "$line" ]]; then
        ok=${line%% passed*}
        bad=${line#*passed, }
        bad=${bad%% failed}
    else
        ok=0 bad=0
    fi
    if [[ $rc -ne 0 && $bad -eq 0 ]]; then
        bad=1
    fi
    PASSED=$((PASSED + ok))
    FAILED=$((FAILED + bad))
    dpobj_log "$name: $ok passed, $bad failed"
}

# a fresh machine gets every header and test program from the declared packages
run_suite packages "$REPO/tests/packages/run.sh"
# budget race, crash between debit and release, dump/restore
run_suite concurrency "$REPO/tests/concurrency/run.sh"
# jobs: restart, progress, pg_cron (starts its own pg_cron cluster)
run_suite jobs "$REPO/tests/jobs/run.sh"
# ALTER EXTENSION UPDATE from each release, 0.1.0 and 0.2.0 (its own clusters and installation copies)
run_suite upgrade "$REPO/tests/upgrade/run.sh"
# the tree and the documents agree: paths, layout, a plain-C core, no circles (no server)
run_suite docs "$REPO/tests/docs/run.sh"
# README.md's recommended path runs as written (its own cluster, UCI Adult loaded)
run_suite readme "$REPO/tests/docs/readme.sh"
# the sealed protected path: schema checks, the DROP guard, the side channels one by
# one and the neighbour harness over every mechanism
run_suite security "$REPO/tests/security/run.sh"
# thousands of odd calls (aggregates, forged models and states, helpers): a result or a
# plain error each, never a crash, a hang or an internal error (seeded: a failure replays)
run_suite fuzz "$REPO/tests/fuzz/run.sh"
# the model fuzz again against a build of dpobj with AddressSanitizer and UBSan (a private
# installation copy and cluster, DPOBJ_SANITIZE_PGPORT; gcc's libasan comes with gcc): a
# sanitizer report fails
run_suite sanitize "$REPO/tests/fuzz/sanitize.sh"
# empirical privacy audit: every mechanism run thousands of times on two neighbouring
# tables; a statistically valid lower bound (mu for Gaussian releases, epsilon otherwise)
# must not exceed the claim, and mutant builds with one calibration 1.25 times too weak
# must be flagged (a private installation copy and cluster, DPOBJ_AUDIT_PGPORT)
DPOBJ_AUDIT_PARTS="estimator mechanisms" run_suite audit "$REPO/tests/audit/run.sh"
# the mutant builds started in the background after the build (above)
if ! skipped audit; then
    dpobj_log "audit-mutants: waiting for bash tests/audit/mutants.sh (started after the build)"
    t0=$SECONDS
    wait "$AUDIT_MUTANTS_PID" || true
    step_time audit-mutants-wait "$t0"
    cat "$WORK/audit-mutants.out"
    count_suite audit-mutants "$(cat "$WORK/audit-mutants.rc" 2>/dev/null || echo 1)"
fi
# Citus: partial aggregation on the workers, the mechanism once on the coordinator, the
# protected path failing closed (a coordinator and two workers on 127.0.0.1)
run_suite citus "$REPO/tests/citus/run.sh"

# --- standalone C unit tests ----------------------------------------------------------
if skipped unit; then
    dpobj_log "unit: skipped (DPOBJ_SKIP_SUITES)"
elif [[ -f "$REPO/tests/unit/Makefile" ]]; then
    dpobj_log "unit: make -C tests/unit check"
    t0=$SECONDS
    set +e
    make -C "$REPO/tests/unit" -j"$(nproc 2>/dev/null || echo 1)" PG_CONFIG="$PG_CONFIG" check 2>&1 | tee "$WORK/unit.out"
    unit_rc=${PIPESTATUS[0]}
    set -e
    step_time unit "$t0"
    # Each test program reports its own "N passed, M failed" line: their checks are
    # summed; without any such line the whole unit test counts as one test.
    u_lines=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$WORK/unit.out" || true)
    if [[ -n "$u_lines" ]]; then
        u_ok=0 u_bad=0
        while read -r u_line; do
            u_ok=$((u_ok + ${u_line%% passed*}))
            u_b=${u_line#*passed, }
            u_bad=$((u_bad + ${u_b%% failed}))
        done <<<"$u_lines"
    elif [[ $unit_rc -eq 0 ]]; then
        u_ok=1 u_bad=0
    else
        u_ok=0 u_bad=1
    fi
    if [[ $unit_rc -ne 0 && $u_bad -eq 0 ]]; then
        u_bad=1
    fi
    PASSED=$((PASSED + u_ok))
    FAILED=$((FAILED + u_bad))
    dpobj_log "unit: $u_ok passed, $u_bad failed"
fi

if [[ $FAILED -ne 0 ]]; then
    dpobj_show_server_log 40
fi
print_summary
[[ $FAILED -eq 0 ]]
