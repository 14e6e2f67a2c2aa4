#!/usr/bin/env bash
# tests/jobs/progress.sh — a solve run directly in a session reports progress as
# NOTICE lines when dpobj.progress = on: the phase and the elapsed time only, at most one
# periodic line every couple of seconds; nothing when it is off.  A cancel still stops
# the solve promptly while progress is being reported.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
DB=dpobj_jobs_progress
t_fresh_db "$DB" || exit 1
t_psql -d "$DB" -c "CREATE TABLE hard AS
      SELECT (abs(hashint4(g)) % 129 - 64) / 64.0 AS a,
             (abs(hashint4(g + 100000)) % 129 - 64) / 64.0 AS b,
             1.0 AS one, hashint4(g + 200000) % 2 = 0 AS y
        FROM generate_series(1, 600) g" >/dev/null || exit 1
Q="SELECT (dpobj.dp_halfspace(ARRAY[a, b, one]::float8[], y, 3.5, 1e-5,
                              '{\"oracle\": \"mip\", \"time_limit\": 5}')).weights FROM hard"

# on: a 5-second solve (time limit, DP001 at the end)
out=$(psql -X -d "$DB" -c "SET dpobj.progress = on" -c "$Q" 2>&1)
notices=$(printf '%s\n' "$out" | grep -c '^NOTICE:  dpobj progress: ')
t_ok "progress on: NOTICE lines were sent ($notices)" test "$notices" -ge 4
t_ok "every line is 'phase, N s elapsed' and nothing else" \
    bash -c "! printf '%s\n' \"\$1\" | grep '^NOTICE:' | grep -vqE '^NOTICE:  dpobj progress: (scanning|solving|releasing), [0-9]+ s elapsed$'" _ "$out"
t_ok "the phases come in order: scanning, solving, releasing" \
    bash -c "printf '%s\n' \"\$1\" | grep -oE 'progress: [a-z]+' | uniq | tr '\n' ' ' | grep -qx 'progress: scanning progress: solving progress: releasing '" _ "$out"
solving=$(printf '%s\n' "$out" | grep -c 'progress: solving')
t_ok "periodic lines during a 5 s solve: at most one per 2 s ($solving solving lines)" \
    test "$solving" -ge 2 -a "$solving" -le 4
t_ok "no solver detail (objective, bound, nodes) in the output" \
    bash -c "! printf '%s\n' \"\$1\" | grep -qiE 'objective|bound|node|gap'" _ "$out"
t_ok "the run itself ended as before (DP001: not certified within 5 s)" \
    bash -c "printf '%s\n' \"\$1\" | grep -q 'did not certify optimality'" _ "$out"

# GROUP BY with 50 groups: the phases repeat per group, but the lines stay rate-limited
# (3 at once, then at most one per 2 s)
t0=$(date +%s)
out=$(psql -X -d "$DB" -c "SET dpobj.progress = on" \
    -c "SELECT count((m).weights) FROM (SELECT k, dpobj.dp_halfspace(ARRAY[a, b]::float8[], y, 1, 1e-5) AS m
                                          FROM (SELECT (row_number() OVER ()) % 50 AS k, a, b, y FROM hard) s
                                         GROUP BY k) t" 2>&1)
secs=$(( $(date +%s) - t0 ))
n=$(printf '%s\n' "$out" | grep -c '^NOTICE:')
t_ok "GROUP BY 50 groups in ${secs} s: $n NOTICE lines, at most 3 + one per 2 s" \
    test "$n" -le $((3 + secs / 2 + 1))
t_ok "... all 50 models were trained, and the phases were announced" test "$n" -ge 3
t_ok "... (50 models)" bash -c "printf '%s\n' \"\$1\" | grep -qx '    50'" _ "$out"

# off (the default): no NOTICE
out=$(psql -X -d "$DB" -c "$(printf '%s' "$Q" | sed 's/"time_limit": 5/"time_limit": 2/')" 2>&1)
t_is "progress off: no NOTICE lines" "$(printf '%s\n' "$out" | grep -c '^NOTICE:')" "0"

# cancel while progress is on: still stops within a few seconds
psql -X -d "$DB" -c "SET dpobj.progress = on" -c "SET statement_timeout = '1500ms'" \
    -c "$(printf '%s' "$Q" | sed 's/"time_limit": 5/"time_limit": 0/')" >"/tmp/dpobj_progress_$$.out" 2>&1 &
pid=$!
start=$(date +%s.%N)
wait "$pid"
end=$(date +%s.%N)
t_ok "statement_timeout 1.5 s with progress on: stopped within 4 s" \
    awk -v a="$start" -v b="$end" 'BEGIN { exit !((b - a) < 4.0) }'
t_ok "... with the statement-timeout error" grep -q 'statement timeout' "/tmp/dpobj_progress_$$.out"
rm -f "/tmp/dpobj_progress_$$.out"

t_psql -d postgres -c "DROP DATABASE $DB" >/dev/null
t_summary
