#!/usr/bin/env bash
# tests/concurrency/budget_race_domain.sh — N sessions race for one budget domain's
# budget worth exactly K charges, each attempt on one of two member tables (chosen at
# random), so charges through different tables meet on the same budget row.  Expect
# exactly K successes, N*M-K refusals (DP004) and no other error, spend = budget, ledger
# total = spend, and both member tables charged to the domain's budget.
#
#   PGHOST=... PGPORT=... PGUSER=<superuser> bash tests/concurrency/budget_race_domain.sh
#
# Environment: DPOBJ_RACE_SESSIONS (16), DPOBJ_RACE_ATTEMPTS (20), DPOBJ_RACE_CHARGES (40).
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

N="${DPOBJ_RACE_SESSIONS:-16}"
M="${DPOBJ_RACE_ATTEMPTS:-20}"
K="${DPOBJ_RACE_CHARGES:-40}"
DB=dpobj_race_domain
WORK="$(mktemp -d "${TMPDIR:-/tmp}/dpobj-race-domain.XXXXXX")"
trap 'rm -rf -- "$WORK"' EXIT

t_role dpobj_race_analyst || exit 1
t_fresh_db "$DB" || exit 1
t_psql -d postgres -c "ALTER DATABASE $DB SET dpobj.max_runs_per_role = 0" >/dev/null || exit 1
# two tables of the same people (column p), one domain, a budget worth exactly K
# charges of (0.1, 1e-7); a third table keeps a budget of its own
t_psql -d "$DB" \
    -c "CREATE TABLE orders AS SELECT i % 20 AS p, (i % 7) / 4.0 - 0.75 AS a, (i % 5) / 4.0 - 0.5 AS b, (i % 7) > 3 AS y
          FROM generate_series(1, 60) i" \
    -c "CREATE TABLE visits AS SELECT i % 20 AS p, (i % 5) / 4.0 - 0.5 AS a, (i % 3) / 2.0 - 0.5 AS b, (i % 5) > 2 AS y
          FROM generate_series(1, 60) i" \
    -c "CREATE TABLE other AS SELECT * FROM visits" \
    -c "REVOKE ALL ON orders, visits, other FROM PUBLIC" \
    -c "SELECT dpobj.create_budget_domain('people')" \
    -c "SELECT dpobj.protect('orders', 'p', 2, 'people')" \
    -c "SELECT dpobj.protect('visits', 'p', 3, 'people')" \
    -c "SELECT dpobj.protect('other', 'p', 3)" \
    -c "SELECT dpobj.grant_domain_budget('people', 'dpobj_race_analyst', $K * 0.1, $K * 0.0000001)" \
    -c "SELECT dpobj.grant_budget('other', 'dpobj_race_analyst', 5, 0.001)" \
    >/dev/null || exit 1

t_race "$DB" "$N" "$M" "$K" \
    "SELECT 'trained ' || weights::text FROM dpobj.train(CASE WHEN random() < 0.5 THEN 'orders' ELSE 'visits' END::regclass, 'opdisc', ARRAY['a', 'b'], 'y', 0.1, 0.0000001);" \
    "$WORK"
t_is "the domain's spend = its budget, exactly" \
    "$(t_psql -d "$DB" -c "SELECT spent_epsilon = granted_epsilon AND spent_delta = granted_delta FROM dpobj.budgets WHERE budget_domain = 'people'")" "t"
t_is "ledger totals = the domain's spend, exactly" \
    "$(t_psql -d "$DB" -c "SELECT count(l.*) = $K AND sum(l.epsilon) = b.spent_epsilon AND sum(l.delta) = b.spent_delta
                             FROM dpobj.budgets b JOIN dpobj.ledger l ON l.budget_id = b.id
                            WHERE b.budget_domain = 'people' GROUP BY b.id")" "t"
t_is "runs on both member tables were charged to the domain's budget" \
    "$(t_psql -d "$DB" -c "SELECT string_agg(relation || '=' || (count > 0)::text, ',' ORDER BY relation)
                             FROM (SELECT relation, count(*) FROM dpobj.ledger WHERE budget_domain = 'people'
                                    GROUP BY relation) c")" "public.orders=true,public.visits=true"
t_is "every ledger row names the domain" \
    "$(t_psql -d "$DB" -c "SELECT count(*) FROM dpobj.ledger WHERE budget_domain IS DISTINCT FROM 'people'")" "0"
t_is "every charged run released its model" \
    "$(t_psql -d "$DB" -c "SELECT count(*) FROM dpobj.ledger WHERE outcome <> 'released'")" "0"
t_is "the table outside the domain kept its own budget" \
    "$(t_psql -d "$DB" -c "SELECT spent_epsilon FROM dpobj.budgets WHERE relid = 'other'::regclass")" "0"

t_psql -d postgres -c "DROP DATABASE $DB" >/dev/null
t_summary
