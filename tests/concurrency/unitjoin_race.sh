#!/usr/bin/env bash
# tests/concurrency/unitjoin_race.sh — a private query joining a partner on the privacy unit
# (src/protected/unitjoin.c) against the partner's owner moving it out of the budget domain:
#   1. read committed: the run holds the partner's protection (protectlock.h) in ShareLock,
#      so set_budget_domain() on the partner waits for the run's transaction to end;
#   2. repeatable read: the move commits after the run's snapshot, before its check: the
#      check reads the declaration FOR SHARE and fails (40001), charging nothing, instead of
#      passing on the older row.
#
#   PGHOST=... PGPORT=... PGUSER=<superuser> bash tests/concurrency/unitjoin_race.sh
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

DB=dpobj_ujrace
A=dpobj_ujrace_a
WORK="$(mktemp -d "${TMPDIR:-/tmp}/dpobj-ujrace.XXXXXX")"
trap 'rm -rf -- "$WORK"' EXIT
JOIN="SELECT count(*) FROM c JOIN d ON d.cust = c.id"

t_role "$A" || exit 1
t_fresh_db "$DB" || exit 1
t_psql -d "$DB" >/dev/null <<SQL || exit 1
CREATE TABLE c (id int PRIMARY KEY, seg text);
CREATE TABLE d (id int PRIMARY KEY, cust int NOT NULL);
INSERT INTO c SELECT i, 's' || i % 2 FROM generate_series(1, 50) i;
SELECT dpobj.declare_domain('c', 'seg', ARRAY['s0', 's1']);
INSERT INTO d SELECT i, 1 + i % 50 FROM generate_series(1, 40) i;
SELECT dpobj.create_budget_domain('ujr');
SELECT dpobj.protect('c', privacy_unit => 'id', max_rows_per_unit => 1, budget_domain => 'ujr');
SELECT dpobj.protect('d', privacy_unit => 'cust', max_rows_per_unit => 2, budget_domain => 'ujr');
SELECT dpobj.grant_domain_budget('ujr', '$A', 1000, 0.01);
SQL

charges() { t_psql -d "$DB" -c "SELECT count(*) FROM dpobj.ledger"; }
move_out() { t_psql -d "$DB" -c "SELECT dpobj.set_budget_domain('d', NULL)" >/dev/null; }
move_in() { t_psql -d "$DB" -c "SELECT dpobj.set_budget_domain('d', 'ujr')" >/dev/null; }

# 1. the run's transaction holds the partner's protection: the move waits for its end
psql -X -q -At -d "$DB" -v ON_ERROR_STOP=1 -c "SET ROLE $A" -c "SET dpobj.query_epsilon = 1" \
    -c "BEGIN" -c "$JOIN" -c "SELECT pg_sleep(3)" -c "COMMIT" >"$WORK/1.a" 2>&1 &
pid=$!
t_wait_sleep "$DB"
t0=$(date +%s%N)
move_out
t1=$(date +%s%N)
wait "$pid"
t_check "read committed: the run released" bash -c "! grep -q ERROR '$WORK/1.a'"
t_check "read committed: set_budget_domain waited for the run's transaction (>= 1 s)" \
    test $(((t1 - t0) / 1000000)) -ge 1000
move_in

# 2. the move commits after the run's snapshot: the run's check fails, uncharged
before=$(charges)
psql -X -q -At -d "$DB" -c "SET ROLE $A" -c "SET dpobj.query_epsilon = 1" \
    -c "BEGIN ISOLATION LEVEL REPEATABLE READ" -c "SELECT 1" -c "SELECT pg_sleep(3)" -c "$JOIN" \
    -c "COMMIT" >"$WORK/2.a" 2>&1 &
pid=$!
t_wait_sleep "$DB"
move_out
wait "$pid"
t_check "repeatable read: the run's check fails (40001)" grep -q "could not serialize" "$WORK/2.a"
t_is "repeatable read: nothing charged" "$(charges)" "$before"
grep ERROR "$WORK/2.a" | sed 's/^/# /'

t_psql -d postgres -c "DROP DATABASE $DB" >/dev/null
t_psql -d postgres -c "DROP ROLE $A" >/dev/null 2>&1
t_summary
