# shellcheck shell=bash
# tests/jobs/lib.sh — helpers for the job scripts.  Needs a server reachable
# through PGHOST/PGPORT/PGUSER as a superuser, with dpobj installed and preloaded
# (shared_preload_libraries = 'dpobj').  Each script uses its own database.

PG_BINDIR="${PG_BINDIR:-/usr/lib/postgresql/${PG_MAJOR:-15}/bin}"
export PATH="$PG_BINDIR:$PATH"

T_PASS=0
T_FAIL=0

t_psql() {
    psql -X -q -At -v ON_ERROR_STOP=1 "$@"
}

# t_is DESCRIPTION GOT EXPECTED
t_is() {
    if [[ "$2" == "$3" ]]; then
        T_PASS=$((T_PASS + 1))
        printf 'ok - %s\n' "$1"
    else
        T_FAIL=$((T_FAIL + 1))
        printf 'not ok - %s (got "%s", expected "%s")\n' "$1" "$2" "$3"
    fi
}

# t_ok DESCRIPTION COMMAND...: passes when the command succeeds
t_ok() {
    local desc="$1"
    shift
    if "$@"; then
        T_PASS=$((T_PASS + 1))
        printf 'ok - %s\n' "$desc"
    else
        T_FAIL=$((T_FAIL + 1))
        printf 'not ok - %s\n' "$desc"
    fi
}

t_summary() {
    printf '%s passed, %s failed\n' "$T_PASS" "$T_FAIL"
    [[ $T_FAIL -eq 0 ]]
}

t_fresh_db() {
    PGOPTIONS="-c client_min_messages=warning" t_psql -d postgres -c "DROP DATABASE IF EXISTS $1" -c "CREATE DATABASE $1" &&
        t_psql -d "$1" -c 'CREATE EXTENSION dpobj'
}

t_role() {
    t_psql -d postgres -c "DO \$\$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '$1')
                            THEN CREATE ROLE $1 NOLOGIN; END IF; END \$\$"
}

# t_wait_state DB JOB STATES SECONDS: waits until the job's state is one of STATES
# (a regex, e.g. 'succeeded|failed'); prints the last state seen
t_wait_state() {
    local db="$1" job="$2" re="$3" secs="$4" st="" i
    for ((i = 0; i < secs * 10; i++)); do
        st=$(t_psql -d "$db" -c "SELECT state FROM dpobj.job_queue WHERE id = $job" 2>/dev/null)
        [[ "$st" =~ ^($re)$ ]] && break
        sleep 0.1
    done
    printf '%s' "$st"
}

# A GLPK MIP that needs minutes (tests/03_cancel.sql) and a small easy table, both
# protected, with budgets for $2.  (The hard job runs until cancelled:
# dpobj.protected_time_limit is 0 = none by default, and the analyst cannot set one.)
t_tables() {
    t_psql -d "$1" -c "CREATE TABLE hard AS
          SELECT (abs(hashint4(g)) % 129 - 64) / 64.0 AS a,
                 (abs(hashint4(g + 100000)) % 129 - 64) / 64.0 AS b,
                 1.0 AS one, hashint4(g + 200000) % 2 = 0 AS y
            FROM generate_series(1, 600) g;
        CREATE TABLE pts AS
          SELECT i, (i % 7) / 4.0 - 0.75 AS a, (i % 5) / 4.0 - 0.5 AS b, (i % 7) > 3 AS y
            FROM generate_series(1, 60) i;
        REVOKE ALL ON hard, pts FROM PUBLIC" \
        -c "SELECT dpobj.protect('hard'), dpobj.protect('pts')" \
        -c "SELECT 1 FROM dpobj.grant_budget('hard', '$2', 20, 0.01)" \
        -c "SELECT 1 FROM dpobj.grant_budget('pts', '$2', 20, 0.01)" >/dev/null
}

HARD_SUBMIT="SELECT dpobj.submit('hard', 'opdisc', ARRAY['a', 'b', 'one'], 'y', 3.5, 0.00001,
                                 '{\"oracle\": \"mip\"}')"
EASY_SUBMIT="SELECT dpobj.submit('pts', 'opdisc', ARRAY['a', 'b'], 'y', 0.25, 0.000001)"
