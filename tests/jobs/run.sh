#!/usr/bin/env bash
# tests/jobs/run.sh — the job tests that need more than SQL: progress NOTICEs
# (progress.sh), the submitting role's own defaults (settings.sh), one budget's jobs in
# submission order (order.sh), runs charged in the order they start (inflight.sh), periodic retraining
# with pg_cron in a cluster of its own (cron.sh, in the background: on pg_cron 1.4 it waits
# for the next minute), and jobs across server restarts
# (restart.sh, which restarts the server it is given).
# Prints "ok"/"not ok" lines and, last, "N passed, M failed".
#
# Environment: PGHOST, PGPORT, PGUSER (a superuser of a server with
# shared_preload_libraries = 'dpobj'); DPOBJ_PGDATA and DPOBJ_PGCTL (and optionally
# DPOBJ_PGLOG) for restart.sh — without them it is reported as one failure, not skipped.
set -uo pipefail
DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
exec bash "$DIR/../script_runner.sh" "$DIR" restart "&cron" progress locks settings order inflight restart
