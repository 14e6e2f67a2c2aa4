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
#                            prints "seconds vmhwm_kB loopback_bytes result": QUERY's time,
#                            the backend's peak resident memory, the bytes that crossed the
#                            loopback interface during QUERY, its last output line

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
    local setup="$1" query="$2" out
    out=$(printf '%s\n' "$setup" \
        "SELECT pg_backend_pid() AS pid \\gset" '\setenv BPID :pid' \
        '\! awk '"'"'/^ *lo:/ { sub(/^ *lo: */, ""); print "lo0", $1 }'"'"' /proc/net/dev' \
        '\timing on' "$query" '\timing off' \
        '\! awk '"'"'/^ *lo:/ { sub(/^ *lo: */, ""); print "lo1", $1 }'"'"' /proc/net/dev; awk '"'"'/^VmHWM/ { print "hwm", $2 }'"'"' /proc/$BPID/status' |
        psql -X -q -At -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$C" -U postgres -d postgres)
    awk '/^Time: / { s = $2 / 1000 } /^lo0 / { r0 = $2 } /^lo1 / { r1 = $2 } /^hwm / { h = $2 }
         !/^(Time:|lo[01] |hwm )/ && NF { res = $0 }
         END { gsub(/ /, "", res); printf "%.3f %d %d %s\n", s, h, r1 - r0, res }' <<<"$out"
}
