#!/usr/bin/env bash
# tests/concurrency/budget_race_zcdp.sh — N sessions race noisy-GD runs (cost rho, composed
# by the zCDP accountant) for a budget worth exactly K of them: its epsilon is
# dpobj.gauss_epsilon(K rho, 0.44 delta): of delta, a tenth is the reserve for
# approximate-DP runs, 2 % the basic filter's (which holds none of these runs), half the
# rest the Gaussian path's (docs/PRIVACY.md, "Composition: one filter for every mechanism").  Expect dpobj.runs_left() = K before, exactly K
# successes, every other attempt refused with DP004 and no other error, spent_rho = K rho =
# the ledger's sum of rho, runs_left() = 0 after.  The guard is the accountant's rule
# (account_debit, which dpobj.budget_admits wraps) in the ledger writer's debit: concurrent
# charges serialise on the budget row and re-check it against the committed spend.
#
#   PGHOST=... PGPORT=... PGUSER=<superuser> bash tests/concurrency/budget_race_zcdp.sh
#
# Environment: DPOBJ_RACE_SESSIONS (16), DPOBJ_RACE_ATTEMPTS (10), DPOBJ_RACE_CHARGES (40).
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

N="${DPOBJ_RACE_SESSIONS:-16}"
M="${DPOBJ_RACE_ATTEMPTS:-10}"
K="${DPOBJ_RACE_CHARGES:-40}"
DB=dpobj_race_zcdp
RUN="SELECT 'trained ' || weights::text FROM dpobj.train('pts', 'noisysgd', ARRAY['a', 'b'], 'y', 0.1, 0.0000001, '{\"R\": 2, \"T\": 5}');"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/dpobj-race.XXXXXX")"
trap 'rm -rf -- "$WORK"' EXIT

t_role dpobj_race_analyst || exit 1
t_fresh_db "$DB" || exit 1
t_psql -d postgres -c "ALTER DATABASE $DB SET dpobj.max_runs_per_role = 0" >/dev/null || exit 1
# one direct run (no budget) records the rho of a (0.1, 1e-7) noisy-GD run
t_psql -d "$DB" -c "$T_TABLE_SQL" \
    -c "SELECT dpobj.dp_noisysgd(ARRAY[a, b]::float8[], y, 0.1, 0.0000001, '{\"R\": 2, \"T\": 5}') FROM pts" \
    -c "SELECT dpobj.protect('pts')" \
    -c "SELECT dpobj.grant_budget('pts', 'dpobj_race_analyst',
                                  dpobj.gauss_epsilon($K * rho, 0.00000044), 0.000001)
          FROM dpobj.ledger WHERE budget_id IS NULL" \
    >/dev/null || exit 1
t_is "runs_left() says $K before anything is spent" \
    "$(t_psql -d "$DB" -c "SET ROLE dpobj_race_analyst" \
        -c "SELECT dpobj.runs_left('pts', 'noisysgd', 0.1, 0.0000001, '{\"R\": 2, \"T\": 5}')")" "$K"

t_race "$DB" "$N" "$M" "$K" "$RUN" "$WORK"
t_is "spent_rho = K rho = the ledger's sum, the linear part untouched" \
    "$(t_psql -d "$DB" -c "SELECT b.spent_rho = sum(l.rho) AND count(*) = $K AND b.spent_epsilon = 0
                                   AND bool_and(l.kind = 'gauss' AND l.accounted = 'rho')
                             FROM dpobj.budgets b JOIN dpobj.ledger l ON l.budget_id = b.id GROUP BY b.id")" "t"
t_is "runs_left() says 0 after" \
    "$(t_psql -d "$DB" -c "SET ROLE dpobj_race_analyst" \
        -c "SELECT dpobj.runs_left('pts', 'noisysgd', 0.1, 0.0000001, '{\"R\": 2, \"T\": 5}')")" "0"
t_is "every charged run released its model" \
    "$(t_psql -d "$DB" -c "SELECT count(*) FROM dpobj.ledger WHERE budget_id IS NOT NULL AND outcome <> 'released'")" "0"

t_psql -d postgres -c "DROP DATABASE $DB" >/dev/null
t_summary
