#!/usr/bin/env bash
# bench/deadline/run.sh — the release deadline's cost and precision: for the exponential
# mechanism over a 7 153-point grid on a table of 8 000 distinct rows ("big") and of one
# distinct row ("small"), N runs each with and without "deadline": D; prints min, median
# and max elapsed ms and the spread (max - min), and the backend's CPU time (utime + stime,
# /proc, clock ticks converted to ms) per run.  Needs PGHOST/PGPORT/PGUSER (a superuser),
# dpobj installed, and the server on this machine (/proc).  Env: DPOBJ_RUNS (20),
# DPOBJ_DEADLINE (3).  Writes bench/csv/deadline.csv (bench/record.py), rendered into
# docs/BENCHMARKS.md, "Release deadline".
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../../tests/concurrency/lib.sh"
N="${DPOBJ_RUNS:-20}"
D="${DPOBJ_DEADLINE:-3}"
DB=dpobj_bench_deadline
A=dpobj_bench_dl
HZ=$(getconf CLK_TCK)
t_role $A || exit 1
t_fresh_db "$DB" >/dev/null || exit 1
t_psql -d "$DB" \
    -c "$T_SPREAD_SQL" \
    -c "SELECT dpobj.protect(t) FROM unnest(ARRAY['big', 'small']::regclass[]) t" \
    -c "SELECT 1 FROM unnest(ARRAY['big', 'small']::regclass[]) t, dpobj.grant_budget(t, '$A', 100000, 0.5)" >/dev/null || exit 1

# one session: N runs, each timed by the client, CPU of the backend read around each run
series() {  # TABLE EXTRA-OPTIONS: prints "elapsed_ms cpu_ms" per run
    local q="SELECT (dpobj.train('$1', 'expmech', ARRAY['a','b','c'], 'y', 1, 0.000001, '{\"B\": 12, \"D2\": 144$2}')).weights"
    {
        echo "SET ROLE $A;"
        echo "SELECT pg_backend_pid() AS pid \\gset"
        echo "\\setenv BPID :pid"
        for ((i = 0; i < N; i++)); do
            echo "\\! echo T \$(date +%s%N) \$(awk '{print \$14 + \$15}' /proc/\$BPID/stat)"
            echo "$q;"
            echo "\\! echo E \$(date +%s%N) \$(awk '{print \$14 + \$15}' /proc/\$BPID/stat)"
        done
    } | psql -X -q -At -d "$DB" 2>&1 | awk -v hz="$HZ" '
        $1 == "T" { t = $2; c = $3 }
        $1 == "E" { printf "%d %d\n", ($2 - t) / 1e6, ($3 - c) * 1000 / hz }'
}
summary() {  # LABEL: stdin "elapsed cpu" lines
    sort -n | awk -v l="$1" '{ e[NR] = $1; c += $2 }
        END { printf "| %s | %d | %d | %d | %d | %d | %.0f |\n", l, NR, e[1], e[int((NR + 1) / 2)], e[NR], e[NR] - e[1], c / NR }'
}
table="$(mktemp)"
{
    echo "| run | n | min ms | median ms | max ms | spread ms | CPU ms per run |"
    echo "|---|---|---|---|---|---|---|"
    series big "" | summary "big, no deadline"
    series small "" | summary "small, no deadline"
    series big ", \"deadline\": $D" | summary "big, deadline $D s"
    series small ", \"deadline\": $D" | summary "small, deadline $D s"
} | tee "$table"
python3 "$(dirname "${BASH_SOURCE[0]}")/../record.py" deadline \
    "DPOBJ_RUNS=$N DPOBJ_DEADLINE=$D bash bench/deadline/run.sh" <"$table"
rm -f "$table"
