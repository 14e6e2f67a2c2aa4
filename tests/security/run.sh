#!/usr/bin/env bash
# tests/security/run.sh — the sealed protected path (docs/SECURITY.md): the
# install/run-time schema checks, budget-domain squatting, the DROP guard, the side channels one by one
# (with the I/O counters and wait events of a spill), the side-effect harness (caches, locks
# and the ledger a run leaves behind, tests/security/sideeffects.sh), and the
# neighbour harness over every mechanism.  Prints "ok"/"not ok" lines and, last,
# "N passed, M failed".  Needs PGHOST/PGPORT/PGUSER (a superuser) and a server with
# dpobj installed and in shared_preload_libraries (jobs); none of these scripts
# restarts the server.
set -uo pipefail
DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
exec bash "$DIR/../script_runner.sh" "$DIR" "" privilege takeover squat grouprole domainrace keycastrace planlocks droprole leakprobe dropguard leaks iostats waitevents runs deadline neighbours parallel sideeffects
