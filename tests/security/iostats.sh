#!/usr/bin/env bash
# tests/security/iostats.sh — the I/O counters of a protected run (docs/SECURITY.md, row 65).
# A state that outgrows dpobj.max_state_memory writes temporary files: how many blocks and
# files follow the distinct rows, which are private.  The analyst could read them as the
# "temp read/written" buffers of EXPLAIN (ANALYZE, BUFFERS) of its own train() call (and
# pg_stat_statements, which reads the same totals), and as pg_stat_database.temp_files /
# temp_bytes, which every role reads.  Two tables that differ in one row straddle the cap:
# 512 distinct rows of d = 10 stay in memory under 64kB, 513 spill (sql/spill.sql).  For
# each spilling mechanism the analyst's EXPLAIN and the database's temporary-file counters
# must be the same for both (EXPLAIN counts none of the call's buffers, train.c: those of its
# public steps followed the caches, which autovacuum of one table changed); the superuser's direct aggregate over the same tables shows
# that the one does spill and the other does not, so the comparison has something to hide.
# The same for a table with a privacy unit whose neighbour crosses the bounding's switch
# from counting in memory to a sort that spills, and for a run grouped by keys.
# Needs PGHOST/PGPORT/PGUSER (a superuser), dpobj installed and preloaded.
set -uo pipefail
DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=tests/security/lib.sh
. "$DIR/lib.sh"
DB=dpobj_iostats
ROLE=dpobj_iostats_analyst
OUT=$(mktemp -d "${TMPDIR:-/tmp}/dpobj-iostats.XXXXXX")
trap 'rm -rf "$OUT"' EXIT

feats=$(printf "'x%d'," $(seq 1 10))
FEATS="ARRAY[${feats%,}]"
cols() { local i; for i in $(seq 1 10); do printf ', sin(g * %d.37 + %d) AS x%d' "$i" "$i" "$i"; done; }

t_role "$ROLE" >/dev/null && t_fresh_db "$DB" >/dev/null || exit 1
# near: 512 distinct rows, far: the same plus one; warm: 8 rows, to load the caches first.
# Every table is analyzed at once, so that no autoanalyze between the runs invalidates the
# catalog caches of one side only.
t_psql -d "$DB" \
    -c "CREATE TABLE far AS SELECT g$(cols), g % 3 = 0 AS y FROM generate_series(1, 513) g" \
    -c "CREATE TABLE near AS SELECT * FROM far WHERE g <= 512" \
    -c "CREATE TABLE warm AS SELECT * FROM far WHERE g <= 8" \
    -c "REVOKE ALL ON far, near, warm FROM PUBLIC" \
    -c "ANALYZE far, near, warm" \
    -c "SELECT dpobj.protect(t) FROM unnest(ARRAY['far', 'near', 'warm']) t" \
    -c "SELECT count(*) FROM unnest(ARRAY['far', 'near', 'warm']) t, dpobj.grant_budget(t, '$ROLE', 1000, 0.5)" \
    -c "ALTER DATABASE $DB SET dpobj.max_state_memory = '64kB'" >/dev/null || exit 1

# run FILE WARM TABLE MECH OPTS: the analyst's view of one train() on TABLE after a warm-up
# run on WARM (the caches loaded, so that both sides start alike).  NOTICEs are left out:
# the budget's composition NOTICE names the table (the harness compares notices)
run() {
    local file="$1" warm="$2" tbl="$3" mech="$4" opts="$5"
    psql -X -q -At -d "$DB" -v ON_ERROR_STOP=1 >"$file" 2>&1 <<SQL
SET client_min_messages = warning;
SET ROLE $ROLE;
SELECT 1 FROM dpobj.train('$warm', '$mech', $FEATS, 'y', 1, 1e-6, '$opts');
RESET ROLE;
SELECT pg_stat_force_next_flush() \\gset
SELECT temp_files AS f0, temp_bytes AS b0 FROM pg_stat_database WHERE datname = current_database() \\gset
SET ROLE $ROLE;
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT 1 FROM dpobj.train('$tbl', '$mech', $FEATS, 'y', 1, 1e-6, '$opts');
RESET ROLE;
SELECT pg_stat_force_next_flush() \\gset
SELECT 'temporary files', temp_files - :f0, temp_bytes - :b0
  FROM pg_stat_database WHERE datname = current_database();
SQL
}

# A superuser's spilling check ends with its statistics flushed: the reply to this comes
# after the flush, while a session left to exit flushes at its exit, which can land inside
# the next measurement (one temporary file counted on the side that writes none)
FLUSH="SELECT pg_stat_force_next_flush()"

# direct TABLE AGG OPTS: the superuser's direct aggregate, EXPLAIN's temporary blocks
direct() {
    t_psql -d "$DB" -c "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, SUMMARY OFF)
        SELECT dpobj.$2(ARRAY[x1, x2, x3, x4, x5, x6, x7, x8, x9, x10], y, 1, 1e-6, '$3') FROM $1" \
        -c "$FLUSH" | grep -c 'temp read'
}

while read -r mech agg opts; do
    [[ -z $mech || $mech == \#* ]] && continue
    t_is "$mech: under 64kB the direct aggregate over 512 distinct rows writes no temporary file" \
        "$(direct near "$agg" "$opts")" 0
    t_check "$mech: ... and over 513 it does (the tables straddle the spill)" \
        test "$(direct far "$agg" "$opts")" -gt 0
    run "$OUT/near" warm near "$mech" "${opts%\}}, \"encode\": false}"
    run "$OUT/far" warm far "$mech" "${opts%\}}, \"encode\": false}"
    t_check "$mech: the analyst's run released" grep -qE '\(actual rows=1(\.00)? loops=1\)' "$OUT/near"
    t_check "$mech: EXPLAIN (ANALYZE, BUFFERS) and the temporary-file counters are the same for both" \
        diff -u "$OUT/near" "$OUT/far"
done <<'MECHS'
logistic dp_logistic {"R": 2}
noisysgd dp_noisysgd {"R": 2, "T": 5}
MECHS

# A table with a privacy unit (k = 3): at 64kB, 922 units are counted in memory and 923 are
# sorted (src/protected/unitkeep.c); the far table's extra unit has 3 000 rows, so its sort
# spills past work_mem (pinned at most the cap).  The two tables differ in that unit.
t_psql -d "$DB" \
    -c "CREATE TABLE ufar AS SELECT g % 922 AS u, (g % 7) / 4.0 - 0.75 AS a, (g % 5) / 4.0 - 0.5 AS b,
          g % 3 = 0 AS y FROM generate_series(1, 922) g
        UNION ALL SELECT 999999, (g % 7) / 4.0 - 0.75, (g % 5) / 4.0 - 0.5, g % 2 = 0
          FROM generate_series(1, 3000) g" \
    -c "CREATE TABLE unear AS SELECT * FROM ufar WHERE u <> 999999" \
    -c "CREATE TABLE uwarm AS SELECT * FROM ufar WHERE u < 8" \
    -c "REVOKE ALL ON ufar, unear, uwarm FROM PUBLIC" \
    -c "ANALYZE ufar, unear, uwarm" \
    -c "SELECT count(*) FROM unnest(ARRAY['ufar', 'unear', 'uwarm']) t,
          dpobj.protect(t, privacy_unit => 'u', max_rows_per_unit => 3)" \
    -c "SELECT count(*) FROM unnest(ARRAY['ufar', 'unear', 'uwarm']) t,
          dpobj.grant_budget(t, '$ROLE', 1000, 0.5)" >/dev/null || exit 1
t_check "units: the far table's sorted bounding spills past 64kB" \
    test "$(t_psql -d "$DB" -c "SET work_mem = '64kB'" -c "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, SUMMARY OFF)
        SELECT count(*) FROM (SELECT a, b, y, row_number() OVER w r, count(*) OVER w m
                                FROM ufar WINDOW w AS (PARTITION BY u)) s
         WHERE dpobj.unit_keep_sorted(r, m, 3)" -c "$FLUSH" | grep -c 'temp read')" -gt 0
FEATS="ARRAY['a', 'b']"
run "$OUT/unear" uwarm unear logistic '{"R": 2, "encode": false}'
run "$OUT/ufar" uwarm ufar logistic '{"R": 2, "encode": false}'
t_check "units: the analyst's run released" grep -qE '\(actual rows=1(\.00)? loops=1\)' "$OUT/unear"
t_check "units: EXPLAIN (ANALYZE, BUFFERS) and the temporary-file counters are the same for both" \
    diff -u "$OUT/unear" "$OUT/ufar"

# Grouped by a key without levels (dp_aggregate_keys sorts the rows, work_mem pinned at most
# the cap): the far table's 3 000 more rows of other keys spill, the near table's 40 do not;
# "max_keys" 1 releases key 'a' (40 rows, far above the threshold) alone from both.
t_psql -d "$DB" \
    -c "CREATE TABLE kfar AS SELECT CASE WHEN g <= 40 THEN 'a' ELSE 'b' || g END AS k, true AS f
          FROM generate_series(1, 3040) g" \
    -c "CREATE TABLE knear AS SELECT * FROM kfar WHERE k = 'a'" \
    -c "REVOKE ALL ON kfar, knear FROM PUBLIC" \
    -c "ANALYZE kfar, knear" \
    -c "SELECT dpobj.declare_domain(t, 'f', ARRAY['true']) FROM unnest(ARRAY['kfar', 'knear']) t" \
    -c "SELECT count(*) FROM unnest(ARRAY['kfar', 'knear']) t, dpobj.protect(t),
          dpobj.grant_budget(t, '$ROLE', 1000, 0.5)" >/dev/null || exit 1
kdirect() {
    t_psql -d "$DB" -c "SET work_mem = '64kB'" -c "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, SUMMARY OFF)
        SELECT dpobj.dp_aggregate_keys(dpobj.encode_features('[{\"column\": \"f\", \"levels\": [\"true\"]}]',
          ARRAY[f::text], '{}'::float8[]), k, 50, 1e-6, '{\"layout\": {\"encoding\": [{\"column\": \"f\",
          \"levels\": [\"true\"]}], \"group_by\": [], \"what\": [{\"stat\": \"count\"}]}}') FROM $1" \
        -c "$FLUSH" | grep -c 'temp'
}
t_is "keys: at work_mem 64kB the direct aggregate's sort over the near table writes no temporary file" \
    "$(kdirect knear)" 0
t_check "keys: ... and over the far table it does" test "$(kdirect kfar)" -gt 0
for t in knear kfar; do
    psql -X -q -At -d "$DB" -v ON_ERROR_STOP=1 >"$OUT/$t" 2>&1 <<SQL
SET client_min_messages = warning;
SELECT pg_stat_force_next_flush() \\gset
SELECT temp_files AS f0, temp_bytes AS b0 FROM pg_stat_database WHERE datname = current_database() \\gset
SET ROLE $ROLE;
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT * FROM dpobj.aggregate('$t', '[{"stat": "count"}]', 50, 1e-6, ARRAY['k'], '{"max_keys": 1}');
RESET ROLE;
SELECT pg_stat_force_next_flush() \\gset
SELECT 'temporary files', temp_files - :f0, temp_bytes - :b0
  FROM pg_stat_database WHERE datname = current_database();
SQL
done
t_check "keys: the analyst's run released one key" grep -qE '\(actual rows=1(\.00)? loops=1\)' "$OUT/knear"
t_check "keys: EXPLAIN (ANALYZE, BUFFERS) and the temporary-file counters are the same for both" \
    diff -u "$OUT/knear" "$OUT/kfar"

t_psql -d postgres -c "DROP DATABASE $DB" >/dev/null
t_summary
