# bench/measure.sh — sourced by bench scripts: bench_measure DB OUTDIR PRELUDE SQL runs
# PRELUDE (settings) then SQL on a fresh connection to DB and prints "ms kB status": SQL's
# wall time, the backend's peak RSS (VmHWM of /proc/<pid>/status) and ok or the error's
# first 60 characters.  OUTDIR holds the connection's output.  bench_watched DB OUTDIR SQL
# runs SQL while it samples the backend's and its parallel workers' peak memory.
# bench_fresh_db DB drops DB if it exists and creates it with dpobj.
bench_fresh_db() { # DB
    psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $1" -c "CREATE DATABASE $1"
    psql -X -q -d "$1" -c "CREATE EXTENSION dpobj"
}

bench_measure() { # DB OUTDIR PRELUDE SQL
    local db=$1 out=$2
    psql -X -q -At -d "$db" >"$out/run" 2>"$out/err" <<SQL || true
SELECT pg_backend_pid() AS pid \gset
$3
\timing on
$4
\timing off
\setenv BPID :pid
\! grep VmHWM /proc/\$BPID/status
SQL
    local ms kb st
    ms="$(sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' "$out/run" | tail -n 1)"
    kb="$(awk '/VmHWM/ { print $2 }' "$out/run")"
    st="$(sed -n 's/^.*ERROR:  //p' "$out/err" | head -n 1 | cut -c1-60)"
    printf '%s %s %s\n' "${ms:-0}" "${kb:-0}" "${st:-ok}"
}

# every 0.1 s while backend LEADER lives and OUT.stop does not exist, writes "leader_kB
# worker_kB" into OUT: the peak VmHWM of LEADER and of its largest parallel worker
bench_watch_mem() { # LEADER OUT
    local leader=$1 out=$2 lw=0 ww=0 v p
    echo "0 0" >"$out"
    while kill -0 "$leader" 2>/dev/null && [[ ! -e "$out.stop" ]]; do
        v=$(awk '/VmHWM/ {print $2}' "/proc/$leader/status" 2>/dev/null || echo 0)
        ((${v:-0} > lw)) && lw=$v
        for p in $(pgrep -f "parallel worker for PID $leader" || true); do
            v=$(awk '/VmHWM/ {print $2}' "/proc/$p/status" 2>/dev/null || echo 0)
            ((${v:-0} > ww)) && ww=$v
        done
        echo "$lw $ww" >"$out"
        sleep 0.1
    done
}

# runs SQL (settings, \timing on, statements) on a fresh connection to DB while
# bench_watch_mem samples its backend; prints "leader_kB worker_kB", then psql's output
bench_watched() { # DB OUTDIR SQL
    local mem="$2/hwm.$$" pid wpid out
    rm -f "$mem" "$mem.stop"
    coproc BENCH_PSQL { psql -X -q -At -d "$1" -v ON_ERROR_STOP=1 2>&1; }
    echo "SELECT pg_backend_pid();" >&"${BENCH_PSQL[1]}"
    read -r pid <&"${BENCH_PSQL[0]}"
    bench_watch_mem "$pid" "$mem" &
    wpid=$!
    printf '%s\n' "$3" >&"${BENCH_PSQL[1]}"
    exec {BENCH_PSQL[1]}>&-
    out=$(cat <&"${BENCH_PSQL[0]}")
    wait "$BENCH_PSQL_PID" 2>/dev/null || true
    touch "$mem.stop"
    wait "$wpid" 2>/dev/null || true
    cat "$mem"
    printf '%s\n' "$out"
}
