#!/usr/bin/env bash
# tests/security/domainrace.sh — a grant and a join on one budget domain in two sessions,
# under every isolation level of the granting session (docs/SECURITY.md, "Budget domains:
# who can do what").  A domain's owner X that owns every member table may grant a role it
# can act as without the self-grant caps; once another owner's table joins, it may not.  X
# takes its snapshot first (REPEATABLE READ or SERIALIZABLE), the owner O of public.hosp
# joins (X allowed it) and commits, then X grants its own member A 100000: the grant must
# see the join and be capped (42501), and A must hold nothing on O's rows.
# Needs PGHOST/PGPORT/PGUSER (a superuser) and dpobj installed.
set -uo pipefail
DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=tests/security/lib.sh
. "$DIR/lib.sh"
DB=dpobj_domainrace
OWNER=dpobj_dx_owner          # owns public.hosp
X=dpobj_dx_x                  # the domain's owner, NOLOGIN; A is its member
A=dpobj_dx_a
ALL=("$OWNER" "$A" "$X")

drop_all() {
    t_psql -d postgres -c "DROP DATABASE IF EXISTS $DB" >/dev/null 2>&1
    for r in "${ALL[@]}"; do t_psql -d postgres -c "DROP ROLE IF EXISTS $r" >/dev/null 2>&1; done
}
drop_all
t_psql -d postgres -c "CREATE ROLE $OWNER LOGIN" -c "CREATE ROLE $A LOGIN" -c "CREATE ROLE $X" \
    -c "GRANT $X TO $A" -c "CREATE DATABASE $DB" >/dev/null || exit 1
t_psql -d "$DB" -c "CREATE EXTENSION dpobj" \
    -c "ALTER DATABASE $DB SET dpobj.max_self_grant_epsilon = 1" \
    -c "ALTER DATABASE $DB SET dpobj.max_self_grant_delta = 0.001" >/dev/null || exit 1
q() { t_psql -d "$DB" -c "$1"; }
as() { local role=$1; shift; sqlstate "$DB" -U "$role" "$@"; }

for iso in "READ COMMITTED" "REPEATABLE READ" "SERIALIZABLE"; do
    n=${iso// /_}; n=${n,,}
    for t in "hosp_$n" "xown_$n"; do
        q "CREATE TABLE public.$t AS SELECT 1 + i % 20 AS person, (i % 7) / 4.0 - 0.75 AS a,
               (i % 5) / 4.0 - 0.5 AS b, (i % 7) > 3 AS y FROM generate_series(1, 40) i" >/dev/null
        q "REVOKE ALL ON public.$t FROM PUBLIC" >/dev/null
    done
    q "ALTER TABLE public.hosp_$n OWNER TO $OWNER" >/dev/null; q "ALTER TABLE public.xown_$n OWNER TO $X" >/dev/null
    as "$OWNER" -c "SELECT dpobj.protect('public.hosp_$n', 'person', 2)" >/dev/null
    as "$A" -c "SET ROLE $X" -c "SELECT dpobj.create_budget_domain('d_$n')" \
        -c "SELECT dpobj.protect('public.xown_$n', 'person', 2, 'd_$n')" \
        -c "SELECT dpobj.allow_budget_domain_member('d_$n', 'public.hosp_$n')" >/dev/null
    # X's snapshot first; the owner joins and commits; then X grants its member A
    psql -X -q -At -d "$DB" -U "$A" -v ON_ERROR_STOP=1 -v VERBOSITY=sqlstate \
        -c "SET ROLE $X" -c "BEGIN ISOLATION LEVEL $iso" -c "SELECT count(*) FROM dpobj.budgets" \
        -c "SELECT pg_sleep(1.5)" -c "SELECT 1 FROM dpobj.grant_domain_budget('d_$n', '$A', 100000, 0.1)" \
        -c "COMMIT" >/tmp/dpobj_domainrace.$$ 2>&1 &
    granter=$!
    sleep 0.5
    joined=$(as "$OWNER" -c "SELECT dpobj.set_budget_domain('public.hosp_$n', 'd_$n', '$X')")
    wait "$granter"
    got=$(sed -nE 's/^(psql:[^ ]* )?ERROR:  ([0-9A-Z]{5}).*/\2/p' /tmp/dpobj_domainrace.$$ | tail -n 1)
    rm -f /tmp/dpobj_domainrace.$$
    t_is "$iso: the owner joins, then X's older snapshot grants its member 100000: capped (42501)" \
        "$joined/${got:-ok}" "ok/42501"
    t_is "$iso: ... and A holds no budget on the owner's rows" \
        "$(t_psql -d "$DB" -c "SET ROLE $A" -c "SELECT dpobj.runs_left('public.hosp_$n', 'expmech', 1, 1e-6)")" "0"
done

# the other order: the owner's snapshot first, then X (owning every member) grants A
# 100000 uncapped and commits, then the owner joins: the join must see the grant (55000)
for iso in "READ COMMITTED" "REPEATABLE READ" "SERIALIZABLE"; do
    n=${iso// /_}; n=${n,,}
    for t in "ohosp_$n" "oxown_$n"; do
        q "CREATE TABLE public.$t AS SELECT 1 + i % 20 AS person, (i % 7) / 4.0 - 0.75 AS a,
               (i % 5) / 4.0 - 0.5 AS b, (i % 7) > 3 AS y FROM generate_series(1, 40) i" >/dev/null
        q "REVOKE ALL ON public.$t FROM PUBLIC" >/dev/null
    done
    q "ALTER TABLE public.ohosp_$n OWNER TO $OWNER" >/dev/null; q "ALTER TABLE public.oxown_$n OWNER TO $X" >/dev/null
    as "$OWNER" -c "SELECT dpobj.protect('public.ohosp_$n', 'person', 2)" >/dev/null
    as "$A" -c "SET ROLE $X" -c "SELECT dpobj.create_budget_domain('e_$n')" \
        -c "SELECT dpobj.protect('public.oxown_$n', 'person', 2, 'e_$n')" \
        -c "SELECT dpobj.allow_budget_domain_member('e_$n', 'public.ohosp_$n')" >/dev/null
    psql -X -q -At -d "$DB" -U "$OWNER" -v ON_ERROR_STOP=1 -v VERBOSITY=sqlstate \
        -c "BEGIN ISOLATION LEVEL $iso" -c "SELECT count(*) FROM dpobj.budgets" \
        -c "SELECT pg_sleep(1.5)" -c "SELECT dpobj.set_budget_domain('public.ohosp_$n', 'e_$n', '$X')" \
        -c "COMMIT" >/tmp/dpobj_domainrace.$$ 2>&1 &
    joiner=$!
    sleep 0.5
    granted=$(as "$A" -c "SET ROLE $X" -c "SELECT 1 FROM dpobj.grant_domain_budget('e_$n', '$A', 100000, 0.1)")
    wait "$joiner"
    got=$(sed -nE 's/^(psql:[^ ]* )?ERROR:  ([0-9A-Z]{5}).*/\2/p' /tmp/dpobj_domainrace.$$ | tail -n 1)
    rm -f /tmp/dpobj_domainrace.$$
    t_is "$iso: X grants A 100000 uncapped, then the owner's older snapshot joins: refused (55000)" \
        "$granted/${got:-ok}" "ok/55000"
    t_is "$iso: ... and A holds no budget on the owner's rows" \
        "$(t_psql -d "$DB" -c "SET ROLE $A" -c "SELECT dpobj.runs_left('public.ohosp_$n', 'expmech', 1, 1e-6)")" "0"
done

drop_all
t_summary
