#!/usr/bin/env bash
# tests/upgrade/run.sh — ALTER EXTENSION dpobj UPDATE from every released version older
# than the control file's (0.1.0 to 0.6.0, to 0.7.0).
#
# The real upgrade path of a user, once per release: the release (built from its commit)
# is installed and used — protected tables, budgets, trainings through dpobj.train() and
# directly, a background job, models stored in a user table (and, from 0.2.0 on, in the
# model catalog) — then the current binaries and scripts are installed and the server
# restarts.  Before ALTER EXTENSION dpobj UPDATE the new library must refuse every charged
# entry point over the old SQL objects, charging nothing.  Then the update runs.  Checks:
#   (a) the data survives exactly (ledger, budgets, protections, stored models and their
#       predictions, the job queue) and the enforcement still holds (budget refusal, no
#       SELECT for the analyst, row-level security, the append-only ledger);
#   (b) the resulting catalog — every object of the extension with its full definition
#       (tests/upgrade/catalog.sql) — is identical to a fresh CREATE EXTENSION, and to
#       CREATE EXTENSION ... VERSION '<release>' followed by the update in an empty database.
#
# Each release is built from its source as released, tests/upgrade/releases/dpobj-<v>.tar.gz
# (the release commit's Makefile, dpobj.control, sql/, src/ and the docs/REFERENCE.md its
# help text is made from), so a shallow clone or a tarball runs it too; where the clone has
# the release commit, the fixture is first checked against it.  It needs a PostgreSQL
# installation laid out as Debian's (PG_BINDIR, exported by scripts/common.sh), which it
# copies into a private directory, so that the 0.1.0 binaries never replace the ones
# under test elsewhere.  It starts its own cluster on a private socket.
#
# Environment: PG_BINDIR (exported by scripts/common.sh), DPOBJ_UPGRADE_PGPORT
# (default 55436; names the socket only), DPOBJ_TMPDIR, DPOBJ_UPGRADE_FROM (the releases
# to start from, default every release older than dpobj.control's default_version).  Last line: "N passed, M failed".
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../concurrency/lib.sh"

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
declare -A RELEASE=(
    [0.1.0]=68b2a04a7c975b4a52ae9e9fb09ca4454f5c68eb     # "dpobj 0.1.0", released
    [0.2.0]=2916a8f                                      # "dpobj 0.2.0", released
    [0.3.0]=baa6d63                                      # "Release 0.3.0"
    [0.4.0]=34d9929                                      # "Release 0.4.0"
    [0.5.0]=8e21d7a                                      # 0.5.0 as landed ("Release 0.5.0" 29c41ce + C fixes)
    [0.6.0]=80954a2                                      # "Release 0.6.0"
)
PORT="${DPOBJ_UPGRADE_PGPORT:-55436}"
as_pg() { if [[ "$(id -u)" -eq 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi; }
bail() { echo "not ok - $*"; t_summary; exit 1; }

ROOT="$(mktemp -d "${DPOBJ_TMPDIR:-/tmp}/dpobj-upgrade.XXXXXX")"
chmod 755 "$ROOT"
WORK="$ROOT"
INST_BIN=
cleanup() {
    [[ -n "$INST_BIN" && -f "$WORK/data/postmaster.pid" ]] &&
        as_pg "$INST_BIN/pg_ctl" -D "$WORK/data" -m immediate -w stop >/dev/null 2>&1
    rm -rf -- "$ROOT"
}
trap cleanup EXIT

# --- a private copy of the PostgreSQL installation, per release --------------------------
# Debian layout: <prefix>/lib/postgresql/N/{bin,lib}, <prefix>/share/postgresql/N and
# <prefix>/include/postgresql; PostgreSQL finds its share and lib directories relative to
# its binaries, so the copy is self-contained.
libroot="$(cd "$PG_BINDIR/.." && pwd)"                 # <prefix>/lib/postgresql/N
MAJOR="$(basename "$libroot")"
prefix="$(cd "$libroot/../../.." && pwd)"
sharedir="$("$PG_BINDIR/pg_config" --sharedir)"
[[ "$sharedir" == "$prefix/share/postgresql/$MAJOR" ]] ||
    bail "installation under $PG_BINDIR is not laid out as Debian's (sharedir $sharedir)"

# new_installation DIR: a copy without dpobj; sets INST, INST_BIN, INST_CONFIG
new_installation() {
    INST="$1"
    mkdir -p "$INST/lib/postgresql" "$INST/share/postgresql" "$INST/include"
    cp -a "$libroot" "$INST/lib/postgresql/$MAJOR" && cp -a "$sharedir" "$INST/share/postgresql/$MAJOR" ||
        bail "could not copy the PostgreSQL installation"
    ln -s "$prefix/include/postgresql" "$INST/include/postgresql"
    rm -f "$INST"/lib/postgresql/$MAJOR/lib/dpobj.so "$INST"/share/postgresql/$MAJOR/extension/dpobj[.-]*
    INST_BIN="$INST/lib/postgresql/$MAJOR/bin"
    INST_CONFIG="$INST_BIN/pg_config"
    [[ "$("$INST_CONFIG" --pkglibdir)" == "$INST/lib/postgresql/$MAJOR/lib" ]] ||
        bail "the copied installation does not relocate ($("$INST_CONFIG" --pkglibdir))"
}

# release_port SRC: what a released source (never changed) needs to build on a newer
# server, as a distribution patches an old release, behaviour unchanged: C11 in place of
# its -std=gnu99, and the server names it uses mapped onto their successors (as in
# src/base/pg_compat.h): 16 object_ownercheck, 17 MyProcNumber (0-based), 18 pg_noreturn
# and ExecutorRun's hook without execute_once.  Sets the array RELEASE_MAKE (make's extra
# arguments).  On every version a release is built without optimisation and without JIT
# bitcode: it serves a few small runs before the update, and builds in a third of the time.
release_port() {
    local src="$1" cflags cppflags defs=()
    RELEASE_MAKE=(with_llvm=no COPT=-O0)
    [[ "$MAJOR" -ge 16 ]] || return 0
    cflags="$(sed -n 's/^PG_CFLAGS *= *//p' "$src/Makefile" | sed 's/-std=gnu99/-std=gnu11/')"
    cppflags="$(sed -n 's/^PG_CPPFLAGS *= *//p' "$src/Makefile")"
    defs+=("-Dpg_class_ownercheck(relid,role)=object_ownercheck(1259/*pg_class*/,relid,role)")
    [[ "$MAJOR" -ge 17 ]] && defs+=("-DMyBackendId=(MyProcNumber+1)")
    if [[ "$MAJOR" -ge 18 ]]; then
        defs+=("-Dpg_attribute_noreturn()=__attribute__((noreturn))")
        # src/ledgerrun.c in 0.2.0, src/ledger/ledgerrun.c from 0.3.0 on
        find "$src/src" -name ledgerrun.c -exec perl -0pi -e 's/(ledger_ExecutorRun\(QueryDesc \*queryDesc, ScanDirection direction, uint64 count),\s*bool execute_once\)/$1)/;
                          s/((?:prev|standard)_ExecutorRun\(queryDesc, direction, count), execute_once\)/$1)/g' \
                {} +
    fi
    # the release's own PG_CFLAGS and PG_CPPFLAGS, changed as above (make hands them to
    # the shell: each definition in single quotes)
    RELEASE_MAKE+=("PG_CFLAGS=$cflags" "PG_CPPFLAGS=$cppflags $(printf "'%s' " "${defs[@]}")")
}

# install_release VERSION: build the release from its fixture into the copy
install_release() {
    local ver="$1" commit="${RELEASE[$1]}" fixture="$REPO/tests/upgrade/releases/dpobj-$1.tar.gz"
    local src="$WORK/src-$ver/dpobj-$ver" files
    mkdir -p "$WORK/src-$ver" "$WORK/git-$ver"
    tar -xzf "$fixture" -C "$WORK/src-$ver" || bail "the $ver fixture $fixture does not unpack"
    if git -C "$REPO" cat-file -e "$commit^{commit}" 2>/dev/null; then
        files=$(cd "$src" && find . -type f | sort | tr '\n' ' ')
        # shellcheck disable=SC2086
        git -C "$REPO" archive "$commit" $files | tar -x -C "$WORK/git-$ver" &&
            diff -r "$src" "$WORK/git-$ver" >/dev/null
        t_is "the $ver fixture is the release commit's source" "$?" "0"
    fi
    release_port "$src"
    make -s -j"$(nproc)" -C "$src" PG_CONFIG="$INST_CONFIG" "${RELEASE_MAKE[@]}" >"$WORK/build-$ver.log" 2>&1 &&
        make -s -C "$src" PG_CONFIG="$INST_CONFIG" "${RELEASE_MAKE[@]}" install >>"$WORK/build-$ver.log" 2>&1 ||
        { tail -20 "$WORK/build-$ver.log"; bail "building and installing $ver failed"; }
    t_is "$ver installed: its control file says $ver" \
        "$(sed -n "s/^default_version = '\(.*\)'/\1/p" "$INST/share/postgresql/$MAJOR/extension/dpobj.control")" "$ver"
}

# start_cluster: a new cluster of the copy in $WORK/data
start_cluster() {
    rm -rf "$WORK/data"
    as_pg "$INST_BIN/initdb" -D "$WORK/data" -U postgres -A trust -E UTF8 --locale=C --no-sync \
        >"$WORK/initdb.log" 2>&1 || { cat "$WORK/initdb.log"; bail "initdb failed"; }
    as_pg tee -a "$WORK/data/postgresql.conf" >/dev/null <<CONF
listen_addresses = ''
unix_socket_directories = '$WORK'
port = $PORT
fsync = off
max_worker_processes = 16
shared_preload_libraries = 'dpobj'
log_min_messages = warning
CONF
    printf 'local all all trust\n' | as_pg tee "$WORK/data/pg_hba.conf" >/dev/null
    as_pg "$INST_BIN/pg_ctl" -D "$WORK/data" -l "$WORK/server.log" -w -t 60 start >/dev/null ||
        { tail -20 "$WORK/server.log"; bail "the cluster did not start"; }
    export PGHOST="$WORK" PGPORT="$PORT" PGUSER=postgres
    unset PGDATABASE
}

stop_cluster() {
    as_pg "$INST_BIN/pg_ctl" -D "$WORK/data" -m fast -w stop >/dev/null 2>&1
}

# use_release VERSION: use it the way a release was used
use_release() {
    local ver="$1" job state
    t_psql -d postgres -c "CREATE DATABASE up" -c "CREATE DATABASE fresh" -c "CREATE DATABASE empty" \
        -c "CREATE ROLE up_owner NOLOGIN" -c "CREATE ROLE up_analyst LOGIN" \
        -c "CREATE ROLE up_other LOGIN" -c "CREATE ROLE up_staff NOLOGIN" \
        -c "GRANT up_staff TO up_owner, up_other" >/dev/null || bail "could not create databases and roles"
    t_psql -d up -c "CREATE EXTENSION dpobj" >/dev/null || bail "CREATE EXTENSION dpobj ($ver) failed"
    t_is "the database runs $ver" "$(t_psql -d up -c "SELECT extversion FROM pg_extension WHERE extname = 'dpobj'")" "$ver"
    t_psql -d up >/dev/null <<'SQL' || bail "using $ver failed"
CREATE TABLE pts AS
  SELECT i, (i % 7) / 4.0 - 0.75 AS a, (i % 5) / 4.0 - 0.5 AS b, (i % 7) > 3 AS y
    FROM generate_series(1, 60) i;
ALTER TABLE pts OWNER TO up_owner;
REVOKE ALL ON pts FROM PUBLIC;
CREATE TABLE pts2 AS SELECT * FROM pts;
ALTER TABLE pts2 OWNER TO up_owner;
REVOKE ALL ON pts2 FROM PUBLIC;
SET ROLE up_owner;
SELECT dpobj.protect('pts'), dpobj.protect('pts2');
SELECT dpobj.grant_budget('pts', 'up_analyst', 0.5, 0.0001);
SELECT dpobj.grant_budget('pts2', 'up_other', 1, 0.0001);
RESET ROLE;
CREATE TABLE models (name text PRIMARY KEY, m dpobj.model);
GRANT INSERT ON models TO up_analyst, up_other;
SET ROLE up_analyst;
INSERT INTO models
  SELECT 'opdisc', t FROM dpobj.train('pts', 'opdisc', ARRAY['a', 'b'], 'y', 0.1, 0.00001) t;
INSERT INTO models
  SELECT 'logistic', t FROM dpobj.train('pts', 'logistic', ARRAY['a', 'b'], 'y', 0.2, 0.00001, '{"R": 1}') t;
RESET ROLE;
SET ROLE up_other;
INSERT INTO models SELECT 'rspm', t FROM dpobj.train('pts2', 'rspm', ARRAY['a', 'b'], 'y', 0.3, 0.00001) t;
RESET ROLE;
INSERT INTO models
  SELECT 'direct', dpobj.dp_halfspace(ARRAY[a, b]::float8[], y, 0.5, 1e-6) FROM pts;
SQL
    if [[ "$ver" != 0.1.0 ]]; then
        # the model catalog exists from 0.2.0 on: one stored model per role
        t_psql -d up -c "GRANT SELECT ON models TO up_other" -c "SET ROLE up_other" \
            -c "SELECT dpobj.save_model('kept', m) FROM models WHERE name = 'rspm'" >/dev/null ||
            bail "dpobj.save_model ($ver) failed"
    fi
    if [[ "$ver" == 0.5.0 ]]; then
        # an additive model as 0.5.0 released it (no params "counts"), trained in another
        # database (its ledger row stays there)
        local ebm
        t_psql -d postgres -c "CREATE DATABASE up_ebm" >/dev/null &&
            ebm=$(t_psql -d up_ebm -c "CREATE EXTENSION dpobj" \
                      -c "SELECT dpobj.dp_ebm(ARRAY[a, b]::float8[], y, 1, 1e-6, '{\"bins\": 4}')
                            FROM (SELECT (i % 7) / 4.0 - 0.75, (i % 5) / 4.0 - 0.5, (i % 7) > 3
                                    FROM generate_series(1, 60) i) p(a, b, y)" | tail -1) &&
            t_psql -d postgres -c "DROP DATABASE up_ebm" >/dev/null &&
            t_psql -d up -c "INSERT INTO models VALUES ('ebm', '$ebm')" >/dev/null || bail "dp_ebm ($ver) failed"
    fi
    if [[ "$ver" != 0.1.0 && "$ver" != 0.2.0 ]]; then
        # privacy units and budget domains exist from 0.3.0 on: a unit-protected member of
        # a domain, the domain's budget, one run charged to it
        t_psql -d up >/dev/null <<'SQL' || bail "using units and a budget domain ($ver) failed"
CREATE TABLE people AS SELECT i, i % 20 AS person, a, b, y FROM pts;
ALTER TABLE people OWNER TO up_owner;
REVOKE ALL ON people FROM PUBLIC;
SET ROLE up_owner;
SELECT dpobj.create_budget_domain('up_hospital');
SELECT dpobj.protect('people', 'person', 2, 'up_hospital');
SELECT dpobj.grant_domain_budget('up_hospital', 'up_other', 0.5, 0.0001);
RESET ROLE;
SET ROLE up_other;
INSERT INTO models SELECT 'units', t FROM dpobj.train('people', 'opdisc', ARRAY['a', 'b'], 'y', 0.1, 0.00001) t;
RESET ROLE;
-- a budget already in its zCDP part: two noisy-GD runs
CREATE TABLE zc AS SELECT * FROM pts;
ALTER TABLE zc OWNER TO up_owner;
REVOKE ALL ON zc FROM PUBLIC;
SET ROLE up_owner;
SELECT dpobj.protect('zc');
SELECT dpobj.grant_budget('zc', 'up_other', 1, 0.000001);
RESET ROLE;
SET ROLE up_other;
SELECT dpobj.train('zc', 'noisysgd', ARRAY['a', 'b'], 'y', 0.1, 1e-7, '{"R": 2, "T": 5}') IS NOT NULL;
SELECT dpobj.train('zc', 'noisysgd', ARRAY['a', 'b'], 'y', 0.1, 1e-7, '{"R": 2, "T": 5}') IS NOT NULL;
RESET ROLE;
SQL
        # boolean levels as the release stored them: spelled as declared (0.3.0, 0.4.0;
        # from 0.5.0 on a level spelled twice, 'No' and '0', is refused)
        people_levels="'No', 'YES', '0'"
        [[ $ver == 0.3.0 || $ver == 0.4.0 ]] || people_levels="'No', 'YES'"
        t_psql -d up >/dev/null <<SQL || bail "declaring boolean levels ($ver) failed"
SET ROLE up_owner;
SELECT dpobj.declare_domain('pts', 'y', ARRAY['t', 'f']);
SELECT dpobj.declare_domain('people', 'y', ARRAY[$people_levels]);
RESET ROLE;
SQL
    fi
    if [[ "$ver" == 0.3.0 ]]; then
        # budget domains taken over, which 0.3.0 allowed and its update undoes
        t_psql -d up >/dev/null <<'SQL' || bail "joining budget domains of other roles ($ver) failed"
-- a member whose owner did not own its domain: up_other created the name
-- first, and a table of a superuser (who had up_other's privileges) joined
SET ROLE up_other;
SELECT dpobj.create_budget_domain('up_squatted');
RESET ROLE;
CREATE TABLE squatted AS SELECT i, i % 20 AS person, a, b, y FROM pts;
REVOKE ALL ON squatted FROM PUBLIC;
SELECT dpobj.protect('squatted', 'person', 1, 'up_squatted');
-- a member of a group's domain: up_other, SET ROLE to a group it shares
-- with up_owner, created the domain; up_owner's table joined it (0.3.0
-- took membership in the domain's owner for consent)
SET ROLE up_staff;
SELECT dpobj.create_budget_domain('up_grouped');
RESET ROLE;
CREATE TABLE grouped AS SELECT i, i % 20 AS person, a, b, y FROM pts;
ALTER TABLE grouped OWNER TO up_owner;
REVOKE ALL ON grouped FROM PUBLIC;
SET ROLE up_owner;
SELECT dpobj.protect('grouped', 'person', 1, 'up_grouped');
RESET ROLE;
SQL
    fi
    job=$(t_psql -d up -c "SET ROLE up_analyst" \
        -c "SELECT dpobj.submit('pts', 'opdisc', ARRAY['a', 'b'], 'y', 0.1, 0.00001)") ||
        bail "dpobj.submit ($ver) failed"
    for _ in $(seq 1 120); do
        state=$(t_psql -d up -c "SELECT state FROM dpobj.job_queue WHERE id = $job")
        [[ "$state" == succeeded || "$state" == failed ]] && break
        sleep 0.5
    done
    t_is "a $ver job ran" "$state" "succeeded"
}

# what must survive the update, exactly
# (the ledger rows written before the update; later runs add rows)
LEDGER_SQL="SELECT string_agg(format('%s|%s|%s|%s|%s|%s|%s|%s|%s', id, charged_at, rolname, mechanism,
                epsilon, delta, relation, outcome, budget_id), ';' ORDER BY id)
              FROM dpobj.ledger WHERE id <= 6"
BUDGET_SQL="SELECT string_agg(format('%s|%s|%s|%s|%s|%s|%s', id, relid, rolid, granted_epsilon,
                granted_delta, spent_epsilon, spent_delta), ';' ORDER BY id) FROM dpobj.budgets"
PROT_SQL="SELECT string_agg(format('%s|%s|%s', relid, protected_by, protected_at), ';' ORDER BY relid::text)
            FROM dpobj.protected_tables"
MODEL_SQL="SELECT string_agg(format('%s|%s', name, m), ';' ORDER BY name) FROM models"
PRED_SQL="SELECT string_agg(format('%s:%s', name, p), ';' ORDER BY name)
            FROM (SELECT name, string_agg(dpobj.predict(m, ARRAY[a, b]::float8[])::text, '' ORDER BY i) p
                    FROM models, pts GROUP BY name) s"
JOB_SQL="SELECT string_agg(format('%s|%s|%s|%s|%s|%s', id, owner, rel, state, model, error), ';' ORDER BY id)
           FROM dpobj.job_queue"
# the model catalog (0.2.0 on; empty for 0.1.0)
CATALOG_SQL="SELECT coalesce(string_agg(format('%s|%s|%s|%s|%s|%s|%s|%s', id, name, ownerid::oid, mechanism, created, epsilon, params, model), ';' ORDER BY id), '')
               FROM dpobj.models"
# units and budget domains (0.3.0 on; empty before)
UNIT_SQL="SELECT coalesce(string_agg(format('%s|%s|%s|%s|%s|%s', relid, privacy_unit, unit_attnum, unit_type,
                    max_rows_per_unit, budget_domain), ';' ORDER BY relid::text), '')
            FROM dpobj.protected_tables WHERE privacy_unit IS NOT NULL AND relid::text NOT IN ('squatted', 'grouped')"
DOMAIN_SQL="SELECT coalesce((SELECT string_agg(format('%s|%s|%s', name, owner, created_at), ';' ORDER BY name)
                               FROM dpobj.budget_domains), '') || '/' ||
                   coalesce((SELECT string_agg(format('%s|%s|%s|%s|%s', id, budget_domain, rolid, granted_epsilon,
                                                      spent_epsilon), ';' ORDER BY id)
                               FROM dpobj.budgets WHERE budget_domain IS NOT NULL), '')"
ZCDP_LEFT_SQL="SELECT dpobj.runs_left('zc', 'noisysgd', 0.1, 1e-7, '{\"R\": 2, \"T\": 5}')"
APPROX_LEFT_SQL="SELECT dpobj.runs_left('zc', 'opdisc', 0.1, 1e-7) || ' ' || reserve_delta FROM dpobj.budgets WHERE relid = 'zc'::regclass"
SPEND_SQL="SELECT (SELECT count(*) FROM dpobj.ledger) || '/' || (SELECT sum(spent_epsilon) FROM dpobj.budgets)"

# refused_before_update VERSION: the new library over the old SQL objects charges nothing
refused_before_update() {
    local ver="$1" spend out
    spend=$(t_psql -d up -c "$SPEND_SQL")
    out=$(psql -X -q -At -d up -c "SET ROLE up_analyst" \
        -c "SELECT dpobj.train('pts', 'opdisc', ARRAY['a', 'b'], 'y', 0.1, 0.00001)" 2>&1)
    t_check "before the update: train() over the $ver objects asks for ALTER EXTENSION dpobj UPDATE" \
        bash -c '[[ "$1" == *"ALTER EXTENSION dpobj UPDATE"* ]]' _ "$out"
    out=$(psql -X -q -At -d up -c "SET ROLE up_analyst" \
        -c "SELECT dpobj.submit('pts', 'opdisc', ARRAY['a', 'b'], 'y', 0.1, 0.00001)" 2>&1)
    t_check "before the update: submit() over the $ver objects asks for ALTER EXTENSION dpobj UPDATE" \
        bash -c '[[ "$1" == *"ALTER EXTENSION dpobj UPDATE"* ]]' _ "$out"
    out=$(psql -X -q -At -d up -c "SELECT dpobj.dp_halfspace(ARRAY[a, b]::float8[], y, 0.5, 1e-6) FROM pts" 2>&1)
    t_check "before the update: a $ver direct aggregate asks for ALTER EXTENSION dpobj UPDATE" \
        bash -c '[[ "$1" == *"ALTER EXTENSION dpobj UPDATE"* ]]' _ "$out"
    t_is "before the update: nothing was charged or recorded (ledger rows / spent)" \
        "$(t_psql -d up -c "$SPEND_SQL")" "$spend"
}

# upgrade_from VERSION: the whole path from one release
upgrade_from() {
    local ver="$1" q sql target
    declare -A before
    echo "# --- from $ver"
    WORK="$ROOT/$ver"
    mkdir -p "$WORK" && chmod 755 "$WORK"
    [[ "$(id -u)" -eq 0 ]] && chown postgres: "$WORK"
    new_installation "$WORK/inst"
    install_release "$ver"
    start_cluster
    use_release "$ver"
    for q in LEDGER BUDGET PROT MODEL PRED JOB CATALOG UNIT DOMAIN; do
        sql="${q}_SQL"
        if [[ $q == CATALOG && $ver == 0.1.0 ]]; then
            before[$q]=""       # no model catalog before 0.2.0
            continue
        fi
        if [[ ( $q == UNIT || $q == DOMAIN ) && ( $ver == 0.1.0 || $ver == 0.2.0 ) ]]; then
            before[$q]=$([[ $q == DOMAIN ]] && echo /)     # no units or domains before 0.3.0
            continue
        fi
        before[$q]=$(t_psql -d up -c "${!sql}") || bail "snapshot $q failed"
    done
    local runs=5 zcdp_left="" approx_left=""
    [[ $ver == 0.1.0 || $ver == 0.2.0 ]] || runs=8
    t_is "the $ver ledger has the runs (3 trainings, 1 job, 1 direct run, from 0.3.0 a unit run and 2 zCDP runs), all released" \
        "$(t_psql -d up -c "SELECT count(*) || ' ' || max(id) || ' ' || string_agg(DISTINCT outcome, ',') FROM dpobj.ledger")" \
        "$runs $runs released"
    if [[ "$ver" != 0.1.0 ]]; then
        t_check "the $ver model catalog holds the stored model" test -n "${before[CATALOG]}"
    fi
    if [[ $runs == 8 ]]; then
        t_check "the $ver units and domain budget are there to keep" \
            test -n "${before[UNIT]}" -a "${before[DOMAIN]}" != /
        zcdp_left=$(t_psql -d up -c "SET ROLE up_other" -c "$ZCDP_LEFT_SQL")
        # an approximate-DP run after zCDP charges: 0.3.0's budgets get no reserve for one
        # (0 runs), later releases' keep theirs
        approx_left="0 0"
        [[ $ver == 0.3.0 ]] || approx_left=$(t_psql -d up -c "SET ROLE up_other" -c "$APPROX_LEFT_SQL")
    fi

    # --- new binaries and scripts, then the update ---------------------------------------
    make -s -j"$(nproc)" -C "$REPO" PG_CONFIG="$INST_CONFIG" >"$WORK/build.log" 2>&1 &&
        make -s -C "$REPO" PG_CONFIG="$INST_CONFIG" install >>"$WORK/build.log" 2>&1 ||
        { tail -20 "$WORK/build.log"; bail "installing the current version failed"; }
    t_is "installing the current version removed the old install script (no old version installable)" \
        "$(ls "$INST/share/postgresql/$MAJOR/extension/" | grep -c '^dpobj--0\.[1234]\.0\.sql$')" "0"
    # ... which the check below needs back: CREATE EXTENSION ... VERSION '$ver' + update
    # (0.1.0 and 0.2.0 install through the 0.1.0 script, later releases through their own)
    for f in "$WORK/src-$ver/dpobj-$ver/sql/dpobj--0.1.0.sql" "$WORK/src-$ver/dpobj-$ver/sql/dpobj--$ver.sql"; do
        [[ ! -f "$f" ]] || cp "$f" "$INST/share/postgresql/$MAJOR/extension/" ||
            bail "could not put the $ver install script back"
    done
    target=$(sed -n "s/^default_version = '\(.*\)'/\1/p" "$REPO/dpobj.control")
    t_is "META.json gives the control file's default_version (release and extension)" \
        "$(grep -c "\"version\": \"$target\"" "$REPO/META.json")" "2"
    as_pg "$INST_BIN/pg_ctl" -D "$WORK/data" -l "$WORK/server.log" -w -t 60 restart >/dev/null ||
        { tail -20 "$WORK/server.log"; bail "restart with the new binaries failed"; }

    # between installing the binaries and ALTER EXTENSION UPDATE the old SQL objects call
    # the new library: stored models still predict, charged entry points refuse for free
    t_is "before the update: stored models predict as before" "$(t_psql -d up -c "$PRED_SQL")" "${before[PRED]}"
    refused_before_update "$ver"

    t_psql -d up -c "ALTER EXTENSION dpobj UPDATE" >/dev/null 2>"$WORK/update.err"
    t_is "ALTER EXTENSION dpobj UPDATE from $ver succeeds" \
        "$?:$(grep -v -e 'left budget domain "up_squatted"' -e 'left budget domain "up_grouped"' -e '^HINT:  The domain.s owner allows it' "$WORK/update.err")" "0:"
    if [[ $runs == 8 ]]; then
        t_is "a budget in its zCDP part admits what it did: as many noisy-GD runs, approximate-DP runs and reserve ($approx_left)" \
            "$(t_psql -d up -c "SET ROLE up_other" -c "$ZCDP_LEFT_SQL")/$(t_psql -d up -c "SET ROLE up_other" -c "$APPROX_LEFT_SQL")" \
            "$zcdp_left/$approx_left"
        t_check "... and that is more than basic composition's 8" test "$zcdp_left" -gt 8
        # its Renyi order is fixed by the update, from its grant; a raise (rolled back
        # here) does not move it
        order_at_update=$(t_psql -d up -c "SELECT filter_order FROM dpobj.budgets WHERE relid = 'zc'::regclass")
        t_is "the zCDP part begun before the update got its order then; a later grant keeps it" \
            "$(t_psql -d up -c "SELECT $order_at_update > 1")/$(t_psql -d up -c "BEGIN" -c "SET ROLE up_owner" \
                -c "CREATE TEMP TABLE raised AS SELECT dpobj.grant_budget('zc', 'up_other', 1, 0)" \
                -c "SELECT filter_order FROM dpobj.budgets WHERE relid = 'zc'::regclass" -c "ROLLBACK")" \
            "t/$order_at_update"
        t_is "the update stores a boolean's declared levels as 'true'/'false', once each" \
            "$(t_psql -d up -c "SELECT string_agg(relid::text || ':' || levels::text, ' ' ORDER BY relid::text) FROM dpobj.feature_domains")" \
            "people:{false,true} pts:{true,false}"
        t_is "a member whose owner is the domain's stays (its unit identity and joining owner recorded)" \
            "$(t_psql -d up -c "SELECT budget_domain || '/' || unit_typmod || '/' || unit_collation || '/' || domain_joined_by FROM dpobj.protected_tables WHERE relid = 'people'::regclass")" \
            "up_hospital/-1/0/up_owner"
    fi
    if [[ $ver == 0.3.0 ]]; then
        # a member whose owner did not own the domain leaves it, with a warning; the
        # domain and the ledger stay
        t_is "the update takes a member whose owner did not own the domain out of it, warning" \
            "$(grep -c 'WARNING:  dpobj: table .*squatted left budget domain "up_squatted" of role up_other' "$WORK/update.err")/$(t_psql -d up -c "SELECT coalesce(budget_domain, '-') FROM dpobj.protected_tables WHERE relid = 'squatted'::regclass")/$(t_psql -d up -c "SELECT owner FROM dpobj.budget_domains WHERE name = 'up_squatted'")" \
            "1/-/up_other"
        t_is "... and one whose owner is only a member of the domain's owner (a group), warning" \
            "$(grep -c 'WARNING:  dpobj: table .*grouped left budget domain "up_grouped" of role up_staff' "$WORK/update.err")/$(t_psql -d up -c "SELECT coalesce(budget_domain, '-') FROM dpobj.protected_tables WHERE relid = 'grouped'::regclass")" \
            "1/-"
    fi
    t_is "the database runs $target" \
        "$(t_psql -d up -c "SELECT extversion FROM pg_extension WHERE extname = 'dpobj'")" "$target"

    # (a) the data survived exactly
    for q in LEDGER BUDGET PROT MODEL PRED JOB CATALOG UNIT DOMAIN; do
        sql="${q}_SQL"
        t_is "after the update from $ver: $q unchanged" "$(t_psql -d up -c "${!sql}")" "${before[$q]}"
    done
    # every stored model has its kind (model/kinds.h) and explains itself
    kinds="direct:halfspace:t"
    [[ "$ver" == 0.5.0 ]] && kinds+=",ebm:additive:t"
    kinds+=",logistic:linear:t,opdisc:halfspace:t,rspm:halfspace:t"
    [[ "$ver" != 0.1.0 && "$ver" != 0.2.0 ]] && kinds+=",units:halfspace:t"
    t_is "after the update from $ver: stored models' kinds, explained" \
        "$(t_psql -d up -c "SELECT string_agg(format('%s:%s:%s', name, dpobj.model_kind(m),
                               (SELECT count(*) > 0 FROM dpobj.explain(m))), ',' ORDER BY name) FROM models")" \
        "$kinds"
    # classifiers stored before 0.6.0 have no operating point: predict() stays score > 0,
    # explain() shows no "(threshold)"; a model trained now has one
    if [[ "$(printf '%s\n' "$ver" 0.6.0 | sort -V | head -1)" != 0.6.0 ]]; then
        t_is "after the update from $ver: old classifiers predict score > 0, no threshold row" \
            "$(t_psql -d up -c "SELECT bool_and(dpobj.predict(m, ARRAY[a, b]::float8[]) = (dpobj.score(m, ARRAY[a, b]::float8[]) > 0)
                                              AND NOT (m).params ? 'threshold'
                                              AND NOT EXISTS (SELECT FROM dpobj.explain(m) e WHERE e.feature = '(threshold)'))
                                  FROM models, pts WHERE name IN ('logistic', 'ebm')")/$(t_psql -d up -c "SELECT (dpobj.dp_logistic(ARRAY[a, b]::float8[], y, 1, 1e-6, '{\"R\": 1}')).params ? 'threshold' FROM pts")" \
            "t/t"
    else
        # ... and one released by $ver keeps its operating point: predict() applies it
        t_is "after the update from $ver: its classifier keeps its threshold, predict() = score > threshold" \
            "$(t_psql -d up -c "SELECT bool_and(dpobj.predict(m, ARRAY[a, b]::float8[])
                                                = (dpobj.score(m, ARRAY[a, b]::float8[]) > ((m).params->>'threshold')::float8)
                                              AND EXISTS (SELECT FROM dpobj.explain(m) e WHERE e.feature = '(threshold)'))
                                  FROM models, pts WHERE name = 'logistic'")" "t"
    fi
    if [[ "$ver" == 0.5.0 ]]; then
        t_is "after the update from $ver: its additive model (no counts) explains with rows NULL, importance max - min" \
            "$(t_psql -d up -c "SELECT bool_and(e.rows IS NULL AND e.importance = (SELECT max(x.contribution) - min(x.contribution)
                                   FROM dpobj.explain(m) x WHERE x.feature = e.feature))
                                  FROM models, dpobj.explain(m) e WHERE name = 'ebm' AND e.feature <> '(intercept)'")" "t"
    fi
    check_enforcement
    check_catalog "$ver"
    stop_cluster
}

# ... and the enforcement holds
check_enforcement() {
    t_is "the analyst still cannot read the protected table" \
        "$(t_psql -d up -c "SET ROLE up_analyst" -c "SELECT has_table_privilege('pts', 'SELECT')")" "f"
    t_psql -d up -c "SET ROLE up_analyst" \
        -c "SELECT dpobj.train('pts', 'opdisc', ARRAY['a', 'b'], 'y', 0.1, 0.00001) IS NOT NULL" >/dev/null
    t_is "training after the update charges the old budget" \
        "$(t_psql -d up -c "SELECT spent_epsilon FROM dpobj.budgets WHERE rolid = 'up_analyst'::regrole")" "0.5"
    psql -X -q -At -d up -c "SET ROLE up_analyst" -c '\set VERBOSITY sqlstate' \
        -c "SELECT dpobj.train('pts', 'opdisc', ARRAY['a', 'b'], 'y', 0.1, 0.00001)" >/dev/null 2>"$WORK/refused.err"
    t_is "the exhausted old budget refuses (DP004)" "$(grep -o 'DP004' "$WORK/refused.err")" "DP004"
    t_is "ledger totals = spend after the update" \
        "$(t_psql -d up -c "SELECT bool_and(coalesce(s.e, 0) = b.spent_epsilon AND coalesce(s.d, 0) = b.spent_delta
                                    AND coalesce(s.rho, 0) = b.spent_rho)
                             FROM dpobj.budgets b LEFT JOIN (SELECT budget_id,
                                                                    sum(epsilon) FILTER (WHERE accounted = 'linear') e,
                                                                    sum(delta) FILTER (WHERE accounted = 'linear') d,
                                                                    sum(rho) FILTER (WHERE accounted = 'rho') rho
                                                               FROM dpobj.ledger GROUP BY 1) s ON s.budget_id = b.id")" "t"
    t_is "the released runs' rows are (epsilon, delta) kind, counted linearly (none without a budget), no rho" \
        "$(t_psql -d up -c "SELECT bool_and(kind = 'approx' AND rho IS NULL
                                       AND accounted IS NOT DISTINCT FROM CASE WHEN budget_id IS NULL
                                                                            THEN NULL ELSE 'linear' END)
                                   AND sum(b.spent_rho) = 0
                             FROM dpobj.ledger l LEFT JOIN dpobj.budgets b ON b.id = l.budget_id
                            WHERE l.mechanism <> 'noisysgd'")" "t"
    t_is "row-level security: an analyst sees only its own ledger rows" \
        "$(t_psql -d up -c "SET ROLE up_other" -c "SELECT count(*) FROM dpobj.ledger")" \
        "$(t_psql -d up -c "SELECT count(*) FROM dpobj.ledger WHERE rolname = 'up_other'")"
    psql -X -q -At -d up -c "DELETE FROM dpobj.ledger" >/dev/null 2>"$WORK/delete.err"
    t_check "the ledger is still append-only, even for a superuser" grep -q "append-only" "$WORK/delete.err"
    # budget domains over the updated catalog: a table with budgets of its own from the
    # release cannot join one; a new member is charged to the domain's budget
    t_psql -d up -c "SET ROLE up_owner" -c "SELECT dpobj.create_budget_domain('up_people')" \
        -c "SELECT dpobj.protect('pts2', 'i', 1)" >/dev/null
    psql -X -q -At -d up -c "SET ROLE up_owner" -c '\set VERBOSITY sqlstate' \
        -c "SELECT dpobj.set_budget_domain('pts2', 'up_people')" >/dev/null 2>"$WORK/join.err"
    t_is "a table with budgets from the release cannot join a budget domain (55000)" \
        "$(grep -o '55000' "$WORK/join.err")" "55000"
    t_psql -d up -c "CREATE TABLE pts3 AS SELECT * FROM pts" -c "ALTER TABLE pts3 OWNER TO up_owner" \
        -c "REVOKE ALL ON pts3 FROM PUBLIC" -c "SET ROLE up_owner" \
        -c "SELECT dpobj.protect('pts3', 'i', 1, 'up_people')" \
        -c "SELECT 1 FROM dpobj.grant_domain_budget('up_people', 'up_other', 1, 0.0001)" >/dev/null
    t_psql -d up -c "SET ROLE up_other" \
        -c "SELECT dpobj.train('pts3', 'opdisc', ARRAY['a', 'b'], 'y', 0.1, 0.00001) IS NOT NULL" >/dev/null
    t_is "a run on a new member of a budget domain is charged to the domain's budget" \
        "$(t_psql -d up -c "SELECT b.spent_epsilon || ' ' || l.budget_domain FROM dpobj.budgets b
                             JOIN dpobj.ledger l ON l.budget_id = b.id WHERE b.budget_domain = 'up_people'")" \
        "0.1 up_people"
}

# (b) the catalog equals a fresh install's
check_catalog() {
    local ver="$1" db
    t_psql -d fresh -c "CREATE EXTENSION dpobj" >/dev/null || bail "fresh CREATE EXTENSION failed"
    t_psql -d empty -c "CREATE EXTENSION dpobj VERSION '$ver'" -c "ALTER EXTENSION dpobj UPDATE" >/dev/null ||
        bail "$ver + update in an empty database failed"
    for db in up fresh empty; do
        t_psql -d "$db" -f "$REPO/tests/upgrade/catalog.sql" >"$WORK/catalog.$db" 2>&1 ||
            bail "catalog listing of $db failed: $(head -3 "$WORK/catalog.$db")"
    done
    t_check "the catalog listing is not empty ($(grep -c '^function ' "$WORK/catalog.fresh") functions)" \
        test "$(grep -c '^function ' "$WORK/catalog.fresh")" -gt 20
    for db in up empty; do
        if diff -u "$WORK/catalog.fresh" "$WORK/catalog.$db" >"$WORK/catalog.diff.$db"; then
            t_check "catalog updated from $ver = fresh install ($db database)" true
        else
            head -60 "$WORK/catalog.diff.$db"
            t_check "catalog updated from $ver = fresh install ($db database)" false
        fi
    done
}

# by default every release older than the control file's version (a fixture each)
if [[ -z "${DPOBJ_UPGRADE_FROM:-}" ]]; then
    current=$(sed -n "s/^default_version = '\(.*\)'/\1/p" "$REPO/dpobj.control")
    DPOBJ_UPGRADE_FROM=$(printf '%s\n' "${!RELEASE[@]}" "$current" | sort -uV |
        sed -n "/^$current\$/q;p" | tr '\n' ' ')
fi
for ver in $DPOBJ_UPGRADE_FROM; do
    upgrade_from "$ver"
done
t_summary
