# shellcheck shell=bash
# tests/security/lib.sh — helpers of the security scripts: those of tests/concurrency/lib.sh
# (t_psql, t_check, t_is, t_summary, t_fresh_db, t_role) plus sqlstate().
# shellcheck source=tests/concurrency/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../concurrency/lib.sh"

# sqlstate DB PSQL-ARGS...: the SQLSTATE of the first failing statement, or "ok"
sqlstate() {
    local db="$1" out
    shift
    out=$(psql -X -q -At -d "$db" -v ON_ERROR_STOP=1 -v VERBOSITY=sqlstate "$@" 2>&1 >/dev/null)
    [[ -z $out ]] && echo ok || sed -nE 's/^(psql:[^ ]* )?ERROR:  ([0-9A-Z]{5}).*/\2/p' <<<"$out" | tail -n 1
}

# The install scripts of released versions are no longer installed (sql/dpobj--0.1.0.sql,
# ...; their upgrade scripts are, so older databases still update).  A test that sets up
# an old release installs its script for its own length: with_release_script VERSION
# CMD... runs CMD with sql/dpobj--VERSION.sql in the server's extension directory and
# removes it afterwards, also when CMD fails; with_old_install_script CMD... is 0.1.0's.
with_release_script() {
    local dir rc ver=$1
    shift
    dir="$("${PG_CONFIG:-pg_config}" --sharedir)/extension"
    cp "$(dirname "${BASH_SOURCE[0]}")/../../sql/dpobj--$ver.sql" "$dir/" || return 1
    "$@"
    rc=$?
    rm -f "$dir/dpobj--$ver.sql"
    return $rc
}
with_old_install_script() { with_release_script 0.1.0 "$@"; }
