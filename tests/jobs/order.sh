#!/usr/bin/env bash
# tests/jobs/order.sh — jobs of one budget are charged in submission order, whatever their
# run times (docs/USAGE.md, "Jobs"): the order decides each
# run's accounting path (linear part or reserve, Gaussian path or Renyi).  A role submits,
# in one transaction, a job on a large member table of a budget domain (a long scan before
# its charge) and then one on a small member table of the same domain: with two job slots
# the small one used to be charged first.  Now the second waits for the first, and a job
# on another budget still runs beside them.
# Needs PGHOST/PGPORT/PGUSER (a superuser) and dpobj preloaded (dpobj.max_jobs >= 2).
set -uo pipefail
DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=tests/jobs/lib.sh
. "$DIR/lib.sh"
DB=dpobj_job_order
ANALYST=dpobj_jo_analyst

t_role "$ANALYST" >/dev/null
t_fresh_db "$DB" >/dev/null || { echo "not ok - could not create $DB"; t_summary; exit 1; }
t_psql -d "$DB" -c "CREATE TABLE big AS
      SELECT i % 50000 AS person, (i % 7) / 4.0 - 0.75 AS a, (i % 5) / 4.0 - 0.5 AS b, (i % 7) > 3 AS y
        FROM generate_series(1, 1500000) i;
    CREATE TABLE small AS SELECT * FROM big WHERE person < 100 LIMIT 200;
    CREATE TABLE other AS SELECT * FROM small;
    REVOKE ALL ON big, small, other FROM PUBLIC" \
    -c "SELECT dpobj.create_budget_domain('people')" \
    -c "SELECT dpobj.protect('big', 'person', 1, 'people'), dpobj.protect('small', 'person', 1, 'people'),
               dpobj.protect('other', 'person', 1)" \
    -c "SELECT 1 FROM dpobj.grant_domain_budget('people', '$ANALYST', 10, 0.001)" \
    -c "SELECT 1 FROM dpobj.grant_budget('other', '$ANALYST', 10, 0.001)" >/dev/null

submit() { echo "SELECT dpobj.submit('$1', 'expmech', ARRAY['a', 'b'], 'y', 0.1, 1e-6)"; }
IDS=$(t_psql -d "$DB" -c "SET ROLE $ANALYST" -c "BEGIN" -c "$(submit big)" -c "$(submit small)" \
    -c "$(submit other)" -c "COMMIT")
J1=$(sed -n 1p <<<"$IDS"); J2=$(sed -n 2p <<<"$IDS"); J3=$(sed -n 3p <<<"$IDS")
for j in $J1 $J2 $J3; do t_wait_state "$DB" "$j" 'succeeded|failed' 300 >/dev/null; done

t_is "the three jobs succeed" \
    "$(t_psql -d "$DB" -c "SELECT string_agg(state, ',' ORDER BY id) FROM dpobj.job_queue WHERE id IN ($J1, $J2, $J3)")" \
    "succeeded,succeeded,succeeded"
t_is "the domain's budget is charged in submission order: big, then small" \
    "$(t_psql -d "$DB" -c "SELECT string_agg(relation, ',' ORDER BY id) FROM dpobj.ledger WHERE budget_domain = 'people'")" \
    "public.big,public.small"
t_is "the second job of the budget started after the first ended" \
    "$(t_psql -d "$DB" -c "SELECT s.started_at >= f.finished_at FROM dpobj.job_queue f, dpobj.job_queue s WHERE f.id = $J1 AND s.id = $J2")" "t"
t_is "a job on another budget ran beside the first (it started before the first ended)" \
    "$(t_psql -d "$DB" -c "SELECT o.started_at < f.finished_at FROM dpobj.job_queue f, dpobj.job_queue o WHERE f.id = $J1 AND o.id = $J3")" "t"

t_psql -d postgres -c "DROP DATABASE $DB" >/dev/null
t_summary
