#!/usr/bin/env bash
# tests/security/planlocks.sh — functions that start no run hold no lock the table's owner
# waits for (docs/SECURITY.md, attack 109).  A role with no privilege on the owner's table
# calls runs_left(), cost() and runs_left(rel) in a transaction it leaves open; the
# owner's ALTER TABLE (lock_timeout 1 s) must not wait for it.  The same for an analyst's
# aggregate_accuracy() / aggregate_epsilon() (keyed too), which refuse the role without a
# budget.  Control: an analyst's run in an open transaction does hold the table
# (a run locks it to its end), so the ALTER TABLE times out (55P03): the probe sees a lock.
# Needs PGHOST/PGPORT/PGUSER (a superuser) and dpobj installed.
set -uo pipefail
DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=tests/security/lib.sh
. "$DIR/lib.sh"
DB=dpobj_planlocks
OWNER=dpobj_pl_owner
NOBODY=dpobj_pl_nobody
A=dpobj_pl_analyst

drop_all() {
    t_psql -d postgres -c "DROP DATABASE IF EXISTS $DB" >/dev/null 2>&1
    for r in "$OWNER" "$NOBODY" "$A"; do t_psql -d postgres -c "DROP ROLE IF EXISTS $r" >/dev/null 2>&1; done
}
drop_all
t_psql -d postgres -c "CREATE ROLE $OWNER LOGIN" -c "CREATE ROLE $NOBODY LOGIN" -c "CREATE ROLE $A LOGIN" \
    -c "CREATE DATABASE $DB" >/dev/null || exit 1
t_psql -d "$DB" -c "CREATE EXTENSION dpobj" \
    -c "CREATE SCHEMA s AUTHORIZATION $OWNER" -c "GRANT USAGE ON SCHEMA s TO $NOBODY, $A" \
    -c "SET ROLE $OWNER" \
    -c "CREATE TABLE s.t AS SELECT i, (i % 7) / 7.0 AS v, i % 2 = 0 AS y FROM generate_series(1, 200) i" \
    -c "RESET ROLE" -c "SELECT dpobj.protect('s.t')" -c "SELECT dpobj.declare_domain('s.t', 'v', 0, 1)" \
    -c "SELECT dpobj.grant_budget('s.t', '$A', 10, 0.001)" >/dev/null || exit 1

# hold ROLE SQL...: the statements in a transaction left open for 3 s (in the background);
# held: whether they all succeeded (a failed one would end the transaction, and its locks)
hold() {
    local role=$1 args=()
    shift
    for s in "$@"; do args+=(-c "$s"); done
    rm -f "$held_file"
    ( psql -X -q -At -d "$DB" -U "$role" -v ON_ERROR_STOP=1 -c "BEGIN" "${args[@]}" \
          -c "SELECT pg_sleep(3)" -c "COMMIT" >/dev/null 2>&1; echo $? >"$held_file" ) &
    holder=$!
    sleep 1
}
# held DESCRIPTION: the holder's statements all succeeded (waits for it; not in a subshell)
held() {
    wait "$holder"
    t_is "$1" "$([[ $(cat "$held_file" 2>/dev/null) == 0 ]] && echo ok || echo failed)" "ok"
}
held_file=$(mktemp)

# alter N: the owner's ALTER TABLE within 1 s of lock wait: ok or its SQLSTATE
alter() {
    sqlstate "$DB" -U "$OWNER" -c "SET lock_timeout = '1s'" -c "ALTER TABLE s.t ADD COLUMN c$1 int"
}

hold "$NOBODY" "SELECT dpobj.runs_left('s.t', 'auto', 1, 1e-6)" "SELECT admitted FROM dpobj.cost('s.t', 'auto', 1, 1e-6)"
t_is "runs_left() and cost() of a role without privilege: the owner's ALTER TABLE does not wait" \
    "$(alter 1)" "ok"
held "... (its calls succeeded, in the transaction left open)"
hold "$NOBODY" "SELECT count(*) FROM dpobj.runs_left('s.t')"
t_is "... nor for its runs_left(rel)" "$(alter 2)" "ok"
held "... (its call succeeded)"
t_is "aggregate_accuracy() refuses that role (DP004), before any lock" \
    "$(sqlstate "$DB" -U "$NOBODY" -c "SELECT * FROM dpobj.aggregate_accuracy('s.t', '[{\"stat\": \"count\"}]', 1)")" "DP004"

hold "$A" "SELECT count(*) FROM dpobj.aggregate_accuracy('s.t', '[{\"stat\": \"sum\", \"column\": \"v\"}]', 1, ARRAY['i'])" \
    "SELECT count(*) FROM dpobj.aggregate_epsilon('s.t', '[{\"stat\": \"count\"}]', 10, ARRAY['i'])"
t_is "an analyst's aggregate_accuracy(), aggregate_epsilon() (keyed): the owner's ALTER TABLE does not wait" \
    "$(alter 3)" "ok"
held "... (its calls succeeded)"

hold "$A" "SELECT count(*) FROM dpobj.aggregate('s.t', '[{\"stat\": \"sum\", \"column\": \"v\"}]', 1)"
t_is "control: an analyst's run in an open transaction holds the table (ALTER TABLE: 55P03)" \
    "$(alter 4)" "55P03"
held "... (its run succeeded)"
rm -f "$held_file"

drop_all
t_summary
