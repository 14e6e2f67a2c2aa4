#!/usr/bin/env bash
# tests/audit/run.sh — the empirical privacy audit (docs/PRIVACY.md "Empirical audit"):
# the estimators' unit checks, then every release of every mechanism run hundreds to
# thousands of times on two neighbouring tables (the families' [audit] rows: tests/families/README says how to add a
# row for a new release), with a statistically valid bound per row that must stay within
# the row's claim, then the audit's power: every mutant build of src/core/auditmutant.h
# (one calibration 1.25 times too weak) must be flagged (mutants.sh, a private
# installation copy and cluster); bench/audit runs the same at 1.1 with more runs.
# Prints "ok"/"not ok" lines, the audit tables ("#" lines) and, last, "N passed, M
# failed".  Needs PGHOST/PGPORT/PGUSER (a superuser) and a server with dpobj installed and
# in shared_preload_libraries; does not restart that server.  PG_BINDIR,
# DPOBJ_AUDIT_PGPORT: mutants.sh's; DPOBJ_AUDIT_ONLY="row ...": those rows only;
# DPOBJ_AUDIT_PARTS: the parts to run (default "estimator mechanisms mutants";
# scripts/test.sh runs mutants.sh apart, in the background, as it needs no server of ours).
set -uo pipefail
DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck disable=SC2086
exec bash "$DIR/../script_runner.sh" "$DIR" "" ${DPOBJ_AUDIT_PARTS:-estimator mechanisms mutants}
