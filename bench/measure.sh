# bench/measure.sh — sourced by bench scripts: bench_measure DB OUTDIR PRELUDE SQL runs
# PRELUDE (settings) then SQL on a fresh connection to DB and prints "ms kB status": SQL's
# wall time, the backend's peak RSS (VmHWM of /proc/<pid>/status) and ok or the error's
# first 60 characters.  OUTDIR holds the connection's output.
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
