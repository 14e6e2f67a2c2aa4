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

# The install script of 0.1.0 is released but no longer installed (sql/dpobj--0.1.0.sql;
# its upgrade scripts are, so 0.1.0 and 0.2.0 databases still update).  A test that sets
# up an old release installs it for its own length: with_old_install_script CMD... runs
# CMD with the file in the server's extension directory and removes it afterwards, also
# when CMD fails.
with_old_install_script() {
    local dir rc
    dir="$("${PG_CONFIG:-pg_config}" --sharedir)/extension"
    cp "$(dirname "${BASH_SOURCE[0]}")/../../sql/dpobj--0.1.0.sql" "$dir/" || return 1
    "$@"
    rc=$?
    rm -f "$dir/dpobj--0.1.0.sql"
    return $rc
}
