#!/usr/bin/env bash
# tests/security/privilege.sh — leak 8 (a): a role that owned a schema named
# dpobj before CREATE EXTENSION owned every object dpobj's superuser-run code uses, and
# could become superuser.  Installing or updating into such a schema is refused, and
# every privileged entry point re-checks at run time (ownership and grants can change).
# Needs PGHOST/PGPORT/PGUSER (a superuser) and dpobj installed.
set -uo pipefail
DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=tests/security/lib.sh
. "$DIR/lib.sh"
DB=dpobj_privilege
MALLORY=dpobj_mallory


t_role "$MALLORY" >/dev/null || exit 1
t_psql -d postgres -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB" \
    -c "GRANT CREATE ON DATABASE $DB TO $MALLORY" >/dev/null 2>&1 || exit 1

# ---- install into a schema that a non-superuser created beforehand ---------------------
t_psql -d "$DB" -c "SET ROLE $MALLORY" -c "CREATE SCHEMA dpobj" >/dev/null
t_is "a non-superuser's schema dpobj: CREATE EXTENSION is refused (42501)" \
    "$(sqlstate "$DB" -c "CREATE EXTENSION dpobj")" "42501"
t_is "... and nothing was installed" \
    "$(t_psql -d "$DB" -c "SELECT count(*) FROM pg_extension WHERE extname = 'dpobj'")/$(t_psql -d "$DB" -c "SELECT count(*) FROM pg_class WHERE relnamespace = 'dpobj'::regnamespace")" "0/0"
# updating an old installation that sits in such a schema is refused too
t_is "... and 0.1.0 installed there cannot be updated to 0.2.0 (42501)" \
    "$(with_old_install_script sqlstate "$DB" -c "CREATE EXTENSION dpobj VERSION '0.1.0'" -c "ALTER EXTENSION dpobj UPDATE")" "42501"
t_is "... (the update rolled back: still 0.1.0)" \
    "$(t_psql -d "$DB" -c "SELECT extversion FROM pg_extension WHERE extname = 'dpobj'")" "0.1.0"
t_psql -d "$DB" -c "DROP EXTENSION dpobj" -c "DROP SCHEMA dpobj" >/dev/null

# a superuser's empty schema dpobj is fine (the usual install creates it)
t_is "a superuser's schema dpobj: CREATE EXTENSION works" \
    "$(sqlstate "$DB" -c "CREATE SCHEMA dpobj" -c "CREATE EXTENSION dpobj")" "ok"

# ---- run-time check: ownership or CREATE given away later -----------------------------
t_psql -d "$DB" -c "CREATE TABLE pts AS SELECT g AS i, g / 10.0 AS a, g % 2 = 0 AS y FROM generate_series(1, 20) g" \
    -c "REVOKE ALL ON pts FROM PUBLIC" -c "SELECT dpobj.protect('pts')" \
    -c "SELECT 1 FROM dpobj.grant_budget('pts', '$MALLORY', 1, 0.001)" >/dev/null
TRAIN="SELECT dpobj.train('pts', 'opdisc', ARRAY['a'], 'y', 0.1, 0.00001)"
t_is "with superuser-controlled schema dpobj the analyst trains" \
    "$(sqlstate "$DB" -c "SET ROLE $MALLORY" -c "$TRAIN")" "ok"
t_psql -d "$DB" -c "ALTER SCHEMA dpobj OWNER TO $MALLORY" >/dev/null
t_is "schema dpobj given to a non-superuser: train() refuses (42501)" \
    "$(sqlstate "$DB" -c "SET ROLE $MALLORY" -c "$TRAIN")" "42501"
t_is "... and so do protect() and grant_budget() for a superuser" \
    "$(sqlstate "$DB" -c "SELECT dpobj.protect('pts')")/$(sqlstate "$DB" -c "SELECT dpobj.grant_budget('pts', '$MALLORY', 1, 0)")" "42501/42501"
t_is "... and a direct aggregate run (its ledger row is written by a superuser worker)" \
    "$(sqlstate "$DB" -c "SELECT dpobj.dp_halfspace(ARRAY[a]::float8[], y, 0.1, 0.00001) FROM pts")" "42501"
t_psql -d "$DB" -c "ALTER SCHEMA dpobj OWNER TO CURRENT_USER" -c "GRANT CREATE ON SCHEMA dpobj TO PUBLIC" >/dev/null
t_is "CREATE on schema dpobj granted to PUBLIC: train() refuses (42501)" \
    "$(sqlstate "$DB" -c "SET ROLE $MALLORY" -c "$TRAIN")" "42501"
t_psql -d "$DB" -c "REVOKE CREATE ON SCHEMA dpobj FROM PUBLIC" >/dev/null
t_is "... revoked again: train() works" "$(sqlstate "$DB" -c "SET ROLE $MALLORY" -c "$TRAIN")" "ok"

t_psql -d "$DB" -c "SET dpobj.drop_confirm = '$DB'" -c "DROP EXTENSION dpobj" >/dev/null 2>&1
t_psql -d postgres -c "DROP DATABASE $DB" -c "DROP ROLE $MALLORY" >/dev/null
t_summary
