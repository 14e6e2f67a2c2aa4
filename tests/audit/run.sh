#!/usr/bin/env bash
# tests/audit/run.sh — the empirical privacy audit (docs/PRIVACY.md "Empirical audit"):
# the estimator's unit checks, then every mechanism run thousands of times on two
# neighbouring tables, with a statistically valid lower bound (on mu for the Gaussian
# releases, on epsilon from an event otherwise) that must not exceed the row's claim, then
# the audit's power: every mutant build of src/core/auditmutant.h (one calibration 1.5
# times too weak) must be flagged (mutants.sh, a private installation copy and cluster).
# Prints "ok"/"not ok" lines, the audit tables ("#" lines) and, last, "N passed, M
# failed".  Needs PGHOST/PGPORT/PGUSER (a superuser) and a server with dpobj installed and
# in shared_preload_libraries; does not restart that server.  PG_BINDIR,
# DPOBJ_AUDIT_PGPORT: mutants.sh's; DPOBJ_AUDIT_FULL=1: four times the runs;
# DPOBJ_AUDIT_PARTS: the parts to run (default "estimator mechanisms mutants";
# scripts/test.sh runs mutants.sh apart, in the background, as it needs no server of ours).
set -uo pipefail
DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck disable=SC2086
exec bash "$DIR/../script_runner.sh" "$DIR" "" ${DPOBJ_AUDIT_PARTS:-estimator mechanisms mutants}
