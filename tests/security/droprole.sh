#!/usr/bin/env bash
# tests/security/droprole.sh — a role dropped while dpobj names it by OID
# (docs/SECURITY.md, "Operational notes").  Budgets and budget domains name roles by OID;
# a role created later with a dropped role's OID (OIDs wrap), or the role a bare number
# names after a restore, would get them.  DROP ROLE is refused, in the database that holds
# them, while the role owns a budget domain or holds a budget with epsilon left; a revoked
# or spent budget does not hold it.  A grant racing a DROP ROLE waits for it and then sees
# that the role is gone.
# Needs PGHOST/PGPORT/PGUSER (a superuser) and dpobj installed.
set -uo pipefail
DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=tests/security/lib.sh
. "$DIR/lib.sh"
DB=dpobj_droprole
OWNER=dpobj_dr_owner
ANALYST=dpobj_dr_analyst
SPENDER=dpobj_dr_spender
DOMOWNER=dpobj_dr_domowner
LATE=dpobj_dr_late
ALL=("$OWNER" "$ANALYST" "$SPENDER" "$DOMOWNER" "$LATE")

drop_all() {
    t_psql -d postgres -c "DROP DATABASE IF EXISTS $DB" >/dev/null 2>&1
    for r in "${ALL[@]}"; do t_psql -d postgres -c "DROP ROLE IF EXISTS $r" >/dev/null 2>&1; done
}
drop_all
for r in "${ALL[@]}"; do t_psql -d postgres -c "CREATE ROLE $r LOGIN" >/dev/null || exit 1; done
t_psql -d postgres -c "CREATE DATABASE $DB" >/dev/null || exit 1
t_psql -d "$DB" -c "CREATE EXTENSION dpobj" -c "CREATE TABLE public.t AS
        SELECT (i % 7) / 4.0 - 0.75 AS a, (i % 5) / 4.0 - 0.5 AS b, (i % 7) > 3 AS y
          FROM generate_series(1, 40) i" -c "REVOKE ALL ON public.t FROM PUBLIC" \
    -c "ALTER TABLE public.t OWNER TO $OWNER" >/dev/null || exit 1
q() { t_psql -d "$DB" -c "$1"; }
as() { local role=$1; shift; sqlstate "$DB" -U "$role" "$@"; }
drop() { sqlstate "$DB" -c "DROP ROLE $1"; }

as "$OWNER" -c "SELECT dpobj.protect('public.t')" \
    -c "SELECT 1 FROM dpobj.grant_budget('public.t', '$ANALYST', 2, 1e-6)" \
    -c "SELECT 1 FROM dpobj.grant_budget('public.t', '$SPENDER', 1, 1e-6)" >/dev/null
as "$DOMOWNER" -c "SELECT dpobj.create_budget_domain('dr_domain')" >/dev/null

t_is "an analyst holding a budget with epsilon left: DROP ROLE refused (2BP01), budget kept" \
    "$(drop "$ANALYST")/$(q "SELECT count(*) FROM dpobj.budgets WHERE rolid = '$ANALYST'::regrole")" "2BP01/1"
t_is "a budget domain's owner: DROP ROLE refused (2BP01)" "$(drop "$DOMOWNER")" "2BP01"
t_is "... also inside DROP OWNED + DROP ROLE in one transaction (2BP01)" \
    "$(sqlstate "$DB" -c "BEGIN" -c "DROP OWNED BY $DOMOWNER" -c "DROP ROLE $DOMOWNER" -c "COMMIT")" "2BP01"
t_is "a spender that spent its whole budget: the drop goes through" \
    "$(as "$SPENDER" -c "SELECT dpobj.train('public.t', 'expmech', ARRAY['a', 'b'], 'y', 1, 1e-6)" >/dev/null; drop "$SPENDER")" "ok"
t_is "after the owner revokes the analyst's budget, the drop goes through" \
    "$(as "$OWNER" -c "SELECT dpobj.revoke_budget('public.t', '$ANALYST')" >/dev/null; drop "$ANALYST")" "ok"
t_is "after the domain is dropped, its owner's drop goes through" \
    "$(as "$DOMOWNER" -c "SELECT dpobj.drop_budget_domain('dr_domain')" >/dev/null; drop "$DOMOWNER")" "ok"

# a grant that races a DROP ROLE: it waits for the dropping transaction, then refuses
late=$(q "SELECT oid FROM pg_roles WHERE rolname = '$LATE'")
psql -X -q -d "$DB" -c "BEGIN" -c "DROP ROLE $LATE" -c "SELECT pg_sleep(2)" -c "COMMIT" >/dev/null 2>&1 &
dropper=$!
sleep 0.7
t_is "a grant to a role being dropped waits, then finds no role (42704), and no budget row is left" \
    "$(as "$OWNER" -c "SELECT 1 FROM dpobj.grant_budget('public.t', $late::regrole, 1, 0)")/$(q "SELECT count(*) FROM dpobj.budgets WHERE rolid::oid = $late")" \
    "42704/0"
wait "$dropper"

drop_all
t_summary
