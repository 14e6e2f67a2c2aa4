#!/usr/bin/env bash
# tests/security/grouprole.sh — a budget domain taken over through a role the data owner
# shares with an analyst (docs/SECURITY.md, "Budget domains: who can do what"): membership
# is not consent.  The data owner and an analyst are both members of an "all staff" group;
# the analyst, after SET ROLE to the group, creates the domain the owner will use, and
# then, as the group, grants itself and an accomplice.  Every step, then the variants: the
# owner a member of the analyst's role, a member of the owner's role, nested groups, a
# group that is a dpobj_admin member, SECURITY DEFINER functions, ALTER TABLE ... OWNER TO
# after a join, a renamed and a dropped domain owner.  Last, the number: no role the owner did not grant holds a budget
# on its rows.
# Needs PGHOST/PGPORT/PGUSER (a superuser) and dpobj installed.
set -uo pipefail
DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=tests/security/lib.sh
. "$DIR/lib.sh"
DB=dpobj_grouprole
OWNER=dpobj_gr_owner          # owns public.hosp
OWNER2=dpobj_gr_owner2        # receives public.hosp2 later
ANALYST=dpobj_gr_analyst      # owns nothing; member of STAFF and G2
ANALYST2=dpobj_gr_analyst2    # owns nothing; member of ADMINS
ACCOMPLICE=dpobj_gr_accomplice
ALTEGO=dpobj_gr_alterego      # a role the analyst is a member of
STAFF=dpobj_gr_staff          # NOLOGIN group: OWNER and ANALYST
G1=dpobj_gr_g1                # OWNER in G1, G1 in G2
G2=dpobj_gr_g2
ADMINS=dpobj_gr_admins        # NOLOGIN group in dpobj_admin; ANALYST2 a member
LOGINS=("$OWNER" "$OWNER2" "$ANALYST" "$ANALYST2" "$ACCOMPLICE")
GROUPS_=("$ALTEGO" "$STAFF" "$G1" "$G2" "$ADMINS")
ALL=("${LOGINS[@]}" "${GROUPS_[@]}" "${STAFF}_renamed")

drop_all() {
    t_psql -d postgres -c "DROP DATABASE IF EXISTS $DB" >/dev/null 2>&1
    for r in "${ALL[@]}"; do t_psql -d postgres -c "DROP ROLE IF EXISTS $r" >/dev/null 2>&1; done
}
drop_all
for r in "${LOGINS[@]}"; do t_psql -d postgres -c "CREATE ROLE $r LOGIN" >/dev/null || exit 1; done
for r in "${GROUPS_[@]}"; do t_psql -d postgres -c "CREATE ROLE $r NOLOGIN" >/dev/null || exit 1; done
t_psql -d postgres -c "GRANT $STAFF TO $OWNER, $ANALYST" -c "GRANT $G1 TO $OWNER" \
    -c "GRANT $G2 TO $G1, $ANALYST" -c "GRANT $ALTEGO TO $ANALYST" \
    -c "GRANT $ADMINS TO $ANALYST2" -c "GRANT $ALTEGO TO $ANALYST2" >/dev/null || exit 1
t_psql -d postgres -c "CREATE DATABASE $DB" >/dev/null || exit 1
t_psql -d "$DB" -c "CREATE EXTENSION dpobj" -c "GRANT dpobj_admin TO $ADMINS" \
    -c "ALTER DATABASE $DB SET dpobj.max_self_grant_epsilon = 1" \
    -c "ALTER DATABASE $DB SET dpobj.max_self_grant_delta = 0.001" \
    -c "CREATE SCHEMA s" -c "GRANT USAGE ON SCHEMA s TO PUBLIC" \
    -c "GRANT CREATE ON SCHEMA s TO $ANALYST, $STAFF" >/dev/null || exit 1
for t in hosp hosp2 hosp3; do
    t_psql -d "$DB" -c "CREATE TABLE public.$t AS
        SELECT 1 + i % 20 AS person, (i % 7) / 4.0 - 0.75 AS a, (i % 5) / 4.0 - 0.5 AS b, (i % 7) > 3 AS y
          FROM generate_series(1, 40) i" -c "REVOKE ALL ON public.$t FROM PUBLIC" \
        -c "ALTER TABLE public.$t OWNER TO $OWNER" >/dev/null || exit 1
done

as() { local role=$1; shift; sqlstate "$DB" -U "$role" "$@"; }
q() { t_psql -d "$DB" -c "$1"; }
qa() { local role=$1; shift; t_psql -d "$DB" -U "$role" -c "$1"; }
train() { echo "SELECT dpobj.train('public.$1', 'expmech', ARRAY['a', 'b'], 'y', ${2:-1}, 1e-6)"; }
runs_left() { t_psql -d "$DB" -c "SET ROLE $1" -c "SELECT dpobj.runs_left('public.$2', 'expmech', 1, 1e-6)"; }
# as a superuser's SET ROLE (any role, logins or not)
asr() { local role=$1; shift; sqlstate "$DB" -c "SET ROLE $role" "$@"; }

# ---- the issue's scenario -----------------------------------------------------------
t_is "analyst, SET ROLE to the shared group, creates the domain the owner will use" \
    "$(as "$ANALYST" -c "SET ROLE $STAFF" -c "SELECT dpobj.create_budget_domain('hospital')")" "ok"
t_is "owner: protect(hosp, person, 2, 'hospital') no longer joins the group's domain (42501)" \
    "$(as "$OWNER" -c "SELECT dpobj.protect('public.hosp', 'person', 2, 'hospital')")" "42501"
t_is "... and leaves nothing behind" \
    "$(q "SELECT count(*) FROM dpobj.protected_tables WHERE relid = 'public.hosp'::regclass")" "0"
t_is "owner: protect, then set_budget_domain(hosp, 'hospital'): refused (42501)" \
    "$(as "$OWNER" -c "SELECT dpobj.protect('public.hosp', 'person', 2)" \
        -c "SELECT dpobj.set_budget_domain('public.hosp', 'hospital')")" "42501"
t_is "owner, SET ROLE to the group itself, cannot join its own table either (42501)" \
    "$(as "$OWNER" -c "SET ROLE $STAFF" -c "SELECT dpobj.set_budget_domain('public.hosp', 'hospital')")" "42501"
t_is "as the group, the analyst grants itself above the cap: refused (42501)" \
    "$(as "$ANALYST" -c "SET ROLE $STAFF" -c "SELECT 1 FROM dpobj.grant_domain_budget('hospital', '$ANALYST', 100000, 0.1)")" "42501"
t_is "... nor to the group (42501), nor to a role the analyst is a member of (42501)" \
    "$(as "$ANALYST" -c "SET ROLE $STAFF" -c "SELECT 1 FROM dpobj.grant_domain_budget('hospital', '$STAFF', 100000, 0)")/$(as "$ANALYST" -c "SET ROLE $STAFF" -c "SELECT 1 FROM dpobj.grant_domain_budget('hospital', '$ALTEGO', 100000, 0)")" \
    "42501/42501"
t_is "... within the cap it may (its own domain, which covers none of the owner's rows)" \
    "$(as "$ANALYST" -c "SET ROLE $STAFF" -c "SELECT 1 FROM dpobj.grant_domain_budget('hospital', '$ANALYST', 1, 0)")" "ok"
t_is "as the group, it grants an accomplice 100000 (uncapped: nobody acts as both)" \
    "$(as "$ANALYST" -c "SET ROLE $STAFF" -c "SELECT 1 FROM dpobj.grant_domain_budget('hospital', '$ACCOMPLICE', 100000, 0.1)")" "ok"
for r in "$ANALYST" "$ACCOMPLICE" "$STAFF"; do
    t_is "$r: runs_left on the owner's table is 0, train at epsilon 50000 refused before the charge (DP004)" \
        "$(runs_left "$r" hosp)/$(asr "$r" -c "$(train hosp 50000)")" "0/DP004"
done

# ---- without SET ROLE: membership gives no domain powers ---------------------------
t_is "analyst (a member of the owning group) cannot grant its accomplice (42501)" \
    "$(as "$ANALYST" -c "SELECT 1 FROM dpobj.grant_domain_budget('hospital', '$ACCOMPLICE', 1, 0)")" "42501"
t_is "... nor revoke (42501), allow a table (42501), drop the domain (42501)" \
    "$(as "$ANALYST" -c "SELECT dpobj.revoke_domain_budget('hospital', '$ACCOMPLICE')")/$(as "$ANALYST" -c "SELECT dpobj.allow_budget_domain_member('hospital', 'public.hosp')")/$(as "$ANALYST" -c "SELECT dpobj.drop_budget_domain('hospital')")" \
    "42501/42501/42501"
# a member table the group itself owns, and a charge on the domain: the ledger's rows
t_psql -d "$DB" -c "CREATE TABLE s.staffdata AS SELECT * FROM public.hosp" \
    -c "ALTER TABLE s.staffdata OWNER TO $STAFF" -c "REVOKE ALL ON s.staffdata FROM PUBLIC" >/dev/null
t_is "the group joins its own table (the same role owns both)" \
    "$(as "$ANALYST" -c "SET ROLE $STAFF" -c "SELECT dpobj.protect('s.staffdata', 'person', 2, 'hospital')")" "ok"
t_is "the accomplice trains on it: one charge on the domain" \
    "$(as "$ACCOMPLICE" -c "SELECT dpobj.train('s.staffdata', 'expmech', ARRAY['a', 'b'], 'y', 1, 1e-6)")" "ok"
t_is "the owner (a member, not the domain's owner) sees none of the domain's budgets or charges" \
    "$(qa "$OWNER" "SELECT (SELECT count(*) FROM dpobj.budgets WHERE budget_domain = 'hospital') + (SELECT count(*) FROM dpobj.ledger WHERE budget_domain = 'hospital')")" "0"
t_is "the analyst sees its own budget only, and no other role's charge" \
    "$(qa "$ANALYST" "SELECT (SELECT count(*) FROM dpobj.budgets WHERE budget_domain = 'hospital') || '/' || (SELECT count(*) FROM dpobj.ledger WHERE budget_domain = 'hospital')")" "1/0"
t_is "the group itself (SET ROLE) sees them all" \
    "$(t_psql -d "$DB" -U "$ANALYST" -c "SET ROLE $STAFF" -c "SELECT (SELECT count(*) FROM dpobj.budgets WHERE budget_domain = 'hospital') || '/' || (SELECT count(*) FROM dpobj.ledger WHERE budget_domain = 'hospital')")" \
    "2/1"

# ---- the owner consents explicitly: the domain's side allows, the owner names it ---
t_is "explicit consent still works: the group allows hosp3, the owner joins naming the group" \
    "$(as "$OWNER" -c "SELECT dpobj.protect('public.hosp3', 'person', 2)")/$(as "$ANALYST" -c "SET ROLE $STAFF" -c "SELECT dpobj.allow_budget_domain_member('hospital', 'public.hosp3')")/$(as "$OWNER" -c "SELECT dpobj.set_budget_domain('public.hosp3', 'hospital', '$STAFF')")" \
    "ok/ok/ok"
t_is "... after it the analyst's self-grant as the group stays capped (42501)" \
    "$(as "$ANALYST" -c "SET ROLE $STAFF" -c "SELECT 1 FROM dpobj.grant_domain_budget('hospital', '$ANALYST', 5, 0)")" "42501"
# ---- SECURITY DEFINER functions -----------------------------------------------------
t_psql -d "$DB" -U "$ANALYST" -c "CREATE FUNCTION s.grant_me() RETURNS int LANGUAGE sql SECURITY DEFINER
    AS \$\$ SELECT 1 FROM dpobj.grant_domain_budget('hospital', '$ANALYST', 100000, 0) \$\$" \
    -c "ALTER FUNCTION s.grant_me() OWNER TO $STAFF" \
    -c "CREATE FUNCTION s.helper() RETURNS boolean LANGUAGE sql SECURITY DEFINER
    AS \$\$ SELECT dpobj.set_budget_domain('public.hosp', 'hospital', '$STAFF') \$\$" \
    -c "GRANT EXECUTE ON FUNCTION s.helper() TO PUBLIC" >/dev/null
t_is "a SECURITY DEFINER function of the group (not owning every member now) granting the analyst: capped (42501)" \
    "$(as "$ANALYST" -c "SELECT s.grant_me()")" "42501"
t_is "the owner calling the analyst's SECURITY DEFINER 'helper' that joins its table: refused (42501)" \
    "$(as "$OWNER" -c "SELECT s.helper()")" "42501"

t_is "... the owner leaves again" \
    "$(as "$OWNER" -c "SELECT dpobj.set_budget_domain('public.hosp3', NULL)")" "ok"

# ---- the owner is a member of the analyst's role; nested groups ---------------------
t_psql -d postgres -c "GRANT $ANALYST TO $OWNER" >/dev/null
t_is "analyst's own domain; the owner, a member of the analyst's role, is refused (42501)" \
    "$(as "$ANALYST" -c "SELECT dpobj.create_budget_domain('adom')")/$(as "$OWNER" -c "SELECT dpobj.set_budget_domain('public.hosp', 'adom')")" \
    "ok/42501"
t_psql -d postgres -c "REVOKE $ANALYST FROM $OWNER" >/dev/null
t_is "nested: owner in G1 in G2, the analyst (in G2) creates G2's domain; the owner is refused (42501)" \
    "$(as "$ANALYST" -c "SET ROLE $G2" -c "SELECT dpobj.create_budget_domain('nested')")/$(as "$OWNER" -c "SELECT dpobj.set_budget_domain('public.hosp', 'nested')")" \
    "ok/42501"
t_is "... nor SET ROLE to G1 (a member of G2) can join or grant for G2 (42501/42501)" \
    "$(as "$OWNER" -c "SET ROLE $G1" -c "SELECT dpobj.set_budget_domain('public.hosp', 'nested')")/$(as "$OWNER" -c "SET ROLE $G1" -c "SELECT 1 FROM dpobj.grant_domain_budget('nested', '$G1', 1, 0)")" \
    "42501/42501"

# ---- a member of the table's owner (inheriting its privileges) does not consent for it --
t_psql -d postgres -c "GRANT $OWNER TO $ACCOMPLICE" >/dev/null
t_is "a member of the owner's role: its own domain, it allows hosp, then joins it for the owner: refused (42501)" \
    "$(as "$ACCOMPLICE" -c "SELECT dpobj.create_budget_domain('cdom')" -c "SELECT dpobj.allow_budget_domain_member('cdom', 'public.hosp')")/$(as "$ACCOMPLICE" -c "SELECT dpobj.set_budget_domain('public.hosp', 'cdom', '$ACCOMPLICE')")" \
    "ok/42501"
t_psql -d postgres -c "REVOKE $OWNER FROM $ACCOMPLICE" >/dev/null

# ---- table grants: a dpobj_admin group and SET ROLE --------------------------------
t_is "analyst2, SET ROLE to a dpobj_admin group, grants itself on the owner's table above the cap: refused (42501)" \
    "$(as "$ANALYST2" -c "SET ROLE $ADMINS" -c "SELECT 1 FROM dpobj.grant_budget('public.hosp', '$ANALYST2', 100, 0)")" "42501"
t_is "... nor to a role it is a member of (42501), nor to the group itself (42501)" \
    "$(as "$ANALYST2" -c "SET ROLE $ADMINS" -c "SELECT 1 FROM dpobj.grant_budget('public.hosp', '$ALTEGO', 100, 0)")/$(as "$ANALYST2" -c "SET ROLE $ADMINS" -c "SELECT 1 FROM dpobj.grant_budget('public.hosp', '$ADMINS', 100, 0)")" \
    "42501/42501"
t_is "... without SET ROLE (inherited dpobj_admin) the same (42501)" \
    "$(as "$ANALYST2" -c "SELECT 1 FROM dpobj.grant_budget('public.hosp', '$ANALYST2', 100, 0)")" "42501"

# ---- ALTER TABLE ... OWNER TO after a join ------------------------------------------
t_is "owner: its own domain, hosp2 joins, grants the analyst 1" \
    "$(as "$OWNER" -c "SELECT dpobj.create_budget_domain('own')" -c "SELECT dpobj.protect('public.hosp2', 'person', 2, 'own')" -c "SELECT 1 FROM dpobj.grant_domain_budget('own', '$ANALYST', 1, 1e-5)")/$(runs_left "$ANALYST" hosp2)" \
    "ok/1"
q "ALTER TABLE public.hosp2 OWNER TO $OWNER2" >/dev/null
t_is "handed to another owner: the new owner never agreed, the analyst's budget no longer reaches it" \
    "$(runs_left "$ANALYST" hosp2)/$(as "$ANALYST" -c "$(train hosp2)")" "0/DP004"
t_is "... the new owner may take it out (its own decision)" \
    "$(as "$OWNER2" -c "SELECT dpobj.set_budget_domain('public.hosp2', NULL)")" "ok"

# ---- renamed and dropped domain owners ----------------------------------------------
q "ALTER ROLE $STAFF RENAME TO ${STAFF}_renamed" >/dev/null
t_is "the group renamed: the domain is still its (by OID); the owner is still refused (42501)" \
    "$(q "SELECT owner FROM dpobj.budget_domains WHERE name = 'hospital'")/$(as "$OWNER" -c "SELECT dpobj.set_budget_domain('public.hosp', 'hospital')")" \
    "${STAFF}_renamed/42501"
q "ALTER ROLE ${STAFF}_renamed RENAME TO $STAFF" >/dev/null
t_is "G2 owns a domain: DROP ROLE in this database is refused (2BP01)" \
    "$(sqlstate "$DB" -c "DROP ROLE $G2")" "2BP01"
# from another database dpobj does not see the domain (docs/SECURITY.md)
t_is "G2's domain, after G2 is dropped from another database, is nobody's: no grant, no join (42501/42501)" \
    "$(t_psql -d postgres -c "DROP ROLE $G2" >/dev/null; as "$ANALYST" -c "SELECT 1 FROM dpobj.grant_domain_budget('nested', '$ANALYST', 1, 0)")/$(as "$OWNER" -c "SELECT dpobj.set_budget_domain('public.hosp', 'nested')")" \
    "42501/42501"

# ---- the number: budgets on the owner's rows that the owner did not grant ----------
n=0
for t in hosp hosp2 hosp3; do
    for r in "$ANALYST" "$ANALYST2" "$ACCOMPLICE" "$ALTEGO" "$STAFF" "$G1" "$ADMINS" "$OWNER2"; do
        left=$(t_psql -d "$DB" -c "SET ROLE $r" -c "SELECT dpobj.runs_left('public.$t', 'expmech', 1, 1e-6)" 2>&1)
        [[ $left == 0 ]] || { n=$((n + 1)); echo "# $r on $t: $left"; }
    done
done
t_is "roles holding a budget on the owner's tables that the owner did not grant" "$n" "0"
t_is "no charge on the owner's tables" \
    "$(q "SELECT count(*) FROM dpobj.ledger WHERE relation LIKE 'public.hosp%' AND outcome <> 'refused'")" "0"

drop_all
t_summary
