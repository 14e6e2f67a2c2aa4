#!/usr/bin/env bash
# tests/security/sideeffects.sh — the side-effect neighbour harness (docs/SECURITY.md, "What
# remains observable"): what a protected run leaves behind must not depend on which rows it
# reads.  Two neighbouring tables, t_a and t_b, differ in one row (id 777: a long jsonb that
# lives in TOAST, text in three non-default collations); every protected entry point
# (train() with several mechanisms, evaluate(), describe(), aggregate(), aggregate() by keys, a private SQL query,
# synthesize() (a target table of its own per run), submit()'s job) runs on both with the
# filter of the attacks (id >= 777 AND id <= 777 AND
# conditions on every text column: selects that row or nothing) and an attacker's setting
# (plan_cache_mode = force_generic_plan), and everything the analyst can see afterwards is
# compared between the two sides:
#   - their own backend: the first use of every collation of the table, whose version the
#     catalog says changed (a superuser's UPDATE of pg_collation.collversion: PostgreSQL
#     warns once per backend, when it loads the collator);
#   - pg_locks, from a second session: the locks the run holds on the table, its TOAST
#     relation and their indexes when it reads its first row, and sampled until it ends;
#   - the ledger: whether the run is charged when it reads its first row, its outcome;
#   - for a private query (plain, prepared with a generic plan, with a "where" evaluated by
#     dpobj, joined to a public lookup table, under EXPLAIN ANALYZE, and dpobj.query()), run in a transaction of its own: the
#     locks it leaves to that transaction, and the table's counters it adds (pg_stat_user_tables,
#     pg_statio_user_tables; the rows read less the public row count per scan), measured as
#     a plain scan's are (a control); and EXPLAIN of one: the same text, no charge.
# The owner's row-security policy calls s.gate() on every row it reads, which waits while
# this script holds an advisory lock: the run stops at its first row, observed
# deterministically (the lock's waiter in pg_locks), then goes on.  A second variant ends
# the run there with statement_timeout (the free probe of a cancel before the charge).
# Both sides must also be charged at their first row and hold every lock of the table's
# family then.  SIDE_ENTRIES (a regular expression over the entry names) selects a subset.
# Needs PGHOST/PGPORT/PGUSER (a superuser), dpobj installed and preloaded (jobs), and
# PostgreSQL built with ICU.  Last line: "N passed, M failed".
set -uo pipefail
DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=tests/security/lib.sh
. "$DIR/lib.sh"
DB=dpobj_side
OWNER=dpobj_side_owner
ROLE=dpobj_side_analyst
JROLE=dpobj_side_jobs
GATE=734001
WORK=$(mktemp -d "${TMPDIR:-/tmp}/dpobj-side.XXXXXX")
cleanup() {
    t_psql -d postgres -c "SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                            WHERE application_name = 'side_gate'" >/dev/null 2>&1
    [[ -n ${DPOBJ_KEEP_WORK:-} ]] || rm -rf "$WORK"
}
trap cleanup EXIT

drop_all() {
    t_psql -d postgres -c "DROP DATABASE IF EXISTS $DB" >/dev/null 2>&1
    for r in "$OWNER" "$ROLE" "$JROLE"; do t_psql -d postgres -c "DROP ROLE IF EXISTS $r" >/dev/null 2>&1; done
}
drop_all
if [[ -z $(t_psql -d postgres -c "SELECT 1 FROM pg_collation WHERE collprovider = 'i' LIMIT 1") ]]; then
    echo "ok - # SKIP PostgreSQL without ICU: no versioned collation to probe"
    t_summary
    exit
fi
t_psql -d postgres -c "CREATE ROLE $OWNER" -c "CREATE ROLE $ROLE LOGIN" -c "CREATE ROLE $JROLE LOGIN" \
    -c "CREATE DATABASE $DB" >/dev/null || exit 1
# t_a holds row 777, t_b does not; the rest is the same.  Every text column has a collation
# of its own: ICU sv and de, and a nondeterministic one (its equality needs the collator).
t_psql -d "$DB" >/dev/null <<SQL || exit 1
CREATE EXTENSION dpobj;
CREATE COLLATION public.side_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
CREATE SCHEMA s AUTHORIZATION $OWNER;
GRANT USAGE ON SCHEMA s TO $ROLE, $JROLE;
CREATE SCHEMA s_out AUTHORIZATION $ROLE;
SET ROLE $OWNER;
CREATE FUNCTION s.gate() RETURNS boolean LANGUAGE sql VOLATILE
    AS 'SELECT pg_catalog.pg_advisory_xact_lock_shared($GATE); SELECT true';
CREATE TABLE s.t_a (id int, grp int, name text COLLATE "sv-x-icu", note text COLLATE public.side_ci,
                    cls text COLLATE "de-x-icu", a float8, b float8, y boolean, doc jsonb);
INSERT INTO s.t_a SELECT g, g % 4, 'n' || g, 'x' || g, (ARRAY['p', 'q', 'r'])[g % 3 + 1],
                         (g % 7) / 7.0, (g % 5) / 5.0, g % 3 = 0, jsonb_build_object('k', g % 5)
                    FROM generate_series(1, 400) g WHERE g <> 777;
CREATE TABLE s.t_b AS SELECT * FROM s.t_a;
INSERT INTO s.t_a VALUES (777, 1, 'target', 'x777', 'q', 0.5, 0.5, true,
                          (SELECT jsonb_agg(md5(g::text)) FROM generate_series(1, 60000) g));
CREATE INDEX ON s.t_a (id); CREATE INDEX ON s.t_b (id);
CREATE INDEX ON s.t_a (name); CREATE INDEX ON s.t_b (name);
ALTER TABLE s.t_a ENABLE ROW LEVEL SECURITY; ALTER TABLE s.t_a FORCE ROW LEVEL SECURITY;
ALTER TABLE s.t_b ENABLE ROW LEVEL SECURITY; ALTER TABLE s.t_b FORCE ROW LEVEL SECURITY;
CREATE POLICY gate ON s.t_a USING (s.gate()); CREATE POLICY gate ON s.t_b USING (s.gate());
-- a public lookup table (src/protected/lookups.c): one zone is row 777's, its text in sv
CREATE TABLE s.zones (zid int PRIMARY KEY, zone text COLLATE "sv-x-icu", w float8);
INSERT INTO s.zones VALUES (1, 'one', 0.5), (777, 'target', 2);
GRANT SELECT ON s.zones TO $ROLE;
REVOKE ALL ON s.t_a, s.t_b FROM PUBLIC;
ANALYZE s.t_a; ANALYZE s.t_b;
-- no autovacuum: its reads of t_a's TOAST would show in the counters a run is measured by
ALTER TABLE s.t_a SET (autovacuum_enabled = off, toast.autovacuum_enabled = off);
ALTER TABLE s.t_b SET (autovacuum_enabled = off, toast.autovacuum_enabled = off);
RESET ROLE;
SELECT dpobj.protect('s.t_' || t), dpobj.declare_domain('s.t_' || t, 'y', ARRAY['true', 'false']),
       dpobj.declare_domain('s.t_' || t, 'a', 0, 1), dpobj.declare_domain('s.t_' || t, 'b', 0, 1),
       dpobj.grant_budget('s.t_' || t, '$ROLE', 10000, 0.5),
       dpobj.grant_budget('s.t_' || t, '$JROLE', 10000, 0.5)
  FROM unnest(ARRAY['a', 'b']) t;
-- the catalog's versions differ from the libraries': every backend warns at its first load
UPDATE pg_collation SET collversion = '1.0'
 WHERE oid IN ('"sv-x-icu"'::regcollation, '"de-x-icu"'::regcollation, 'public.side_ci'::regcollation);
SQL

FILTER='[{"column":"id","op":">=","value":777},{"column":"id","op":"<=","value":777},{"column":"name","op":"<","value":"zzz"},{"column":"note","op":"<>","value":"q"},{"column":"cls","op":">=","value":""}]'
# entry | what the analyst runs ({T}: the table; {U}: a name of the run's own; FKV: the
# options' "filter" key and value)
ENTRIES=(
    "opdisc|SELECT (m).mechanism FROM dpobj.train('{T}', 'opdisc', ARRAY['a', 'b'], 'y', 0.5, 1e-5, '{FKV}') m"
    "logistic|SELECT (m).mechanism FROM dpobj.train('{T}', 'logistic', ARRAY['a', 'b'], 'y', 0.5, 1e-5, '{FKV}') m"
    "noisysgd|SELECT (m).mechanism FROM dpobj.train('{T}', 'noisysgd', ARRAY['a', 'b'], 'y', 0.5, 1e-5, '{FKV}') m"
    "auto|SELECT (m).mechanism FROM dpobj.train('{T}', 'auto', ARRAY['a', 'b'], 'y', 0.5, 1e-5, '{FKV}') m"
    "ebm|SELECT (m).mechanism FROM dpobj.train('{T}', 'ebm', ARRAY['a', 'b'], 'y', 0.5, 1e-5, '{FKV}') m"
    "gbdt|SELECT (m).mechanism FROM dpobj.train('{T}', 'gbdt', ARRAY['a', 'b'], 'y', 0.5, 1e-5, '{\"trees\": 5, FKV}') m"
    "multiclass|SELECT (m).mechanism FROM dpobj.train('{T}', 'logistic_multiclass', ARRAY['a', 'b'], 'cls', 0.5, 1e-5, '{\"classes\": [\"p\", \"q\", \"r\"], FKV}') m"
    "linear|SELECT (m).mechanism FROM dpobj.train('{T}', 'linear', ARRAY['b'], 'a', 0.5, 1e-5, '{\"y_min\": 0, \"y_max\": 1, FKV}') m"
    "evaluate|SELECT e ? 'noise' FROM dpobj.evaluate('{T}', ROW('forged', ARRAY[0.5, 0.5]::float8[], -0.1, 1, 1e-6, '{}')::dpobj.model, ARRAY['a', 'b'], 'y', 0.5, 0, '{FKV}') e"
    "describe|SELECT count(*) FROM dpobj.describe('{T}', 0.5, options => '{FKV}')"
    "aggregate|SELECT count(*) FROM dpobj.aggregate('{T}', '[{\"stat\": \"count\"}, {\"stat\": \"sum\", \"column\": \"a\"}]', 0.5, 1e-5, ARRAY['y'], '{FKV}')"
    "aggkeys|SELECT count(*) FROM dpobj.aggregate('{T}', '[{\"stat\": \"count\"}]', 1, 1e-5, ARRAY['doc'], '{FKV}')"
    "query|SET dpobj.query_epsilon = 0.5; SELECT count(*), sum(a) FROM {T} WHERE id >= 777 AND id <= 777 AND name < 'zzz' AND note <> 'q' AND cls >= '' GROUP BY y"
    "query_prepared|SET dpobj.query_epsilon = 0.5; PREPARE qp(int, text) AS SELECT y, count(*), avg(b) FROM {T} WHERE id >= \$1 AND id <= \$1 AND name < \$2 AND note <> 'q' AND cls >= '' GROUP BY y; EXECUTE qp(777, 'zzz')"
    "query_where|SET dpobj.query_epsilon = 0.5; SELECT count(*), sum(CASE WHEN a > 0.25 THEN a * 2 ELSE b END) FROM {T} WHERE id BETWEEN 777 AND 777 AND (name LIKE 't%' OR cls IN ('q', 'r')) AND note IS NOT NULL AND NOT (name = 'zzz' OR cls = '') GROUP BY y"
    "query_analyze|SET dpobj.query_epsilon = 0.5; EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT count(*), sum(a) FROM {T} WHERE id >= 777 AND id <= 777 AND name < 'zzz' AND note <> 'q' AND cls >= '' GROUP BY y"
    "query_lookup|SET dpobj.query_epsilon = 0.5; SELECT z.zone, count(*), sum(a * z.w) FROM {T} LEFT JOIN s.zones z ON z.zid = id WHERE id >= 777 AND id <= 777 AND name < 'zzz' AND note <> 'q' AND cls >= '' GROUP BY z.zone"
    "query_fn|SELECT count(*) FROM dpobj.query('SELECT y, count(*), sum(a) FROM {T} WHERE id >= 777 AND id <= 777 AND name < ''zzz'' AND note <> ''q'' AND cls >= '''' GROUP BY y', 0.5)"
    "synthesize|SELECT rows FROM dpobj.synthesize('{T}', 's_out.{U}', 0.5, 1e-5, ARRAY['y', 'a', 'b'], '{\"rows\": 5, FKV}')"
    "job|SELECT dpobj.submit('{T}', 'opdisc', ARRAY['a', 'b'], 'y', 0.5, 1e-5, '{FKV}')"
)
# the entries also ended by statement_timeout at their first row
CANCELS="opdisc|evaluate|describe|aggregate|aggkeys|query|query_prepared|query_where|query_lookup|query_fn|synthesize"

sql1() { t_psql -d "$DB" -c "$1"; }

# the lock the gate waits for, held by a session of this script's
gate_close() {
    psql -X -q -d "$DB" -c "SET application_name = 'side_gate'" -c "SELECT pg_advisory_lock($GATE)" \
        -c "SELECT pg_sleep(600)" >/dev/null 2>&1 &
    for _ in $(seq 200); do
        [[ $(sql1 "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = $GATE AND granted") == 1 ]] && return
        sleep 0.05
    done
    echo "# the gate did not close"
}
gate_open() {
    sql1 "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'side_gate'" >/dev/null
    wait_gone "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'side_gate'"
}
wait_gone() { # QUERY: until it counts 0 (at most 10 s)
    for _ in $(seq 200); do [[ $(sql1 "$1") == 0 ]] && return; sleep 0.05; done
}

# the table's family as the analyst's lock rows name it: table, index, toast, toast_index
FAMILY="CASE WHEN l.relation = t.oid THEN 'table' WHEN l.relation = t.reltoastrelid THEN 'toast'
             WHEN l.relation IN (SELECT indexrelid FROM pg_index WHERE indrelid = t.reltoastrelid) THEN 'toast_index'
             WHEN l.relation IN (SELECT indexrelid FROM pg_index WHERE indrelid = t.oid) THEN 'index' END"
locks_of() { # TABLE PID: the family's granted locks of PID, one word each
    sql1 "SELECT coalesce(string_agg(DISTINCT ($FAMILY) || ':' || l.mode, ',' ORDER BY ($FAMILY) || ':' || l.mode), '-')
            FROM pg_locks l, pg_class t
           WHERE t.oid = '$1'::regclass AND l.pid = $2 AND l.locktype = 'relation' AND l.granted
             AND ($FAMILY) IS NOT NULL"
}
# stats_of TABLE [delta]: the table's counters the analyst reads (pg_stat_user_tables,
# pg_statio_user_tables): to \gset, or as the differences from those set (b_*), the rows
# read less every scan's public row count (reltuples: analyzed)
STATS_COLS="seq_scan seq_tup_read idx_scan idx_tup_fetch n_tup_ins n_tup_upd n_tup_del heap_blks_read heap_blks_hit idx_blks_read idx_blks_hit toast_blks_read toast_blks_hit tidx_blks_read tidx_blks_hit"
stats_of() {
    local c sel=""
    for c in $STATS_COLS; do
        if [[ ${2:-} == delta && $c == seq_tup_read ]]; then
            sel+=", s.seq_tup_read - :b_seq_tup_read - (s.seq_scan - :b_seq_scan) * (SELECT reltuples::bigint FROM pg_class WHERE oid = s.relid)"
        elif [[ ${2:-} == delta ]]; then
            sel+=", coalesce($c, 0) - :b_$c"
        else
            sel+=", coalesce($c, 0) AS $c"
        fi
    done
    printf "SELECT %s%s FROM pg_stat_user_tables s JOIN pg_statio_user_tables io USING (relid) WHERE relid = '%s'::regclass" \
        "$([[ ${2:-} == delta ]] && echo "'stats'" || echo "'before' AS tag")" "$sel" "$1"
}
# poll_locks TABLE PID OUT: samples them in a loop from now until PID's statement ends
poll_locks() {
    psql -X -q -At -d "$DB" >"$3" 2>&1 <<SQL &
DO \$\$
DECLARE
    seen text[] := '{}';
    n int := 0;
    started timestamptz := (SELECT query_start FROM pg_stat_activity WHERE pid = $2);
BEGIN
    LOOP
        PERFORM pg_stat_clear_snapshot();   -- pg_stat_activity anew, not the transaction's copy
        EXIT WHEN NOT EXISTS (SELECT 1 FROM pg_stat_activity WHERE pid = $2 AND state = 'active'
                                                               AND query_start = started)
                  OR n > 200000;
        seen := seen || ARRAY(SELECT DISTINCT ($FAMILY) || ':' || l.mode
                                FROM pg_locks l, pg_class t
                               WHERE t.oid = '$1'::regclass AND l.pid = $2 AND l.locktype = 'relation'
                                 AND l.granted AND ($FAMILY) IS NOT NULL);
        n := n + 1;
    END LOOP;
    RAISE NOTICE 'polled %', (SELECT coalesce(string_agg(DISTINCT x, ',' ORDER BY x), '-') FROM unnest(seen) x);
END \$\$;
SQL
}

# waiter [JOBS]: the pid waiting at the gate, else empty
waiter() {
    sql1 "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND objid = $GATE AND NOT granted LIMIT 1"
}

# run ENTRY SIDE VARIANT: one run on s.t_SIDE; its observations in $WORK/ENTRY.VARIANT.SIDE
run() {
    local entry=$1 side=$2 variant=$3 call role=$ROLE table="s.t_$2" out before pid="" psql_pid
    local paused=no charged_at_pause=- at_pause=- polled=- warnings=- ledger i
    out="$WORK/$entry.$variant.$side"
    for e in "${ENTRIES[@]}"; do [[ ${e%%|*} == "$entry" ]] && call=${e#*|}; done
    call=${call//\{T\}/$table} call=${call//\{U\}/${entry}_${variant}_$side} call=${call//FKV/\"filter\": $FILTER}
    [[ $entry == job ]] && role=$JROLE
    before=$(sql1 "SELECT coalesce(max(id), 0) FROM dpobj.ledger")
    gate_close
    {
        echo "SET plan_cache_mode = force_generic_plan;"
        # a private query: the table's counters before, the run in a transaction of its own
        [[ $entry == query* ]] && printf '%s \\gset b_\nBEGIN;\n' "$(stats_of "$table")"
        [[ $variant == cancel ]] && echo "SET statement_timeout = '1500ms';"
        echo "$call;"
        if [[ $entry == query* ]]; then
            # the locks the run leaves to its transaction
            echo "SELECT 'locks after', coalesce(string_agg(DISTINCT ($FAMILY) || ':' || l.mode, ',' ORDER BY ($FAMILY) || ':' || l.mode), '-')
                    FROM pg_locks l, pg_class t WHERE t.oid = '$table'::regclass AND l.pid = pg_backend_pid()
                     AND l.locktype = 'relation' AND l.granted AND ($FAMILY) IS NOT NULL;"
            echo "COMMIT;"
        fi
        echo "RESET statement_timeout;"
        # the first use of each collation in this backend, after the run
        echo "SELECT 'a' < 'b' COLLATE \"sv-x-icu\", 'a' = 'b' COLLATE public.side_ci, 'a' < 'b' COLLATE \"de-x-icu\";"
        # the counters the run added, once this backend's are flushed (at its next idle)
        [[ $entry == query* ]] && printf 'SELECT pg_stat_force_next_flush();\n%s;\n' "$(stats_of "$table" delta)"
    } >"$out.sql"
    psql -X -q -At -d "$DB" -U "$role" -v VERBOSITY=terse -f "$out.sql" >"$out.client" 2>&1 &
    psql_pid=$!
    # until the run waits at the gate (its first row), or it is over
    for i in $(seq 1200); do
        pid=$(waiter)
        [[ -n $pid ]] && break
        if [[ $entry == job ]]; then
            [[ $i -gt 40 && $(sql1 "SELECT count(*) FROM dpobj.job_queue WHERE state IN ('queued', 'running')") == 0 ]] && break
        else
            kill -0 "$psql_pid" 2>/dev/null || break
        fi
        sleep 0.05
    done
    if [[ -n $pid ]]; then
        paused=yes
        charged_at_pause=$(sql1 "SELECT count(*) FROM dpobj.ledger WHERE id > $before AND relation = '$table'")
        at_pause=$(locks_of "$table" "$pid")
        if [[ $variant == cancel ]]; then
            wait "$psql_pid"
        else
            poll_locks "$table" "$pid" "$out.polled"
            sleep 0.2
        fi
    fi
    gate_open
    wait
    if [[ $entry == job ]]; then
        wait_gone "SELECT count(*) FROM dpobj.job_queue WHERE state IN ('queued', 'running')"
    else
        warnings=$(grep -o 'collation "[^"]*" has version mismatch' "$out.client" | sed 's/ has version mismatch//' | sort | paste -sd, -)
        warnings=${warnings:--}
    fi
    [[ -f $out.polled ]] && polled=$(sed -n 's/.*NOTICE:  polled //p' "$out.polled")
    stats=$(sed -n 's/^stats|//p' "$out.client") after=$(sed -n 's/^locks after|//p' "$out.client")
    ledger=$(sql1 "SELECT coalesce(string_agg(outcome, ',' ORDER BY id), '-') FROM dpobj.ledger
                    WHERE id > $before AND relation = '$table'")
    printf 'paused=%s charged_at_first_row=%s locks_at_first_row=%s locks_polled=%s collation_warnings=%s ledger=%s locks_after=%s stats=%s\n' \
        "$paused" "$charged_at_pause" "$at_pause" "${polled:--}" "$warnings" "$ledger" "${after:--}" "${stats:--}" >"$out"
}

# compare ENTRY VARIANT: the two sides, and the charge and locks at the first row
compare() {
    local a b
    a=$(cat "$WORK/$1.$2.a") b=$(cat "$WORK/$1.$2.b")
    if [[ $a == "$b" ]]; then
        t_is "$1 ($2): what the analyst observes is the same with and without row 777" ok ok
    else
        t_is "$1 ($2): what the analyst observes is the same with and without row 777" "$a" "$b"
    fi
    t_check "$1 ($2): charged, every lock of the table's family held, at the first row (both sides)" \
        bash -c "grep -q 'paused=yes charged_at_first_row=1 locks_at_first_row=index:AccessShareLock,table:AccessShareLock,toast:AccessShareLock,toast_index:AccessShareLock ' '$WORK/$1.$2.a' &&
                 grep -q 'paused=yes charged_at_first_row=1 locks_at_first_row=index:AccessShareLock,table:AccessShareLock,toast:AccessShareLock,toast_index:AccessShareLock ' '$WORK/$1.$2.b'"
}

for e in "${ENTRIES[@]}"; do
    entry=${e%%|*}
    [[ $entry =~ ^(${SIDE_ENTRIES:-.*})$ ]] || continue
    for side in a b; do run "$entry" "$side" run; done
    compare "$entry" run
    if [[ $entry =~ ^($CANCELS)$ ]]; then
        for side in a b; do run "$entry" "$side" cancel; done
        compare "$entry" cancel
        t_check "$entry (cancel): a cancel at the first row is charged (both sides)" \
            bash -c "grep -q 'ledger=cancelled ' '$WORK/$entry.cancel.a' && grep -q 'ledger=cancelled ' '$WORK/$entry.cancel.b'"
    fi
done
# the counters' measurement sees a scan: the superuser's plain one, measured as above
printf '%s \\gset b_\nSELECT count(*) FROM s.t_a;\nSELECT pg_stat_force_next_flush();\n%s;\n' \
    "$(stats_of s.t_a)" "$(stats_of s.t_a delta)" >"$WORK/control.sql"
control=$(t_psql -d "$DB" -f "$WORK/control.sql" | sed -n 's/^stats|//p')
t_check "the counters a private query leaves are measured: a plain scan's show ($control)" \
    bash -c "[[ '$control' =~ ^1\|0\|0\|0\|0\|0\|0\| ]]"
# EXPLAIN of a private query: no run, no charge, the same text on both sides (the name masked)
for side in a b; do
    before=$(sql1 "SELECT coalesce(max(id), 0) FROM dpobj.ledger")
    psql -X -q -At -d "$DB" -U "$ROLE" -c "SET dpobj.query_epsilon = 0.5" \
        -c "EXPLAIN (COSTS OFF, VERBOSE) SELECT y, count(*), avg(a) FROM s.t_$side WHERE id >= 777 AND id <= 777 AND name < 'zzz' GROUP BY y" 2>&1 |
        sed -e "s/t_$side/t_X/g" -e 's/"relid": [0-9]*/"relid": N/g' >"$WORK/explain.$side"
    echo "charges=$(sql1 "SELECT count(*) FROM dpobj.ledger WHERE id > $before")" >>"$WORK/explain.$side"
done
t_check "EXPLAIN of a private query: the same on both sides, nothing charged ($(tail -n 1 "$WORK/explain.a"))" \
    bash -c "cmp -s '$WORK/explain.a' '$WORK/explain.b' && grep -q 'query_run' '$WORK/explain.a' &&
             grep -q '^charges=0$' '$WORK/explain.a'"
for f in "$WORK"/*.run.a; do printf '# %s, side a: %s\n' "$(basename "$f" .run.a)" "$(cat "$f")"; break; done

[[ -n ${DPOBJ_KEEP_WORK:-} ]] && echo "# run files in $WORK" || drop_all
t_summary
