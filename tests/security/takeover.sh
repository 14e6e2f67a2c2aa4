#!/usr/bin/env bash
# tests/security/takeover.sh — dpobj's superuser-run code in a schema that another role
# controls (docs/SECURITY.md, "Installation").
#   A. The install scripts of 0.1.0 and 0.2.0 (and 0.3.0, 0.4.0) are not installed: CREATE EXTENSION ...
#      VERSION '0.1.0' or '0.2.0' is refused, so no installable version creates objects
#      before checking its schema.  A database that runs 0.1.0 in a schema dpobj that a
#      non-superuser created beforehand (set up with the released script, which cannot
#      refuse): every library entry point refuses (42501) and the update is refused.
#   B. a 0.2.0 install whose schema was later handed to a non-superuser (or renamed away
#      and replaced by that role's own "dpobj"): the update is refused.
#   C. a current install whose schema was handed to a role that can create schemas: it
#      renames the schema, plants its own "dpobj" with a trigger on every table and a
#      twin of every function, and fires every event trigger of the extension (as itself
#      and as a superuser).  The SECURITY DEFINER functions and event triggers are taken
#      from the catalog, so a new one without an attack here fails this test.
#   D. a schema dpobj that a non-superuser created and filled, then a superuser took
#      over: CREATE EXTENSION (and the update of a 0.4.0 install there) is refused while
#      the schema holds objects that are not the extension's.
# Needs PGHOST/PGPORT/PGUSER (a superuser) and dpobj installed.
set -uo pipefail
DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=tests/security/lib.sh
. "$DIR/lib.sh"
DB=dpobj_takeover
MALLORY=dpobj_takeover_mallory
MARK=dpobj-takeover-escalated

t_role "$MALLORY" >/dev/null || exit 1
t_psql -d postgres -c "ALTER ROLE $MALLORY NOSUPERUSER" >/dev/null || exit 1

fresh_db() {
    t_psql -d postgres -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB" \
        -c "GRANT CREATE ON DATABASE $DB TO $MALLORY" >/dev/null 2>&1 &&
        t_psql -d "$DB" -c "CREATE TABLE pts AS SELECT g AS i, g / 10.0 AS a, g % 2 = 0 AS y FROM generate_series(1, 20) g" \
            -c "REVOKE ALL ON pts FROM PUBLIC" -c "SET ROLE $MALLORY" -c "CREATE SCHEMA mallory_s" >/dev/null
}
version() { t_psql -d "$DB" -c "SELECT extversion FROM pg_extension WHERE extname = 'dpobj'"; }
# "SQLSTATE/version" after ALTER EXTENSION dpobj UPDATE
update_result() { echo "$(sqlstate "$DB" -c "ALTER EXTENSION dpobj UPDATE")/$(version)"; }
mallory_super() { t_psql -d "$DB" -c "SELECT rolsuper FROM pg_roles WHERE rolname = '$MALLORY'"; }
# drop the test database even while schema dpobj is not trustworthy (DROP DATABASE fires
# no event trigger)
cleanup_db() { t_psql -d postgres -c "DROP DATABASE IF EXISTS $DB" >/dev/null; }

# ---- A. 0.1.0 in a schema dpobj that a non-superuser created -------------------------
fresh_db || exit 1
t_psql -d "$DB" -c "SET ROLE $MALLORY" -c "CREATE SCHEMA dpobj" >/dev/null
for old in 0.1.0 0.2.0 0.3.0 0.4.0; do
    t_is "the $old install script is not installed: CREATE EXTENSION dpobj VERSION '$old' refused (22023)" \
        "$(sqlstate "$DB" -c "CREATE EXTENSION dpobj VERSION '$old'")" "22023"
done
t_is "a fresh install into that schema is refused (42501)" \
    "$(sqlstate "$DB" -c "CREATE EXTENSION dpobj")" "42501"
with_old_install_script t_psql -d "$DB" -c "CREATE EXTENSION dpobj VERSION '0.1.0'" >/dev/null || exit 1
ENTRY_POINTS=(
    "SELECT dpobj.protect('pts')"
    "SELECT dpobj.grant_budget('pts', '$MALLORY', 1, 0.001)"
    "SELECT dpobj.revoke_budget('pts', '$MALLORY')"
    "SELECT dpobj.train('pts', 'opdisc', ARRAY['a'], 'y', 0.1, 0.00001)"
    "SELECT dpobj.submit('pts', 'opdisc', ARRAY['a'], 'y', 0.1, 0.00001)"
    "SELECT dpobj.cancel(1)"
)
for stmt in "${ENTRY_POINTS[@]}"; do
    t_is "0.1.0 in a non-superuser's schema: '$stmt' refused (42501)" "$(sqlstate "$DB" -c "$stmt")" "42501"
done
# the 0.1.0 aggregates' transition functions are refused outright by a newer library
t_is "... a direct aggregate run refused (0A000: 0.1.0 aggregate)" \
    "$(sqlstate "$DB" -c "SELECT dpobj.dp_halfspace(ARRAY[a]::float8[], y, 0.1, 0.00001) FROM pts")" "0A000"
t_is "... and nothing reached the ledger" "$(t_psql -d "$DB" -c "SELECT count(*) FROM dpobj.ledger")" "0"
t_is "... ALTER EXTENSION dpobj UPDATE TO '0.2.0' refused (42501)" \
    "$(sqlstate "$DB" -c "ALTER EXTENSION dpobj UPDATE TO '0.2.0'")" "42501"
t_is "... ALTER EXTENSION dpobj UPDATE refused (42501), still 0.1.0" \
    "$(update_result)" "42501/0.1.0"
cleanup_db

# ---- B. the update from 0.2.0 checks the extension's schema -----------------------
fresh_db || exit 1
with_old_install_script t_psql -d "$DB" -c "CREATE EXTENSION dpobj VERSION '0.2.0'" >/dev/null || exit 1
t_psql -d "$DB" -c "ALTER SCHEMA dpobj OWNER TO $MALLORY" >/dev/null
t_is "0.2.0 whose schema a non-superuser owns: the update is refused (42501), still 0.2.0" \
    "$(update_result)" "42501/0.2.0"
t_psql -d "$DB" -c "ALTER SCHEMA dpobj OWNER TO CURRENT_USER" -c "GRANT CREATE ON SCHEMA dpobj TO $MALLORY" >/dev/null
t_is "0.2.0 whose schema grants CREATE to a non-superuser: the update is refused (42501)" \
    "$(update_result)" "42501/0.2.0"
t_psql -d "$DB" -c "REVOKE CREATE ON SCHEMA dpobj FROM $MALLORY" -c "ALTER SCHEMA dpobj OWNER TO $MALLORY" \
    -c "SET ROLE $MALLORY" -c "ALTER SCHEMA dpobj RENAME TO dpobj_real" -c "CREATE SCHEMA dpobj" >/dev/null
t_is "0.2.0 renamed away, a non-superuser's \"dpobj\" in its place: the update is refused (42501)" \
    "$(update_result)" "42501/0.2.0"
t_psql -d "$DB" -c "ALTER SCHEMA dpobj_real OWNER TO CURRENT_USER" >/dev/null
t_is "... even once the renamed schema is a superuser's again (its name is not dpobj)" \
    "$(update_result)" "42501/0.2.0"
t_psql -d "$DB" -c "ALTER SCHEMA dpobj RENAME TO mallory_dpobj" -c "ALTER SCHEMA dpobj_real RENAME TO dpobj" >/dev/null
t_is "... repaired (the extension's schema is dpobj, a superuser's): the update works" \
    "$(update_result)" "ok/$(t_psql -d "$DB" -c "SELECT default_version FROM pg_available_extensions WHERE name = 'dpobj'")"
cleanup_db

# ---- C. the current version: every SECURITY DEFINER function and event trigger ------------------------
fresh_db || exit 1
t_psql -d "$DB" -c "CREATE EXTENSION dpobj" -c "SELECT dpobj.protect('pts')" \
    -c "SELECT 1 FROM dpobj.grant_budget('pts', '$MALLORY', 1, 0.001)" >/dev/null || exit 1

MEMBERS="SELECT d.objid FROM pg_depend d JOIN pg_extension e ON e.oid = d.refobjid
          WHERE e.extname = 'dpobj' AND d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'"
# event triggers of the extension: name|event|tags|function
mapfile -t EVTS < <(t_psql -d "$DB" -F '|' -c "
    SELECT t.evtname, t.evtevent, coalesce(array_to_string(t.evttags, ','), ''), t.evtfoid::regproc
      FROM pg_event_trigger t
     WHERE t.oid IN ($MEMBERS AND d.classid = 'pg_event_trigger'::regclass)
        OR t.evtfoid IN ($MEMBERS AND d.classid = 'pg_proc'::regclass)
     ORDER BY 1")
# SECURITY DEFINER functions of the extension: oid|signature|return type|search_path pinned
mapfile -t SECDEFS < <(t_psql -d "$DB" -F '|' -c "
    SELECT p.oid, p.oid::regprocedure, p.prorettype::regtype,
           coalesce('search_path=pg_catalog, pg_temp' = ANY (p.proconfig), false)
      FROM pg_proc p WHERE p.prosecdef AND p.oid IN ($MEMBERS AND d.classid = 'pg_proc'::regclass)
     ORDER BY 2")
t_check "the catalog lists dpobj's event triggers (${#EVTS[@]}) and SECURITY DEFINER functions (${#SECDEFS[@]})" \
    test "${#EVTS[@]}" -ge 2 -a "${#SECDEFS[@]}" -ge 1

# Each SECURITY DEFINER function pins search_path and is attacked below: an event trigger
# function through its event trigger, any other by a direct call; a trigger function has no
# attack here yet, so it fails until one is written.
DIRECT_CALLS=()
for row in "${SECDEFS[@]}"; do
    IFS='|' read -r oid sig rettype pinned <<<"$row"
    t_is "SECURITY DEFINER $sig pins search_path = pg_catalog, pg_temp" "$pinned" "t"
    case "$rettype" in
        event_trigger)
            attached=0
            for e in "${EVTS[@]}"; do [[ ${e##*|} == "${sig%()}" ]] && attached=1; done
            t_is "SECURITY DEFINER $sig is attacked through its event trigger" "$attached" "1" ;;
        trigger)
            t_is "SECURITY DEFINER trigger function $sig has an attack in this test" "none" "written" ;;
        *)
            DIRECT_CALLS+=("$(t_psql -d "$DB" -c "
                SELECT format('SELECT %s(%s)', p.oid::regproc,
                              coalesce(string_agg('NULL::' || format_type(a.t, NULL), ', ' ORDER BY a.n), ''))
                  FROM pg_proc p LEFT JOIN unnest(p.proargtypes::oid[]) WITH ORDINALITY a(t, n) ON true
                 WHERE p.oid = $oid GROUP BY p.oid")") ;;
    esac
done

# statements that fire an event trigger, from its event and tags; SCH is the extension's
# schema (by then renamed)
firing_statements() {
    local event=$1 tags=$2 tag
    if [[ -z $tags ]]; then
        case $event in
            sql_drop | ddl_command_start | ddl_command_end)
                echo "CREATE TABLE mallory_s.takeover_t (i int); DROP TABLE mallory_s.takeover_t" ;;
            table_rewrite)
                echo "CREATE TABLE mallory_s.takeover_t (i int); ALTER TABLE mallory_s.takeover_t ALTER i TYPE bigint" ;;
            *) echo "UNKNOWN event $event" ;;
        esac
        return
    fi
    IFS=',' read -ra tagv <<<"$tags"
    for tag in "${tagv[@]}"; do
        case $tag in
            "DROP EXTENSION") echo "DROP EXTENSION dpobj" ;;
            "DROP SCHEMA") echo "DROP SCHEMA $SCH CASCADE"; echo "DROP SCHEMA dpobj CASCADE" ;;
            "DROP OWNED") echo "DROP OWNED BY $MALLORY"; echo "DROP OWNED BY CURRENT_USER" ;;
            "ALTER EXTENSION") echo "ALTER EXTENSION dpobj DROP FUNCTION $SCH.help(text)"; echo "ALTER EXTENSION dpobj UPDATE" ;;
            "DROP TABLE") echo "CREATE TABLE mallory_s.takeover_t (i int); DROP TABLE mallory_s.takeover_t" ;;
            *) echo "UNKNOWN tag $tag" ;;
        esac
    done
}

# C1. handed over, not yet renamed: the superuser-owned event trigger refuses to run
t_psql -d "$DB" -c "ALTER SCHEMA dpobj OWNER TO $MALLORY" >/dev/null
DROP_OWN="CREATE TABLE mallory_s.takeover_t (i int); DROP TABLE mallory_s.takeover_t"
t_is "schema dpobj handed to a non-superuser: its DROP TABLE is refused (42501)" \
    "$(sqlstate "$DB" -c "SET ROLE $MALLORY" -c "$DROP_OWN")" "42501"
t_is "... and a superuser's too (no protection may outlive its table)" "$(sqlstate "$DB" -c "$DROP_OWN")" "42501"

# C2. renamed away, its own "dpobj" planted: a twin of every table (a trigger on every
# write) and of every function the extension has
SCH=dpobj_real
plant=$(psql -X -q -At -d "$DB" -v ON_ERROR_STOP=1 2>&1 <<SQL
SET ROLE $MALLORY;
ALTER SCHEMA dpobj RENAME TO $SCH;
CREATE SCHEMA dpobj;
CREATE FUNCTION mallory_s.escalate() RETURNS void LANGUAGE plpgsql AS \$f\$
DECLARE su boolean;
BEGIN
    SELECT rolsuper INTO su FROM pg_catalog.pg_roles WHERE rolname = current_user;
    RAISE WARNING '$MARK as % super=%', current_user, su;
    IF su THEN EXECUTE 'ALTER ROLE $MALLORY SUPERUSER'; END IF;
END \$f\$;
CREATE FUNCTION mallory_s.escalate_trg() RETURNS trigger LANGUAGE plpgsql AS \$f\$
BEGIN PERFORM mallory_s.escalate(); RETURN NULL; END \$f\$;
DO \$d\$
DECLARE r record; n int := 0;
BEGIN
    FOR r IN SELECT c.relname,
                    string_agg(format('%I %s', a.attname, format_type(a.atttypid, a.atttypmod)), ', ' ORDER BY a.attnum) AS cols
               FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
              WHERE c.oid IN ($MEMBERS AND d.classid = 'pg_class'::regclass) AND c.relkind IN ('r', 'p', 'v', 'm')
              GROUP BY c.relname LOOP
        EXECUTE format('CREATE TABLE dpobj.%I (%s)', r.relname, r.cols);
        EXECUTE format('CREATE TRIGGER esc_row BEFORE INSERT OR UPDATE OR DELETE ON dpobj.%I FOR EACH ROW EXECUTE FUNCTION mallory_s.escalate_trg()', r.relname);
        EXECUTE format('CREATE TRIGGER esc_stmt BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON dpobj.%I FOR EACH STATEMENT EXECUTE FUNCTION mallory_s.escalate_trg()', r.relname);
        n := n + 1;
    END LOOP;
    RAISE NOTICE 'planted tables: %', n;
    n := 0;
    FOR r IN SELECT p.proname, pg_get_function_identity_arguments(p.oid) AS args,
                    pg_get_function_result(p.oid) AS res, p.prorettype
               FROM pg_proc p
              WHERE p.oid IN ($MEMBERS AND d.classid = 'pg_proc'::regclass) AND p.prokind = 'f'
                AND p.prorettype <> 'internal'::regtype AND NOT 'internal'::regtype = ANY (p.proargtypes::oid[]) LOOP
        BEGIN
            EXECUTE format('CREATE FUNCTION dpobj.%I(%s) RETURNS %s LANGUAGE plpgsql AS %L', r.proname, r.args, r.res,
                           CASE WHEN r.prorettype = 'event_trigger'::regtype
                                THEN 'BEGIN PERFORM mallory_s.escalate(); END'
                                ELSE 'BEGIN PERFORM mallory_s.escalate(); RETURN NULL; END' END);
            n := n + 1;
        EXCEPTION WHEN OTHERS THEN
            NULL;       -- set-returning and the like: not needed by any privileged code
        END;
    END LOOP;
    RAISE NOTICE 'planted functions: %', n;
END \$d\$;
SQL
)
t_check "the non-superuser renamed the schema and planted twins ($(tr '\n' ' ' <<<"$plant"))" \
    grep -q 'planted functions: [1-9]' <<<"$plant"
# the planted code itself works: called by a superuser it would escalate
probe=$(psql -X -q -At -d "$DB" -c "BEGIN" -c "SELECT mallory_s.escalate()" -c "ROLLBACK" 2>&1)
t_check "... (the planted code escalates when a superuser runs it)" grep -q "$MARK as .* super=t" <<<"$probe"

fired=0
for e in "${EVTS[@]}"; do
    IFS='|' read -r evtname event tags fn <<<"$e"
    mapfile -t stmts < <(firing_statements "$event" "$tags")
    for stmt in "${stmts[@]}"; do
        if [[ $stmt == UNKNOWN* ]]; then
            t_is "event trigger $evtname ($event): a statement fires it in this test" "$stmt" "known"
            continue
        fi
        for who in "$MALLORY" superuser; do
            setrole=(); [[ $who == "$MALLORY" ]] && setrole=(-c "SET ROLE $MALLORY")
            out=$(psql -X -q -At -d "$DB" -c "BEGIN" "${setrole[@]}" -c "$stmt" -c "ROLLBACK" 2>&1)
            fired=$((fired + 1))
            t_check "event trigger $evtname, '$stmt' as $who: no planted code ran as a superuser" \
                bash -c '! grep -q "$1 as .* super=t" <<<"$2"' _ "$MARK" "$out"
        done
    done
done
for stmt in "${DIRECT_CALLS[@]}"; do
    for who in "$MALLORY" superuser; do
        setrole=(); [[ $who == "$MALLORY" ]] && setrole=(-c "SET ROLE $MALLORY")
        out=$(psql -X -q -At -d "$DB" -c "BEGIN" "${setrole[@]}" -c "${stmt/dpobj./$SCH.}" -c "ROLLBACK" 2>&1)
        t_check "'$stmt' as $who: no planted code ran as a superuser" \
            bash -c '! grep -q "$1 as .* super=t" <<<"$2"' _ "$MARK" "$out"
    done
done
t_is "... and the non-superuser is still not a superuser" "$(mallory_super)" "f"

# C3. repaired by a superuser: the cleanup works again
t_psql -d "$DB" -c "ALTER SCHEMA dpobj RENAME TO mallory_dpobj" -c "ALTER SCHEMA $SCH RENAME TO dpobj" \
    -c "ALTER SCHEMA dpobj OWNER TO CURRENT_USER" >/dev/null
t_is "repaired: dropping the planted schema runs none of its code" \
    "$(psql -X -q -At -d "$DB" -c "DROP SCHEMA mallory_dpobj CASCADE" 2>&1 | grep -c "$MARK")" "0"
t_is "... and dropping the protected table forgets its protection and budget" \
    "$(t_psql -d "$DB" -c "DROP TABLE pts" -c "SELECT (SELECT count(*) FROM dpobj.protected_tables) || '/' || (SELECT count(*) FROM dpobj.budgets)")" "0/0"

t_psql -d "$DB" -c "SET dpobj.drop_confirm = '$DB'" -c "DROP EXTENSION dpobj" >/dev/null 2>&1
cleanup_db
# ---- D. a schema dpobj filled by another role, then taken over by a superuser -----------
fill_schema() {
    t_psql -d "$DB" -c "SET ROLE $MALLORY" -c "CREATE SCHEMA dpobj" \
        -c "CREATE TABLE dpobj.planted (x int)" \
        -c "CREATE FUNCTION dpobj.planted() RETURNS int LANGUAGE sql AS 'SELECT 1'" \
        -c "RESET ROLE" -c "ALTER SCHEMA dpobj OWNER TO CURRENT_USER" >/dev/null
}
fresh_db || exit 1
fill_schema || exit 1
out=$(psql -X -q -d "$DB" -v VERBOSITY=verbose -c "CREATE EXTENSION dpobj" 2>&1)
t_is "a superuser-owned schema dpobj holding another role's table and function: CREATE EXTENSION refused (42501)" \
    "$(sed -nE 's/^ERROR:  ([0-9A-Z]{5}).*/\1/p' <<<"$out")" "42501"
t_is "... naming them, with the hint to drop them" \
    "$(grep -c -e 'function dpobj.planted(), table dpobj.planted' -e 'HINT:  A superuser must inspect and drop them' <<<"$out")" "2"
t_is "... and nothing was installed" "$(t_psql -d "$DB" -c "SELECT count(*) FROM pg_extension WHERE extname = 'dpobj'")" "0"
t_psql -d "$DB" -c "DROP TABLE dpobj.planted" -c "DROP FUNCTION dpobj.planted()" >/dev/null
t_is "... once they are dropped, CREATE EXTENSION runs" "$(sqlstate "$DB" -c "CREATE EXTENSION dpobj")" "ok"
t_psql -d "$DB" -c "SET dpobj.drop_confirm = '$DB'" -c "DROP EXTENSION dpobj" >/dev/null 2>&1
cleanup_db
fresh_db || exit 1
fill_schema || exit 1
with_release_script 0.4.0 t_psql -d "$DB" -c "CREATE EXTENSION dpobj VERSION '0.4.0'" >/dev/null || exit 1
t_is "0.4.0 installed beside another role's objects: the update is refused (42501), still 0.4.0" \
    "$(update_result)" "42501/0.4.0"
t_psql -d "$DB" -c "SET dpobj.drop_confirm = '$DB'" -c "DROP EXTENSION dpobj" >/dev/null 2>&1
cleanup_db

t_psql -d postgres -c "ALTER ROLE $MALLORY NOSUPERUSER" -c "DROP ROLE $MALLORY" >/dev/null
t_summary
