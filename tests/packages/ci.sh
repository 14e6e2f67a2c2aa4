#!/usr/bin/env bash
# tests/packages/ci.sh — the package and major-version checks in one call, for CI (as root,
# ../shared beside the clone, dpobj and pg_cron installed for this machine's PostgreSQL 15,
# e.g. after scripts/test.sh):
#
#   bash tests/packages/ci.sh [SUITE...]     # default: trixie sid (PostgreSQL 17 and 18)
#
# per suite, each in a brand-new Debian root: builds postgresql-<major>-dpobj
# (scripts/build-packages.sh --fresh), installs it where only the server is and runs README's
# path (tests/packages/install.sh --fresh), restores a database dumped on 15 there
# (tests/upgrade/major.sh --fresh); then pg_upgrade on this machine (major.sh --pg-upgrade).
# Exit status: 0 when every step passed.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
[[ $# -gt 0 ]] || set -- trixie sid
rc=0
step() {
    local start=$SECONDS
    "$@" || rc=1
    echo "==> [$((SECONDS - start))s, status $rc] $*"
}
step bash scripts/build-packages.sh --fresh "$@"
step bash tests/packages/install.sh --fresh "$@"
step bash tests/upgrade/major.sh --fresh "$@"
step bash tests/upgrade/major.sh --pg-upgrade
exit $rc
