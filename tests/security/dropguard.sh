#!/usr/bin/env bash
# tests/security/dropguard.sh — DROP EXTENSION dpobj silently erased the ledger
# and the budgets (a superuser reset all accounting in two statements) and CASCADE
# dropped users' model columns.  The event trigger dpobj_drop_guard refuses every way of
# dropping dpobj while accounting exists, or with CASCADE, unless a superuser confirms
# with SET dpobj.drop_confirm = '<current database>' (docs/SECURITY.md).
# Needs PGHOST/PGPORT/PGUSER (a superuser) and dpobj installed.
set -uo pipefail
DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=tests/security/lib.sh
. "$DIR/lib.sh"
DB=dpobj_dropguard
SU=dpobj_dropguard_su
ANALYST=dpobj_dropguard_analyst

installed() { t_psql -d "$DB" -c "SELECT count(*) FROM pg_extension WHERE extname = 'dpobj'"; }

t_role "$ANALYST" >/dev/null || exit 1
t_psql -d postgres -c "DROP ROLE IF EXISTS $SU" -c "CREATE ROLE $SU SUPERUSER" \
    -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB" >/dev/null 2>&1 || exit 1
# installed by its own superuser role (so that DROP OWNED BY it can be tried)
t_psql -d "$DB" -c "SET ROLE $SU" -c "CREATE EXTENSION dpobj" >/dev/null || exit 1

# ---- no accounting yet: a plain drop is allowed, CASCADE is not ------------------------
t_psql -d "$DB" -c "CREATE TABLE saved (id int, m dpobj.model)" >/dev/null
t_is "CASCADE would drop a user's model column: refused (2BP01)" \
    "$(sqlstate "$DB" -c "DROP EXTENSION dpobj CASCADE")" "2BP01"
t_psql -d "$DB" -c "DROP TABLE saved" >/dev/null
t_is "no ledger, no budgets, no CASCADE: DROP EXTENSION works" \
    "$(sqlstate "$DB" -c "DROP EXTENSION dpobj")" "ok"
t_psql -d "$DB" -c "SET ROLE $SU" -c "CREATE EXTENSION dpobj" >/dev/null
# a budget domain alone (no budget yet) is accounting configuration too: its members'
# runs will be charged to it
t_psql -d "$DB" -c "SELECT dpobj.create_budget_domain('people')" >/dev/null
t_is "with a budget domain: DROP EXTENSION is refused (2BP01)" \
    "$(sqlstate "$DB" -c "DROP EXTENSION dpobj")" "2BP01"
t_psql -d "$DB" -c "SELECT dpobj.drop_budget_domain('people')" >/dev/null

# ---- with a ledger and budgets ---------------------------------------------------------
t_psql -d "$DB" -c "CREATE TABLE pts AS SELECT g AS i, g / 10.0 AS a, g % 2 = 0 AS y FROM generate_series(1, 20) g" \
    -c "REVOKE ALL ON pts FROM PUBLIC" -c "SELECT dpobj.protect('pts')" \
    -c "SELECT 1 FROM dpobj.grant_budget('pts', '$ANALYST', 1, 0.001)" \
    -c "SET ROLE $ANALYST" -c "SELECT 1 FROM dpobj.train('pts', 'opdisc', ARRAY['a'], 'y', 0.1, 0.00001)" \
    >/dev/null || exit 1
for stmt in "DROP EXTENSION dpobj" "DROP EXTENSION dpobj CASCADE" "DROP EXTENSION IF EXISTS dpobj, plpgsql" \
    "DROP SCHEMA dpobj CASCADE" "DROP OWNED BY $SU" "ALTER EXTENSION dpobj DROP TABLE dpobj.ledger"; do
    t_is "with a ledger: '$stmt' is refused (2BP01)" "$(sqlstate "$DB" -c "$stmt")" "2BP01"
done
t_is "session_replication_role = replica does not switch the guard off" \
    "$(sqlstate "$DB" -c "SET session_replication_role = replica" -c "DROP EXTENSION dpobj")" "2BP01"
t_is "a confirmation for another database does not count" \
    "$(sqlstate "$DB" -c "SET dpobj.drop_confirm = 'postgres'" -c "DROP EXTENSION dpobj")" "2BP01"
t_is "... the ledger and the budgets are all still there" \
    "$(t_psql -d "$DB" -c "SELECT (SELECT count(*) FROM dpobj.ledger) || '/' || (SELECT count(*) FROM dpobj.budgets)")" "1/1"
out=$(psql -X -q -At -d "$DB" -c "SET dpobj.drop_confirm = '$DB'" -c "DROP EXTENSION dpobj" 2>&1)
t_check "confirmed by a superuser: the drop goes ahead with a WARNING" \
    bash -c "[[ \$(psql -X -At -d $DB -c \"SELECT count(*) FROM pg_extension WHERE extname = 'dpobj'\") == 0 ]] && grep -q 'WARNING:  dropping dpobj with its privacy ledger' <<<\"\$1\"" _ "$out"

t_psql -d postgres -c "DROP DATABASE $DB" -c "DROP ROLE $SU" >/dev/null
t_summary
