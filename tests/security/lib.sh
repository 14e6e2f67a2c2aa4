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
