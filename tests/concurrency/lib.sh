# shellcheck shell=bash
# tests/concurrency/lib.sh — helpers for the budget scripts.
# Needs a running server reachable through PGHOST/PGPORT/PGUSER as a superuser,
# with dpobj installed (make install).  Each script uses its own database.

PG_BINDIR="${PG_BINDIR:-$(pg_config --bindir 2>/dev/null || echo /usr/lib/postgresql/15/bin)}"
export PATH="$PG_BINDIR:$PATH"

T_PASS=0
T_FAIL=0

t_psql() {
    psql -X -q -At -v ON_ERROR_STOP=1 "$@"
}

# t_ok DESCRIPTION CONDITION-EXIT-STATUS
t_check() {
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

t_summary() {
    printf '%s passed, %s failed\n' "$T_PASS" "$T_FAIL"
    [[ $T_FAIL -eq 0 ]]
}

# t_absorb WHAT OUTPUT: prints a sub-run's lines and adds its final "N passed, M failed" to
# this script's counts; a sub-run without that line (it died) counts as one failure
t_absorb() {
    local what="$1" out="$2" line f
    printf '%s\n' "$out" | grep -v -E '^[0-9]+ passed, [0-9]+ failed$'
    line=$(printf '%s\n' "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed$' | tail -n 1)
    if [[ -n $line ]]; then
        T_PASS=$((T_PASS + ${line%% passed*}))
        f=${line#*passed, }
        T_FAIL=$((T_FAIL + ${f%% failed}))
    else
        echo "not ok - $what did not finish"
        T_FAIL=$((T_FAIL + 1))
    fi
}

# t_wait_sleep DB: until one session of DB runs "SELECT pg_sleep(3)" (gives up after ~30 s)
t_wait_sleep() {
    local waited=0
    until [[ $(t_psql -d "$1" -c "SELECT count(*) FROM pg_stat_activity
                                   WHERE datname = '$1' AND query LIKE 'SELECT pg_sleep(3)%'") == 1 ]]; do
        sleep 0.05
        waited=$((waited + 1))
        [[ $waited -gt 600 ]] && break
    done
}

# t_fresh_db NAME: drop and create a database with dpobj in it
t_fresh_db() {
    t_psql -d postgres -c "DROP DATABASE IF EXISTS $1" -c "CREATE DATABASE $1" &&
        t_psql -d "$1" -c 'CREATE EXTENSION dpobj'
}

# t_role NAME: create a NOLOGIN role unless it exists
t_role() {
    t_psql -d postgres -c "DO \$\$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '$1')
                            THEN CREATE ROLE $1 NOLOGIN; END IF; END \$\$"
}

# The standard small training table: 60 rows, two numeric features.
T_TABLE_SQL="CREATE TABLE pts AS
  SELECT i, (i % 7) / 4.0 - 0.75 AS a, (i % 5) / 4.0 - 0.5 AS b, (i % 7) > 3 AS y
    FROM generate_series(1, 60) i;
  REVOKE ALL ON pts FROM PUBLIC;"

# A protected-path solve that needs minutes: a GLPK MIP over hundreds of distinct
# continuous rows (tests/03_cancel.sql); train it with features a, b, one and label y.
T_HARD_SQL="CREATE TABLE hard AS
  SELECT (abs(hashint4(g)) % 129 - 64) / 64.0 AS a,
         (abs(hashint4(g + 100000)) % 129 - 64) / 64.0 AS b,
         1.0 AS one, hashint4(g + 200000) % 2 = 0 AS y
    FROM generate_series(1, 600) g;
  REVOKE ALL ON hard FROM PUBLIC;"

# Two tables of 20 000 rows whose protected runs take very different times: "big" has about
# 8 000 distinct rows, "small" one.  The exponential mechanism over a 7 153-point grid
# (features a, b, c, label y, {"B": 12, "D2": 144}) enumerates grid x distinct rows.
T_SPREAD_SQL="CREATE TABLE big AS
  SELECT (abs(hashint4(g)) % 201 - 100) / 100.0 AS a,
         (abs(hashint4(g + 7)) % 201 - 100) / 100.0 AS b,
         (abs(hashint4(g + 9)) % 201 - 100) / 100.0 AS c, g % 2 = 0 AS y
    FROM generate_series(1, 20000) g;
  CREATE TABLE small AS SELECT 0.5 AS a, 0.5 AS b, 0.5 AS c, true AS y FROM generate_series(1, 20000) g;
  REVOKE ALL ON big, small FROM PUBLIC;"

# t_race DB N M K RUN WORK: N sessions of dpobj_race_analyst each try RUN (one SQL
# statement printing 'trained ...' on success) M times at once; checks exactly K
# successes, every other attempt refused with DP004 and no other error (a NOTICE, such
# as the one a run changing the budget's composition raises, is not one).
t_race() {
    local db="$1" n="$2" m="$3" k="$4" run="$5" work="$6" s j p start successes refusals others
    local pids=()
    {
        printf 'SET ROLE dpobj_race_analyst;\n\\set VERBOSITY sqlstate\n'
        for ((j = 0; j < m; j++)); do printf '%s\n' "$run"; done
    } >"$work/session.sql"
    start=$(date +%s)
    for ((s = 0; s < n; s++)); do
        psql -X -q -At -v ON_ERROR_STOP=0 -d "$db" -f "$work/session.sql" \
            >"$work/out.$s" 2>"$work/err.$s" &
        pids+=($!)
    done
    for p in "${pids[@]}"; do
        wait "$p"
    done
    echo "# $n sessions x $m attempts in $(($(date +%s) - start))s"
    successes=$(cat "$work"/out.* | grep -c '^trained ' || true)
    refusals=$(cat "$work"/err.* | grep -c '^psql:.*ERROR:  DP004$' || true)
    others=$(cat "$work"/err.* | grep -v -e '^psql:.*ERROR:  DP004$' -e '^psql:.*NOTICE:  00000$' |
        grep -c . || true)
    t_is "exactly $k of $((n * m)) attempts trained a model" "$successes" "$k"
    t_is "all other attempts were refused with DP004" "$refusals" "$((n * m - k))"
    t_is "no other error (deadlock, ledger failure, ...)" "$others" "0"
    if [[ "$others" != 0 ]]; then
        cat "$work"/err.* | grep -v '^psql:.*ERROR:  DP004$' | sort | uniq -c | head -n 10 | sed 's/^/# /'
    fi
}
