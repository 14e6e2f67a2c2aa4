# shellcheck shell=bash
# bench/citus/lib.sh — what bench/citus/run.sh and bench/citus/train.sh share.  Sourced after
# scripts/common.sh, tests/citus/build.sh and tests/citus/cluster.sh.
#
#   bench_citus_start        packages, dpobj and Citus built and installed, a coordinator and
#                            two workers started (BENCH_CITUS_PGPORT, default 57736, and the
#                            next two ports) with jit off and no parallel workers inside a
#                            query; sets C (the coordinator's port)
#   bench_citus_rows N       the FROM item of the Adult-like generator: N rows of
#                            (i, male boolean, gain, hours), random() after setseed
#   bench_citus_run_one SETUP QUERY
#                            SETUP and QUERY in one fresh connection to the coordinator;
#                            prints "seconds vmhwm_kB loopback_bytes result coord_cpu_s
#                            workers_cpu_s": QUERY's time, the backend's peak resident
#                            memory, the bytes that crossed the loopback interface during
#                            QUERY, its last output line, the CPU seconds the coordinator
#                            backend and the two worker nodes (every process of theirs,
#                            exited ones included) spent during QUERY

bench_citus_start() {
    dpobj_ensure_packages
    dpobj_build_install
    dpobj_citus_install
    # Every node: no parallel workers inside a query (the workers' shard tasks are the
    # parallelism; a shard query that launches its own parallel workers was 7x slower here:
    # 66 ms vs 9 ms for a 312k-row shard).  bench/citus/run.sh's local_parallel sets its own.
    citus_cluster_start "${BENCH_CITUS_PGPORT:-57736}" "jit = off
max_parallel_workers_per_gather = 0" ||
        dpobj_die "the Citus cluster did not start"
    C=${CITUS_PORTS[0]}
    # the worker nodes' CPU ticks: postmaster, its reaped children, its live ones
    cat >"$CITUS_DIR/workerticks.sh" <<SH
t=0
for n in n1 n2; do
    pm=\$(head -n 1 "$CITUS_DIR/\$n/postmaster.pid")
    v=\$(awk '{ print \$14 + \$15 + \$16 + \$17 }' /proc/\$pm/stat)
    t=\$((t + \${v:-0}))
    for c in \$(cat /proc/\$pm/task/*/children 2>/dev/null); do
        v=\$(awk '{ print \$14 + \$15 }' /proc/\$c/stat 2>/dev/null)
        t=\$((t + \${v:-0}))
    done
done
echo "\$1 \$t"
SH
}

bench_citus_rows() {
    cat <<SQL
(SELECT i, random() < 0.67 AS male,
        CASE WHEN random() < 0.92 THEN 0 ELSE floor(random() * 99999) END AS gain,
        CASE WHEN random() < 0.5 THEN 40 ELSE 1 + floor(random() * 98) END AS hours
   FROM generate_series(1, $1) i) s
SQL
}

bench_citus_run_one() {
    local setup="$1" query="$2" out ticks="bash $CITUS_DIR/workerticks.sh"
    local own='awk '"'"'{ print "'
    out=$(printf '%s\n' "$setup" \
        "SELECT pg_backend_pid() AS pid \\gset" '\setenv BPID :pid' \
        '\! awk '"'"'/^ *lo:/ { sub(/^ *lo: */, ""); print "lo0", $1 }'"'"' /proc/net/dev' \
        "\\! $own"'c0", $14 + $15 }'"'"' /proc/$BPID/stat; '"$ticks w0" \
        '\timing on' "$query" '\timing off' \
        "\\! $own"'c1", $14 + $15 }'"'"' /proc/$BPID/stat; '"$ticks w1" \
        '\! awk '"'"'/^ *lo:/ { sub(/^ *lo: */, ""); print "lo1", $1 }'"'"' /proc/net/dev; awk '"'"'/^VmHWM/ { print "hwm", $2 }'"'"' /proc/$BPID/status' |
        psql -X -q -At -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$C" -U postgres -d postgres)
    awk -v hz="$(getconf CLK_TCK)" '/^Time: / { s = $2 / 1000 } /^lo0 / { r0 = $2 } /^lo1 / { r1 = $2 }
         /^hwm / { h = $2 } /^c0 / { c0 = $2 } /^c1 / { c1 = $2 } /^w0 / { w0 = $2 } /^w1 / { w1 = $2 }
         !/^(Time:|lo[01] |hwm |[cw][01] )/ && NF { res = $0 }
         END { gsub(/ /, "", res); printf "%.3f %d %d %s %.2f %.2f\n", s, h, r1 - r0, res,
                                           (c1 - c0) / hz, (w1 - w0) / hz }' <<<"$out"
}
