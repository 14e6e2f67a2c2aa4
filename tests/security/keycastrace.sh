#!/usr/bin/env bash
# tests/security/keycastrace.sh — a key column's cast to text created while the keyed
# dpobj.aggregate() waits (docs/SECURITY.md, attack 107).  The analyst owns an enum the
# owner's table uses as a key.  Session A holds her budget's run lock (a run in an open
# transaction); session B's keyed aggregate passes the cast check (no cast yet) and waits
# for that lock; session C creates a cast to text by her function, which records who runs
# it.  The cast must wait for B's transaction (pg_cast share-locked from the check on):
# with lock_timeout it fails (55P03), and B's query, parsed after A commits, never runs it.
# Needs PGHOST/PGPORT/PGUSER (a superuser) and dpobj installed.
set -uo pipefail
DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=tests/security/lib.sh
. "$DIR/lib.sh"
DB=dpobj_keycastrace
OWNER=dpobj_kc_owner
A=dpobj_kc_analyst

drop_all() {
    t_psql -d postgres -c "DROP DATABASE IF EXISTS $DB" >/dev/null 2>&1
    for r in "$OWNER" "$A"; do t_psql -d postgres -c "DROP ROLE IF EXISTS $r" >/dev/null 2>&1; done
}
drop_all
t_psql -d postgres -c "CREATE ROLE $OWNER" -c "CREATE ROLE $A LOGIN" -c "CREATE DATABASE $DB" >/dev/null || exit 1
t_psql -d "$DB" -c "CREATE EXTENSION dpobj" \
    -c "CREATE SCHEMA s AUTHORIZATION $OWNER" -c "CREATE SCHEMA a AUTHORIZATION $A" \
    -c "GRANT USAGE ON SCHEMA s, a TO $OWNER, $A" \
    -c "SET ROLE $A" -c "CREATE TABLE a.leak (who text)" -c "GRANT INSERT ON a.leak TO $OWNER" \
    -c "CREATE TYPE a.tag AS ENUM ('p', 'q')" \
    -c "CREATE FUNCTION a.tag_text(a.tag) RETURNS text LANGUAGE plpgsql AS \$\$
        BEGIN IF current_user <> session_user THEN INSERT INTO a.leak VALUES (current_user); END IF;
        RETURN 'k'; END \$\$" -c "RESET ROLE" \
    -c "SET ROLE $OWNER" -c "CREATE TABLE s.keyed (t a.tag, v float8)" \
    -c "INSERT INTO s.keyed SELECT 'p', 0.5 FROM generate_series(1, 40)" -c "RESET ROLE" \
    -c "SELECT dpobj.protect('s.keyed')" -c "SELECT dpobj.declare_domain('s.keyed', 'v', 0, 1)" \
    -c "SELECT dpobj.grant_budget('s.keyed', '$A', 10, 0.001)" >/dev/null || exit 1

SUM='[{"stat": "sum", "column": "v"}]'
# A: a run on the budget in a transaction open for 3 s
psql -X -q -At -d "$DB" -U "$A" -c "BEGIN" -c "SELECT count(*) FROM dpobj.aggregate('s.keyed', '$SUM', 1)" \
    -c "SELECT pg_sleep(3)" -c "COMMIT" >/dev/null 2>&1 &
holder=$!
sleep 0.5
# B: the keyed run, checked now, parsed once A commits
keyed=$(mktemp)
( sqlstate "$DB" -U "$A" -c "SELECT count(*) FROM dpobj.aggregate('s.keyed', '$SUM', 1, 1e-5, ARRAY['t'])" >"$keyed" ) &
runner=$!
for _ in $(seq 50); do
    [[ $(t_psql -d "$DB" -c "SELECT count(*) FROM pg_locks WHERE NOT granted") != 0 ]] && break
    sleep 0.1
done
# C: the cast while B waits
cast=$(sqlstate "$DB" -U "$A" -c "SET lock_timeout = '1s'" \
    -c "CREATE CAST (a.tag AS text) WITH FUNCTION a.tag_text(a.tag)")
wait "$holder" "$runner"
t_is "a cast to text created while the keyed run waits for its budget: blocked (55P03)" "$cast" "55P03"
t_is "... the keyed run releases (charged, its query parsed after the wait)" "$(cat "$keyed")" "ok"
t_is "... and runs no function of the analyst's as the owner" \
    "$(t_psql -d "$DB" -c "SELECT count(*) FROM a.leak")" "0"
rm -f "$keyed"

drop_all
t_summary
