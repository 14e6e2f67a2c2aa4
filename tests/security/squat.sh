#!/usr/bin/env bash
# tests/security/squat.sh — budget-domain squatting (docs/SECURITY.md, "Budget domains").
# A plain login role that owns nothing but its own table creates a budget domain under the
# name the data owner means to use, puts its own unit table into it, grants itself a large
# budget (it owns every member, so the self-grant cap does not apply), and waits for the
# data owner to join the owner's table.  Every step that would hand the squatter (or a role
# it colludes with) a budget on the owner's rows must fail; each is tested with the data
# owner as a plain login role, as a dpobj_admin member, and as a superuser.  Then the same
# roles in an agreed join: the cap re-check when a table of another owner joins, and the
# owner's view of the domain's budgets before it joins.  Last, the enumeration answer
# (docs/SECURITY.md: which tables are protected is public, their details are not).
# Needs PGHOST/PGPORT/PGUSER (a superuser) and dpobj installed.
set -uo pipefail
DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=tests/security/lib.sh
. "$DIR/lib.sh"
DB=dpobj_squat
SQUATTER=dpobj_squat_mallory   # owns s.mine only
OWNER=dpobj_squat_owner        # owns public.hosp only
ADMINOWNER=dpobj_squat_admin   # dpobj_admin member; owns public.hosp2 only
COLLUDER=dpobj_squat_colluder  # owns nothing
ANALYST=dpobj_squat_analyst    # owns nothing
ROLES=("$SQUATTER" "$OWNER" "$ADMINOWNER" "$COLLUDER" "$ANALYST")

for r in "${ROLES[@]}"; do
    t_psql -d postgres -c "DROP ROLE IF EXISTS $r" -c "CREATE ROLE $r LOGIN" >/dev/null 2>&1
done
t_psql -d postgres -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB" >/dev/null 2>&1 || exit 1
t_psql -d "$DB" -c "CREATE EXTENSION dpobj" \
    -c "ALTER DATABASE $DB SET dpobj.max_self_grant_epsilon = 1" \
    -c "ALTER DATABASE $DB SET dpobj.max_self_grant_delta = 0.001" \
    -c "GRANT dpobj_admin TO $ADMINOWNER" \
    -c "CREATE SCHEMA s" -c "GRANT USAGE, CREATE ON SCHEMA s TO $SQUATTER" >/dev/null || exit 1
# the owners' tables: the same people (person), 40 rows each
for t in hosp:$OWNER hosp2:$ADMINOWNER hosp3:postgres; do
    t_psql -d "$DB" -c "CREATE TABLE public.${t%%:*} AS
        SELECT 1 + i % 20 AS person, (i % 7) / 4.0 - 0.75 AS a, (i % 5) / 4.0 - 0.5 AS b, (i % 7) > 3 AS y
          FROM generate_series(1, 40) i" -c "REVOKE ALL ON public.${t%%:*} FROM PUBLIC" \
        -c "ALTER TABLE public.${t%%:*} OWNER TO ${t#*:}" >/dev/null || exit 1
done

q0() { t_psql -d "$DB" -c "CREATE TABLE public.unprot (person int)" >/dev/null; }
q0
# as ROLE (a login of that role), the SQLSTATE of the statements, or "ok"
as() { local role=$1; shift; sqlstate "$DB" -U "$role" "$@"; }
q() { t_psql -d "$DB" -c "$1"; }
TRAIN="SELECT dpobj.train('public.hosp', 'expmech', ARRAY['a', 'b'], 'y', 1, 1e-6)"

# ---- 1-3: the squatter's own domain, table and budget ---------------------------------
t_is "squatter: create_budget_domain('hospital') (any role may)" \
    "$(as "$SQUATTER" -c "SELECT dpobj.create_budget_domain('hospital')")" "ok"
t_is "squatter: protects its own table into the domain" \
    "$(as "$SQUATTER" -c "CREATE TABLE s.mine (person int, a float8, b float8, y boolean)" \
        -c "SELECT dpobj.protect('s.mine', 'person', 2, 'hospital')")" "ok"
t_is "squatter: grants itself 500 on the domain (it owns every member: uncapped)" \
    "$(as "$SQUATTER" -c "SELECT 1 FROM dpobj.grant_domain_budget('hospital', '$SQUATTER', 500, 0.1)")" "ok"
t_is "squatter: grants its colluder 100 on the domain" \
    "$(as "$SQUATTER" -c "SELECT 1 FROM dpobj.grant_domain_budget('hospital', '$COLLUDER', 100, 0)")" "ok"

# ---- 4: the data owner creates the name: an error, and the domain stays the squatter's -
t_is "owner: create_budget_domain('hospital') is an error (42710), not a notice" \
    "$(as "$OWNER" -c "SELECT dpobj.create_budget_domain('hospital')")" "42710"
t_is "... the domain is still the squatter's" \
    "$(q "SELECT owner FROM dpobj.budget_domains WHERE name = 'hospital'")" "$SQUATTER"

# ---- 5: each owner protects its table into 'hospital' as the docs say: refused --------
for o in "hosp:$OWNER" "hosp2:$ADMINOWNER" "hosp3:postgres"; do
    t_is "${o#*:}: protect('public.${o%%:*}', 'person', 2, 'hospital') is refused (42501)" \
        "$(as "${o#*:}" -c "SELECT dpobj.protect('public.${o%%:*}', 'person', 2, 'hospital')")" "42501"
    t_is "... and nothing of it stays (no protection, no membership)" \
        "$(q "SELECT count(*) FROM dpobj.protected_tables WHERE relid = 'public.${o%%:*}'::regclass")" "0"
    t_is "${o#*:}: protect without the domain, then set_budget_domain(rel, 'hospital'): refused (42501)" \
        "$(as "${o#*:}" -c "SELECT dpobj.protect('public.${o%%:*}', 'person', 2)" \
            -c "SELECT dpobj.set_budget_domain('public.${o%%:*}', 'hospital')")" "42501"
    t_is "${o#*:}: naming the squatter as the domain's owner, without its allowance: refused (42501)" \
        "$(as "${o#*:}" -c "SELECT dpobj.set_budget_domain('public.${o%%:*}', 'hospital', '$SQUATTER')")" "42501"
done
t_is "no owner's table is in the squatter's domain" \
    "$(q "SELECT count(*) FROM dpobj.protected_tables WHERE budget_domain = 'hospital'")" "1"

# ---- the squatter moves the owner's table itself: refused -----------------------------
t_is "squatter: set_budget_domain('public.hosp', 'hospital') (not the table's owner): refused (42501)" \
    "$(as "$SQUATTER" -c "SELECT dpobj.set_budget_domain('public.hosp', 'hospital', '$SQUATTER')")" "42501"
t_is "squatter: protect('public.hosp', ..., 'hospital'): refused (42501)" \
    "$(as "$SQUATTER" -c "SELECT dpobj.protect('public.hosp', 'person', 2, 'hospital')")" "42501"

# ---- the squatter allows the owner's table; the owner still joins only by naming it ---
t_is "squatter: allow_budget_domain_member('hospital', 'public.hosp') (its own domain's side)" \
    "$(as "$SQUATTER" -c "SELECT dpobj.allow_budget_domain_member('hospital', 'public.hosp')")" "ok"
t_is "owner, following the docs: set_budget_domain('public.hosp', 'hospital') still refused (42501)" \
    "$(as "$OWNER" -c "SELECT dpobj.set_budget_domain('public.hosp', 'hospital')")" "42501"
t_is "owner: naming another owner (itself): refused (42501)" \
    "$(as "$OWNER" -c "SELECT dpobj.set_budget_domain('public.hosp', 'hospital', '$OWNER')")" "42501"
t_is "owner sees, before joining, who holds budgets on the domain" \
    "$(t_psql -d "$DB" -U "$OWNER" -c "SELECT string_agg(rolid::text || '=' || granted_epsilon::float8, ',' ORDER BY rolid::text) FROM dpobj.budgets WHERE budget_domain = 'hospital'")" \
    "$COLLUDER=100,$SQUATTER=500"
t_is "an analyst without a table sees none of them" \
    "$(t_psql -d "$DB" -U "$ANALYST" -c "SELECT count(*) FROM dpobj.budgets WHERE budget_domain = 'hospital'")" "0"
t_is "owner, naming the squatter: refused while the squatter's uncapped self-grant stands (55000)" \
    "$(as "$OWNER" -c "SELECT dpobj.set_budget_domain('public.hosp', 'hospital', '$SQUATTER')")" "55000"
t_is "the squatter's allowance does not let the dpobj_admin owner's or the superuser's table in (42501)" \
    "$(as "$ADMINOWNER" -c "SELECT dpobj.set_budget_domain('public.hosp2', 'hospital', '$SQUATTER')")/$(as postgres -c "SELECT dpobj.set_budget_domain('public.hosp3', 'hospital', '$SQUATTER')")" \
    "42501/42501"

# ---- through all of it: no budget on the owner's rows for the squatter or its colluder --
for r in "$SQUATTER" "$COLLUDER"; do
    t_is "$r: runs_left on public.hosp is 0" \
        "$(t_psql -d "$DB" -U "$r" -c "SELECT dpobj.runs_left('public.hosp', 'expmech', 1, 1e-6)")" "0"
    t_is "$r: train() on public.hosp refused before the charge (DP004)" \
        "$(as "$r" -c "$TRAIN")" "DP004"
    t_is "$r: cannot grant on public.hosp (42501)" \
        "$(as "$r" -c "SELECT dpobj.grant_budget('public.hosp', '$r', 1, 0)")" "42501"
done
t_is "no charge on the owner's tables" \
    "$(q "SELECT count(*) FROM dpobj.ledger WHERE relation LIKE 'public.hosp%' AND outcome <> 'refused'")" "0"

# ---- an agreed join: the caps are re-checked when a table of another owner joins ----
t_is "squatter revokes its own budget; the owner, naming it, may join (both agree)" \
    "$(as "$SQUATTER" -c "SELECT 1 FROM dpobj.revoke_domain_budget('hospital', '$SQUATTER')")/$(as "$OWNER" -c "SELECT dpobj.set_budget_domain('public.hosp', 'hospital', '$SQUATTER')")" \
    "ok/ok"
t_is "after the join the squatter no longer owns every member: a self-grant above the cap is refused (42501)" \
    "$(as "$SQUATTER" -c "SELECT 1 FROM dpobj.grant_domain_budget('hospital', '$SQUATTER', 5, 0)")" "42501"
t_is "... within the cap it is allowed" \
    "$(as "$SQUATTER" -c "SELECT 1 FROM dpobj.grant_domain_budget('hospital', '$SQUATTER', 0.5, 0)")" "ok"
t_is "the allowance was for public.hosp only: public.hosp2's owner is still refused (42501)" \
    "$(as "$ADMINOWNER" -c "SELECT dpobj.set_budget_domain('public.hosp2', 'hospital', '$SQUATTER')")" "42501"
t_is "the owner leaves again (its own decision alone)" \
    "$(as "$OWNER" -c "SELECT dpobj.set_budget_domain('public.hosp', NULL)")" "ok"
# a self-grant racing a join: the join holds the domain's row until it commits, the grant
# waits for it and then sees a member it does not own
( t_psql -d "$DB" -U "$OWNER" -c "BEGIN" \
    -c "SELECT dpobj.set_budget_domain('public.hosp', 'hospital', '$SQUATTER')" \
    -c "SELECT pg_sleep(2)" -c "COMMIT" >/dev/null ) &
sleep 0.8
RACE=$(as "$SQUATTER" -c "SELECT 1 FROM dpobj.grant_domain_budget('hospital', '$SQUATTER', 5, 0)")
wait
t_is "a self-grant above the cap racing a join waits for it and is then refused (42501)" "$RACE" "42501"
t_is "... the join went through; the owner leaves again" \
    "$(t_psql -d "$DB" -U "$OWNER" -c "SELECT dpobj.set_budget_domain('public.hosp', NULL)")" "t"

# ---- the enumeration answer: protected or not is public, nothing else is ------------
t_is "a role with no budget: runs_left answers 0 on a protected table, DP005 on an unprotected one" \
    "$(t_psql -d "$DB" -U "$ANALYST" -c "SELECT dpobj.runs_left('public.hosp', 'expmech', 1, 1e-6)")/$(as "$ANALYST" -c "SELECT dpobj.runs_left('public.unprot', 'expmech', 1, 1e-6)")" \
    "0/DP005"
t_is "... but sees no protection, unit, domain or budget of those tables" \
    "$(t_psql -d "$DB" -U "$ANALYST" -c "SELECT (SELECT count(*) FROM dpobj.protected_tables) + (SELECT count(*) FROM dpobj.budgets) + (SELECT count(*) FROM dpobj.budget_domain_allowed)")" "0"

t_psql -d postgres -c "DROP DATABASE $DB" >/dev/null
for r in "${ROLES[@]}"; do t_psql -d postgres -c "DROP ROLE IF EXISTS $r" >/dev/null; done
t_summary
