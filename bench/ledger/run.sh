#!/usr/bin/env bash
# bench/ledger/run.sh — runs/s of small trainings (the fixed cost of the privacy charge),
# one command (a benchmark, not a test):
#
#   bash bench/ledger/run.sh
#
# Builds and installs dpobj, starts a throwaway cluster (scripts/common.sh) with
# shared_preload_libraries = 'dpobj' and durable commits (fsync = on,
# synchronous_commit = on: a charge must be on disk before noise is drawn), creates a
# 10-row table and runs pgbench with one custom script per case, for 1 and 32 clients:
#
#   halfspace        SELECT dpobj.dp_halfspace(...) FROM t10             (direct)
#   logistic         SELECT dpobj.dp_logistic(...) FROM t10              (direct)
#   train_opdisc     SELECT dpobj.train('t10', 'opdisc', ...)            (protected path)
#   train_logistic   SELECT dpobj.train('t10', 'logistic', ...)          (protected path)
#   train_noisysgd   SELECT dpobj.train('t10', 'noisysgd', ...)          (protected path, zCDP)
#
# Each run is a privacy charge plus its outcome in dpobj.ledger.  The direct cases set
# dpobj.seed = 1 (superuser, tests only): every run draws the same noise, so every run
# succeeds -- with fresh noise a 10-row dp_logistic now and then does not converge (DP001),
# which would abort a pgbench client.  Protected runs refuse a seed, so the train_* cases
# draw fresh noise (train_logistic may then fail now and then: prefer train_noisysgd).  Then, unless
# BENCH_FALLBACK=0, the server is restarted WITHOUT preloading dpobj and the cases run
# again (the one-shot background worker per ledger write that dpobj falls back to).
# Prints a markdown table (runs/s = pgbench tps, mean latency, load average before each
# case) and, with BENCH_DOC set, replaces the section "## Runs per second (ledger)" of
# that file with it.
#
# Environment: BENCH_SECONDS [15] per case, BENCH_CLIENTS ["1 32"],
#   BENCH_CASES ["halfspace logistic train_opdisc train_logistic"], BENCH_FALLBACK [1],
#   BENCH_DOC [unset: print only], BENCH_LABEL [a label for the table, default the commit],
#   BENCH_ROWS [10] rows of the table (named t10 whatever its size; at most 105 distinct),
#   DPOBJ_PGPORT [56402].
set -euo pipefail

# shellcheck source=scripts/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/common.sh"

BENCH_SECONDS="${BENCH_SECONDS:-15}"
BENCH_CLIENTS="${BENCH_CLIENTS:-1 32}"
BENCH_CASES="${BENCH_CASES:-halfspace logistic train_opdisc train_logistic}"
BENCH_FALLBACK="${BENCH_FALLBACK:-1}"
BENCH_ROWS="${BENCH_ROWS:-10}"
SECTION='## Runs per second (ledger)'
DPOBJ_PGPORT="${DPOBJ_PGPORT:-56402}"
export DPOBJ_PGPORT
OUT="$(mktemp -d "${TMPDIR:-/tmp}/dpobj-bench-ledger.XXXXXX")"
chmod 755 "$OUT"
dpobj_at_exit "rm -rf -- '$OUT'; :"

commit="$(git -C "$REPO" rev-parse --short HEAD 2>/dev/null || echo 'no commit')"
if [[ -n "$(git -C "$REPO" status --porcelain -- src sql Makefile 2>/dev/null)" ]]; then
    commit="$commit + uncommitted changes"
fi
BENCH_LABEL="${BENCH_LABEL:-$commit}"

DPOBJ_EXTRA_CONF="shared_preload_libraries = 'dpobj'
fsync = on
synchronous_commit = on
max_connections = 100
jit = off"
export DPOBJ_EXTRA_CONF

dpobj_ensure_packages
dpobj_build_install
dpobj_start_cluster
DB=dpobj_bench_ledger
dpobj_psql -c "CREATE DATABASE $DB" >/dev/null
dpobj_psql -d "$DB" -v rows="$BENCH_ROWS" >/dev/null <<'SQL'
CREATE EXTENSION dpobj;
CREATE TABLE t10 AS
SELECT i, (i % 7) / 4.0 - 0.75 AS a, (i % 5) / 4.0 - 0.5 AS b, (i % 3) > 0 AS y,
       ARRAY[(i % 7) / 4.0 - 0.75, (i % 5) / 4.0 - 0.5, 1]::float8[] AS f
  FROM generate_series(1, :rows) i;
SELECT dpobj.protect('t10');
SELECT dpobj.grant_budget('t10', current_user::regrole, 1e12, 0.5);
-- zCDP runs on a budget of their own (approximate-DP runs after them are refused)
CREATE TABLE t10z AS SELECT * FROM t10;
SELECT dpobj.protect('t10z');
SELECT dpobj.grant_budget('t10z', current_user::regrole, 1e12, 0.5);
SQL

cat >"$OUT/halfspace.sql" <<'SQL'
SELECT (dpobj.dp_halfspace(f, y, 1, 1e-9)).weights FROM t10;
SQL
cat >"$OUT/logistic.sql" <<'SQL'
SELECT (dpobj.dp_logistic(f, y, 1, 1e-9, '{"R": 2, "lambda": 10}')).weights FROM t10;
SQL
cat >"$OUT/train_opdisc.sql" <<'SQL'
SELECT (dpobj.train('t10', 'opdisc', ARRAY['a', 'b'], 'y', 1, 1e-9)).weights;
SQL
cat >"$OUT/train_logistic.sql" <<'SQL'
SELECT (dpobj.train('t10', 'logistic', ARRAY['a', 'b'], 'y', 1, 1e-9, '{"R": 2, "lambda": 10}')).weights;
SQL
cat >"$OUT/train_noisysgd.sql" <<'SQL'
SELECT (dpobj.train('t10z', 'noisysgd', ARRAY['a', 'b'], 'y', 1, 1e-9, '{"R": 2, "T": 10}')).weights;
SQL

ROWS=()
run_cases() {
    local mode="$1" c n tps lat load seed
    for c in $BENCH_CASES; do
        # protected runs refuse a seed
        seed="-c dpobj.seed=1"
        [[ "$c" == train_* ]] && seed=""
        # one untimed run: the script works and the plan cache is warm
        PGOPTIONS="$seed" dpobj_psql -d "$DB" -At -f "$OUT/$c.sql" >/dev/null
        for n in $BENCH_CLIENTS; do
            load="$(cut -d' ' -f1-3 /proc/loadavg)"
            PGOPTIONS="$seed" \
            pgbench -n -d "$DB" -f "$OUT/$c.sql" -c "$n" -j "$((n < 2 ? n : 2))" \
                -T "$BENCH_SECONDS" >"$OUT/$mode.$c.$n.txt" 2>&1 ||
                { cat "$OUT/$mode.$c.$n.txt" >&2; dpobj_die "pgbench failed ($mode $c $n)"; }
            tps="$(sed -n 's/^tps = \([0-9.]*\) .*/\1/p' "$OUT/$mode.$c.$n.txt" | tail -n 1)"
            lat="$(sed -n 's/^latency average = \([0-9.]*\) ms/\1/p' "$OUT/$mode.$c.$n.txt")"
            dpobj_log "$mode $c clients=$n: $tps runs/s, $lat ms (load $load)"
            ROWS+=("| $mode | $c | $n | $(printf '%.1f' "$tps") | $lat | $load |")
        done
    done
}

run_cases preloaded

# How many runs a (1, 1e-6) budget admits: noisy GD at (0.1, 1e-7) (cost rho, composed by
# the zCDP accountant) and OPDisc at (0.1, 1e-7) (approximate DP, added up): train until
# DP004, and dpobj.runs_left() asked before the first run.
admitted() { # MECH OPTIONS
    dpobj_psql -d "$DB" -At <<SQL
CREATE TABLE t10_$1 AS SELECT * FROM t10;
SELECT dpobj.protect('t10_$1') \\gset
SELECT dpobj.grant_budget('t10_$1', current_user::regrole, 1, 1e-6) \\gset
SELECT dpobj.runs_left('t10_$1', '$1', 0.1, 1e-7, '$2') AS said \\gset
DO \$\$
DECLARE n int := 0;
BEGIN
    LOOP
        BEGIN
            PERFORM dpobj.train('t10_$1', '$1', ARRAY['a', 'b'], 'y', 0.1, 1e-7, '$2');
            n := n + 1;
        EXCEPTION
            WHEN SQLSTATE 'DP004' THEN EXIT;
            WHEN SQLSTATE 'DP006' THEN n := n + 1;   -- charged, failed: still admitted
        END;
    END LOOP;
    RAISE NOTICE 'admitted %', n;
END \$\$;
SELECT :said;
SQL
}
ADMITTED=""
for m in "noisysgd:{\"R\": 2, \"T\": 10}" "opdisc:{}"; do
    said="$(admitted "${m%%:*}" "${m#*:}" 2>"$OUT/admitted.err")"
    n="$(sed -n 's/.*NOTICE:  admitted \([0-9]*\)/\1/p' "$OUT/admitted.err")"
    dpobj_log "(1, 1e-6) budget, ${m%%:*} at (0.1, 1e-7): $n runs admitted (runs_left said $said)"
    ADMITTED+="| ${m%%:*} | $n | $said |"$'\n'
done

if [[ "$BENCH_FALLBACK" == 1 ]]; then
    dpobj_as_pg "$PG_BINDIR/pg_ctl" -D "$DPOBJ_PGDATA" -m fast -w stop >/dev/null
    dpobj_as_pg "$PG_BINDIR/pg_ctl" -D "$DPOBJ_PGDATA" -l "$DPOBJ_PGLOG" -w -t 120 \
        -o "-c shared_preload_libraries=" start >/dev/null
    run_cases not-preloaded
fi

ledger="$(dpobj_psql -d "$DB" -At -c "SELECT string_agg(outcome || ' ' || n, ', ') FROM
            (SELECT outcome, count(*) n FROM dpobj.ledger GROUP BY 1 ORDER BY 1) s")"

table="$OUT/table.md"
{
    echo "$SECTION"
    echo
    echo "Generated by \`bash bench/ledger/run.sh\` ($BENCH_LABEL, $(date -u '+%Y-%m-%d %H:%M UTC'));"
    echo "$(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)."
    echo "10-row table, epsilon 1, delta 1e-9, dpobj.seed = 1; pgbench -T $BENCH_SECONDS per row; fsync = on,"
    echo "synchronous_commit = on. Runs/s = pgbench tps (one training per transaction);"
    echo "load = /proc/loadavg (1, 5, 15 min) just before the row was measured (the machine is"
    echo "shared: a load above the 2 CPUs means other work competed for them)."
    echo "Ledger after the run: $ledger."
    echo
    echo "| dpobj | case | clients | runs/s | mean latency ms | load before |"
    echo "|---|---|---:|---:|---:|---|"
    printf '%s\n' "${ROWS[@]}"
    echo
    echo "Runs at (epsilon, delta) = (0.1, 1e-7) that one (1, 1e-6) budget admits (train until"
    echo "DP004; noisy GD is composed in zCDP, OPDisc is approximate DP and adds up):"
    echo
    echo "| mechanism | runs admitted | dpobj.runs_left() before the first |"
    echo "|---|---:|---:|"
    printf '%s' "$ADMITTED"
} >"$table"
cat "$table"

if [[ -n "${BENCH_DOC:-}" ]]; then
    python3 - "$BENCH_DOC" "$table" "$SECTION" <<'PY'
import sys
doc, table, section = sys.argv[1:4]
text = open(doc).read()
new = open(table).read().rstrip("\n") + "\n"
start = text.find(section)
if start < 0:
    text = text.rstrip("\n") + "\n\n" + new
else:
    end = text.find("\n## ", start + len(section))
    text = text[:start] + new + (text[end:] if end >= 0 else "")
open(doc, "w").write(text)
PY
    dpobj_log "updated $BENCH_DOC"
fi
