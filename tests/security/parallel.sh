#!/usr/bin/env bash
# tests/security/parallel.sh — the protected path with parallel plans (docs/SCALING.md,
# "PostgreSQL parallel query").
#   1. Which runs read their rows in parallel workers: on a table large enough for a
#      parallel scan, a second session watches pg_stat_activity while train() runs as the
#      analyst: linear regression and passglm (sums of a public size) have workers; OPDisc
#      (a sample), dp_logistic (every distinct row, or a sample with "sample_rows") and a
#      table with a privacy unit have none; a table linked to its unit (link_unit) has
#      them for its path's join, whatever the mechanism.  A worker holds the table's
#      TOAST lock (taken before its first row, however few values come out of TOAST:
#      here none).
#   2. The neighbour harness (neighbours.sh with NB_PARALLEL=1) over the scenarios of bad
#      and differing rows, for the mechanisms train() lets run in parallel and for
#      evaluate(), and for the linked-table scenarios (unit_link*: every entry point's
#      join in workers): their scan runs in a worker (one-page tables), and everything
#      observable but the DP output must be identical between the neighbouring databases.
set -uo pipefail
DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=tests/security/lib.sh
. "$DIR/lib.sh"
T_PASS=0
T_FAIL=0
DB=dpobj_sec_parallel
ROLE=dpobj_par_analyst

t_fresh_db "$DB" >/dev/null || { echo "not ok - setup"; exit 1; }
t_role "$ROLE" >/dev/null
t_psql -d postgres -c "ALTER ROLE $ROLE LOGIN" >/dev/null
t_psql -d "$DB" >/dev/null <<SQL
CREATE TABLE big AS
SELECT (i % 97) / 96.0 - 0.5 AS a, (i % 89) / 88.0 - 0.5 AS b, (i % 7) / 6.0 AS y,
       (i % 97) > 48 AS lab, i % 1000 AS u
  FROM generate_series(1, 2000000) i;
CREATE TABLE big_units AS SELECT * FROM big;
CREATE TABLE big_owners (u int PRIMARY KEY);
INSERT INTO big_owners SELECT generate_series(0, 999);
CREATE TABLE big_linked AS SELECT * FROM big;
ALTER TABLE big_linked ADD FOREIGN KEY (u) REFERENCES big_owners;
VACUUM ANALYZE big;
VACUUM ANALYZE big_units;
VACUUM ANALYZE big_owners;
VACUUM ANALYZE big_linked;
REVOKE ALL ON big, big_units, big_owners, big_linked FROM PUBLIC;
SELECT dpobj.protect('big');
SELECT dpobj.protect('big_units', 'u', 3);
SELECT dpobj.grant_budget('big', '$ROLE', 100, 1e-3);
SELECT dpobj.grant_budget('big_units', '$ROLE', 100, 1e-3);
SELECT dpobj.create_budget_domain('par_owners');
SELECT dpobj.protect('big_owners', 'u', 1, 'par_owners');
SELECT dpobj.link_unit('big_linked', ARRAY['big_owners']::regclass[], 3);
SELECT dpobj.grant_domain_budget('par_owners', '$ROLE', 100, 1e-3);
SQL

# workers TABLE MECH OPTS: the largest number of parallel workers the analyst's train()
# had at once, seen from a second session polling every 10 ms, and whether one of them
# held a lock on the table's TOAST relation
workers() {
    local app="dpobj_par_probe_$$" seen
    PGAPPNAME=$app psql -X -q -At -d "$DB" -U "$ROLE" \
        -c "SET max_parallel_workers_per_gather = 2" \
        -c "SELECT cardinality((dpobj.train('$1', '$2', ARRAY['a', 'b'], '$4', 1, 1e-6, '$3'::jsonb)).weights)" \
        >/dev/null 2>&1 &
    local pid=$!
    seen=$(t_psql -d "$DB" <<SQL
DO \$\$
DECLARE m int := 0; n int; leader int; t0 timestamptz := clock_timestamp(); toast int := 0;
BEGIN
  LOOP
    -- pg_stat_activity is read once per transaction unless cleared
    PERFORM pg_stat_clear_snapshot();
    SELECT pid INTO leader FROM pg_stat_activity
     WHERE application_name = '$app' AND backend_type = 'client backend';
    SELECT count(*) INTO n FROM pg_stat_activity
     WHERE backend_type = 'parallel worker' AND leader_pid = leader;
    m := greatest(m, n);
    SELECT greatest(toast, count(*)) INTO toast FROM pg_locks l JOIN pg_stat_activity a USING (pid)
     WHERE a.backend_type = 'parallel worker' AND a.leader_pid = leader AND l.granted
       AND l.relation = (SELECT reltoastrelid FROM pg_class WHERE oid = '$1'::regclass);
    EXIT WHEN (leader IS NULL AND clock_timestamp() > t0 + interval '2 s')
           OR clock_timestamp() > t0 + interval '60 s';
    PERFORM pg_sleep(0.01);
  END LOOP;
  RAISE NOTICE 'workers=% toast=%', m, toast;
END \$\$;
SQL
    )
    wait "$pid"
    printf '%s' "$seen"
}
probe() { # TABLE MECH OPTS LABEL: prints the most workers seen (the TOAST locks in TOAST_SEEN)
    local out
    out=$(workers "$@" 2>&1)
    TOAST_SEEN=$(sed -nE 's/.*toast=([0-9]+).*/\1/p' <<<"$out" | tail -n 1)
    sed -nE 's/.*workers=([0-9]+).*/\1/p' <<<"$out" | tail -n 1
}

# in this shell (not $(...)), so that TOAST_SEEN is kept
tmp=$(mktemp "${TMPDIR:-/tmp}/dpobj-parallel.XXXXXX")
probe big linear '{"R": 1, "y_min": 0, "y_max": 1}' y >"$tmp"
w=$(cat "$tmp")
rm -f "$tmp"
t_check "linear on a large table reads its rows in parallel workers (saw ${w:-none})" test "${w:-0}" -ge 1
t_check "... whose workers hold the TOAST relation's lock from their start (saw ${TOAST_SEEN:-none})" \
    test "${TOAST_SEEN:-0}" -ge 1
w=$(probe big passglm '{"R": 1}' lab)
t_check "passglm on a large table reads its rows in parallel workers (saw ${w:-none})" test "${w:-0}" -ge 1
w=$(probe big opdisc '{}' lab)
t_is "OPDisc (a sampled state) runs serially" "${w:-none}" 0
w=$(probe big logistic '{"R": 1}' lab)
t_is "dp_logistic keeping every distinct row runs serially" "${w:-none}" 0
w=$(probe big logistic '{"R": 1, "sample_rows": 1000}' lab)
t_is "dp_logistic with \"sample_rows\" runs serially" "${w:-none}" 0
w=$(probe big_units linear '{"R": 1, "y_min": 0, "y_max": 1}' y)
t_is "a table with a privacy unit runs serially" "${w:-none}" 0
w=$(probe big_linked logistic '{"R": 1}' lab)
t_check "a linked table's run joins its path in parallel workers (saw ${w:-none})" test "${w:-0}" -ge 1
t_is "every run released" "$(t_psql -d "$DB" -c "SELECT string_agg(outcome, ',' ORDER BY id) FROM dpobj.ledger")" \
    "released,released,released,released,released,released,released"
t_psql -d postgres -c "DROP DATABASE $DB" >/dev/null

t_absorb "neighbours with parallel plans" "$(NB_PARALLEL=1 \
    NB_SCENARIOS="${NB_SCENARIOS:-empty_one|indexed|float_nan|float_inf|null_value|numeric_nan|huge|tiny|big_int|null_label|label_flip|distinct|unit_link|unit_link_k|unit_link_sw}" \
    NB_MECHANISMS="${NB_MECHANISMS:-passglm|linear|linear_ssp}" \
    bash "$DIR/neighbours.sh" 2>&1)"
t_summary
