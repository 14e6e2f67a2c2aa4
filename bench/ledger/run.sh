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
# Then counts the runs at (0.1, 1e-7) a (1, 1e-6) budget admits per mechanism mix (train
# until DP004).  Prints markdown tables and writes them to bench/csv/ledger_rate.csv (when
# BENCH_CASES ran) and bench/csv/runs_admitted.csv (bench/record.py), which re-render
# docs/BENCHMARKS.md.
#
# Environment: BENCH_SECONDS [15] per case, BENCH_CLIENTS ["1 32"],
#   BENCH_CASES ["halfspace logistic train_opdisc train_logistic"; "" for none], BENCH_FALLBACK [1],
#   BENCH_LABEL [a label for the table, default the commit],
#   BENCH_ROWS [10] rows of the table (named t10 whatever its size; at most 105 distinct),
#   DPOBJ_PGPORT [56402].
set -euo pipefail

# shellcheck source=scripts/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/common.sh"

BENCH_SECONDS="${BENCH_SECONDS:-15}"
BENCH_CLIENTS="${BENCH_CLIENTS:-1 32}"
BENCH_CASES="${BENCH_CASES-halfspace logistic train_opdisc train_logistic}"
BENCH_FALLBACK="${BENCH_FALLBACK:-1}"
BENCH_ROWS="${BENCH_ROWS:-10}"
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

# How many runs a (1, 1e-6) budget admits at (0.1, 1e-7), per mechanism mix: each mix on a
# table and budget of its own, "M*N" runs M N times (N = 0: until DP004); the count of
# admitted runs, and dpobj.runs_left() for the mix's first mechanism before the first run.
admitted() { # NAME SPEC...   (SPEC = MECH*N)
    local name="$1" spec sql="" first=""
    shift
    for spec in "$@"; do
        local m="${spec%%\**}" n="${spec#*\*}" o='{}'
        [[ "$m" == opdisc ]] || o='{"R": 2, "T": 10}'
        [[ "$m" == linear ]] && o='{"R": 2, "y_min": 0, "y_max": 1}'
        [[ "$m" == passglm ]] && o='{"R": 2}'
        [[ -n "$first" ]] || first="SELECT dpobj.runs_left('t10_$name', '$m', 0.1, 1e-7, '$o') AS said \\gset"
        sql+="
    k := 0;
    LOOP
        EXIT WHEN $n > 0 AND k >= $n;
        BEGIN
            PERFORM dpobj.train('t10_$name', '$m', ARRAY['a', 'b'], 'y', 0.1, 1e-7, '$o');
            total := total + 1; k := k + 1;
        EXCEPTION
            WHEN SQLSTATE 'DP004' THEN EXIT;
            WHEN SQLSTATE 'DP006' THEN total := total + 1; k := k + 1;  -- charged: admitted
        END;
    END LOOP;"
    done
    dpobj_psql -d "$DB" -At <<SQL
CREATE TABLE t10_$name AS SELECT * FROM t10;
SELECT dpobj.protect('t10_$name') \\gset
SELECT dpobj.grant_budget('t10_$name', current_user::regrole, 1, 1e-6) \\gset
$first
DO \$\$
DECLARE total int := 0; k int;
BEGIN$sql
    RAISE NOTICE 'admitted %', total;
END \$\$;
SELECT :said;
SQL
}
ADMITTED="" i=0
for mix in "noisysgd only:noisysgd*0" "linear only:linear*0" "passglm only:passglm*0" \
           "opdisc only:opdisc*0" "50 noisysgd, 1 opdisc, then noisysgd:noisysgd*50 opdisc*1 noisysgd*0"; do
    label="${mix%%:*}" i=$((i + 1))
    # shellcheck disable=SC2086
    said="$(admitted "mix$i" ${mix#*:} 2>"$OUT/admitted.err")"
    n="$(sed -n 's/.*NOTICE:  admitted \([0-9]*\)/\1/p' "$OUT/admitted.err")"
    dpobj_log "(1, 1e-6) budget, $label at (0.1, 1e-7): $n runs admitted (runs_left said $said)"
    ADMITTED+="| $label | $n | $said |"$'\n'
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
    echo "Ledger after the run: $ledger."
    echo
    echo "| dpobj | case | clients | runs/s | mean latency ms | load before |"
    echo "|---|---|---:|---:|---:|---|"
    printf '%s\n' "${ROWS[@]}"
} >"$table"
admitted_md="$OUT/admitted.md"
{
    echo "| mix | runs admitted | runs_left() before the first |"
    echo "|---|---:|---:|"
    printf '%s' "$ADMITTED"
} >"$admitted_md"
cat "$table" "$admitted_md"
cmd="BENCH_CASES=\"$BENCH_CASES\" BENCH_CLIENTS=\"$BENCH_CLIENTS\" BENCH_SECONDS=$BENCH_SECONDS BENCH_FALLBACK=$BENCH_FALLBACK bash bench/ledger/run.sh"
if [[ ${#ROWS[@]} -gt 0 ]]; then
    python3 "$REPO/bench/record.py" ledger_rate "$cmd" <"$table"
fi
python3 "$REPO/bench/record.py" runs_admitted "$cmd" <"$admitted_md"
