#!/usr/bin/env bash
# bench/gbdt/scale.sh — dp_gbdt and dp_ebm through dpobj.train() on large tables (a benchmark,
# not a test), each mechanism's defaults at epsilon 1, delta 1e-6, serial
# (max_parallel_workers_per_gather = 0).  BENCH_TABLES [adult]:
#   adult   adult.train's 32 561 rows BENCH_COPIES [615] times (20 025 015 rows, 32 561
#           distinct; bench/synth/adultbig.sh, as bench/synth/sqlpath.sh builds it), its 14
#           columns the features (train() encodes the declared domains), income_gt_50k the
#           label; the scan: the 15 columns' counts;
#   d10:N   bench/scale's d10 table of N rows, every row distinct (bench/scale/tables.sh),
#           x1..x10 the features, y the label; the scan: sum(x1 + ... + x10).
# Per table the scan (the best of two after a warm-up), then per mechanism one run on a fresh
# connection with gdb attached to its backend, which counts without stopping it:
#   - ms, and its ratio to the scan; peak RSS: the backend's VmHWM (/proc/<pid>/status,
#     shared buffers it touched included); peak private: the largest of its RssAnon
#     sampled every 0.2 s (its own memory), against dpobj.max_state_memory (cap MB);
#   - table scans: the calls of heap_beginscan on the table (its relfilenode the word after
#     the relation's tablespace and database: RelationData's rd_node, PostgreSQL 15-16; the
#     sealed scan counts none in pg_stat_user_tables);
#   - passes over the observations: the calls of gbdt_pass or ebm_pass, per tree for gbdt
#     (its params' "trees") and per round for ebm ("rounds"); of them, passes over the
#     design: the calls of keptdesign_next(D, first = true) (each starts the kept rows'
#     design over, in memory or replayed from a spill; the others read the bins the
#     passes keep, mechanisms/keptbins.h).
# (gdb passes every signal on without stopping: a ProcSignalBarrier's SIGUSR1, which CREATE
# or DROP DATABASE sends every backend, would otherwise end its count early.)
# Needs a running server through PGHOST/PGPORT/PGUSER (a superuser on this machine: gdb
# attaches to its backends), e.g. from the repository's root:
#   (. scripts/common.sh && dpobj_build_install && dpobj_start_cluster && nice bash bench/gbdt/scale.sh)
# Writes bench/csv/gbdt_scale.csv (bench/record.py; its command names BENCH_COPIES if given),
# rendered into docs/BENCHMARKS.md.
# Environment: BENCH_TABLES, BENCH_COPIES, BENCH_MECHS [gbdt ebm], BENCH_DB [dpobj_gbdtscale].
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
COPIES="${BENCH_COPIES:-615}"
TABLES="${BENCH_TABLES:-adult}"
MECHS="${BENCH_MECHS:-gbdt ebm}"
DB="${BENCH_DB:-dpobj_gbdtscale}"
OUT="$(mktemp -d)"
chmod 755 "$OUT"
trap 'rm -rf -- "$OUT"' EXIT
cd "$REPO"
# shellcheck source=bench/measure.sh
. "$REPO/bench/measure.sh"
bench_fresh_db "$DB"
q() { psql -X -qAt -d "$DB" -v ON_ERROR_STOP=1 "$@"; }
# shellcheck source=bench/synth/adultbig.sh
. "$REPO/bench/synth/adultbig.sh"
# shellcheck source=bench/scale/tables.sh
. "$REPO/bench/scale/tables.sh"
SERIAL="SET max_parallel_workers_per_gather = 0;"
cap=$(q -c "SELECT pg_size_bytes(current_setting('dpobj.max_state_memory')) / 1048576")

# counted TABLE SQL MECH: "ms kB anon_kB status table_scans design_passes passes units" of
# SQL (MECH's train(), its row "trees|rounds") on a fresh connection, gdb counting in its backend
counted() {
    cat >"$OUT/gdb.cmd" <<GDB
set pagination off
handle all nostop noprint pass
break heap_beginscan if *(unsigned int *) (\$rdi + 8) == $(q -c "SELECT pg_relation_filenode('$1')")
commands
silent
continue
end
break keptdesign_next if first
commands
silent
continue
end
break ${3}_pass
commands
silent
continue
end
break ReadyForQuery
shell touch "$OUT/ready"
continue
info breakpoints
detach
shell touch "$OUT/done"
quit
GDB
    rm -f "$OUT/ready" "$OUT/done" "$OUT/gdb.out" "$OUT/anon"
    psql -X -q -At -d "$DB" >"$OUT/run" 2>"$OUT/err" <<SQL || true
$SERIAL
SELECT pg_backend_pid() AS pid \gset
\setenv BPID :pid
\! gdb -q -p \$BPID -batch -x $OUT/gdb.cmd >$OUT/gdb.out 2>&1 &
\! (m=0; while kill -0 \$BPID 2>/dev/null; do v=\$(awk '/RssAnon/ { print \$2 }' /proc/\$BPID/status 2>/dev/null); [ "\${v:-0}" -gt \$m ] && m=\$v && echo \$m >$OUT/anon; sleep 0.2; done) &
\! for i in \$(seq 1 300); do [ -e $OUT/ready ] && break; sleep 0.1; done
\timing on
$2
\timing off
\! grep VmHWM /proc/\$BPID/status
SQL
    # the backend waits at ReadyForQuery until gdb has counted and detached; gdb flushes
    # its output before its last shell command
    for _ in $(seq 1 1200); do [[ -e "$OUT/done" ]] && break; sleep 0.1; done
    # a breakpoint's hits: after its header line (with the function, or <MULTIPLE> then
    # one line a location: "N.1 ... in f")
    hits() { awk -v f="( in $1 |<$1[+>])" '/^[0-9]+[ \t]/ { cur = $1 } /already hit/ { h[cur] = $4 }
                                  $0 ~ f { w = $1; sub(/\..*/, "", w); want = w }
                                  END { print h[want] + 0 }' "$OUT/gdb.out"; }
    local ms kb st
    ms="$(sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' "$OUT/run" | tail -n 1)"
    kb="$(awk '/VmHWM/ { print $2 }' "$OUT/run")"
    st="$(sed -n 's/^.*ERROR:  //p' "$OUT/err" | head -n 1 | cut -c1-60)"
    printf '%s %s %s %s %s %s %s %s\n' "${ms:-0}" "${kb:-0}" "$(cat "$OUT/anon" 2>/dev/null || echo 0)" "$(tr ' ' _ <<<"${st:-ok}")" \
        "$(hits heap_beginscan)" "$(hits keptdesign_next)" "$(hits "${3}_pass")" \
        "$(grep -m 1 -E '^[0-9]*\|[0-9]*$' "$OUT/run" | tr -d '|')"
}

rows_md=""
for tb in $TABLES; do
    if [[ $tb == adult ]]; then
        q -c "DROP SCHEMA IF EXISTS adult CASCADE" >/dev/null
        adult_load
        adult_big adult.big "$COPIES"
        t=adult.big label=income_gt_50k
        feats="ARRAY[$(sed "s/\([a-z_0-9][a-z_0-9]*\)/'\1'/g; s/, 'income_gt_50k'//" <<<"$ADULT_COLS")]"
        scan="SELECT $(sed 's/\([a-z_0-9][a-z_0-9]*\)/count(\1)/g' <<<"$ADULT_COLS") FROM $t;"
    else
        make_table d10 "${tb#d10:}"
        t="t_d10_${tb#d10:}" label=y
        feats="ARRAY[$(seq -s, -f "'x%g'" 1 10)]"
        scan="SELECT sum($(seq -s+ -f 'x%g' 1 10)) FROM $t;"
    fi
    n=$(q -c "SELECT count(*) FROM $t")
    bench_measure "$DB" "$OUT" "$SERIAL" "$scan" >/dev/null
    read -r s1 _ _ < <(bench_measure "$DB" "$OUT" "$SERIAL" "$scan")
    read -r s2 skb _ < <(bench_measure "$DB" "$OUT" "$SERIAL" "$scan")
    scan_ms=$(awk -v a="$s1" -v b="$s2" 'BEGIN { print (a < b ? a : b) }')
    rows_md+="| $t | $n | scan | $(printf '%.0f' "$scan_ms") | 1.0x | 1 | - | - | - | $((skb / 1024)) | - | $cap | ok |"$'\n'
    for m in $MECHS; do
        read -r ms kb anon st scans dpasses passes units < <(counted "$t" \
            "SELECT (m).params->>'trees', (m).params->>'rounds' FROM (SELECT dpobj.train('$t', '$m', $feats, '$label', 1, 1e-6, '{}') m) s;" "$m")
        ratio=$(awk -v a="$ms" -v b="$scan_ms" 'BEGIN { printf "%.1f", a / b }')
        per=$(awk -v p="$passes" -v u="${units:-0}" 'BEGIN { if (u > 0) printf "%.2f", p / u; else print "-" }')
        echo "# $t $m: $ms ms (${ratio}x), $((kb / 1024)) MB ($((anon / 1024)) private), $st; $scans table scans, $passes passes ($dpasses over the design), ${units:-?} trees/rounds" >&2
        rows_md+="| $t | $n | $m | $(printf '%.0f' "$ms") | ${ratio}x | $scans | $passes | $dpasses | $per | $((kb / 1024)) | $((anon / 1024)) | $cap | ${st//_/ } |"$'\n'
    done
    q -c "DROP TABLE $t" >/dev/null
done
{
    echo "| table | rows | run | ms | ratio | table scans | passes | passes over the design | passes a tree or round | peak RSS MB | peak private MB | cap MB | outcome |"
    echo "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
    printf '%s' "$rows_md"
} | tee "$OUT/table" | python3 "$REPO/bench/record.py" gbdt_scale \
    "BENCH_TABLES=\"$TABLES\"${BENCH_COPIES:+ BENCH_COPIES=$COPIES} nice bash bench/gbdt/scale.sh"
cat "$OUT/table"
psql -X -q -d postgres -c "DROP DATABASE $DB"
