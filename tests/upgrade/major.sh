#!/usr/bin/env bash
# tests/upgrade/major.sh — a database with dpobj on PostgreSQL 15, moved to a newer major
# version with pg_dumpall --roles-only and pg_dump/pg_restore, keeps every budget (granted,
# spent, hence remaining epsilon and delta), every ledger row, every protected table with
# its unit, the declared domains, the budget domain, the stored models and the pg_cron job —
# all by name, since roles, tables and collations get new OIDs in the new cluster — each
# role sees what it saw, and the same runs are admitted or refused (tests/upgrade/major/).
#
#   bash tests/upgrade/major.sh --fresh trixie sid     # on the host, as root
#   bash tests/upgrade/major.sh --dump DIR             # step 1 only, for --restore DIR (CI)
#
# 1. here, on this tree's PostgreSQL 15 installation (DPOBJ_PG_BINDIR, scripts/common.sh;
#    dpobj installed there, pg_cron too): builds the database (major/setup.sql), records its
#    state (major/state.sql), dumps it, then runs the probes (major/probes.txt) on it;
# 2. per suite, in a brand-new Debian root (../shared/tools/fresh-debian): installs
#    postgresql-<major>, its pg_cron and the postgresql-<major>-dpobj package that
#    scripts/build-packages.sh --fresh left in ${DPOBJ_PKG_OUT:-/var/tmp/dpobj-packages}/<suite>,
#    restores, compares the state and the probes (this script with --restore DIR; without
#    a package there, into the server scripts/test.sh built dpobj for in that root).
#   bash tests/upgrade/major.sh --pg-upgrade            # pg_upgrade, on this installation
#        (to DPOBJ_NEW_BINDIR's major version; default the same one: the archive has one)
# Last line: "N passed, M failed".  Ports: DPOBJ_UPGRADE_PGPORT (default 55433), and
# DPOBJ_CRON_PGPORT (default 55434) for pg_upgrade's new cluster.
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
DB=dpobj_major
T_PASS=0 T_FAIL=0
t_is() {
    if [[ "$2" == "$3" ]]; then T_PASS=$((T_PASS + 1)); printf 'ok - %s\n' "$1"
    else T_FAIL=$((T_FAIL + 1)); printf 'not ok - %s (got "%s", expected "%s")\n' "$1" "$2" "$3"; fi
}
t_summary() { printf '%s passed, %s failed\n' "$T_PASS" "$T_FAIL"; [[ $T_FAIL -eq 0 ]]; }

# probes FILE: run every probe of major/probes.txt as its role; one line each:
# "admitted" or the SQLSTATE it was refused with
probes() {
    local role sql out
    while IFS='|' read -r role sql; do
        [[ -z "$role" || "$role" == \#* ]] && continue
        if out=$(q -c '\set VERBOSITY sqlstate' -c "SET ROLE $role" -c "$sql" 2>&1 >/dev/null); then
            echo admitted
        else
            echo "${out##* }"
        fi
    done <"$HERE/major/probes.txt"
}

# reattach the unit columns (a superuser's dpobj.reattach_unit(): a dump renumbers pts's,
# $2 is what each call returns), then compare the recorded state, section by section, and
# the probes
compare() {
    local dir="$1" reattached="$2" section
    t_is "dpobj.reattach_unit() records the units' new numbers ($reattached)" \
        "$(q -c "SELECT string_agg(relid::text || ':' || dpobj.reattach_unit(relid), ',' ORDER BY relid::text)
                   FROM dpobj.protected_tables WHERE privacy_unit IS NOT NULL")" "$reattached"
    q -f - <"$HERE/major/state.sql" >"$dir/state.after" 2>&1
    for section in budget ledger protected model feature_domain budget_domain cron sees; do
        t_is "$section rows kept ($(grep -c "^$section|" "$dir/state.before"))" \
            "$(grep "^$section|" "$dir/state.after" | md5sum)" "$(grep "^$section|" "$dir/state.before" | md5sum)"
    done
    if ! cmp -s "$dir/state.before" "$dir/state.after"; then
        diff "$dir/state.before" "$dir/state.after" | head -n 40 | sed 's/^/# /'
    fi
    probes >"$dir/probes.after"
    t_is "the same runs are admitted and refused ($(paste -sd, "$dir/probes.before"))" \
        "$(paste -sd, "$dir/probes.after")" "$(paste -sd, "$dir/probes.before")"
    q -f - <"$HERE/major/state.sql" 2>&1 | grep '^budget|' >"$dir/budgets.after"
    t_is "after the probes every budget has spent the same" \
        "$(md5sum <"$dir/budgets.after")" "$(md5sum <"$dir/budgets.probed")"
}

if [[ "${1:-}" == --restore ]]; then
    # 2. inside a fresh root: restore and compare.  With a postgresql-<major>-dpobj package in
    # DIR: the server, pg_cron and the package are installed, into Debian's cluster "main";
    # without one: into a throwaway cluster of the server dpobj was built and installed for
    # from source (scripts/test.sh ran before in that root, as in CI).  The files go where
    # the postgres user can read them (/root is private).
    dir=$(mktemp -d) && cp "$2"/* "$dir"/ && chmod -R a+rX "$dir"
    cd /
    port="${DPOBJ_UPGRADE_PGPORT:-55433}"
    deb=$(ls "$dir"/postgresql-*-dpobj_*.deb 2>/dev/null | head -n 1)
    if [[ -n "$deb" ]]; then
        major=$(basename "$deb" | sed 's/^postgresql-\([0-9]*\)-dpobj_.*/\1/')
        export DEBIAN_FRONTEND=noninteractive
        printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d
        trap 'pg_ctlcluster "$major" main stop -m immediate >/dev/null 2>&1' EXIT
        { apt-get update -q && apt-get install -y -q --no-install-recommends "postgresql-$major" \
              "postgresql-$major-cron" "$deb"; } >/tmp/major-apt.log 2>&1 \
            || { tail -20 /tmp/major-apt.log; echo "not ok - install PostgreSQL $major and the package"; exit 1; }
        for kv in "listen_addresses=" "port=$port" "shared_preload_libraries=pg_cron,dpobj" \
                  "cron.database_name=$DB" "max_worker_processes=16"; do
            pg_conftool "$major" main set "${kv%%=*}" "${kv#*=}"
        done
        pg_ctlcluster "$major" main restart \
            || { tail "/var/log/postgresql/postgresql-$major-main.log"; echo "not ok - the $major cluster starts"; exit 1; }
        pgq() { runuser -u postgres -- psql -X -q -p "$port" "$@"; }
        pgrestore() { runuser -u postgres -- pg_restore -p "$port" "$@"; }
    else
        # shellcheck source=scripts/common.sh
        . "$REPO/scripts/common.sh"
        export DPOBJ_SKIP_APT=1 DPOBJ_PGPORT="$port" DPOBJ_EXTRA_CONF="shared_preload_libraries = 'pg_cron,dpobj'
cron.database_name = '$DB'"
        dpobj_start_cluster >/dev/null 2>&1 || { echo "not ok - the PostgreSQL $PG_MAJOR cluster starts"; exit 1; }
        pgq() { psql -X -q "$@"; }
        pgrestore() { "$PG_BINDIR/pg_restore" "$@"; }
    fi
    q() { pgq -At -v ON_ERROR_STOP=1 -d "$DB" "$@"; }
    echo "# restoring into $(pgq -At -d postgres -c 'SHOW server_version')"
    # the roles first (postgres exists already: its CREATE ROLE is the one error allowed)
    pgq -d postgres -f "$dir/roles.sql" >/dev/null 2>"$dir/roles.err"
    t_is "the roles are restored (pg_dumpall --roles-only)" \
        "$(grep -v 'role "postgres" already exists' "$dir/roles.err" | grep -c ERROR):$(pgq -At -d postgres \
           -c "SELECT count(*) FROM pg_roles WHERE rolname LIKE 'major\\_%'")" "0:3"
    # pg_cron 1.4 (Debian 12) sits in schema public, >= 1.5 only in pg_catalog: a dump's
    # CREATE EXTENSION pg_cron WITH SCHEMA public fails there, so the database and pg_cron
    # come first (the dump's CREATE EXTENSION IF NOT EXISTS then skips it)
    pgq -d postgres -v ON_ERROR_STOP=1 \
        -c "CREATE DATABASE $DB TEMPLATE template0 LOCALE 'C.UTF-8'" >/dev/null \
        && q -c 'CREATE EXTENSION pg_cron' >/dev/null || echo "not ok - CREATE DATABASE, pg_cron"
    pgrestore -d "$DB" --exit-on-error "$dir/db.dump" 2>"$dir/restore.err"
    t_is "pg_restore succeeds" "$?:$(cat "$dir/restore.err")" "0:"
    oids=$(q -c "SELECT string_agg(rolname || ':' || oid, ',' ORDER BY rolname) FROM pg_roles WHERE rolname LIKE 'major_%'")
    echo "# role OIDs on 15: $(cat "$dir/role_oids"); here: $oids"
    t_is "the roles have other OIDs here (names, not OIDs, must carry what is theirs)" \
        "$([[ "$oids" != "$(cat "$dir/role_oids")" ]] && echo other)" "other"
    compare "$dir" "people:false,pts:true"
    t_summary
    exit $?
fi

if [[ "${1:-}" == --pg-upgrade ]]; then
    # 3. pg_upgrade from this 15 installation to DPOBJ_NEW_BINDIR (default: the same
    #    installation; Debian's archive has one major version per release): the upgraded
    #    cluster keeps every OID, so the state compares exactly; the probes run on both.
    . "$REPO/scripts/common.sh"
    new_bin="${DPOBJ_NEW_BINDIR:-$PG_BINDIR}" oport="${DPOBJ_UPGRADE_PGPORT:-55433}"
    nport="${DPOBJ_CRON_PGPORT:-55434}"
    dir=$(mktemp -d "${DPOBJ_TMPDIR:-/tmp}/dpobj-pgupgrade.XXXXXX")
    [[ "$(id -u)" -eq 0 ]] && chown postgres: "$dir"
    dpobj_at_exit "for c in old new; do dpobj_as_pg '$PG_BINDIR/pg_ctl' -D '$dir'/\$c -m immediate -w stop >/dev/null 2>&1; done; rm -rf -- '$dir'; true"
    for c in old new; do
        bin=$PG_BINDIR; port=$oport
        [[ $c == new ]] && bin=$new_bin port=$nport
        dpobj_as_pg "$bin/initdb" -D "$dir/$c" -U postgres -A trust -E UTF8 --locale=C --no-sync >/dev/null \
            || { echo "not ok - initdb $c"; exit 1; }
        printf "listen_addresses = ''\nunix_socket_directories = '%s'\nport = %s\nshared_preload_libraries = 'pg_cron,dpobj'\ncron.database_name = '%s'\nmax_worker_processes = 16\n" \
            "$dir" "$port" "$DB" | dpobj_as_pg tee -a "$dir/$c/postgresql.conf" >/dev/null
    done
    start() { dpobj_as_pg "$1/pg_ctl" -D "$dir/$2" -l "$dir/$2.log" -w start >/dev/null || { tail "$dir/$2.log"; exit 1; }; }
    stop() { dpobj_as_pg "$1/pg_ctl" -D "$dir/$2" -m fast -w stop >/dev/null; }
    export PGHOST="$dir" PGUSER=postgres PGPORT=$oport
    q() { psql -X -q -At -v ON_ERROR_STOP=1 -d "$DB" "$@"; }
    start "$PG_BINDIR" old
    psql -X -q -d postgres -c "CREATE DATABASE $DB TEMPLATE template0 LOCALE 'C.UTF-8'" || exit 1
    q -f - <"$HERE/major/setup.sql" >"$dir/setup.out" 2>&1 || { cat "$dir/setup.out"; exit 1; }
    q -f - <"$HERE/major/state.sql" >"$dir/state.before"
    stop "$PG_BINDIR" old
    echo "# pg_upgrade $("$PG_BINDIR/postgres" -V | awk '{print $3}') -> $("$new_bin/postgres" -V | awk '{print $3}')"
    (cd "$dir" && dpobj_as_pg "$new_bin/pg_upgrade" -b "$PG_BINDIR" -B "$new_bin" -d "$dir/old" -D "$dir/new" \
        -p "$oport" -P "$nport" -s "$dir" >"$dir/pg_upgrade.out" 2>&1)
    t_is "pg_upgrade succeeds" "$?" "0" || tail -n 30 "$dir/pg_upgrade.out" | sed 's/^/# /'
    start "$PG_BINDIR" old
    probes >"$dir/probes.before"
    q -f - <"$HERE/major/state.sql" | grep '^budget|' >"$dir/budgets.probed"
    stop "$PG_BINDIR" old
    export PGPORT=$nport
    start "$new_bin" new
    t_is "every OID-holding column is kept exactly (the state's OIDs too)" \
        "$(q -c "SELECT string_agg(rolid::oid || '/' || relid::oid, ',' ORDER BY id) FROM dpobj.budgets")" \
        "$(PGPORT=$oport; start "$PG_BINDIR" old; q -c "SELECT string_agg(rolid::oid || '/' || relid::oid, ',' ORDER BY id) FROM dpobj.budgets"; stop "$PG_BINDIR" old)"
    compare "$dir" "people:false,pts:false"
    stop "$new_bin" new
    t_summary
    exit $?
fi

case "${1:-}" in
    --fresh) shift ;;
    --dump) dump_to="${2:?usage: major.sh --dump DIR}"; set -- ;;
esac
[[ $# -gt 0 || -n "${dump_to:-}" ]] ||
    { echo "usage: major.sh --fresh SUITE... | --dump DIR | --pg-upgrade | --restore DIR" >&2; exit 2; }
[[ "$(id -u)" -eq 0 ]] || { echo "major.sh: run as root" >&2; exit 2; }
# 1. the source database on PostgreSQL 15 (--dump DIR: its files into DIR, for --restore)
# shellcheck source=scripts/common.sh
. "$REPO/scripts/common.sh"
work=$(mktemp -d "${DPOBJ_TMPDIR:-/tmp}/dpobj-major.XXXXXX")
dpobj_at_exit "rm -rf -- '$work'; true"
export DPOBJ_SKIP_APT=1 DPOBJ_PGPORT="${DPOBJ_UPGRADE_PGPORT:-55433}"
export DPOBJ_EXTRA_CONF="shared_preload_libraries = 'pg_cron,dpobj'
cron.database_name = '$DB'"
dpobj_start_cluster >/dev/null 2>&1 || { echo "not ok - the PostgreSQL 15 cluster starts"; exit 1; }
q() { psql -X -q -At -v ON_ERROR_STOP=1 -d "$DB" "$@"; }
# the database's collation is a glibc locale with a version, as on most servers
psql -X -q -v ON_ERROR_STOP=1 -d postgres \
    -c "CREATE DATABASE $DB TEMPLATE template0 LOCALE 'C.UTF-8'" || exit 1
q -f - <"$HERE/major/setup.sql" >"$work/setup.out" 2>&1 || { cat "$work/setup.out"; echo "not ok - setup on 15"; exit 1; }
q -f - <"$HERE/major/state.sql" >"$work/state.before" 2>&1 || { cat "$work/state.before"; exit 1; }
q -c "SELECT string_agg(rolname || ':' || oid, ',' ORDER BY rolname) FROM pg_roles WHERE rolname LIKE 'major_%'" \
    >"$work/role_oids"
pg_dumpall --roles-only >"$work/roles.sql" && pg_dump -Fc -f "$work/db.dump" "$DB" \
    || { echo "not ok - pg_dump on 15"; exit 1; }
probes >"$work/probes.before"
q -f - <"$HERE/major/state.sql" 2>&1 | grep '^budget|' >"$work/budgets.probed"
echo "# on $(q -c 'SHOW server_version'): $(wc -l <"$work/state.before") state rows; probes: $(paste -sd, "$work/probes.before")"
dpobj_psql -c "DROP DATABASE $DB WITH (FORCE)" >/dev/null 2>&1
if [[ -n "${dump_to:-}" ]]; then
    mkdir -p "$dump_to" && cp "$work"/{state.before,probes.before,budgets.probed,role_oids,roles.sql,db.dump} "$dump_to"/ &&
        chmod -R a+rX "$dump_to" && echo "# dumped into $dump_to" && exit 0
    echo "not ok - copy the dump into $dump_to"; exit 1
fi

rc=0
for suite in "$@"; do
    pkgdir="${DPOBJ_PKG_OUT:-/var/tmp/dpobj-packages}/$suite"
    ls "$pkgdir"/postgresql-*-dpobj_*.deb >/dev/null 2>&1 \
        || { echo "not ok - no package in $pkgdir (scripts/build-packages.sh --fresh $suite)"; rc=1; continue; }
    mkdir -p "$work/$suite"
    cp "$work"/{state.before,probes.before,budgets.probed,role_oids,roles.sql,db.dump} "$pkgdir"/postgresql-*-dpobj_*.deb "$work/$suite/"
    chmod -R a+rX "$work"
    start=$SECONDS
    (cd "$REPO" && FRESH_SUITE="$suite" FRESH_OUT="$work/$suite" "$REPO/../shared/tools/fresh-debian" \
        env DPOBJ_UPGRADE_PGPORT="$DPOBJ_PGPORT" bash tests/upgrade/major.sh --restore /root/out) || rc=1
    echo "# $suite: $((SECONDS - start))s"
done
exit $rc
