#!/usr/bin/env bash
# tests/audit/run.sh — the empirical privacy audit (docs/PRIVACY.md "Empirical audit"):
# the estimator's unit checks, then every mechanism run thousands of times on two
# neighbouring tables, with a statistically valid lower bound on its epsilon that must not
# exceed the claimed epsilon, and power rows that the audit must flag.  Prints "ok"/"not
# ok" lines, the audit table ("#" lines) and, last, "N passed, M failed".  Needs
# PGHOST/PGPORT/PGUSER (a superuser) and a server with dpobj installed and in
# shared_preload_libraries; does not restart the server.
set -uo pipefail
DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
exec bash "$DIR/../script_runner.sh" "$DIR" "" estimator mechanisms
