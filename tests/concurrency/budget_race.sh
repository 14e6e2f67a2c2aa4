#!/usr/bin/env bash
# tests/concurrency/budget_race.sh — N sessions race for a budget worth
# exactly K charges.  Expect exactly K successes, N*M-K refusals (DP004) and no other
# error (no deadlock, no ledger failure), spend = budget, ledger total = spend.
#
#   PGHOST=... PGPORT=... PGUSER=<superuser> bash tests/concurrency/budget_race.sh
#
# Environment: DPOBJ_RACE_SESSIONS (32), DPOBJ_RACE_ATTEMPTS (50), DPOBJ_RACE_CHARGES (40).
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

N="${DPOBJ_RACE_SESSIONS:-32}"
M="${DPOBJ_RACE_ATTEMPTS:-50}"
K="${DPOBJ_RACE_CHARGES:-40}"
DB=dpobj_race
WORK="$(mktemp -d "${TMPDIR:-/tmp}/dpobj-race.XXXXXX")"
trap 'rm -rf -- "$WORK"' EXIT

t_role dpobj_race_analyst || exit 1
t_fresh_db "$DB" || exit 1
# N sessions of one role at once: the race needs them all running (dpobj.max_runs_per_role)
t_psql -d postgres -c "ALTER DATABASE $DB SET dpobj.max_runs_per_role = 0" >/dev/null || exit 1
# a budget worth exactly K charges of (0.1, 1e-7): numeric, so K x 0.1 is exact
t_psql -d "$DB" -c "$T_TABLE_SQL" \
    -c "SELECT dpobj.protect('pts')" \
    -c "SELECT dpobj.grant_budget('pts', 'dpobj_race_analyst', $K * 0.1, $K * 0.0000001)" \
    >/dev/null || exit 1

t_race "$DB" "$N" "$M" "$K" \
    "SELECT 'trained ' || weights::text FROM dpobj.train('pts', 'opdisc', ARRAY['a', 'b'], 'y', 0.1, 0.0000001);" \
    "$WORK"
t_is "spend = budget, exactly" \
    "$(t_psql -d "$DB" -c "SELECT spent_epsilon = granted_epsilon AND spent_delta = granted_delta FROM dpobj.budgets")" "t"
t_is "ledger totals = spend, exactly" \
    "$(t_psql -d "$DB" -c "SELECT count(l.*) = $K AND sum(l.epsilon) = b.spent_epsilon AND sum(l.delta) = b.spent_delta
                             FROM dpobj.budgets b JOIN dpobj.ledger l ON l.budget_id = b.id GROUP BY b.id")" "t"
t_is "every charged run released its model" \
    "$(t_psql -d "$DB" -c "SELECT count(*) FROM dpobj.ledger WHERE outcome <> 'released'")" "0"

t_psql -d postgres -c "DROP DATABASE $DB" >/dev/null
t_summary
