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

# each session: M attempts, errors reported as their SQLSTATE only
{
    printf 'SET ROLE dpobj_race_analyst;\n\\set VERBOSITY sqlstate\n'
    for ((j = 0; j < M; j++)); do
        printf "SELECT 'trained ' || weights::text FROM dpobj.train('pts', 'opdisc', ARRAY['a', 'b'], 'y', 0.1, 0.0000001);\n"
    done
} >"$WORK/session.sql"

start=$(date +%s)
pids=()
for ((s = 0; s < N; s++)); do
    psql -X -q -At -v ON_ERROR_STOP=0 -d "$DB" -f "$WORK/session.sql" \
        >"$WORK/out.$s" 2>"$WORK/err.$s" &
    pids+=($!)
done
for p in "${pids[@]}"; do
    wait "$p"
done
elapsed=$(($(date +%s) - start))
echo "# $N sessions x $M attempts in ${elapsed}s"

successes=$(cat "$WORK"/out.* | grep -c '^trained ' || true)
refusals=$(cat "$WORK"/err.* | grep -c '^psql:.*ERROR:  DP004$' || true)
others=$(cat "$WORK"/err.* | grep -v '^psql:.*ERROR:  DP004$' | grep -c . || true)
t_is "exactly $K of $((N * M)) attempts trained a model" "$successes" "$K"
t_is "all other attempts were refused with DP004" "$refusals" "$((N * M - K))"
t_is "no other error (deadlock, ledger failure, ...)" "$others" "0"
if [[ "$others" != 0 ]]; then
    cat "$WORK"/err.* | grep -v '^psql:.*ERROR:  DP004$' | sort | uniq -c | head -n 10 | sed 's/^/# /'
fi
t_is "spend = budget, exactly" \
    "$(t_psql -d "$DB" -c "SELECT spent_epsilon = granted_epsilon AND spent_delta = granted_delta FROM dpobj.budgets")" "t"
t_is "ledger totals = spend, exactly" \
    "$(t_psql -d "$DB" -c "SELECT count(l.*) = $K AND sum(l.epsilon) = b.spent_epsilon AND sum(l.delta) = b.spent_delta
                             FROM dpobj.budgets b JOIN dpobj.ledger l ON l.budget_id = b.id GROUP BY b.id")" "t"
t_is "every charged run released its model" \
    "$(t_psql -d "$DB" -c "SELECT count(*) FROM dpobj.ledger WHERE outcome <> 'released'")" "0"

t_psql -d postgres -c "DROP DATABASE $DB" >/dev/null
t_summary
