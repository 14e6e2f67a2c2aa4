#!/usr/bin/env bash
# tests/concurrency/name_race.sh — two calls creating the same name after their charge (a
# synthesize() target, a model name) race; the second waits for the first's transaction
# and, once it commits, is refused before its own charge (nothing charged), not failed at
# CREATE TABLE or the model INSERT after it.  Session A runs its call in an open
# transaction (a pg_sleep after it); session B starts the same name meanwhile:
#   1. two analysts, one target, different model names (the target name's lock);
#   2. one analyst, one table, one target, different model names (the budget's run lock,
#      then the target checked again);
#   3. one analyst, two tables (two budgets), one model name through train() (the model
#      name's lock).
#
#   PGHOST=... PGPORT=... PGUSER=<superuser> bash tests/concurrency/name_race.sh
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

DB=dpobj_namerace
A=dpobj_namerace_a
B=dpobj_namerace_b
WORK="$(mktemp -d "${TMPDIR:-/tmp}/dpobj-namerace.XXXXXX")"
trap 'rm -rf -- "$WORK"' EXIT

t_role "$A" || exit 1
t_role "$B" || exit 1
t_fresh_db "$DB" || exit 1
t_psql -d "$DB" >/dev/null <<SQL || exit 1
CREATE TABLE t AS SELECT (ARRAY['F', 'M'])[1 + i % 2] AS sex, (i % 7) / 7.0 AS a, (i % 5) / 5.0 AS b
  FROM generate_series(1, 200) i;
CREATE TABLE t2 AS SELECT * FROM t;
REVOKE ALL ON t, t2 FROM PUBLIC;
CREATE SCHEMA out;
GRANT CREATE, USAGE ON SCHEMA out TO $A, $B;
SELECT dpobj.declare_domain(x, 'sex', ARRAY['F', 'M']), dpobj.protect(x),
       dpobj.grant_budget(x, '$A', 100, 0.01), dpobj.grant_budget(x, '$B', 100, 0.01)
  FROM unnest(ARRAY['t'::regclass, 't2'::regclass]) x;
SQL

charges() { # ROLE: the role's ledger rows
    t_psql -d "$DB" -c "SELECT count(*) FROM dpobj.ledger WHERE rolname = '$1'"
}

# race NAME ROLE_A ROLE_B CALL_A CALL_B EXPECTED_ERROR: A's call in an open transaction,
# B's started once A sleeps (charged); B must fail with EXPECTED_ERROR and add no ledger row
race() {
    local name=$1 before_b after_b out=$WORK/$1
    psql -X -q -At -d "$DB" -v ON_ERROR_STOP=1 -c "BEGIN" -c "SET ROLE $2" -c "$4" \
        -c "SELECT pg_sleep(3)" -c "COMMIT" >"$out.a" 2>&1 &
    local pid_a=$!
    t_wait_sleep "$DB"
    # A's charge is in the ledger by now (its writer commits it at once)
    before_b=$(charges "$3")
    psql -X -q -At -d "$DB" -v VERBOSITY=verbose -c "SET ROLE $3" -c "$5" >"$out.b" 2>&1
    wait "$pid_a"
    t_check "$name: A's call succeeded" bash -c "! grep -q ERROR '$out.a'"
    t_check "$name: B refused ($6)" grep -q "$6" "$out.b"
    after_b=$(charges "$3")
    t_is "$name: B charged nothing" "$after_b" "$before_b"
    grep ERROR "$out.b" | sed 's/^/# /'
}

race "one target, two analysts" "$A" "$B" \
    "SELECT model_name FROM dpobj.synthesize('t', 'out.same', 1, 1e-6, NULL, '{\"rows\": 5, \"model_name\": \"ma\"}')" \
    "SELECT model_name FROM dpobj.synthesize('t', 'out.same', 1, 1e-6, NULL, '{\"rows\": 5, \"model_name\": \"mb\"}')" \
    "42P07"
race "one target, one budget" "$A" "$A" \
    "SELECT model_name FROM dpobj.synthesize('t', 'out.same2', 1, 1e-6, NULL, '{\"rows\": 5, \"model_name\": \"m1\"}')" \
    "SELECT model_name FROM dpobj.synthesize('t', 'out.same2', 1, 1e-6, NULL, '{\"rows\": 5, \"model_name\": \"m2\"}')" \
    "42P07"
race "one model name, two budgets" "$A" "$A" \
    "SELECT (dpobj.train('t', 'linear', ARRAY['a'], 'b', 1, 1e-6, '{\"R\": 1, \"y_min\": 0, \"y_max\": 1}', 'mm')).mechanism" \
    "SELECT (dpobj.train('t2', 'linear', ARRAY['a'], 'b', 1, 1e-6, '{\"R\": 1, \"y_min\": 0, \"y_max\": 1}', 'mm')).mechanism" \
    "42710"

t_psql -d postgres -c "DROP DATABASE $DB" >/dev/null
t_psql -d postgres -c "DROP ROLE $A" -c "DROP ROLE $B" >/dev/null 2>&1
t_summary
