#!/usr/bin/env bash
# tests/packages/run.sh — a fresh Debian 12 machine gets every header the build includes and
# every program and server file the suite runs from the packages scripts/common.sh installs
# (tests/packages/check.py), and the check has power: taking any one package off the list
# makes it fail.  Needs no server; a few seconds.  Last line: "N passed, M failed".
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
exec python3 tests/packages/check.py --power
