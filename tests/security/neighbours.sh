#!/usr/bin/env bash
# tests/security/neighbours.sh — the neighbour harness (docs/SECURITY.md).
#
# An analyst may learn the DP output of a run and nothing else.  This harness builds two
# databases whose tables differ in exactly one row (scenarios.txt: an empty vs a one-row
# selection, NaN / NULL / infinite / 1e300 / 7.31e-400 values, a NULL or flipped label,
# an indexed filter column), runs every mechanism (the families' [neighbours] lines,
# tests/families/README) in both through
# dpobj.train() and through dpobj.submit() (jobs: see JOB_EVERY), and dpobj.evaluate() with every model of
# eval_models.txt (valid and forged), dpobj.aggregate(), a private SQL query and dpobj.synthesize(), as the analyst, and asserts
# that everything observable except the DP output (weights, bias) is identical:
#   - SQLSTATE, message, detail, hint, context and source location of any error, every
#     NOTICE (dpobj.progress is on), the model's mechanism, epsilon, delta, params and
#     dimension;
#   - the run's ledger rows (mechanism, epsilon, delta, relation, outcome, detail,
#     budget link) and the budget it spent;
#   - pg_stat_xact_user_tables of the table (scans, tuples read and fetched) and
#     pg_stat_xact_user_functions (track_functions = 'all' in both databases; side b's
#     dpobj tables have planner statistics, side a's do not: see skew_catalogs);
#   - for jobs: state, error text, SQLSTATE and the stored model's public part, and the
#     ledger rows of the scenario's jobs.
# Private model selection's params "selected" and the chosen mechanism's own params and
# weights' size are DP output too ("DPOUT params" lines); its other params are compared.
# So is an additive model's "counts" (its released noisy bin counts), a boosted-trees
# model's "splits" (its released splits and gains), with private bins
# ("binning": "private") its "terms" (the numeric terms' cuts) and its weights' size, with
# "residual_clip": "by_size" its "sigma" (the clip's noise, chosen by the counts), and a
# binary classifier's operating point: "threshold" and the balance estimate's
# "balance_counts", "balance_weight_true", "balance_weight_false".
# So are R-hat and the calibration derived from it in a model with "R": "private"
# (private_r_public_params.txt lists what is compared); a tuned noisy GD model's grid point
# and what it sets are DP output (tune_public_params.txt).
# For "continuous" mechanisms it also checks that the DP output is not exactly zero in
# either database (a continuous output has no atom: zero means no noise was added).
#
# expected_failures.txt lists the (scenario, mechanism, path, check) combinations that
# still leak on this branch because their fix belongs to another change; they print as
# "not ok ... # TODO(owner)" and do not count as failures, and print "ok ... # TODO
# fixed" once they pass, so that the line can be removed.
#
# Both databases set dpobj.max_state_memory to its least value, 64kB: the scenario
# "spill" straddles the GLM states' spill and "sample" the row sample of the states that
# keep their rows in memory (scenarios.txt: the sample_* lines straddle each kind's K).
#
# NB_PARALLEL=1 runs every train() as a caller whose settings ask for parallel plans, so
# that the mechanisms train() lets run in parallel read the rows in a parallel worker.
#
# Needs a running server through PGHOST/PGPORT/PGUSER (a superuser) with dpobj installed
# and preloaded (jobs).  Last line: "N passed, M failed".
set -uo pipefail
DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=tests/security/lib.sh
. "$DIR/lib.sh"
# shellcheck source=tests/families/lines.sh
. "$DIR/../families/lines.sh"

ROLE=dpobj_nb_analyst
# Once a budget has composed a zCDP run it refuses approximate-DP mechanisms
# (docs/PRIVACY.md): the train() runs run the zCDP ones last (neighbour_lines), and
# the later runs (models by name, jobs, which run concurrently) charge roles of their own,
# granted only after the train() and evaluate() runs -- another role's budget on a table
# changes the analyst's row-level-security calls (can_administer), whose counters the
# function stats show.
AROLE=dpobj_nb_analyst_jobs
ZROLE=dpobj_nb_zanalyst
role_of() { # MECH OPTS: the role whose budget a job charges, in JOB_ROLE
    # the runs charged in zCDP: their own budget, so that jobs running concurrently never
    # mix zCDP and approximate-DP charges on one budget in varying order
    if zcdp_run "$1" "$2"; then JOB_ROLE=$ZROLE; else JOB_ROLE=$AROLE; fi
}
DBS=(dpobj_nb_a dpobj_nb_b)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/dpobj-neighbours.XXXXXX")
# A job is short: its time is mostly the start of its workers (a scheduler, then the
# job's own), so more jobs in flight shorten the wait.  While this script's jobs run,
# the server's limits dpobj.max_jobs and dpobj.max_runs_per_role (2 by default) are 4;
# afterwards (and on any exit) their previous ALTER SYSTEM values, or none, come back.
JOBS_CONF=()
jobs_conf() { # set | restore
    local name old sql=()
    if [[ $1 == set ]]; then
        for name in dpobj.max_jobs dpobj.max_runs_per_role; do
            old=$(t_psql -d postgres -c "SELECT setting FROM pg_file_settings
                    WHERE name = '$name' AND sourcefile LIKE '%postgresql.auto.conf' ORDER BY seqno DESC LIMIT 1")
            JOBS_CONF+=("$name=$old")
            sql+=(-c "ALTER SYSTEM SET $name = 4")
        done
    else
        for name in "${JOBS_CONF[@]}"; do
            old=${name#*=} name=${name%%=*}
            if [[ -n $old ]]; then sql+=(-c "ALTER SYSTEM SET $name = '$old'"); else sql+=(-c "ALTER SYSTEM RESET $name"); fi
        done
        JOBS_CONF=()
    fi
    ((${#sql[@]})) && t_psql -d postgres "${sql[@]}" -c "SELECT pg_reload_conf()" >/dev/null
}
trap 'jobs_conf restore; [[ -n ${DPOBJ_KEEP_WORK:-} ]] || rm -rf "$WORK"' EXIT
T_TODO=0
EPS=0.5
DELTA=0.00001

trim() {
    local s="$1"
    s="${s#"${s%%[![:space:]]*}"}"
    printf '%s' "${s%"${s##*[![:space:]]}"}"
}

# phase NAME: a comment line with the seconds since the start (where the time goes)
phase() { printf '# %s done at %s s\n' "$1" "$SECONDS"; }

# NB_MECHANISMS / NB_SCENARIOS / NB_EVAL_MODELS (regular expressions) select a subset,
# for debugging;
# DPOBJ_KEEP_WORK=1 keeps the run files and the two databases.
NB_LINES=$(neighbour_lines) || { echo "not ok - the families' [neighbours] lines"; exit 1; }
mapfile -t MECHS < <(grep -E "^(${NB_MECHANISMS:-.*})[[:space:]]" <<<"$NB_LINES")
mapfile -t SCENS < <(grep -vE '^[[:space:]]*(#|$)' "$DIR/scenarios.txt" | grep -E "^(${NB_SCENARIOS:-.*})[[:space:]]")
mapfile -t XFAIL < <(grep -vE '^[[:space:]]*(#|$)' "$DIR/expected_failures.txt")
# the public params of a private model selection, as a text[] literal
SELECTION_PUBLIC="{$(grep -vE '^[[:space:]]*(#|$)' "$DIR/selection_public_params.txt" | paste -sd, -)}"
# the public params of a model with "R": "private" (R-hat and what derives from it are DP output)
PRIVATE_R_PUBLIC="{$(grep -vE '^[[:space:]]*(#|$)' "$DIR/private_r_public_params.txt" | paste -sd, -)}"
# the public params of a tuned noisy GD model (its grid point and what it sets are DP output)
TUNE_PUBLIC="{$(grep -vE '^[[:space:]]*(#|$)' "$DIR/tune_public_params.txt" | paste -sd, -)}"
mapfile -t EMODELS < <(grep -vE '^[[:space:]]*(#|$)' "$DIR/eval_models.txt" | grep -E "^(${NB_EVAL_MODELS:-.*})[[:space:]]")

# xfail SCEN MECH PATH CHECK: true if the combination is listed, its TODO reason in
# XFAIL_REASON (a variable, not output: no subshell per check)
xfail() {
    local line s m p c rest
    for line in "${XFAIL[@]}"; do
        read -r s m p c rest <<<"$line"
        # shellcheck disable=SC2053
        if [[ $1 == $s && $2 == $m && $3 == $p && $4 == $c ]]; then
            XFAIL_REASON=$rest
            return 0
        fi
    done
    return 1
}

# result DESCRIPTION SCEN MECH PATH CHECK STATUS [DIFF-FILE]
result() {
    local desc="$1" reason
    if xfail "$2" "$3" "$4" "$5"; then
        reason=$XFAIL_REASON
        T_TODO=$((T_TODO + 1))
        T_PASS=$((T_PASS + 1))
        if [[ $6 == 0 ]]; then
            printf 'ok - %s # %s (fixed: remove it from expected_failures.txt)\n' "$desc" "$reason"
        else
            printf 'not ok - %s # %s\n' "$desc" "$reason"
        fi
    elif [[ $6 == 0 ]]; then
        T_PASS=$((T_PASS + 1))
        printf 'ok - %s\n' "$desc"
    else
        T_FAIL=$((T_FAIL + 1))
        printf 'not ok - %s\n' "$desc"
        [[ -n ${7:-} ]] && cut -c1-160 "$7" | sed "s/^/#   /" | head -n 24
    fi
    return 0
}

# ---- setup: two databases, one table per scenario, the last row differs ---------------
# Columns: (id, grp [indexed], a numeric, b float8, c int, y boolean, k int) and
# x1..x7 generated from coalesce(k, id); base row g has the values below.
BASE_ROW="g, g % 4, ((g * 7) % 9) / 8.0 - 0.5, ((g * 5) % 7) / 6.0 - 0.5, g % 3, (g * 3) % 5 > 1"

# the SQL that adds the differing row of a scenario (see scenarios.txt)
row_sql() {
    local t="$1" spec="$2" id="$3" n
    case "$spec" in
        base)
            printf 'INSERT INTO %s (id, grp, a, b, c, y) SELECT %s FROM generate_series(%s, %s) g;' \
                "$t" "$BASE_ROW" "$id" "$id" ;;
        copy\ *)
            n=${spec#copy }
            printf 'INSERT INTO %s (id, grp, a, b, c, y, k) SELECT %s, grp, a, b, c, y, coalesce(k, id) FROM %s WHERE id = %s;' \
                "$t" "$id" "$t" "$n" ;;
        none) ;;
        units\ *)
            # "units U N S": N rows of privacy unit U (NULL allowed), values from seed S
            local u n s
            read -r u n s <<<"${spec#units }"
            printf 'INSERT INTO %s (id, grp, a, b, c, y, u) SELECT 1000 + g, g %% 4, ((g * %s) %% 9) / 8.0 - 0.5, ((g * %s) %% 7) / 6.0 - 0.5, g %% 3, (g * %s) %% 5 > 1, %s FROM generate_series(1, %s) g;' \
                "$t" "$s" "$((s + 2))" "$((s + 1))" "$u" "$n" ;;
        *)
            printf 'INSERT INTO %s (id, grp, a, b, c, y) VALUES %s;' "$t" "$spec" ;;
    esac
}

# the owner's declared domains of a scenario (9th field: "col=l1,l2" levels or
# "col=lo:hi" bounds, separated by ';'), as dpobj.declare_domain() calls
domain_sql() {
    local t="$1" spec="$2" item col dom items
    [[ -z $spec || $spec == - ]] && return 0
    IFS=';' read -ra items <<<"$spec"
    for item in "${items[@]}"; do
        col=${item%%=*} dom=${item#*=}
        if [[ $dom == *:* ]]; then
            printf "SELECT dpobj.declare_domain('%s', '%s', %s, %s);" "$t" "$col" "${dom%%:*}" "${dom#*:}"
        else
            printf "SELECT dpobj.declare_domain('%s', '%s', string_to_array('%s', ','));" "$t" "$col" "$dom"
        fi
    done
}

setup_db() {
    local db="$1" side="$2" line name feats filter rowa rowb nbase skip unitk domains bdomain row sql xcols="" protect
    local umod link ujoin
    local grant peer charges=""
    t_psql -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" &&
        t_psql -d "$db" -c "CREATE EXTENSION dpobj" \
            -c "ALTER DATABASE $db SET track_functions = 'all'" \
            -c "ALTER DATABASE $db SET dpobj.max_state_memory = '64kB'" || return 1
    # NB_PARALLEL=1: a parallel plan wherever train() allows one, even on these one-page
    # tables, and its worker, not the leader, reads the rows (tests/security/parallel.sh)
    if [[ -n ${NB_PARALLEL:-} ]]; then
        t_psql -d "$db" -c "ALTER DATABASE $db SET max_parallel_workers_per_gather = 2" \
            -c "ALTER DATABASE $db SET min_parallel_table_scan_size = 0" \
            -c "ALTER DATABASE $db SET parallel_leader_participation = off" >/dev/null || return 1
    fi
    local j=0 m q
    for p in "3 11" "11 13" "13 17" "17 19" "19 23" "23 29" "29 31"; do
        read -r m q <<<"$p"
        j=$((j + 1))
        xcols+=", x$j numeric GENERATED ALWAYS AS (((coalesce(k, id) * $m) % $q) / $((q - 1)).0 - 0.5) STORED"
    done
    # a date (c's days after 2024-01-01; NULL c: NULL), undeclared: date - date in private SQL
    xcols+=", dt date GENERATED ALWAYS AS (date '2024-01-01' + c % 1000) STORED"
    sql=""
    for line in "${SCENS[@]}"; do
        IFS='|' read -r name feats filter rowa rowb nbase skip unitk domains bdomain _ <<<"$line"
        name=$(trim "$name") nbase=$(trim "${nbase:-}") unitk=$(trim "${unitk:-}")
        domains=$(trim "${domains:-}") bdomain=$(trim "${bdomain:-}")
        # 8th field: k of the privacy unit u (base row g is in unit g % 10), or "k/m":
        # base row g is in unit g % m
        umod=10
        if [[ $unitk == */* ]]; then
            umod=${unitk#*/} unitk=${unitk%%/*}
        fi
        protect="SELECT dpobj.protect('t_$name');"
        [[ -n $unitk && $unitk != - ]] && protect="SELECT dpobj.protect('t_$name', 'u', $unitk);"
        [[ -z $nbase || $nbase == - ]] && nbase=40
        grant="SELECT 1 FROM dpobj.grant_budget('t_$name', '$ROLE', 10000, 0.5);"
        peer=""
        # 10th field "domain": the table and a peer (its base rows, the same in both
        # databases) share the budget domain d_<name>, and the peer has spent some of it
        if [[ $bdomain == domain ]]; then
            protect="SELECT dpobj.create_budget_domain('d_$name');
                     SELECT dpobj.protect('t_$name', 'u', $unitk, 'd_$name');"
            grant="SELECT 1 FROM dpobj.grant_domain_budget('d_$name', '$ROLE', 10000, 0.5);"
            peer="CREATE TABLE t_${name}_peer AS SELECT id, grp, a, b, c, y, k, u FROM t_$name WHERE id <= $nbase;
                  REVOKE ALL ON t_${name}_peer FROM PUBLIC;
                  SELECT dpobj.protect('t_${name}_peer', 'u', $unitk, 'd_$name');"
            # after the setup has committed: the ledger writer must see the budget
            charges+="SET ROLE $ROLE;
                  SELECT 1 FROM dpobj.train('t_${name}_peer', 'expmech', ARRAY['a', 'b'], 'y', 1, 1e-6);
                  RESET ROLE;"
        fi
        # 10th field "link": the table reaches its unit through foreign keys, t_<name> ->
        # o_<name> (its unit-u rows in two orders, by id's parity) -> c_<name> (one row per
        # unit), and the three tables differ in all rows of one customer (docs/PRIVACY.md
        # "Units through foreign keys"); the customers' table is in the budget domain d_<name>
        link=""
        if [[ $bdomain == link ]]; then
            link="CREATE TABLE c_$name (id int PRIMARY KEY, seg int);
                  INSERT INTO c_$name SELECT DISTINCT u, u % 3 FROM t_$name WHERE u IS NOT NULL;
                  CREATE TABLE o_$name (id int PRIMARY KEY, customer_id int REFERENCES c_$name);
                  INSERT INTO o_$name SELECT DISTINCT 1000 + 2 * u + id % 2, u FROM t_$name WHERE u IS NOT NULL;
                  ALTER TABLE t_$name ADD COLUMN order_id int REFERENCES o_$name;
                  UPDATE t_$name SET order_id = 1000 + 2 * u + id % 2;
                  ANALYZE c_$name; ANALYZE o_$name;
                  REVOKE ALL ON c_$name, o_$name FROM PUBLIC;"
            protect="SELECT dpobj.create_budget_domain('d_$name');
                     SELECT dpobj.protect('c_$name', 'id', 1, 'd_$name');
                     SELECT dpobj.link_unit('t_$name', ARRAY['o_$name', 'c_$name']::regclass[], $unitk);"
            grant="SELECT 1 FROM dpobj.grant_domain_budget('d_$name', '$ROLE', 10000, 0.5);"
        fi
        # 10th field "unitjoin": a second protected table j_<name> of the budget domain
        # d_<name> holds 1 to 4 rows of each unit of t_<name> (as many as the unit has rows,
        # at most 4), so the two databases differ in one unit's rows in both tables; the
        # private query joins them on the unit (src/protected/unitjoin.c)
        ujoin=""
        if [[ $bdomain == unitjoin ]]; then
            ujoin="CREATE TABLE j_$name (u int, seg int);
                   INSERT INTO j_$name SELECT u, (u + s) % 3 FROM (SELECT u, count(*) AS n FROM t_$name
                    WHERE u IS NOT NULL GROUP BY u) d, generate_series(1, least(n, 4)::int) s;
                   ANALYZE j_$name;
                   REVOKE ALL ON j_$name FROM PUBLIC;"
            protect="SELECT dpobj.create_budget_domain('d_$name');
                     SELECT dpobj.protect('t_$name', 'u', $unitk, 'd_$name');
                     SELECT dpobj.protect('j_$name', 'u', 2, 'd_$name');"
            grant="SELECT 1 FROM dpobj.grant_domain_budget('d_$name', '$ROLE', 10000, 0.5);"
        fi
        [[ $side == a ]] && row=$(trim "$rowa") || row=$(trim "$rowb")
        sql+="CREATE TABLE t_$name (id int, grp int, a numeric, b float8, c int, y boolean, k int, u int$xcols);
              INSERT INTO t_$name (id, grp, a, b, c, y, u) SELECT $BASE_ROW, g % $umod FROM generate_series(1, $nbase) g;
              $(row_sql "t_$name" "$row" $((nbase + 1)))
              $link
              $ujoin
              CREATE INDEX ON t_$name (grp);
              ANALYZE t_$name;
              REVOKE ALL ON t_$name FROM PUBLIC;
              $protect
              $grant
              $peer
              $(domain_sql "t_$name" "$domains")"
    done
    t_psql -d "$db" -c "$sql" >/dev/null || return 1
    [[ -z $charges ]] || t_psql -d "$db" -c "$charges" >/dev/null
}

# the scenario skips the mechanism (7th field of scenarios.txt: regular expressions,
# alternatives separated by commas, since '|' separates the fields)
skips() {
    local skip="${1:-}"
    skip="${skip#"${skip%%[![:space:]]*}"}" skip="${skip%"${skip##*[![:space:]]}"}"
    skip=${skip//,/|}
    [[ -n $skip && $skip != - && $2 =~ ^($skip)$ ]]
}

# options of a run: the mechanism's plus the scenario's filter
run_options() { # OPTS FILTER: in RUN_OPTS (a variable: no subshell per run)
    local opts="$1" filter="$2"
    if [[ $filter == - ]]; then
        RUN_OPTS=$opts
    elif [[ $opts == '{}' ]]; then
        RUN_OPTS="{\"filter\":$filter}"
    else
        RUN_OPTS="${opts%\}},\"filter\":$filter}"
    fi
}

# what the analyst sees of one train() run; DP output on "DPOUT" lines
train_script() {
    cat <<'SQL'
\set VERBOSITY verbose
\set SHOW_CONTEXT always
\set ON_ERROR_ROLLBACK on
\pset null (null)
SET dpobj.progress = on;
-- an attacker's settings: prefer index scans (their counters would count selected rows)
SET enable_seqscan = off;
SET random_page_cost = 0.001;
-- enable_seqscan = off costs every plan above jit_above_cost, so JIT would compile each
-- of the harness's own queries (ledger, budgets, statistics: ~0.2 s apiece): off for
-- them; the run itself keeps the server's setting (RESET below)
SET jit = off;
SET ROLE :"role";
SELECT coalesce(max(id), 0) AS before FROM dpobj.ledger \gset
SELECT coalesce(sum(spent_epsilon), 0) AS spent_before FROM dpobj.my_budgets
 WHERE relation = :'rel'::regclass OR :'rel'::regclass = ANY (domain_tables) \gset
-- the statistics pending from the statements above (the accountant's functions in
-- my_budgets) are flushed now, so that the function stats below count this run's
-- transaction only, whatever the timing of the background flush
RESET ROLE;
SELECT pg_stat_force_next_flush() \gset
SET ROLE :"role";
RESET jit;
BEGIN;
-- private model selection (params "selected"): the choice and the chosen mechanism's
-- own params and size (an additive choice's score tables) are DP output; the
-- selection's public params are compared
SELECT 'model', (m).mechanism, (m).epsilon, (m).delta,
       (m).params - ARRAY(SELECT k FROM jsonb_object_keys((m).params) k
                      WHERE ((m).params ? 'selected' AND k <> ALL (:'pubkeys'::text[]))
                         OR ((m).params->>'R_source' = 'private' AND k <> ALL (:'privrkeys'::text[]))
                         OR ((m).params ? 'tune_point' AND k <> ALL (:'tunekeys'::text[]))
                         OR k = ANY ('{counts,splits,threshold,balance_counts,balance_weight_true,balance_weight_false}') OR (k = 'terms' AND (m).params->>'binning' = 'private') OR (k = 'sigma' AND (m).params->>'residual_clip' = 'by_size')),
       CASE WHEN NOT (m).params ? 'selected' AND (m).params->>'binning' IS DISTINCT FROM 'private'
            THEN cardinality((m).weights) END,
       E'\nDPOUT params', cardinality((m).weights), (m).params - ARRAY(SELECT k FROM jsonb_object_keys((m).params) k
                      WHERE NOT (((m).params ? 'selected' AND k <> ALL (:'pubkeys'::text[]))
                         OR ((m).params->>'R_source' = 'private' AND k <> ALL (:'privrkeys'::text[]))
                         OR ((m).params ? 'tune_point' AND k <> ALL (:'tunekeys'::text[]))
                         OR k = ANY ('{counts,splits,threshold,balance_counts,balance_weight_true,balance_weight_false}') OR (k = 'terms' AND (m).params->>'binning' = 'private') OR (k = 'sigma' AND (m).params->>'residual_clip' = 'by_size'))),
       E'\nDPOUT', (SELECT bool_and(w = 0) FROM unnest((m).weights) w)
  FROM dpobj.train(:'rel', :'mech', string_to_array(:'feats', ','), :'label', :eps, :delta,
                   :'opts'::jsonb) m;
SET LOCAL jit = off;
SELECT 'table stats', seq_scan, seq_tup_read, coalesce(idx_scan, 0), coalesce(idx_tup_fetch, 0)
  FROM pg_stat_xact_user_tables WHERE relid = :'rel'::regclass
    OR relid IN (SELECT unnest(path) FROM dpobj.unit_links WHERE relid = :'rel'::regclass)
 ORDER BY relid;
SELECT 'function stats', funcname, calls FROM pg_stat_xact_user_functions ORDER BY funcname;
COMMIT;
SET jit = off;
SELECT 'ledger', mechanism, epsilon, delta, relation, outcome, detail, budget_id IS NOT NULL,
       privacy_unit, rows_per_unit, kind, rho, accounted, budget_domain
  FROM dpobj.ledger WHERE id > :before ORDER BY id;
SELECT 'spent', sum(spent_epsilon) - :spent_before FROM dpobj.my_budgets
 WHERE relation = :'rel'::regclass OR :'rel'::regclass = ANY (domain_tables);
-- the odometer: what is left, the zCDP part, how many more runs of this kind fit
SELECT 'odometer', m.remaining_epsilon, m.remaining_delta, m.runs_left, a.spent_rho, a.approx_admitted,
       dpobj.runs_left(:'rel', :'mech', :eps, :delta, :'opts'::jsonb)
  FROM dpobj.my_budgets m JOIN dpobj.budget_accounting a
       ON a.relation IS NOT DISTINCT FROM m.relation AND a.budget_domain IS NOT DISTINCT FROM m.budget_domain
       AND a.analyst::oid = (SELECT oid FROM pg_roles WHERE rolname = current_user)
 WHERE m.relation = :'rel'::regclass OR :'rel'::regclass = ANY (m.domain_tables);
SQL
}

# the start of an evaluate() or aggregate() script: train_script's settings (an attacker's
# index-scan preference, JIT off for the harness's own queries), the ledger's last id, the
# statistics flushed, then the run's transaction
run_preamble() {
    cat <<'SQL'
\set VERBOSITY verbose
\set SHOW_CONTEXT always
\set ON_ERROR_ROLLBACK on
\pset null (null)
SET dpobj.progress = on;
SET enable_seqscan = off;
SET random_page_cost = 0.001;
SET jit = off;
SET ROLE :"role";
SELECT coalesce(max(id), 0) AS before FROM dpobj.ledger \gset
RESET ROLE;
SELECT pg_stat_force_next_flush() \gset
SET ROLE :"role";
RESET jit;
BEGIN;
SQL
}

# what the analyst sees of one dpobj.evaluate() run: a public model of eval_models.txt
# (possibly forged) with one weight per feature; the released counts are the DP output.
# It runs at its default delta 0 (epsilon-DP).
eval_script() {
    run_preamble
    cat <<'SQL'
-- a multi-class model (params "classes"): K weight vectors, "dims" [K, d], label c;
-- an additive one (params "link"): a term per feature, numeric of "bins" bins or else a
-- one-hot group of size 1
SELECT 'evaluation', e->'noise', e->'epsilon', E'\nDPOUT', e - 'noise' - 'epsilon' - 'delta'
  FROM (SELECT cardinality(string_to_array(:'feats', ',')) AS d,
               coalesce(jsonb_array_length(:'params'::jsonb->'classes'), 1) AS nk,
               coalesce((:'params'::jsonb->>'bins')::int, 1) AS nb) s,
       LATERAL dpobj.evaluate(:'rel',
         ROW(:'emech', array_fill(:'weight'::float8, ARRAY[s.d * s.nk * s.nb]), :'bias'::float8, 1, 1e-6,
             CASE WHEN s.nk > 1
                  THEN :'params'::jsonb || jsonb_build_object('dims', jsonb_build_array(s.nk, s.d))
                  WHEN :'params'::jsonb ? 'link'
                  THEN :'params'::jsonb || jsonb_build_object('terms',
                       (SELECT jsonb_agg(CASE WHEN :'params'::jsonb ? 'bins'
                          THEN jsonb_build_object('type', 'numeric', 'index', j, 'lo', -1, 'hi', 1, 'bins', s.nb)
                          ELSE jsonb_build_object('type', 'categorical', 'index', j, 'size', 1) END ORDER BY j)
                          FROM generate_series(0, s.d - 1) j))
                  ELSE :'params'::jsonb END)::dpobj.model,
         string_to_array(:'feats', ','), CASE WHEN s.nk > 1 THEN 'c' ELSE 'y' END,
         :eps, options => :'opts'::jsonb) e;
SET LOCAL jit = off;
SELECT 'table stats', seq_scan, seq_tup_read, coalesce(idx_scan, 0), coalesce(idx_tup_fetch, 0)
  FROM pg_stat_xact_user_tables WHERE relid = :'rel'::regclass
    OR relid IN (SELECT unnest(path) FROM dpobj.unit_links WHERE relid = :'rel'::regclass)
 ORDER BY relid;
SELECT 'function stats', funcname, calls FROM pg_stat_xact_user_functions ORDER BY funcname;
COMMIT;
SET jit = off;
SELECT 'ledger', mechanism, epsilon, delta, relation, outcome, detail, budget_id IS NOT NULL
  FROM dpobj.ledger WHERE id > :before ORDER BY id;
SQL
}

# add_run DRIVER OUTFILE SCRIPT VAR=VALUE...: appends one run to a database's driver
# script (see run_driver): a new connection -- a fresh backend, as if the run had a psql
# of its own --, the variables, a marker naming the run's file, the script
add_run() {
    local driver="$1" out="$2" script="$3" v val
    shift 3
    {
        printf '\\set QUIET on\n\\connect\n\\set QUIET off\n\\unset before\n\\unset spent_before\n'
        for v in "$@"; do
            val=${v#*=} val=${val//\\/\\\\} val=${val//\'/\\\'}
            printf "\\\\set %s '%s'\n" "${v%%=*}" "$val"
        done
        printf '\\echo @@@ %s\n\\i %s\n' "$out" "$script"
    } >>"$driver"
}

# run_driver DB DRIVER: runs a driver script in one psql process (starting a psql costs
# more than most runs) and splits its output (stdout and stderr in order: psql flushes
# stdout before every message) into the runs' files.
#   Elapsed seconds are wall time, not data: normalised.  So is the number of the
# periodic "solving" lines (one per 2 s of solving, progress.c): a run near 2 s could
# print one in one database only, by the machine's load or the noise's effect on the
# solver, and fail the comparison by chance.  A sealed run's phases only move forward,
# so a progress line equal to the previous one (with its LOCATION line) is such a
# repeat: dropped.  Each phase's first line is still compared.
run_driver() {
    psql -X -At -d "$1" -f - <"$2" >"$2.out" 2>&1
    awk '
        /^@@@ / { if (f != "") close(f); f = $2; printf "" >f; skip = 0; last = ""; next }
        f == "" { next }
        { sub(/[0-9]+ s elapsed/, "N s elapsed") }
        skip && /^LOCATION:/ { skip = 0; next }
        { skip = 0 }
        /NOTICE: .*dpobj progress: / { if ($0 == last) { skip = 1; next } last = $0 }
        { print >f }' "$2.out"
}

# observables (no DP output) of a run file, for the diff shown on a failure
observables() { grep -v '^DPOUT' "$1"; }

# read_run FILE: the run file's observables (every line but the "DPOUT" ones) in OBS;
# ALLZERO=1 if a DP output line says all zero ("DPOUT|t").  Bash builtins only: a few
# processes per check would cost more than the runs (~900 pairs).  A missing file
# (its run never reported) gets observables of its own name, so that it never matches.
read_run() {
    local line
    OBS="" ALLZERO=0
    if [[ ! -r $1 ]]; then
        OBS="no file $1"
        return
    fi
    while IFS= read -r line || [[ -n $line ]]; do
        if [[ $line == DPOUT* ]]; then
            [[ $line == 'DPOUT|t' ]] && ALLZERO=1
        else
            OBS+=$line$'\n'
        fi
    done <"$1"
    # a run that lost its server would read the same on both sides: never "identical"
    case $OBS in
        *"server closed the connection"* | *"no connection to the server"* | \
        *"terminating connection"* | *"connection to server"*"failed"*)
            OBS+="LOST CONNECTION"$'\n' LOST=1 ;;
    esac
}

# compare SCEN MECHNAME PATH FILE_A FILE_B OUTPUT_KIND
compare_pair() {
    local scen="$1" mname="$2" path="$3" fa="$4" fb="$5" kind="$6" diff="$WORK/diff" st=0
    local obs_a zero_a
    LOST=0
    read_run "$fa"
    obs_a=$OBS zero_a=$ALLZERO
    read_run "$fb"
    if [[ $LOST == 1 ]]; then
        st=1
        printf 'a run lost its connection to the server: %s\n' "$fa $fb" >"$diff"
    elif [[ $obs_a != "$OBS" ]]; then
        st=1
        diff -u <(observables "$fa" 2>/dev/null) <(observables "$fb" 2>/dev/null) >"$diff"
        [[ -r $fa && -r $fb ]] || printf 'missing: %s\n' "$fa $fb" >>"$diff"
    fi
    result "$scen/$mname/$path: everything but the DP output is identical" \
        "$scen" "$mname" "$path" observables "$st" "$diff"
    if [[ $kind == continuous ]]; then
        st=0
        if [[ $zero_a == 1 || $ALLZERO == 1 ]]; then st=1; fi
        result "$scen/$mname/$path: the continuous DP output is noisy (not exactly 0)" \
            "$scen" "$mname" "$path" noise "$st"
    fi
}

# compare_runs PATH SUFFIX: compare_pair for every run, on its files SCEN.MECHNAME.SUFFIX.0/1
compare_runs() { # PATH SUFFIX [RUNS-ARRAY-NAME, default RUNS]
    local run scen mname kind
    local -n runs_=${3:-RUNS}
    for run in "${runs_[@]}"; do
        IFS=$'\t' read -r scen _ mname _ kind _ <<<"$run"
        compare_pair "$scen" "$mname" "$1" "$WORK/$scen.$mname.$2.0" "$WORK/$scen.$mname.$2.1" "$kind"
    done
}

# ---- setup -------------------------------------------------------------------------
t_role "$ROLE" >/dev/null || exit 1
t_role "$AROLE" >/dev/null || exit 1
t_role "$ZROLE" >/dev/null || exit 1
for i in 0 1; do
    side=$([[ $i == 0 ]] && echo a || echo b)
    if ! setup_db "${DBS[$i]}" "$side"; then
        echo "not ok - could not set up ${DBS[$i]}"
        exit 1
    fi
done
# unit_switch and unit_link_sw must straddle the bounding's switch (its threshold follows
# the allocator): side a's units outgrow the 64kB count table (unit_counts() gives 0: the
# sorted path), side b's fit (a positive handle: the in-memory path); else the scenario
# tests nothing.  unit_link_sw's units are its customers, reached through its orders.
for sw_scen in unit_switch unit_link_sw; do
    printf '%s\n' "${SCENS[@]}" | grep -q "^${sw_scen}[[:space:]]" || continue
    sw_col=u sw_from=t_$sw_scen
    [[ $sw_scen == unit_link_sw ]] && sw_col=c.id \
        sw_from="t_$sw_scen t JOIN o_$sw_scen o ON o.id = t.order_id JOIN c_$sw_scen c ON c.id = o.customer_id"
    for i in 0 1; do
        sw=$(t_psql -d "${DBS[$i]}" -Atc "SELECT dpobj.unit_counts($sw_col, 3) <> 0 FROM $sw_from")
        t_is "$sw_scen: side $i counts its units $([[ $i == 0 ]] && echo "by sorting" || echo "in memory")" \
            "$sw" "$([[ $i == 0 ]] && echo f || echo t)"
    done
done
# The planner statistics of dpobj's own tables are set by autovacuum, in each database at a
# moment of its own, and they choose the plans of dpobj's lookups before the charge (budget,
# unit, declared domains), whose function calls pg_stat_xact_user_functions counts.  Rather
# than leave it to that moment whether the two sides agree in them, they always differ: side
# b's are analysed before the train() and the evaluate() runs, side a's are left to
# autovacuum.  A lookup whose calls follow its plan fails here when the analysed statistics
# change its plan, not by chance (the budget pre-check's join called dpobj.budget_for once
# in a nested loop and twice in a hash join, the plan that the analysed tables of the unit
# scenarios alone give; tests/security/leaks.sh "lookups" tries both plans on any table).
skew_catalogs() {
    t_psql -d "${DBS[1]}" >/dev/null <<'SQL'
SELECT 'ANALYZE ' || string_agg(oid::regclass::text, ', ')
  FROM pg_class WHERE relnamespace = 'dpobj'::regnamespace AND relkind = 'r' \gexec
SQL
}
skew_catalogs
train_script >"$WORK/train.sql"
eval_script >"$WORK/eval.sql"

# every run: scenario x mechanism (minus the scenario's skips), one tab-separated line
# SCEN FEATS MNAME MECH KIND OPTS LABEL (the options include the scenario's filter;
# LABEL is the mechanism's label column, 5th field of its line, default y)
RUNS=()
for sline in "${SCENS[@]}"; do
    IFS='|' read -r scen feats filter _ _ _ skip _ <<<"$sline"
    scen=$(trim "$scen") feats=$(trim "$feats") filter=$(trim "$filter")
    for mline in "${MECHS[@]}"; do
        read -r mname mech kind opts label <<<"$mline"
        skips "${skip:-}" "$mname" && continue
        run_options "$opts" "$filter"
        RUNS+=("$scen"$'\t'"$feats"$'\t'"$mname"$'\t'"$mech"$'\t'"$kind"$'\t'"$RUN_OPTS"$'\t'"${label:-y}")
    done
done

# The jobs: submit() runs the run train() runs, in a worker of its own.  What a job adds
# (the worker's session and settings, its stored outcome, error and model) is checked with
# every line on the scenarios of JOB_EVERY (a selection, a failing row, every memory and
# sampling switch, a unit, declared domains, classes) and, on the other scenarios (the
# further kinds of row and unit, whose every pair train() compares), with each
# mechanism's first line (mechanism_firsts).
JOB_EVERY='empty_one|float_nan|distinct|sample.*|spill|unit_k|domain_level|null_class|bad_class|income'
JOB_MECHANISMS=$(mechanism_firsts <<<"$NB_LINES" | awk '{print $1}' | paste -sd'|')
JRUNS=()
for run in "${RUNS[@]}"; do
    IFS=$'\t' read -r scen _ mname _ <<<"$run"
    [[ $scen =~ ^($JOB_EVERY)$ || $mname =~ ^($JOB_MECHANISMS)$ ]] && JRUNS+=("$run")
done
echo "# ${#RUNS[@]} runs through train(), ${#JRUNS[@]} of them as jobs"

phase "setup"
# ---- dpobj.train() -------------------------------------------------------------------
# The two databases' runs go side by side (two cores): nothing compared is shared
# between them (each database has its own tables, ledger and budgets; the statistics are
# the transaction's own), and the only wall-time output, the progress lines, is
# normalised in run_driver.
for run in "${RUNS[@]}"; do
    IFS=$'\t' read -r scen feats mname mech kind opts label <<<"$run"
    for i in 0 1; do
        add_run "$WORK/train.$i.drv" "$WORK/$scen.$mname.train.$i" "$WORK/train.sql" \
            role="$ROLE" rel="t_$scen" mech="$mech" feats="$feats" opts="$opts" \
            label="$label" eps="$EPS" delta="$DELTA" pubkeys="$SELECTION_PUBLIC" privrkeys="$PRIVATE_R_PUBLIC" tunekeys="$TUNE_PUBLIC"
    done
done
for i in 0 1; do run_driver "${DBS[$i]}" "$WORK/train.$i.drv" & done
wait
compare_runs train train

phase "train()"
skew_catalogs
# expect_eval SCEN MODEL EXPECT FILE_A FILE_B: a valid model released in both databases;
# an invalid one was refused before the charge (an error, no ledger row) in both
expect_eval() {
    local st=0 f line released error ledger
    for f in "$4" "$5"; do
        released=0 error=0 ledger=0
        [[ -r $f ]] || st=1
        while IFS= read -r line || [[ -n $line ]]; do
            [[ $line == 'evaluation|'* ]] && released=1
            [[ $line == *ERROR* ]] && error=1
            [[ $line == 'ledger|'* ]] && ledger=1
        done <"$f"
        if [[ $3 == release ]]; then
            ((released)) || st=1
        else
            ((error && !ledger)) || st=1
        fi
    done
    result "$1/evaluate:$2/evaluate: $3 in both databases" "$1" "evaluate:$2" evaluate "$3" "$st" "$4"
}

# ---- dpobj.evaluate(): every scenario x model, through the same sealed path ---------
EVALS=()
for sline in "${SCENS[@]}"; do
    IFS='|' read -r scen feats filter _ <<<"$sline"
    scen=$(trim "$scen") feats=$(trim "$feats") filter=$(trim "$filter")
    for eline in "${EMODELS[@]}"; do
        read -r ename emech weight bias params expect escens <<<"$eline"
        [[ $scen =~ ^($escens)$ ]] || continue
        EVALS+=("$scen $ename $expect")
        run_options '{}' "$filter"
        for i in 0 1; do
            add_run "$WORK/eval.$i.drv" "$WORK/$scen.evaluate-$ename.$i" "$WORK/eval.sql" \
                role="$ROLE" rel="t_$scen" feats="$feats" opts="$RUN_OPTS" \
                eps="$EPS" emech="$emech" weight="$weight" bias="$bias" params="$params"
        done
    done
done
for i in 0 1; do run_driver "${DBS[$i]}" "$WORK/eval.$i.drv" & done
wait
for ev in "${EVALS[@]}"; do
    read -r scen ename expect <<<"$ev"
    out="$WORK/$scen.evaluate-$ename"
    compare_pair "$scen" "evaluate:$ename" evaluate "$out.0" "$out.1" discrete
    expect_eval "$scen" "$ename" "$expect" "$out.0" "$out.1"
done

phase "evaluate()"
# ---- the later runs' roles get their budgets now ---------------------------------------
for i in 0 1; do
    sql=""
    for sline in "${SCENS[@]}"; do
        IFS='|' read -r scen _ _ _ _ _ _ _ _ bdomain _ <<<"$sline"
        scen=$(trim "$scen") bdomain=$(trim "${bdomain:-}")
        if [[ $bdomain == domain || $bdomain == link || $bdomain == unitjoin ]]; then
            sql+="SELECT 1 FROM dpobj.grant_domain_budget('d_$scen', '$AROLE', 10000, 0.5);
                  SELECT 1 FROM dpobj.grant_domain_budget('d_$scen', '$ZROLE', 10000, 0.5);"
            continue
        fi
        sql+="SELECT 1 FROM dpobj.grant_budget('t_$scen', '$AROLE', 10000, 0.5);
              SELECT 1 FROM dpobj.grant_budget('t_$scen', '$ZROLE', 10000, 0.5);"
    done
    t_psql -d "${DBS[$i]}" -c "$sql" >/dev/null
done

# ---- dpobj.train(..., model_name): the stored catalog row holds public parts only -----
cat >"$WORK/model.sql" <<'SQL'
SET ROLE :"role";
SELECT 'trained', (m).mechanism FROM dpobj.train(:'rel', 'opdisc', string_to_array(:'feats', ','),
       'y', :eps, :delta, :'opts'::jsonb, model_name => :'name') m;
SELECT name, mechanism, epsilon, delta, params, relation, ledger_id IS NOT NULL,
       (model).mechanism, (model).epsilon, (model).params
  FROM dpobj.models WHERE name = :'name';
SELECT dpobj.drop_model(:'name');
SQL
MSCENS=()
for sline in "${SCENS[@]}"; do
    IFS='|' read -r scen feats filter _ <<<"$sline"
    scen=$(trim "$scen") feats=$(trim "$feats") filter=$(trim "$filter")
    MSCENS+=("$scen")
    run_options '{}' "$filter"
    for i in 0 1; do
        add_run "$WORK/model.$i.drv" "$WORK/$scen.model.$i" "$WORK/model.sql" \
            role="$AROLE" rel="t_$scen" feats="$feats" opts="$RUN_OPTS" eps="$EPS" \
            delta="$DELTA" name="nb_$scen"
    done
done
for i in 0 1; do run_driver "${DBS[$i]}" "$WORK/model.$i.drv" & done
wait
for scen in "${MSCENS[@]}"; do
    diff -u "$WORK/$scen.model.0" "$WORK/$scen.model.1" >"$WORK/diff"
    result "$scen/opdisc/model_name: the stored catalog row is identical but for the weights" \
        "$scen" opdisc model_name catalog $? "$WORK/diff"
done

phase "train(model_name)"
# ---- dpobj.submit(): the same runs as jobs ----------------------------------------------
# batch DB SCRIPT PSQL-ARGS...: one psql session runs SCRIPT, one line per run file
# ("SELECT '@@@ FILE'; statements..."; "SELECT '@@@ -';" for no file, so that the two
# databases' scripts keep the same line numbers, which error lines show), and its
# output is split into the FILEs.  stdout and stderr go to one file in order:
# psql flushes stdout before every message it prints.  One session instead of a psql
# per run (starting psql and a backend costs more than a query here).
batch() {
    local db="$1" script="$2"
    shift 2
    # from stdin: error lines name "<stdin>", the same in both databases
    psql -X -At -d "$db" "$@" -f - <"$script" >"$script.out" 2>&1
    awk '
        /^@@@ / { if (f != "") close(f); f = ($2 == "-") ? "" : $2
                  if (f != "") printf "" >f; next }
        f != "" { print >f }' "$script.out"
}
declare -A JOB
JOB_BEFORE=()
jobs_conf set
for i in 0 1; do
    JOB_BEFORE[$i]=$(t_psql -d "${DBS[$i]}" -c "SELECT coalesce(max(id), 0) FROM dpobj.ledger")
    # all jobs are queued at once: the per-role cap on queued jobs (a public refusal
    # before the charge, tested in tests/jobs) is raised above their number
    echo "SET dpobj.max_jobs_per_role = 100000;" >"$WORK/submit.$i.sql"
done
for run in "${JRUNS[@]}"; do
    IFS=$'\t' read -r scen feats mname mech kind opts label <<<"$run"
    role_of "$mech" "$opts"
    for i in 0 1; do
        printf "SELECT '@@@ %s'; SET ROLE %s; SELECT dpobj.submit('t_%s', '%s', string_to_array('%s', ','), '%s', %s, %s, '%s');\n" \
            "$WORK/$scen.$mname.submit.$i" "$JOB_ROLE" "$scen" "$mech" "$feats" "$label" \
            "$EPS" "$DELTA" "$opts" >>"$WORK/submit.$i.sql"
    done
done
for i in 0 1; do
    batch "${DBS[$i]}" "$WORK/submit.$i.sql" -v VERBOSITY=verbose &
done
wait
for run in "${JRUNS[@]}"; do
    IFS=$'\t' read -r scen _ mname _ <<<"$run"
    for i in 0 1; do
        # the job id: the output's last all-digit line
        job=""
        while IFS= read -r line; do
            [[ $line =~ ^[0-9]+$ ]] && job=$line
        done <"$WORK/$scen.$mname.submit.$i"
        JOB[$scen.$mname.$i]=$job
    done
done
phase "submit()"
# wait for every job (at most 10 minutes)
for ((w = 0; w < 1200; w++)); do
    left=0
    for i in 0 1; do
        n=$(t_psql -d "${DBS[$i]}" -c "SELECT count(*) FROM dpobj.job_queue WHERE state IN ('queued', 'running')")
        left=$((left + n))
    done
    [[ $left == 0 ]] && break
    sleep 0.5
done
t_is "every job finished" "$left" "0"
jobs_conf restore
phase "job wait"

# what the analyst sees of a job (one line: see batch)
JOB_SQL="SELECT 'job', state, error, sqlstate, (model).mechanism, (model).epsilon, (model).delta,
       (model).params - ARRAY(SELECT k FROM jsonb_object_keys((model).params) k
                              WHERE ((model).params ? 'selected' AND k <> ALL ('$SELECTION_PUBLIC'::text[]))
                                 OR ((model).params->>'R_source' = 'private' AND k <> ALL ('$PRIVATE_R_PUBLIC'::text[]))
                                 OR ((model).params ? 'tune_point' AND k <> ALL ('$TUNE_PUBLIC'::text[]))
                                 OR k = ANY ('{counts,splits,threshold,balance_counts,balance_weight_true,balance_weight_false}') OR (k = 'terms' AND (model).params->>'binning' = 'private') OR (k = 'sigma' AND (model).params->>'residual_clip' = 'by_size')),
       CASE WHEN NOT (model).params ? 'selected' AND (model).params->>'binning' IS DISTINCT FROM 'private'
            THEN cardinality((model).weights) END,
       E'\\nDPOUT params', cardinality((model).weights), (model).params - ARRAY(SELECT k FROM jsonb_object_keys((model).params) k
         WHERE NOT (((model).params ? 'selected' AND k <> ALL ('$SELECTION_PUBLIC'::text[]))
                 OR ((model).params->>'R_source' = 'private' AND k <> ALL ('$PRIVATE_R_PUBLIC'::text[]))
                 OR ((model).params ? 'tune_point' AND k <> ALL ('$TUNE_PUBLIC'::text[]))
                 OR k = ANY ('{counts,splits,threshold,balance_counts,balance_weight_true,balance_weight_false}') OR (k = 'terms' AND (model).params->>'binning' = 'private') OR (k = 'sigma' AND (model).params->>'residual_clip' = 'by_size'))),
       E'\\nDPOUT', (SELECT bool_and(w = 0) FROM unnest((model).weights) w)
  FROM dpobj.jobs WHERE id ="
JOB_SQL=${JOB_SQL//$'\n'/ }
for i in 0 1; do : >"$WORK/jobs.$i.sql"; done
for run in "${JRUNS[@]}"; do
    IFS=$'\t' read -r scen feats mname mech kind opts label <<<"$run"
    for i in 0 1; do
        job=${JOB[$scen.$mname.$i]}
        if [[ $job =~ ^[0-9]+$ ]]; then
            role_of "$mech" "$opts"
            printf "SELECT '@@@ %s'; SET ROLE %s; %s %s;\n" "$WORK/$scen.$mname.job.$i" \
                "$JOB_ROLE" "$JOB_SQL" "$job"
        else
            { echo "submit refused:"; cat "$WORK/$scen.$mname.submit.$i"; } >"$WORK/$scen.$mname.job.$i"
            echo "SELECT '@@@ -';"
        fi >>"$WORK/jobs.$i.sql"
    done
done
# the ledger rows of each scenario's jobs (jobs run concurrently: compared as a sorted set)
for sline in "${SCENS[@]}"; do
    IFS='|' read -r scen _ <<<"$sline"
    scen=$(trim "$scen")
    for i in 0 1; do
        {
            printf "SELECT '@@@ %s';" "$WORK/$scen.ledger.$i"
            for r in "$AROLE" "$ZROLE"; do
                printf " SET ROLE %s; SELECT mechanism, epsilon, delta, relation, outcome, detail, budget_id IS NOT NULL, kind, rho, accounted FROM dpobj.ledger WHERE id > %s AND relation = 'public.t_%s' ORDER BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10;" \
                    "$r" "${JOB_BEFORE[$i]}" "$scen"
            done
            echo
        } >>"$WORK/jobs.$i.sql"
    done
done
for i in 0 1; do
    batch "${DBS[$i]}" "$WORK/jobs.$i.sql" &
done
wait

compare_runs submit job JRUNS
phase "job results"
for sline in "${SCENS[@]}"; do
    IFS='|' read -r scen _ <<<"$sline"
    scen=$(trim "$scen")
    diff -u "$WORK/$scen.ledger.0" "$WORK/$scen.ledger.1" >"$WORK/diff"
    result "$scen/*/submit: the jobs' ledger rows are identical" "$scen" "*" submit ledger $? "$WORK/diff"
done

phase "job ledgers"

# ---- dpobj.aggregate() and dpobj.describe() on every scenario ---------------------------
# The owner declares the domains it needs now, after every train() and job (declared
# feature columns would change what those encode): levels of grp, c and y, bounds of a
# and b.  The differing row's values (NaN, NULL, 1e300, an undeclared level, a unit's
# rows) land in a cell, "other", or drop the row; the released cells (quantiles: the
# exponential mechanism's draws) are DP output, the output's shape (every cell of the
# declared levels) is compared.  describe() profiles every declared column in one run, at
# its default delta 0 (epsilon-DP).
agg_script() { # CALL: the released rows
    run_preamble
    printf '%s\n' "$1"
    cat <<'SQL'
SET LOCAL jit = off;
SELECT 'table stats', seq_scan, seq_tup_read, coalesce(idx_scan, 0), coalesce(idx_tup_fetch, 0)
  FROM pg_stat_xact_user_tables WHERE relid = :'rel'::regclass
    OR relid IN (SELECT unnest(path) FROM dpobj.unit_links WHERE relid = :'rel'::regclass)
 ORDER BY relid;
SELECT 'function stats', funcname, calls FROM pg_stat_xact_user_functions ORDER BY funcname;
COMMIT;
SET jit = off;
SELECT 'ledger', mechanism, epsilon, delta, relation, outcome, detail, budget_id IS NOT NULL
  FROM dpobj.ledger WHERE id > :before ORDER BY id;
SQL
}
agg_script "SELECT 'aggregate', group_values, statistic, column_name, E'\\nDPOUT', estimate, ci_low, ci_high
  FROM dpobj.aggregate(:'rel', :'what'::jsonb, :eps, :delta, string_to_array(:'groups', ','), :'opts'::jsonb);" >"$WORK/agg.sql"
# a table with a privacy unit: its rows per unit k' chosen privately (unitbound.c), k' a
# row of its own (DP output)
agg_script "SELECT 'aggbound', group_values, statistic, column_name, E'\\nDPOUT', estimate, ci_low, ci_high
  FROM dpobj.aggregate(:'rel', :'what'::jsonb, :eps, :delta, string_to_array(:'groups', ','),
                       :'opts'::jsonb || '{\"rows_per_unit\": \"private\"}');" >"$WORK/aggbound.sql"
# grouped by b (bounds, no levels): private key selection, a count and a quantile of a.  At
# epsilon 100 (approx: the jobs' role, whose budget has no zCDP charge; the count's half: T =
# 4 at row level) a key of >= 4 rows is released w.p. > 1 - e^-25 and one of <= 3 rows (the
# differing row's NaN, -Infinity) w.p. < e^-25: the released keys, compared, are the same in
# both databases.  With a unit (T near 2k + 1, the keys' bounded counts near it) the keys are
# DP output, in one line.
agg_script "SELECT 'aggkeys', group_values, statistic, E'\\nDPOUT', estimate, ci_low, ci_high
  FROM dpobj.aggregate(:'rel', :'what'::jsonb, 100, :delta, ARRAY['b'], :'opts'::jsonb);" >"$WORK/aggkeys.sql"
agg_script "SELECT 'aggkeys', E'\\nDPOUT', jsonb_agg(jsonb_build_array(group_values, estimate))
  FROM dpobj.aggregate(:'rel', :'what'::jsonb, 100, :delta, ARRAY['b'], :'opts'::jsonb);" >"$WORK/aggkeys_dp.sql"
# a count only by id (an integer, one row per key: the key column encoded with a made-up
# level, no declaration read): no key is released (each w.p. < e^-25), in both databases
agg_script "SELECT 'aggkeys_id', group_values, statistic, E'\\nDPOUT', estimate
  FROM dpobj.aggregate(:'rel', '[{\"stat\": \"count\"}]', 100, :delta, ARRAY['id'], :'opts'::jsonb);" >"$WORK/aggkeys_id.sql"
# statistics of expressions and the option "where" (core/expreval.c): the differing row's
# NaN, NULL, 1e300 or infinity make a value or a condition NULL, never an error
agg_script "SELECT 'aggexpr', group_values, statistic, column_name, E'\\nDPOUT', estimate, ci_low, ci_high
  FROM dpobj.aggregate(:'rel', :'what'::jsonb, :eps, :delta, string_to_array(:'groups', ','), :'opts'::jsonb);" >"$WORK/aggexpr.sql"
AGG_EXPR_WHAT='[{"stat":"count"},{"stat":"sum","expr":{"op":"/","args":[{"col":"b"},{"op":"+","args":[{"col":"a"},{"num":1}]}]}},{"stat":"mean","expr":{"op":"case","when":[{"if":{"op":">","args":[{"col":"a"},{"num":0}]},"then":{"op":"*","args":[{"col":"a"},{"col":"b"}]}}],"else":{"op":"coalesce","args":[{"col":"b"},{"num":0}]}}}]'
AGG_EXPR_WHERE='{"where":{"op":"or","args":[{"op":"is_null","args":[{"col":"a"}]},{"op":">","args":[{"op":"/","args":[{"col":"b"},{"col":"c"}]},{"num":0}]},{"op":"between","args":[{"op":"abs","args":[{"col":"a"}]},{"num":0},{"num":0.3}]}]}}'
# a private SQL query (src/protected/sqlfront.c): the scenario's filter as its WHERE (or none),
# the same statistics by the declared levels of grp and y, typed columns; and a CASE over
# them, its cells merged (src/protected/sqlmerge.c, querymerge.c); and by u / 3, u's declared
# range [0, 9] its levels (src/protected/rangelevels.c; other units and NULL: the NULL group)
agg_script "SELECT coalesce(string_agg(format('%I %s %L', f->>'column', f->>'op', f->>'value'), ' AND '), 'true') AS where_sql
  FROM jsonb_array_elements(CASE WHEN :'filter' = '-' THEN '[]' ELSE :'filter' END::jsonb) f \\gset
SET LOCAL dpobj.query_epsilon = :eps;
SELECT 'query', grp, y, E'\\nDPOUT', count(*), sum(a), avg(b), variance(a), stddev(a),
       percentile_cont(0.5) WITHIN GROUP (ORDER BY b), max(a), count(a), count(c), var_pop(b)
  FROM :\"rel\" WHERE :where_sql GROUP BY grp, y ORDER BY grp, y;
SELECT 'querymerge', CASE WHEN grp::text IN ('0', '1') AND y THEN 'lo' ELSE 'hi' END AS zone, E'\\nDPOUT',
       count(*), sum(a), avg(b) FROM :\"rel\" WHERE :where_sql GROUP BY 2 ORDER BY 2;" >"$WORK/query.sql"
agg_script "SELECT coalesce(string_agg(format('%I %s %L', f->>'column', f->>'op', f->>'value'), ' AND '), 'true') AS where_sql
  FROM jsonb_array_elements(CASE WHEN :'filter' = '-' THEN '[]' ELSE :'filter' END::jsonb) f \\gset
SET LOCAL dpobj.query_epsilon = :eps;
SELECT 'queryrange', u / 3 AS band, E'\\nDPOUT', count(*), sum(a), avg(b)
  FROM :\"rel\" WHERE :where_sql GROUP BY 2 ORDER BY 2;" >"$WORK/queryrange.sql"
# the same query read through a WITH query over a derived table, the filter in the WITH
# query's WHERE (inlined before it compiles, src/protected/sqlinline.c)
agg_script "SELECT coalesce(string_agg(format('%I %s %L', f->>'column', f->>'op', f->>'value'), ' AND '), 'true') AS where_sql
  FROM jsonb_array_elements(CASE WHEN :'filter' = '-' THEN '[]' ELSE :'filter' END::jsonb) f \\gset
SET LOCAL dpobj.query_epsilon = :eps;
WITH w AS (SELECT grp, y, a AS x, b FROM (SELECT * FROM :\"rel\") s WHERE :where_sql)
SELECT 'cteq', grp, y, E'\\nDPOUT', count(*), sum(x), avg(b), max(x)
  FROM w GROUP BY grp, y ORDER BY grp, y;" >"$WORK/cteq.sql"
# a unit table's query with its rows per unit chosen privately (dpobj.query_rows_per_unit)
agg_script "SELECT coalesce(string_agg(format('%I %s %L', f->>'column', f->>'op', f->>'value'), ' AND '), 'true') AS where_sql
  FROM jsonb_array_elements(CASE WHEN :'filter' = '-' THEN '[]' ELSE :'filter' END::jsonb) f \\gset
SET LOCAL dpobj.query_epsilon = :eps;
SET LOCAL dpobj.query_rows_per_unit = private;
SELECT 'querybound', grp, y, E'\\nDPOUT', count(*), sum(a), avg(b)
  FROM :\"rel\" WHERE :where_sql GROUP BY grp, y ORDER BY grp, y;" >"$WORK/querybound.sql"
# a table with its own unit column (an 8th field k, no "link"): the distinct units of each
# grp cell, count(DISTINCT u), beside count(*) (the unit's kept rows numbered in their cell)
agg_script "SELECT coalesce(string_agg(format('%I %s %L', f->>'column', f->>'op', f->>'value'), ' AND '), 'true') AS where_sql
  FROM jsonb_array_elements(CASE WHEN :'filter' = '-' THEN '[]' ELSE :'filter' END::jsonb) f \\gset
SET LOCAL dpobj.query_epsilon = :eps;
SELECT 'queryunits', grp, E'\\nDPOUT', count(DISTINCT u), count(*)
  FROM :\"rel\" WHERE :where_sql GROUP BY grp ORDER BY grp;" >"$WORK/queryunits.sql"
# a linked table (10th field "link"): its path tables' columns, aggregate() grouped by the
# customers' seg ("c_<name>.seg", levels 0, 1, 2) and the private SQL join along the
# foreign keys grouped by it (src/protected/sqljoin.c), the scenario's filter as its WHERE;
# both count the distinct customers too ("units", count(DISTINCT o.customer_id))
agg_script "SELECT 'joinagg', group_values, statistic, E'\\nDPOUT', estimate, ci_low, ci_high
  FROM dpobj.aggregate(:'rel', '[{\"stat\":\"count\"},{\"stat\":\"sum\",\"column\":\"a\"},{\"stat\":\"units\"}]', :eps, :delta,
                       ARRAY[:'cust' || '.seg'], :'opts'::jsonb);" >"$WORK/joinagg.sql"
agg_script "SELECT coalesce(string_agg(format('t.%I %s %L', f->>'column', f->>'op', f->>'value'), ' AND '), 'true') AS where_sql
  FROM jsonb_array_elements(CASE WHEN :'filter' = '-' THEN '[]' ELSE :'filter' END::jsonb) f \\gset
SET LOCAL dpobj.query_epsilon = :eps;
SELECT 'joinq', c.seg, E'\\nDPOUT', count(*), sum(t.a), avg(t.b), count(DISTINCT o.customer_id)
  FROM :\"rel\" t JOIN :\"ord\" o ON o.id = t.order_id JOIN :\"cust\" c ON c.id = o.customer_id
 WHERE :where_sql GROUP BY c.seg ORDER BY c.seg;" >"$WORK/joinq.sql"
# the same join written from the customers' table, the keys in WHERE (the linked table
# becomes the first, src/protected/selecthint.c) and a constant expression folded first
# (src/protected/sqlfold.c); NULLIF as a CASE, a boolean cast to int (src/protected/sqlexpr.c)
agg_script "SELECT coalesce(string_agg(format('t.%I %s %L', f->>'column', f->>'op', f->>'value'), ' AND '), 'true') AS where_sql
  FROM jsonb_array_elements(CASE WHEN :'filter' = '-' THEN '[]' ELSE :'filter' END::jsonb) f \\gset
SET LOCAL dpobj.query_epsilon = :eps;
SELECT 'joinqrev', c.seg, E'\\nDPOUT', count(*), sum(t.a), avg(t.b), avg(nullif(t.a, 0.25)), sum((t.a > 0)::int)
  FROM :\"cust\" c, :\"ord\" o, :\"rel\" t
 WHERE c.id = o.customer_id AND o.id = t.order_id AND :where_sql AND t.b <= 0.25 * 2 + abs(-1.0)
 GROUP BY c.seg ORDER BY c.seg;" >"$WORK/joinqrev.sql"
# a second protected table of the budget domain (10th field "unitjoin") joined on the unit
# (src/protected/unitjoin.c), grouped by its seg, the scenario's filter as its WHERE
agg_script "SELECT coalesce(string_agg(format('t.%I %s %L', f->>'column', f->>'op', f->>'value'), ' AND '), 'true') AS where_sql
  FROM jsonb_array_elements(CASE WHEN :'filter' = '-' THEN '[]' ELSE :'filter' END::jsonb) f \\gset
SET LOCAL dpobj.query_epsilon = :eps;
SELECT 'unitjoinq', j.seg, E'\\nDPOUT', count(*), sum(t.a), avg(t.b)
  FROM :\"rel\" t JOIN :\"ujt\" j ON j.u = t.u
 WHERE :where_sql GROUP BY j.seg ORDER BY j.seg;" >"$WORK/unitjoinq.sql"
# a public lookup table joined by its primary key to grp (src/protected/lookups.c), the
# same in both databases and readable by the analyst: grouped by its zone (a LEFT JOIN:
# grp 3 has no zone, the "other" group), filtered on its w and the scenario's filter, its w
# aggregated (bounded by its values, 1 to 4)
agg_script "SELECT coalesce(string_agg(format('t.%I %s %L', f->>'column', f->>'op', f->>'value'), ' AND ') || ' AND ', '')
       || '(l.w IS NULL OR l.w > 0)' AS where_sql
  FROM jsonb_array_elements(CASE WHEN :'filter' = '-' THEN '[]' ELSE :'filter' END::jsonb) f \\gset
SET LOCAL dpobj.query_epsilon = :eps;
SELECT 'lookupq', l.zone, E'\\nDPOUT', count(*), sum(t.a), avg(t.b), sum(t.a * l.w), count(l.w)
  FROM :\"rel\" t LEFT JOIN nb_lookup l ON l.lk_id = t.grp
 WHERE :where_sql GROUP BY l.zone ORDER BY l.zone;" >"$WORK/lookupq.sql"
# a second lookup joined on the first's column (src/protected/lookups.c): grouped by its area
# (north, south) and "other"
agg_script "SELECT coalesce(string_agg(format('t.%I %s %L', f->>'column', f->>'op', f->>'value'), ' AND '), 'true') AS where_sql
  FROM jsonb_array_elements(CASE WHEN :'filter' = '-' THEN '[]' ELSE :'filter' END::jsonb) f \\gset
SET LOCAL dpobj.query_epsilon = :eps;
SELECT 'lookupchain', z.area, E'\\nDPOUT', count(*), sum(t.a), sum(l.w)
  FROM :\"rel\" t JOIN nb_lookup l ON l.lk_id = t.grp LEFT JOIN nb_zone z ON z.zone = l.zone
 WHERE :where_sql GROUP BY z.area ORDER BY z.area;" >"$WORK/lookupchain.sql"
# the same chain joined USING (lk_id renamed grp: the merged column t's; zone l's), and
# nb_lookup again as l2 on c (its columns "l2.column")
agg_script "SELECT coalesce(string_agg(format('t.%I %s %L', f->>'column', f->>'op', f->>'value'), ' AND '), 'true') AS where_sql
  FROM jsonb_array_elements(CASE WHEN :'filter' = '-' THEN '[]' ELSE :'filter' END::jsonb) f \\gset
SET LOCAL dpobj.query_epsilon = :eps;
SELECT 'lookupusing', z.area, E'\\nDPOUT', count(*), sum(t.a), sum(l.w), count(l2.w)
  FROM :\"rel\" t JOIN nb_lookup l(grp, zone, w) USING (grp) LEFT JOIN nb_zone z USING (zone)
  LEFT JOIN nb_lookup l2 ON l2.lk_id = t.c
 WHERE :where_sql GROUP BY z.area ORDER BY z.area;" >"$WORK/lookupusing.sql"
# date - date (days, src/core/expreval.c) in WHERE, a FILTER and an aggregate's argument
agg_script "SELECT coalesce(string_agg(format('%I %s %L', f->>'column', f->>'op', f->>'value'), ' AND '), 'true') AS where_sql
  FROM jsonb_array_elements(CASE WHEN :'filter' = '-' THEN '[]' ELSE :'filter' END::jsonb) f \\gset
SET LOCAL dpobj.query_epsilon = :eps;
SELECT 'datediff', grp, E'\\nDPOUT', count(*), count(*) FILTER (WHERE dt - date '2024-01-02' < 0),
       avg(dt - date '2024-01-01')
  FROM :\"rel\" WHERE dt - date '2024-01-01' <= 1 AND :where_sql GROUP BY grp ORDER BY grp;" >"$WORK/datediff.sql"
# the lookup in WHERE, an equality on its column outside its key a filter (sqljoin.c)
agg_script "SELECT coalesce(string_agg(format('t.%I %s %L', f->>'column', f->>'op', f->>'value'), ' AND '), 'true') AS where_sql
  FROM jsonb_array_elements(CASE WHEN :'filter' = '-' THEN '[]' ELSE :'filter' END::jsonb) f \\gset
SET LOCAL dpobj.query_epsilon = :eps;
SELECT 'lookupfilter', l.zone, E'\\nDPOUT', count(*), sum(t.a)
  FROM :\"rel\" t, nb_lookup l WHERE l.lk_id = t.grp AND l.w = t.b AND :where_sql
 GROUP BY l.zone ORDER BY l.zone;" >"$WORK/lookupfilter.sql"
agg_script "SELECT 'describe', group_values, statistic, column_name, E'\\nDPOUT', estimate, ci_low, ci_high
  FROM dpobj.describe(:'rel', :eps, options => :'opts'::jsonb);" >"$WORK/desc.sql"
agg_script "SELECT 'descbound', group_values, statistic, column_name, E'\\nDPOUT', estimate, ci_low, ci_high
  FROM dpobj.describe(:'rel', :eps, options => :'opts'::jsonb || '{\"rows_per_unit\": \"private\"}');" >"$WORK/descbound.sql"
AGG_WHAT='[{"stat":"count"},{"stat":"sum","column":"a"},{"stat":"mean","column":"b"},{"stat":"histogram","column":"c"},{"stat":"histogram","column":"a","bins":3},{"stat":"variance","column":"a"},{"stat":"quantile","column":"b","q":[0.25,0.75],"bins":16},{"stat":"count","column":"a"},{"stat":"count","column":"c"},{"stat":"variance","column":"b","sample":true}]'
for i in 0 1; do
    sql=""
    for sline in "${SCENS[@]}"; do
        IFS='|' read -r scen _ <<<"$sline"
        scen=$(trim "$scen")
        sql+="$(domain_sql "t_$scen" "grp=0,1,2,3;c=0,1,2;y=true,false;a=-0.5:0.5;b=-0.5:0.5;u=0:9")"
        [[ $(trim "$(cut -d'|' -f10 <<<"$sline")") == link ]] && sql+="$(domain_sql "c_$scen" "seg=0,1,2")"
        [[ $(trim "$(cut -d'|' -f10 <<<"$sline")") == unitjoin ]] && sql+="$(domain_sql "j_$scen" "seg=0,1,2")"
    done
    sql+="CREATE TABLE nb_lookup (lk_id int PRIMARY KEY, zone text NOT NULL, w float8);
          INSERT INTO nb_lookup VALUES (0, 'lo', 1), (1, 'lo', 2), (2, 'hi', 3), (9, 'none', 4);
          GRANT SELECT ON nb_lookup TO $ROLE;
          CREATE TABLE nb_zone (zone text PRIMARY KEY, area text NOT NULL);
          INSERT INTO nb_zone VALUES ('lo', 'south'), ('hi', 'north');
          GRANT SELECT ON nb_zone TO $ROLE;"
    t_psql -d "${DBS[$i]}" -c "$sql" >/dev/null
done
for sline in "${SCENS[@]}"; do
    IFS='|' read -r scen _ filter _ _ _ _ unitk _ <<<"$sline"
    scen=$(trim "$scen") filter=$(trim "$filter") unitk=$(trim "${unitk:-}")
    run_options "$AGG_EXPR_WHERE" "$filter"
    EXPR_OPTS=$RUN_OPTS
    run_options '{}' "$filter"
    keys_sql=aggkeys.sql
    [[ -n $unitk && $unitk != - ]] && keys_sql=aggkeys_dp.sql
    for i in 0 1; do
        add_run "$WORK/agg.$i.drv" "$WORK/$scen.aggregate.$i" "$WORK/agg.sql" \
            role="$ROLE" rel="t_$scen" what="$AGG_WHAT" groups="grp,y" opts="$RUN_OPTS" \
            eps="$EPS" delta="$DELTA"
        add_run "$WORK/agg.$i.drv" "$WORK/$scen.aggexpr.$i" "$WORK/aggexpr.sql" \
            role="$ROLE" rel="t_$scen" what="$AGG_EXPR_WHAT" groups="grp,y" opts="$EXPR_OPTS" \
            eps="$EPS" delta="$DELTA"
        add_run "$WORK/agg.$i.drv" "$WORK/$scen.describe.$i" "$WORK/desc.sql" \
            role="$ROLE" rel="t_$scen" opts="$RUN_OPTS" eps="$EPS"
        add_run "$WORK/agg.$i.drv" "$WORK/$scen.aggkeys.$i" "$WORK/$keys_sql" \
            role="$AROLE" rel="t_$scen" opts="$RUN_OPTS" delta="$DELTA" \
            what='[{"stat":"count"},{"stat":"quantile","column":"a","q":0.5,"bins":4}]'
        add_run "$WORK/agg.$i.drv" "$WORK/$scen.aggkeys_id.$i" "$WORK/aggkeys_id.sql" \
            role="$AROLE" rel="t_$scen" opts="$RUN_OPTS" delta="$DELTA"
        for q in query queryrange lookupq lookupchain lookupfilter lookupusing datediff cteq; do
            add_run "$WORK/agg.$i.drv" "$WORK/$scen.$q.$i" "$WORK/$q.sql" \
                role="$ROLE" rel="t_$scen" filter="$filter" eps="$EPS"
        done
        [[ -n $unitk && $unitk != - ]] && {
            add_run "$WORK/agg.$i.drv" "$WORK/$scen.aggbound.$i" "$WORK/aggbound.sql" \
                role="$ROLE" rel="t_$scen" what="$AGG_WHAT" groups="grp,y" opts="$RUN_OPTS" \
                eps="$EPS" delta="$DELTA"
            add_run "$WORK/agg.$i.drv" "$WORK/$scen.querybound.$i" "$WORK/querybound.sql" \
                role="$ROLE" rel="t_$scen" filter="$filter" eps="$EPS"
            add_run "$WORK/agg.$i.drv" "$WORK/$scen.descbound.$i" "$WORK/descbound.sql" \
                role="$ROLE" rel="t_$scen" opts="$RUN_OPTS" eps="$EPS"
        }
        [[ -n $unitk && $unitk != - && $(trim "$(cut -d'|' -f10 <<<"$sline")") != link ]] &&
            add_run "$WORK/agg.$i.drv" "$WORK/$scen.queryunits.$i" "$WORK/queryunits.sql" \
                role="$ROLE" rel="t_$scen" filter="$filter" eps="$EPS"
        [[ $(trim "$(cut -d'|' -f10 <<<"$sline")") == link ]] && {
            add_run "$WORK/agg.$i.drv" "$WORK/$scen.joinagg.$i" "$WORK/joinagg.sql" \
                role="$ROLE" rel="t_$scen" cust="c_$scen" opts="$RUN_OPTS" eps="$EPS" delta="$DELTA"
            add_run "$WORK/agg.$i.drv" "$WORK/$scen.joinq.$i" "$WORK/joinq.sql" \
                role="$ROLE" rel="t_$scen" ord="o_$scen" cust="c_$scen" filter="$filter" eps="$EPS"
            add_run "$WORK/agg.$i.drv" "$WORK/$scen.joinqrev.$i" "$WORK/joinqrev.sql" \
                role="$ROLE" rel="t_$scen" ord="o_$scen" cust="c_$scen" filter="$filter" eps="$EPS"
        }
        [[ $(trim "$(cut -d'|' -f10 <<<"$sline")") == unitjoin ]] &&
            add_run "$WORK/agg.$i.drv" "$WORK/$scen.unitjoinq.$i" "$WORK/unitjoinq.sql" \
                role="$ROLE" rel="t_$scen" ujt="j_$scen" filter="$filter" eps="$EPS"
    done
done
for i in 0 1; do run_driver "${DBS[$i]}" "$WORK/agg.$i.drv" & done
wait
for sline in "${SCENS[@]}"; do
    IFS='|' read -r scen _ <<<"$sline"
    scen=$(trim "$scen")
    compare_pair "$scen" aggregate aggregate "$WORK/$scen.aggregate.0" "$WORK/$scen.aggregate.1" discrete
    compare_pair "$scen" describe describe "$WORK/$scen.describe.0" "$WORK/$scen.describe.1" discrete
    compare_pair "$scen" aggexpr aggregate "$WORK/$scen.aggexpr.0" "$WORK/$scen.aggexpr.1" discrete
    compare_pair "$scen" aggkeys aggregate "$WORK/$scen.aggkeys.0" "$WORK/$scen.aggkeys.1" discrete
    compare_pair "$scen" aggkeys_id aggregate "$WORK/$scen.aggkeys_id.0" "$WORK/$scen.aggkeys_id.1" discrete
    compare_pair "$scen" query query "$WORK/$scen.query.0" "$WORK/$scen.query.1" discrete
    compare_pair "$scen" queryrange query "$WORK/$scen.queryrange.0" "$WORK/$scen.queryrange.1" discrete
    compare_pair "$scen" lookupq query "$WORK/$scen.lookupq.0" "$WORK/$scen.lookupq.1" discrete
    compare_pair "$scen" cteq query "$WORK/$scen.cteq.0" "$WORK/$scen.cteq.1" discrete
    # released in both databases: 5 x 3 cells of (grp, y), each with a count, a sum, a
    # mean, 4 + 3 histogram bins, a variance, 2 quantiles, counts of a and c and a sample
    # variance; describe: a count, bins of
    # grp (5), c (4), y (3), of a and b (10 each) and their quartiles; aggexpr: a count, a
    # sum and a mean per cell; the private query (and through a WITH query): a row per (grp, y) cell
    # a linked table's join: 4 cells of seg (0, 1, 2, other) by 3 statistics, 4 query rows;
    # a unit column's distinct units: a row per grp cell (0 to 3, other); the lookup query: a
    # row per zone (hi, lo, none) and "other"; a private rows per unit: aggregate's (describe's) and k'
    joins=""
    [[ -e $WORK/$scen.queryunits.0 ]] && {
        compare_pair "$scen" queryunits query "$WORK/$scen.queryunits.0" "$WORK/$scen.queryunits.1" discrete
        joins="queryunits:5"
    }
    [[ -e $WORK/$scen.aggbound.0 ]] && {
        compare_pair "$scen" aggbound aggregate "$WORK/$scen.aggbound.0" "$WORK/$scen.aggbound.1" discrete
        compare_pair "$scen" querybound query "$WORK/$scen.querybound.0" "$WORK/$scen.querybound.1" discrete
        compare_pair "$scen" descbound describe "$WORK/$scen.descbound.0" "$WORK/$scen.descbound.1" discrete
        joins+=" aggbound:241 querybound:15 descbound:53"
    }
    [[ $(trim "$(cut -d'|' -f10 <<<"$sline")") == link ]] && {
        compare_pair "$scen" joinagg aggregate "$WORK/$scen.joinagg.0" "$WORK/$scen.joinagg.1" discrete
        compare_pair "$scen" joinq query "$WORK/$scen.joinq.0" "$WORK/$scen.joinq.1" discrete
        compare_pair "$scen" joinqrev query "$WORK/$scen.joinqrev.0" "$WORK/$scen.joinqrev.1" discrete
        joins+=" joinagg:12 joinq:4 joinqrev:4"
    }
    [[ -e $WORK/$scen.unitjoinq.0 ]] && {
        compare_pair "$scen" unitjoinq query "$WORK/$scen.unitjoinq.0" "$WORK/$scen.unitjoinq.1" discrete
        joins+=" unitjoinq:4"
    }
    compare_pair "$scen" lookupchain query "$WORK/$scen.lookupchain.0" "$WORK/$scen.lookupchain.1" discrete
    compare_pair "$scen" lookupfilter query "$WORK/$scen.lookupfilter.0" "$WORK/$scen.lookupfilter.1" discrete
    compare_pair "$scen" lookupusing query "$WORK/$scen.lookupusing.0" "$WORK/$scen.lookupusing.1" discrete
    compare_pair "$scen" datediff query "$WORK/$scen.datediff.0" "$WORK/$scen.datediff.1" discrete
    for m in aggregate:240 describe:52 aggexpr:45 query:15 queryrange:5 cteq:15 lookupq:4 lookupchain:3 lookupfilter:4 lookupusing:3 datediff:5 $joins; do
        st=0
        for f in "$WORK/$scen.${m%:*}.0" "$WORK/$scen.${m%:*}.1"; do
            n=0
            while IFS= read -r line; do [[ $line == "${m%:*}|"* ]] && n=$((n + 1)); done <"$f"
            ((n == ${m#*:})) || st=1
        done
        result "$scen/${m%:*}/${m%:*}: all ${m#*:} rows released in both databases" "$scen" "${m%:*}" "${m%:*}" released "$st"
    done
done
phase "aggregate() and describe()"

# ---- dpobj.synthesize() on every scenario ------------------------------------------------
# The declared columns of the aggregate section (levels of grp, c, y; bounds of a, b), the
# scenario's filter; the caller creates the target in public (CREATE granted).  The row
# count, the model's weights and released params and the synthetic rows are DP output; the
# result's names, the target's columns, types and owner, the model's public part (its
# mechanism, epsilon, delta, its params' keys), marginal()'s cells and the ledger are
# compared.  The memory cap is raised to 16MB for these runs (64kB refuses any model, a
# public refusal before the charge).  Every other scenario's run names a "label".
synth_script() {
    run_preamble
    cat <<'SQL'
SELECT 'synthesize', s.target_table, s.model_name, E'\nDPOUT', s.rows
  FROM dpobj.synthesize(:'rel', :'target', :eps, :delta, string_to_array(:'cols', ','), :'opts'::jsonb) s;
SET LOCAL jit = off;
SELECT 'table stats', seq_scan, seq_tup_read, coalesce(idx_scan, 0), coalesce(idx_tup_fetch, 0)
  FROM pg_stat_xact_user_tables WHERE relid = :'rel'::regclass
    OR relid IN (SELECT unnest(path) FROM dpobj.unit_links WHERE relid = :'rel'::regclass)
 ORDER BY relid;
SELECT 'function stats', funcname, calls FROM pg_stat_xact_user_functions ORDER BY funcname;
SELECT 'target', a.attname, format_type(a.atttypid, a.atttypmod), c.relowner::regrole
  FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0
 WHERE c.oid = to_regclass(:'target') ORDER BY a.attnum;
SELECT 'model', m.mechanism, m.epsilon, m.delta, dpobj.model_kind(m),
       (SELECT array_agg(k ORDER BY k) FROM jsonb_object_keys(m.params) k),
       E'\nDPOUT', cardinality(m.weights), m.params
  FROM dpobj.get_model(split_part(:'target', '.', 2)) m;
-- whether the model measured the pair (marginal()'s NOTICE when it did not) is DP output
SET LOCAL client_min_messages = warning;
SELECT 'marginal', count(*),
       bool_and(ci_low IS NULL OR ci_low <= estimate AND estimate <= ci_high), E'\nDPOUT', sum(estimate)
  FROM dpobj.marginal(split_part(:'target', '.', 2), ARRAY['grp', 'y']);
SELECT 'fidelity', E'\nDPOUT', count(*), sum(ratio)
  FROM dpobj.synth_fidelity(split_part(:'target', '.', 2));
COMMIT;
SET jit = off;
SELECT 'ledger', mechanism, epsilon, delta, relation, outcome, detail, budget_id IS NOT NULL,
       privacy_unit, rows_per_unit, kind, rho, accounted
  FROM dpobj.ledger WHERE id > :before ORDER BY id;
SQL
}
synth_script >"$WORK/synth.sql"
for i in 0 1; do
    t_psql -d "${DBS[$i]}" -c "GRANT CREATE ON SCHEMA public TO $ZROLE" \
        -c "ALTER DATABASE ${DBS[$i]} SET dpobj.max_state_memory = '16MB'" >/dev/null
done
nsynth=0
for sline in "${SCENS[@]}"; do
    IFS='|' read -r scen _ filter _ _ _ _ _ _ <<<"$sline"
    scen=$(trim "$scen") filter=$(trim "$filter")
    # every other scenario names y as the "label" (step 1 then pairs each column with it,
    # a quantile column's bins too)
    (( nsynth++ % 2 )) && run_options '{"label": "y"}' "$filter" || run_options '{}' "$filter"
    # a linked table's twin also holds its customers' seg, read through the path
    cols="grp,c,y,a,b"
    [[ $(trim "$(cut -d'|' -f10 <<<"$sline")") == link ]] && cols+=",c_$scen.seg"
    for i in 0 1; do
        add_run "$WORK/synth.$i.drv" "$WORK/$scen.synthesize.$i" "$WORK/synth.sql" \
            role="$ZROLE" rel="t_$scen" target="public.syn_$scen" cols="$cols" opts="$RUN_OPTS" \
            eps="$EPS" delta="$DELTA"
    done
done
for i in 0 1; do run_driver "${DBS[$i]}" "$WORK/synth.$i.drv" & done
wait
for sline in "${SCENS[@]}"; do
    IFS='|' read -r scen _ <<<"$sline"
    scen=$(trim "$scen")
    compare_pair "$scen" synthesize synthesize "$WORK/$scen.synthesize.0" "$WORK/$scen.synthesize.1" discrete
    # released in both databases: the result row and a model of kind synthesizer
    st=0
    for f in "$WORK/$scen.synthesize.0" "$WORK/$scen.synthesize.1"; do
        grep -q "^synthesize|public.syn_$scen|syn_$scen|" "$f" && grep -q '^model|synthesize|.*|synthesizer|' "$f" || st=1
    done
    result "$scen/synthesize/synthesize: released in both databases" "$scen" synthesize synthesize released "$st"
done
phase "synthesize()"

# ---- dpobj.synthesize() as a job: dpobj.submit(rel, 'synthesize', ...) -------------------
# Submitted on every scenario at once, then compared: the submit's outcome, the job's
# state, error and model's public part, the target it created, the table's synthesize
# ledger rows (the session run's, then the job's).
cat >"$WORK/synthjob.sql" <<'SQL'
\set VERBOSITY verbose
\pset null (null)
SET ROLE :"role";
SELECT 'submitted', dpobj.submit(:'rel', 'synthesize', string_to_array(:'cols', ','), '', :eps, :delta,
                                 :'opts'::jsonb || jsonb_build_object('target', :'target')) > 0;
SQL
cat >"$WORK/synthjobres.sql" <<'SQL'
\set VERBOSITY verbose
\pset null (null)
SET ROLE :"role";
SELECT 'job', state, error, sqlstate, (model).mechanism, (model).epsilon, (model).delta,
       (SELECT array_agg(k ORDER BY k) FROM jsonb_object_keys((model).params) k),
       E'\nDPOUT', cardinality((model).weights)
  FROM dpobj.jobs WHERE relation = :'rel'::regclass AND mechanism = 'synthesize';
SELECT 'target', a.attname, format_type(a.atttypid, a.atttypmod), c.relowner::regrole
  FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0
 WHERE c.oid = to_regclass(:'target') ORDER BY a.attnum;
SELECT 'ledger', mechanism, epsilon, delta, relation, outcome, detail, kind, rho, accounted
  FROM dpobj.ledger WHERE relation = 'public.' || :'rel' AND mechanism = 'synthesize' ORDER BY id;
SQL
jobs_conf set
for i in 0 1; do t_psql -d "${DBS[$i]}" -c "ALTER DATABASE ${DBS[$i]} SET dpobj.max_jobs_per_role = 100000" >/dev/null; done
for sline in "${SCENS[@]}"; do
    IFS='|' read -r scen _ filter _ _ _ _ _ _ <<<"$sline"
    scen=$(trim "$scen") filter=$(trim "$filter")
    run_options '{}' "$filter"
    for i in 0 1; do
        add_run "$WORK/synthjob.$i.drv" "$WORK/$scen.synthsubmit.$i" "$WORK/synthjob.sql" \
            role="$ZROLE" rel="t_$scen" target="public.job_$scen" cols="grp,c,y,a,b" opts="$RUN_OPTS" \
            eps="$EPS" delta="$DELTA"
        add_run "$WORK/synthjobres.$i.drv" "$WORK/$scen.synthjob.$i" "$WORK/synthjobres.sql" \
            role="$ZROLE" rel="t_$scen" target="public.job_$scen"
    done
done
for i in 0 1; do run_driver "${DBS[$i]}" "$WORK/synthjob.$i.drv" & done
wait
for ((w = 0; w < 1200; w++)); do
    left=0
    for i in 0 1; do
        n=$(t_psql -d "${DBS[$i]}" -c "SELECT count(*) FROM dpobj.job_queue WHERE state IN ('queued', 'running')")
        left=$((left + n))
    done
    [[ $left == 0 ]] && break
    sleep 0.5
done
t_is "every synthesize job finished" "$left" "0"
jobs_conf restore
for i in 0 1; do t_psql -d "${DBS[$i]}" -c "ALTER DATABASE ${DBS[$i]} RESET dpobj.max_jobs_per_role" >/dev/null; done
for i in 0 1; do run_driver "${DBS[$i]}" "$WORK/synthjobres.$i.drv" & done
wait
for sline in "${SCENS[@]}"; do
    IFS='|' read -r scen _ <<<"$sline"
    scen=$(trim "$scen")
    compare_pair "$scen" synthesize submit "$WORK/$scen.synthsubmit.0" "$WORK/$scen.synthsubmit.1" discrete
    compare_pair "$scen" synthesize job "$WORK/$scen.synthjob.0" "$WORK/$scen.synthjob.1" discrete
    st=0
    for f in "$WORK/$scen.synthjob.0" "$WORK/$scen.synthjob.1"; do
        grep -q '^job|succeeded|(null)|(null)|synthesize|' "$f" || st=1
    done
    result "$scen/synthesize/job: the job released in both databases" "$scen" synthesize job released "$st"
done
phase "synthesize() jobs"
if [[ -n ${DPOBJ_KEEP_WORK:-} ]]; then
    echo "# run files in $WORK; databases ${DBS[*]} kept"
else
    for db in "${DBS[@]}"; do
        t_psql -d postgres -c "DROP DATABASE $db" >/dev/null
    done
fi
printf '# %s expected failures (TODO) above, listed in tests/security/expected_failures.txt\n' "$T_TODO"
t_summary
