#!/usr/bin/env bash
# tests/security/leakprobe.sh — a cheap leaky function in WHERE must never see a row that
# the role may not see, on any view or table dpobj exposes (docs/SECURITY.md, "Threats
# and defences").  A view owned by a superuser skips the row-level security of the tables
# under it; without a security barrier the planner may evaluate the caller's cheapest
# qual first, so a plpgsql function with COST 0.0000001 that RAISEs its arguments saw
# every role's budgets through dpobj.my_budgets.  The relations are taken from the
# catalog (the extension's members); each is probed as an analyst with a budget and as a
# role without one, while another analyst has a budget, ledger rows, a model and a job.
# The function takes the whole row (a row expression costs nothing, so the function stays
# the cheapest qual; casts to text would not) and returns true, so every row it sees
# passes its own qual: it saw more rows than the query returned exactly when it saw rows
# the restriction drops.  A control view
# without a barrier proves that the probe detects such a leak.
# Needs PGHOST/PGPORT/PGUSER (a superuser), dpobj installed and preloaded (jobs).
set -uo pipefail
DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=tests/security/lib.sh
. "$DIR/lib.sh"
DB=dpobj_leakprobe
ALICE=dpobj_lp_alice
BOB=dpobj_lp_bob
EVE=dpobj_lp_eve
TRAIN="dpobj.train('pts', 'opdisc', ARRAY['a', 'b'], 'y', 0.1, 0.00001"

for r in "$ALICE" "$BOB" "$EVE"; do t_role "$r" >/dev/null || exit 1; done
t_fresh_db "$DB" >/dev/null || exit 1
t_psql -d "$DB" -c "$T_TABLE_SQL" -c "SELECT dpobj.protect('pts')" \
    -c "SELECT 1 FROM dpobj.grant_budget('pts', '$ALICE', 1, 0.001)" \
    -c "SELECT 1 FROM dpobj.grant_budget('pts', '$BOB', 1, 0.001)" \
    -c "SET ROLE $BOB" -c "SELECT 1 FROM $TRAIN, model_name => 'bobs_model')" \
    -c "RESET ROLE" -c "SET ROLE $ALICE" -c "SELECT 1 FROM $TRAIN, model_name => 'alices_model')" >/dev/null || exit 1
job=$(t_psql -d "$DB" -c "SET ROLE $BOB" -c "SELECT dpobj.submit('pts', 'opdisc', ARRAY['a'], 'y', 0.1, 0.00001)")
for _ in $(seq 1 120); do
    state=$(t_psql -d "$DB" -c "SELECT state FROM dpobj.job_queue WHERE id = $job")
    [[ $state != queued && $state != running ]] && break
    sleep 0.5
done
t_is "the other analyst's job finished" "$state" "succeeded"

# the attacker's function (not LEAKPROOF: only a superuser may declare that), and a
# control view with the same restriction as dpobj.my_budgets but no security barrier
t_psql -d "$DB" -c "CREATE SCHEMA probe" -c "GRANT USAGE, CREATE ON SCHEMA probe TO PUBLIC" \
    -c "CREATE VIEW probe.control AS SELECT b.relid, b.rolid, b.granted_epsilon FROM dpobj.budgets b
         WHERE b.rolid::oid = (SELECT oid FROM pg_catalog.pg_roles WHERE rolname = current_user)" \
    -c "GRANT SELECT ON probe.control TO PUBLIC" -c "SET ROLE $EVE" \
    -c "CREATE FUNCTION probe.peek(v anyelement) RETURNS boolean LANGUAGE plpgsql COST 0.0000001
         AS \$\$ BEGIN RAISE NOTICE 'leak-probe: %', v; RETURN true; END \$\$" >/dev/null || exit 1

# probe_all ROLE RELATION: the first "ARG seen/returned" where the function saw more rows
# than were returned, else "none (N rows)"; seen/returned are those of
# SELECT count(*) FROM RELATION r WHERE probe.peek(ARG).  The argument is the whole row
# and then each column alone: a plain column costs nothing to evaluate, so the function
# is then the cheapest qual (a computed column in the row would cost more than the
# view's restriction).  All the probes of a relation run in one psql session (a psql
# per probe cost most of this script's time), a marker line before each one's output
# (stdout and stderr in order: psql flushes stdout before every message).
probe_all() {
    local role=$1 rel=$2 arg line rows="" k=-1 i
    local -a args=(r) seen=() returned=() text=()
    mapfile -t -O 1 args < <(t_psql -d "$DB" -c "SELECT format('r.%I', attname) FROM pg_attribute
                                    WHERE attrelid = '$rel'::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum")
    while IFS= read -r line; do
        if [[ $line == '@@@ probe' ]]; then
            k=$((k + 1)) seen[k]=0 returned[k]="" text[k]=""
            continue
        fi
        ((k >= 0)) || continue
        text[k]+="$line "
        [[ $line == *leak-probe:* ]] && seen[k]=$((seen[k] + 1))
        [[ $line =~ ^[0-9]+$ ]] && returned[k]=$line
    done < <(for arg in "${args[@]}"; do
                 printf '\\echo @@@ probe\nSET ROLE %s;\nSELECT count(*) FROM %s r WHERE probe.peek(%s);\n' \
                     "$role" "$rel" "$arg"
             done | psql -X -q -At -d "$DB" -f - 2>&1)
    for ((i = 0; i < ${#args[@]}; i++)); do
        if [[ -z ${returned[i]:-} ]] || (( seen[i] != returned[i] )); then
            echo "${args[i]} ${seen[i]:-0}/${returned[i]:-error: ${text[i]:-no output}}"
            return
        fi
        rows=${returned[i]}
    done
    echo "none ($rows rows)"
}

got=$(probe_all "$ALICE" probe.control)
t_check "control: the probe detects a view without a barrier (leak: $got)" \
    bash -c '[[ $1 =~ ^[^\ ]+\ ([0-9]+)/([0-9]+)$ ]] && (( BASH_REMATCH[1] > BASH_REMATCH[2] ))' _ "$got"

mapfile -t RELS < <(t_psql -d "$DB" -c "
    SELECT c.oid::regclass FROM pg_class c
     WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f')
       AND c.oid IN (SELECT d.objid FROM pg_depend d JOIN pg_extension e ON e.oid = d.refobjid
                      WHERE e.extname = 'dpobj' AND d.classid = 'pg_class'::regclass
                        AND d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e')
     ORDER BY 1")
t_check "the catalog lists dpobj's tables and views (${#RELS[@]})" test "${#RELS[@]}" -ge 5
alice_rows=0
for rel in "${RELS[@]}"; do
    for role in "$ALICE" "$EVE"; do
        if [[ $(t_psql -d "$DB" -c "SELECT has_table_privilege('$role', '$rel', 'SELECT')") != t ]]; then
            continue
        fi
        got=$(probe_all "$role" "$rel")
        [[ $role == "$ALICE" && $got =~ ^none\ \(([0-9]+) ]] && alice_rows=$((alice_rows + BASH_REMATCH[1]))
        t_check "$rel as $role: a cheap leaky function sees only the rows returned (leak: $got)" \
            bash -c '[[ $1 == none* ]]' _ "$got"
    done
done
t_check "the analyst's own rows reached the function (not a vacuous probe: $alice_rows rows)" \
    test "$alice_rows" -ge 5

t_psql -d "$DB" -c "SET dpobj.drop_confirm = '$DB'" -c "DROP EXTENSION dpobj CASCADE" >/dev/null 2>&1
t_psql -d postgres -c "DROP DATABASE $DB" -c "DROP ROLE $ALICE" -c "DROP ROLE $BOB" -c "DROP ROLE $EVE" >/dev/null
t_summary
