#!/usr/bin/env bash
# scripts/demo.sh — the dpobj demo in one command:
#
#   bash scripts/demo.sh
#
# Installs missing Debian packages, builds and installs the extension (or, where the
# postgresql-<major>-dpobj package is installed, uses it: nothing is built, no packaged file
# replaced, no test tool installed), starts a throwaway
# PostgreSQL cluster (private unix socket, see scripts/common.sh), loads UCI Adult
# (data/adult/load.sql) into database dpobj_demo, creates the extension and runs README.md's
# recommended path as written there (scripts/readme_path.sh): the owner protects a raw table
# in a budget domain, declares its columns' public domains and grants a budget; an analyst
# without SELECT trains with 'auto', evaluates privately, stores the model and predicts from
# raw values.  All of that output (packages, compiler, server, the path's statements and
# results) goes to a log file; the terminal gets scripts/demo.sql's short result: the model
# with feature names, its held-out accuracy beside the majority baseline (exact, and the
# analyst's private estimate) and the budget left.
#
# The cluster is removed at the end.  Environment:
#   DPOBJ_DEMO_LOG   the log file (default /tmp/dpobj-demo.log)
#   DPOBJ_KEEP=1     leave the cluster running and print how to connect to it
#   DPOBJ_PGPORT     port number of the throwaway cluster (default 55432; socket only)
set -euo pipefail

# shellcheck source=scripts/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

LOG="${DPOBJ_DEMO_LOG:-/tmp/dpobj-demo.log}"
: >"$LOG"
echo "dpobj demo: setup and the recommended path's full output go to $LOG"

# fd 3/4: the terminal; stdout and stderr: the log until the result
exec 3>&1 4>&2 >>"$LOG" 2>&1
demo_failed() {   # exit hook: on failure, the end of the log on the terminal
    if [[ "$1" -ne 0 ]]; then
        printf '\ndpobj demo failed; the last lines of %s:\n' "$LOG" >&4
        tail -n 30 "$LOG" >&4
    fi
}
dpobj_at_exit demo_failed
step() { printf '==> [%ss] %s\n' "$SECONDS" "$*" >&3; }

if version="$(dpobj_packaged)"; then
    step "using the installed package postgresql-$PG_MAJOR-dpobj $version (nothing built or installed)"
    dpobj_ensure_packages "postgresql-$PG_MAJOR"
else
    step "packages, build and install"
    dpobj_ensure_packages "${DPOBJ_BUILD_PACKAGES[@]}"
    dpobj_build_install
fi
step "a throwaway cluster with UCI Adult in database dpobj_demo"
dpobj_start_cluster
dpobj_psql -c 'CREATE DATABASE dpobj_demo'
export PGDATABASE=dpobj_demo
dpobj_psql -v datadir="$REPO/data/adult" -f "$REPO/data/adult/load.sql"
dpobj_psql -c 'CREATE EXTENSION dpobj'

step "README.md's recommended path (owner: protect, declare, grant; analyst: train, evaluate, predict)"
bash "$REPO/scripts/readme_path.sh" "$REPO/README.md" | dpobj_psql -e -f -

# the result, on the terminal (the analyst's private estimate: step 7's row in the log)
exec 1>&3 2>&4
private=$(awk '/accuracy +\| +accuracy_ci95 +\|/ { print; getline; print; getline; print; exit }' "$LOG")
dpobj_psql -v private="$private" -f "$REPO/scripts/demo.sql"
echo
echo "dpobj demo finished in ${SECONDS} s; every run is in dpobj.ledger, the full output in $LOG"
