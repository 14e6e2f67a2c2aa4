#!/usr/bin/env bash
# tests/citus/run.sh — dpobj on a real Citus cluster: a coordinator and two workers on
# 127.0.0.1, all running the PostgreSQL installation under test with Citus (12.1.12 on 15,
# 14.0.1 on 16-18) built from ../shared/vendor/citus (tests/citus/build.sh; the build is cached outside the
# repository, so only the first run on a machine takes the ~2 minutes of compiling).
#
# What it checks (docs/SCALING.md; issue "Scale out on Citus"):
#   (a) every dpobj aggregate is pushed down: EXPLAIN shows Citus's partial aggregate in
#       the shard task and its combine above the Citus scan (pushed_down below), and the
#       coordinator receives one partial state per shard (one task per shard, each an
#       ungrouped Aggregate); an aggregate Citus does not push down fails that check;
#   (b) the released model (dp_evaluate: the released counts or regression metrics) on
#       the distributed table equals the one on a local copy under the same dpobj.seed,
#       for every mechanism (linear regression, AdaSSP and SSP, passglm, auto, the
#       one-vs-rest multi-class ones and the synthesizer included);
#   (c) the final function -- the charge, the noise -- runs only on the coordinator: a
#       single-shard query and GROUP BY the distribution column are refused before any
#       charge on any node; with router execution off the same filter finalises on the
#       coordinator and equals the local run;
#   (d) the ledger row names the distributed (or reference) table;
#   (e) the sealed protected path on hash-distributed tables: protect() accepts them and
#       refuses reference tables; an analyst without SELECT trains and evaluates (with a
#       filter, kept inside the aggregate: every shard scanned sequentially, no WHERE);
#       submit()'s jobs run the same sealed query (also with a filter); two neighbouring
#       distributed tables give the same messages, model fields, ledger rows and shard
#       counters on the workers for every mechanism (tests/families/*.txt), with
#       the analyst's SET LOCALs propagated to the workers (citus.propagate_set_commands),
#       and the same job rows, ledger rows and shard counters through submit() (each
#       mechanism's first line);
#   (g) a worker error (a shard gone) reaches the analyst, of train() and of a job, only as
#       the generic DP006, charged once; a worker down before the run is refused before
#       the charge;
#   (h) declared feature domains (raw text and numeric columns encoded in the sealed query)
#       on a distributed table: train(), submit() and evaluate();
#   (i) under a small cap a shard's spilling state counts no temporary file on its worker
#       when the run is sealed (a superuser's direct call shows that it spills); a worker
#       whose cap is smaller than the coordinator's is refused before the charge;
#   (j) dpobj.aggregate() on a distributed protected table: partial states on the shards,
#       charged once on the coordinator; its cells under a seed equal a local copy's;
#       grouped by a column without declared levels (dp_aggregate_keys: no partial state,
#       its rows gathered on the coordinator) it is refused before the charge, and a
#       superuser's direct dp_aggregate_keys, charged once, releases the local copy's keys;
#   (k) train(..., 'ebm') on a distributed protected table: its terms from the declared
#       domains as on a local copy, the shards' states a sample of the coordinator's K (as
#       noisy GD's), charged once on the coordinator;
#   (l) dpobj.synthesize() on a distributed protected table (dp_synthesize, the array form:
#       Citus refuses dp_synthesize_cols's VARIADIC "any"): the shards' marginal counts
#       combined, charged once on the coordinator, the target owned by the analyst, the
#       model's public fields as a local copy's; neighbouring tables observe the same;
#   (m) privacy units: on a table distributed by its unit column train(), aggregate(),
#       describe(), a private SQL query, submit(), evaluate() and synthesize() run, each
#       shard bounding its units
#       (the sorted bounding), charged once on the coordinator; under a seed the bounded rows'
#       model equals the local run's; unit-neighbours observe the same; a shard's sort runs
#       within the coordinator's pinned work_mem and its temporary files are not counted on
#       the worker; a table distributed by another column and a linked table (link_unit) are
#       refused before the charge; a private query joining co-located tables on the unit runs,
#       each shard bounding its units after the join, as a local copy under a seed; its
#       unit-neighbours observe the same, the shard tasks counting no scan or temporary file
#       (also when spilling); a join not co-located, by another column or off Citus is refused
#       (0A000); lookup tables: reference tables joined in the shard tasks (to a table
#       distributed by its unit, or row level: neighbours observe the same), others refused;
#       the private rows-per-unit bound (unitboundshards.c): its first query pushed down, k'
#       and the count as a local copy's, charged once; unit-neighbours (joined too) observe the
#       same; its shard grouping's temporary files are not counted;
#   (f) one ledger for the cluster: the coordinator's ledger has one row per run, the
#       workers' ledgers stay empty, and an aggregate called directly on a worker is
#       refused.
#
# Environment: DPOBJ_CITUS_PGPORT (default 57636; the workers use the next two ports),
# DPOBJ_REQUIRE_CITUS=1 (fail instead of skipping when the Citus source is missing),
# DPOBJ_TMPDIR, and those of tests/citus/build.sh.  Needs root (or sudo) the first time,
# to install Citus into the PostgreSQL installation under test.  Last line:
# "N passed, M failed".
set -uo pipefail
# shellcheck source=scripts/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/common.sh"
# shellcheck source=tests/citus/build.sh
. "$REPO/tests/citus/build.sh"
# shellcheck source=tests/concurrency/lib.sh
. "$REPO/tests/concurrency/lib.sh"
# shellcheck source=tests/families/lines.sh
. "$REPO/tests/families/lines.sh"

BASE="${DPOBJ_CITUS_PGPORT:-57636}"
bail() { echo "not ok - $*"; t_summary; exit 1; }

# --- Citus into the installation under test, dpobj built and installed by the caller ---
# Users' clones have no ../shared: without the Citus source the suite says so and runs
# nothing; CI (.ci/run) sets DPOBJ_REQUIRE_CITUS=1, so there a missing source fails.
if ! dpobj_citus_source >/dev/null; then
    [[ "${DPOBJ_REQUIRE_CITUS:-0}" == 1 ]] &&
        bail "citus-$DPOBJ_CITUS_VERSION.tar.gz not found (DPOBJ_CITUS_SRC, ../shared/vendor/citus)"
    echo "# SKIP: citus-$DPOBJ_CITUS_VERSION.tar.gz not found beside the repository (set DPOBJ_CITUS_SRC)"
    t_summary
    exit 0
fi
( dpobj_citus_install ) || bail "Citus could not be built or installed"
[[ -f "$("$PG_CONFIG" --pkglibdir)/dpobj.so" ]] || bail "dpobj is not installed (make install)"

# shellcheck source=tests/citus/cluster.sh
. "$REPO/tests/citus/cluster.sh"
citus_cluster_start "$BASE" "citus.shard_count = 8" || bail "the Citus cluster did not start"
# err PORT SQL: the first ERROR line of SQL on that node (empty when it succeeds)
err() {
    cq "$1" -c "$2" 2>&1 >/dev/null | sed -n 's/^\(psql:[^ ]* \)\{0,1\}ERROR:  //p' | head -n 1
}
# err_code PORT SQL: the same with its SQLSTATE first ("55000: message")
err_code() {
    cq "$1" -v VERBOSITY=verbose -c "$2" 2>&1 >/dev/null | sed -n 's/^\(psql:[^ ]* \)\{0,1\}ERROR:  //p' | head -n 1
}
ledger_rows() { cq "$1" -c "SELECT count(*) FROM dpobj.ledger"; }
PORTS=("${CITUS_PORTS[@]}")

# public_params EXPR: a model's params without what is DP output.  Private model selection
# ('auto', params "selected") releases its choice and the chosen mechanism's own params
# and weights' size (an additive choice's are its score tables);
# only the selection's public params are compared (tests/security/selection_public_params.txt);
# with "R": "private" R-hat and its calibration are DP output (private_r_public_params.txt);
# so is an additive model's "counts" (its released noisy bin counts), a boosted-trees
# model's "splits" (its released splits and gains), with private bins
# ("binning": "private") its "terms" (the numeric terms' cuts) and its weights' size, and a
# binary classifier's "threshold" and balance estimate ("balance_counts", "balance_weight_*").
SELECTION_PUBLIC="{$(grep -vE '^[[:space:]]*(#|$)' "$REPO/tests/security/selection_public_params.txt" | paste -sd, -)}"
PRIVATE_R_PUBLIC="{$(grep -vE '^[[:space:]]*(#|$)' "$REPO/tests/security/private_r_public_params.txt" | paste -sd, -)}"
# a tuned noisy GD model's grid point and what it sets are DP output (tune_public_params.txt)
TUNE_PUBLIC="{$(grep -vE '^[[:space:]]*(#|$)' "$REPO/tests/security/tune_public_params.txt" | paste -sd, -)}"
public_params() {
    printf "%s - ARRAY(SELECT k FROM jsonb_object_keys(%s) k WHERE (%s ? 'selected' AND k <> ALL ('%s'::text[])) OR (%s->>'R_source' = 'private' AND k <> ALL ('%s'::text[])) OR (%s ? 'tune_point' AND k <> ALL ('%s'::text[])) OR k = ANY ('{counts,splits,threshold,balance_counts,balance_weight_true,balance_weight_false}') OR (k = 'terms' AND %s->>'binning' = 'private'))" "$1" "$1" "$1" "$SELECTION_PUBLIC" "$1" "$PRIVATE_R_PUBLIC" "$1" "$TUNE_PUBLIC" "$1"
}
COORD=${PORTS[0]}

# The only difference between the Citus versions this suite sees: the names of the partial
# aggregate on the shards and the combine on the coordinator.  Citus 12 ships a state as
# text (worker_partial_agg, coord_combine_agg); Citus 14 as bytea when the state type has
# send and receive functions, as dpobj's have (worker_binary_partial_agg,
# coord_binary_combine_agg; IsTypeBinarySerializable() in multi_logical_optimizer.c).
if [[ "$DPOBJ_CITUS_VERSION" == 12.* ]]; then
    PARTIAL_AGG=worker_partial_agg COMBINE_AGG=coord_combine_agg
else
    PARTIAL_AGG=worker_binary_partial_agg COMBINE_AGG=coord_binary_combine_agg
fi
# plan_coordinator PLAN, plan_task PLAN: the part of an EXPLAIN (VERBOSE) that runs on the
# coordinator (above the Citus scan) and the shard task's part
plan_coordinator() { sed '/Custom Scan (Citus/,$d' <<<"$1"; }
plan_task() { sed -n '/->  Task$/,$p' <<<"$1"; }
# pushed_down PLAN [TEXT]: PLAN combines on the coordinator (an Output of COMBINE_AGG) the
# partial states the shard task computes (PARTIAL_AGG, with TEXT inside it when given);
# prints PLAN when it does not
pushed_down() {
    plan_coordinator "$1" | grep -q "Output: $COMBINE_AGG(" &&
        plan_task "$1" | grep -q "$PARTIAL_AGG(.*${2:-}" && return 0
    printf '#   %s\n' "${1//$'\n'/$'\n'#   }"
    return 1
}
# computed_whole PLAN PART [AGG]: PLAN is not pushed down as above and computes AGG
# (dpobj.dp_halfspace by default) whole in PART (plan_coordinator or plan_task)
computed_whole() {
    ! pushed_down "$1" >/dev/null && "$2" "$1" | grep -q "${3:-dpobj.dp_halfspace}("
}

t_is "a coordinator and two active workers" \
    "$(cq "$COORD" -c "SELECT count(*) FROM pg_dist_node WHERE isactive AND noderole = 'primary' AND groupid <> 0")" 2

# --- data: the same rows, distributed (8 shards), reference and local ----------------------
cq "$COORD" >/dev/null <<'SQL' || bail "loading the test tables failed"
SET client_min_messages = warning;
CREATE TABLE pts_local AS
SELECT i AS id,
       ARRAY[((i * 7) % 11) / 8.0 - 0.625, ((i * 3) % 13) / 8.0 - 0.75,
             ((i * 5) % 7) / 8.0 - 0.375]::float8[] AS x,
       ((i * 7) % 11) / 8.0 - 0.625 + 0.5 * (((i * 3) % 13) / 8.0 - 0.75)
         + 0.3 * (((i * 13) % 5) / 4.0 - 0.5) > 0 AS y,
       ((i * 7) % 11) / 8.0 - 0.625 AS a, ((i * 3) % 13) / 8.0 - 0.75 AS b
  FROM generate_series(1, 2000) i;
CREATE TABLE pts (LIKE pts_local);
SELECT create_distributed_table('pts', 'id');
INSERT INTO pts SELECT * FROM pts_local;
CREATE TABLE pts_ref (LIKE pts_local);
SELECT create_reference_table('pts_ref');
INSERT INTO pts_ref SELECT * FROM pts_local;
SQL
SHARDS=$(cq "$COORD" -c "SELECT count(*) FROM pg_dist_shard WHERE logicalrelid = 'pts'::regclass")
t_is "the distributed table has 8 shards on 2 workers" \
    "$SHARDS/$(cq "$COORD" -c "SELECT count(DISTINCT nodeport) FROM citus_shards WHERE table_name = 'pts'::regclass")" "8/2"

# --- (a) (b) every aggregate, pushed down, same model as local -----------------------------
MODEL="ROW('opdisc', ARRAY[1, 0.5, 0]::float8[], 0, 1, 1e-6, '{}')::dpobj.model"
# a regression model and a real-valued label (linear regression, its private evaluation)
LINMODEL="ROW('adassp', ARRAY[1, 0.5, 0]::float8[], 0.1, 1, 1e-6, '{\"y_min\": -2, \"y_max\": 2}')::dpobj.model"
LABEL="a + 0.5 * b + ((id * 13) % 5) / 20.0"
LINOPTS="{\"R\": 2, \"y_min\": -2, \"y_max\": 2}"
SYNTHOPTS='{"domains": [{"column": "c", "levels": ["lo", "mid"]}, {"column": "a", "lo": -1, "hi": 1}, {"column": "b", "lo": -1, "hi": 1}]}'
# every family's [citus] lines (tests/families/README), in the registry's order
CITUS_LINES=$(family_lines citus | grep -vE '^[[:space:]]*(#|$)') || bail "the families' [citus] lines"
declare -A AGG=()
KEYS=()
while read -r k a; do
    for v in MODEL LINMODEL LABEL LINOPTS SYNTHOPTS; do a=${a//"\$$v"/"${!v}"}; done
    AGG[$k]=$a
    KEYS+=("$k")
done <<<"$CITUS_LINES"
runs=0
for k in "${KEYS[@]}"; do
    a=${AGG[$k]}
    plan=$(cq "$COORD" -c "EXPLAIN (VERBOSE, COSTS OFF) SELECT $a FROM pts")
    t_check "$k: the shards compute partial states, the coordinator combines them ($PARTIAL_AGG, $COMBINE_AGG)" \
        pushed_down "$plan"
    # one task per shard, each an ungrouped Aggregate: one partial state per shard
    t_is "$k: one task per shard, each returning one partial state" \
        "$(sed -n 's/^ *Task Count: \([0-9]*\)$/\1/p' <<<"$plan")/$(grep -cE '^ +->  Aggregate$' <<<"$plan")" \
        "$SHARDS/1"
    dist=$(cq "$COORD" -c "SET dpobj.seed = 11" -c "SELECT $a FROM pts")
    loc=$(cq "$COORD" -c "SET dpobj.seed = 11" -c "SELECT $a FROM pts_local")
    t_check "$k: distributed run releases a result" test -n "$dist"
    t_is "$k: same model as the local table under the same seed" "$dist" "$loc"
    runs=$((runs + 2))
done
# the synthesizer's columns as separate arguments (VARIADIC "any"): Citus's partial aggregate
# cannot type-check them and refuses before any row, nothing charged; its array form above
# gives this form's model on the local copy
SYNTHCOLS="dpobj.dp_synthesize_cols(true, 1, 1e-6, '$SYNTHOPTS', (ARRAY['lo', 'mid', 'hi'])[1 + id % 3], a::float8, b::float8)"
l0=$(ledger_rows "$COORD")
t_is "dp_synthesize_cols on a distributed table: refused by Citus, nothing charged" \
    "$(err "$COORD" "SELECT $SYNTHCOLS FROM pts")/$(ledger_rows "$COORD")" \
    "worker_partial_agg_sfunc could not confirm type correctness/$l0"
t_is "dp_synthesize on the distributed table: dp_synthesize_cols's model on the local copy under the same seed" \
    "$(cq "$COORD" -c "SET dpobj.seed = 11" -c "SELECT ${AGG[synth]} FROM pts")" \
    "$(cq "$COORD" -c "SET dpobj.seed = 11" -c "SELECT $SYNTHCOLS FROM pts_local")"
runs=$((runs + 2))
# the check has power: plans that do not push the aggregate down fail it -- the whole
# aggregate on the coordinator over gathered rows (Citus pushes down no ORDER BY inside an
# aggregate), or the whole aggregate in the shard task (GROUP BY the distribution column)
t_check "ORDER BY inside the aggregate: computed whole on the coordinator, not pushed down" \
    computed_whole "$(cq "$COORD" -c "EXPLAIN (VERBOSE, COSTS OFF) SELECT dpobj.dp_halfspace(x, y, 1, 1e-6 ORDER BY id) FROM pts")" plan_coordinator
t_check "GROUP BY the distribution column: computed whole in the shard task, not pushed down" \
    computed_whole "$(cq "$COORD" -c "EXPLAIN (VERBOSE, COSTS OFF) SELECT id, ${AGG[opdisc]} FROM pts GROUP BY id")" plan_task
# GLM states keep rows in canonical order: the model does not depend on shard arrival order
t_is "dp_logistic: same model with 2 shard-arrival orders (4 and 8 shards)" \
    "$(cq "$COORD" -c "SET client_min_messages = warning" -c "CREATE TABLE pts4 (LIKE pts_local)" \
        -c "SELECT create_distributed_table('pts4', 'id', shard_count := 4)" \
        -c "INSERT INTO pts4 SELECT * FROM pts_local" -c "SET dpobj.seed = 11" \
        -c "SELECT ${AGG[logistic]} FROM pts4" | tail -n 1)" \
    "$(cq "$COORD" -c "SET dpobj.seed = 11" -c "SELECT ${AGG[logistic]} FROM pts")"
runs=$((runs + 2))
# linear regression sums exact integers: the same model with 4 and 8 shards too
t_is "dp_linear_regression: same model with 2 shard-arrival orders (4 and 8 shards)" \
    "$(cq "$COORD" -c "SET dpobj.seed = 11" -c "SELECT ${AGG[linear]} FROM pts4")" \
    "$(cq "$COORD" -c "SET dpobj.seed = 11" -c "SELECT ${AGG[linear]} FROM pts")"
runs=$((runs + 2))

# --- (c) the final function only on the coordinator ----------------------------------------
before=("$(ledger_rows "$COORD")" "$(ledger_rows "${PORTS[1]}")" "$(ledger_rows "${PORTS[2]}")")
e=$(err "$COORD" "SELECT ${AGG[opdisc]} FROM pts WHERE id = 5")
t_check "single-shard filter: refused (mechanisms run only on the coordinator)" \
    grep -q "dp_halfspace: dpobj mechanisms run only on the Citus coordinator" <<<"$e"
e=$(err "$COORD" "SELECT ${AGG[evaluate]} FROM pts WHERE id = 5")
t_check "single-shard filter: dp_evaluate refused too" \
    grep -q "dp_evaluate: dpobj mechanisms run only on the Citus coordinator" <<<"$e"
e=$(err "$COORD" "SELECT id, ${AGG[logistic]} FROM pts GROUP BY id")
t_check "GROUP BY the distribution column: refused" \
    grep -q "dp_logistic: dpobj mechanisms run only on the Citus coordinator" <<<"$e"
after=("$(ledger_rows "$COORD")" "$(ledger_rows "${PORTS[1]}")" "$(ledger_rows "${PORTS[2]}")")
t_is "refused runs charged nothing on any node (coordinator/worker/worker ledger rows)" \
    "${after[*]}" "${before[*]}"
t_is "router execution off: the single-shard filter finalises on the coordinator, as local" \
    "$(cq "$COORD" -c "SET citus.enable_router_execution = off" -c "SET dpobj.seed = 3" \
        -c "SELECT ${AGG[opdisc]} FROM pts WHERE id IN (5, 6, 7)")" \
    "$(cq "$COORD" -c "SET dpobj.seed = 3" -c "SELECT ${AGG[opdisc]} FROM pts_local WHERE id IN (5, 6, 7)")"
t_is "GROUP BY an expression of the distribution column: one model per group, on the coordinator" \
    "$(cq "$COORD" -c "SELECT count(*) FROM (SELECT ${AGG[opdisc]} FROM pts GROUP BY (id % 2)::text) s")" 2
runs=$((runs + 4))

# --- (d) the ledger names the table ----------------------------------------------------------
t_is "ledger.relation of a distributed run names the distributed table" \
    "$(cq "$COORD" -c "SELECT relation FROM dpobj.ledger WHERE id = (SELECT max(id) FROM dpobj.ledger)")" "public.pts"
t_is "a run on a reference table: charged on the coordinator, named in the ledger" \
    "$(cq "$COORD" -c "SELECT (${AGG[opdisc]}).mechanism FROM pts_ref" \
        -c "SELECT relation FROM dpobj.ledger WHERE id = (SELECT max(id) FROM dpobj.ledger)" | tr '\n' ' ')" \
    "opdisc public.pts_ref "
runs=$((runs + 1))
t_is "no ledger row without a relation" \
    "$(cq "$COORD" -c "SELECT count(*) FROM dpobj.ledger WHERE relation IS NULL")" 0

# --- (f) one ledger for the cluster ----------------------------------------------------------
t_is "the coordinator's ledger has one row per run" "$(ledger_rows "$COORD")" "$runs"
t_is "the workers' ledgers are empty" "$(ledger_rows "${PORTS[1]}")/$(ledger_rows "${PORTS[2]}")" "0/0"
cq "${PORTS[1]}" -c "CREATE TABLE wlocal AS SELECT * FROM generate_series(1, 10) i" >/dev/null
e=$(err "${PORTS[1]}" "SELECT dpobj.dp_halfspace(ARRAY[i / 10.0]::float8[], i > 5, 1, 1e-6) FROM wlocal")
t_check "an aggregate called directly on a worker is refused" \
    grep -q "dpobj mechanisms run only on the Citus coordinator" <<<"$e"
t_is "and charged nothing there" "$(ledger_rows "${PORTS[1]}")" 0

# --- (e) the sealed protected path on a distributed table ---------------------------------
# The analyst has no SELECT; train()/evaluate() run the aggregate with {"sealed": true} in its
# options (the shards drop bad rows silently) and the filter inside the aggregate (no WHERE on
# any shard).  Every observable is compared between two neighbouring distributed tables.
cq "$COORD" >/dev/null <<'SQL' || bail "setting up the protected tables failed"
SET client_min_messages = warning;
CREATE ROLE analyst LOGIN;
CREATE TABLE secret AS SELECT * FROM pts_local;
SELECT dpobj.protect('secret');
SELECT dpobj.grant_budget('secret', 'analyst', 5, 1e-3);
SELECT create_distributed_table('secret', 'id');
SELECT truncate_local_data_after_distributing_table('secret');
CREATE TABLE unit_t AS SELECT *, id % 100 AS person FROM pts_local;
SELECT create_distributed_table('unit_t', 'id');
SELECT dpobj.protect('unit_t', 'person', 2);
SELECT dpobj.grant_budget('unit_t', 'analyst', 5, 1e-3);
SELECT dpobj.declare_domain('unit_t', 'a', -1, 1);
SQL
# (a table distributed by its unit runs: section (m))
nled=$(ledger_rows "$COORD")
e=$(err_code "$COORD" "SET ROLE analyst; SELECT dpobj.train('unit_t', 'opdisc', ARRAY['a', 'b'], 'y', 1, 1e-6)")
t_is "a run with a privacy unit on a table distributed by another column: refused before the charge" \
    "$e" "42809: dpobj cannot protect or train on public.unit_t: a run with a privacy unit on a Citus distributed table needs the table distributed by its unit column"
e=$(err "$COORD" "SET ROLE analyst; SELECT count(*) FROM dpobj.aggregate('unit_t', '[{\"stat\": \"mean\", \"column\": \"a\"}]', 1, 1e-6)")
t_check "... aggregate() too" grep -q "needs the table distributed by its unit column" <<<"$e"
t_is "... nothing charged" "$(ledger_rows "$COORD")" "$nled"
e=$(err "$COORD" "SELECT dpobj.protect('pts_ref')")
t_check "protect() refuses a reference table (public grounds, with a hint)" \
    grep -q "cannot protect or train on public.pts_ref: it is a Citus reference" <<<"$e"
t_is "protect() accepts a hash-distributed table" \
    "$(cq "$COORD" -c "SET client_min_messages = warning" -c "CREATE TABLE pts_prot AS SELECT * FROM pts" \
        -c "SELECT create_distributed_table('pts_prot', 'id')" -c "SELECT dpobj.protect('pts_prot')" | tail -n 1)" "t"
# (without NOTICEs: a budget's composition NOTICE is pg_regress cost's, not this suite's)
as_analyst() { cq "$COORD" -c "SET client_min_messages = warning" -c "SET ROLE analyst" "$@"; }
m=$(as_analyst -c "SELECT (m).mechanism, (m).epsilon, array_length((m).weights, 1)
                     FROM dpobj.train('secret', 'opdisc', ARRAY['a', 'b'], 'y', 1, 1e-6) m" 2>&1)
t_is "an analyst without SELECT trains on a distributed protected table" "$m" "opdisc|1|2"
m=$(as_analyst -c "SELECT (m).mechanism FROM dpobj.train('secret', 'logistic', ARRAY['a', 'b'], 'y', 1, 1e-6,
                     '{\"R\": 2, \"filter\": [{\"column\": \"b\", \"op\": \">\", \"value\": 0}]}') m" 2>&1)
t_is "... with a filter (evaluated inside the aggregate)" "$m" "objective_gauss"
m=$(as_analyst -c "SELECT count(*) FROM jsonb_object_keys(dpobj.evaluate('secret',
                     ROW('opdisc', ARRAY[1, 0.5]::float8[], 0, 1, 1e-6, '{}')::dpobj.model,
                     ARRAY['a', 'b'], 'y', 0.5, 1e-6)::jsonb)" 2>&1)
t_check "the analyst evaluates a model on it" test "${m:-0}" -gt 0
m=$(as_analyst -c "SELECT (m).mechanism FROM dpobj.train('secret', 'opdisc', ARRAY['a', 'b'], 'y', 1, 1e-6,
                     '{\"filter\": [{\"column\": \"id\", \"op\": \"=\", \"value\": 5}]}') m" 2>&1)
t_is "a filter that would hit a single shard: no router query, finalised on the coordinator" "$m" "opdisc"
t_is "... its ledger row: released, on the coordinator" \
    "$(cq "$COORD" -c "SELECT outcome FROM dpobj.ledger WHERE id = (SELECT max(id) FROM dpobj.ledger)")" "released"
# jobs: the job worker runs the same sealed query (the pins, {"sealed": true}) as train()
# job_end ID: the job's state once it ended (queued/running: waits, at most 3 minutes)
job_end() {
    local st
    for _ in $(seq 900); do
        st=$(cq "$COORD" -c "SELECT state FROM dpobj.job_queue WHERE id = $1")
        [[ $st == queued || $st == running ]] || { echo "$st"; return; }
        sleep 0.2
    done
    echo "still $st"
}
nled=$(ledger_rows "$COORD")
job=$(as_analyst -c "SELECT dpobj.submit('secret', 'opdisc', ARRAY['a', 'b'], 'y', 0.25, 1e-6, '{}', 'dist_job')" 2>&1)
t_is "submit() on a distributed protected table: the job succeeds" "$(job_end "$job")" succeeded
t_is "... its model released and stored under its name" \
    "$(as_analyst -c "SELECT (j.model).mechanism, cardinality((j.model).weights), m.relation, m.ledger_id IS NOT NULL
                        FROM dpobj.jobs j JOIN dpobj.models m ON m.name = 'dist_job' WHERE j.id = $job" 2>&1)" \
    "opdisc|2|public.secret|t"
t_is "... one ledger row, released, naming the distributed table" \
    "$(($(ledger_rows "$COORD") - nled))/$(cq "$COORD" -c "SELECT outcome, relation FROM dpobj.ledger WHERE id = (SELECT max(id) FROM dpobj.ledger)")" \
    "1/released|public.secret"
job=$(as_analyst -c "SELECT dpobj.submit('secret', 'logistic', ARRAY['a', 'b'], 'y', 0.25, 1e-6,
                       '{\"R\": 2, \"filter\": [{\"column\": \"b\", \"op\": \">\", \"value\": 0}]}')" 2>&1)
t_is "a job with a filter on the distributed table succeeds" \
    "$(job_end "$job")/$(as_analyst -c "SELECT (model).mechanism FROM dpobj.jobs WHERE id = $job")" \
    "succeeded/objective_gauss"
t_is "... the two jobs charged one ledger row each, on the coordinator only" \
    "$(($(ledger_rows "$COORD") - nled))/$(ledger_rows "${PORTS[1]}")/$(ledger_rows "${PORTS[2]}")" "2/0/0"
t_is "the analyst still cannot read the table" \
    "$(as_analyst -c "SELECT count(*) FROM secret" 2>&1 | grep -c 'permission denied')" 1
e=$(as_analyst -c "SELECT * FROM run_command_on_workers('SELECT count(*) FROM secret_' || (SELECT min(shardid) FROM pg_dist_shard WHERE logicalrelid = 'secret'::regclass))" 2>&1)
t_check "run_command_on_workers as the analyst reads no shard" grep -q "permission denied" <<<"$e"
# the pushed-down query of a filtered run: the partial aggregate ... FILTER, a full scan, no WHERE
plan=$(cq "$COORD" -c "EXPLAIN (VERBOSE, COSTS OFF) SELECT dpobj.dp_halfspace(ARRAY[a, b]::float8[], y, 1, 1e-6, '{\"sealed\": true}')
                        FILTER (WHERE id OPERATOR(pg_catalog.=) 5) FROM secret")
t_check "a filter on the distribution column stays inside the aggregate: every shard is scanned" \
    test "$(sed -n 's/^ *Task Count: \([0-9]*\)$/\1/p' <<<"$plan")" = "$SHARDS"
if ! grep -qE "Index|Bitmap|Filter: |[^(]WHERE [^t]" <<<"$plan" && grep -q "Seq Scan" <<<"$plan"; then
    t_check "... by a sequential scan without a qualifier (no index, no WHERE on the shard)" true
else
    t_check "... by a sequential scan without a qualifier (no index, no WHERE on the shard)" false
    sed 's/^/#   /' <<<"$plan"
fi

# neighbours: nb_a and nb_b differ in row 7 only (NaN feature, b = 5: the only row the filter
# b > 1 selects in nb_a, none in nb_b), b indexed in both, 8 colocated shards each
cq "$COORD" >/dev/null <<'SQL' || bail "setting up the neighbour tables failed"
SET client_min_messages = warning;
CREATE TABLE nb_a AS SELECT id, a, b, y, (id % 3)::int AS c FROM pts_local;
UPDATE nb_a SET a = 'NaN', b = 5 WHERE id = 7;
CREATE TABLE nb_b AS SELECT id, a, b, y, (id % 3)::int AS c FROM pts_local;
SELECT create_distributed_table(t, 'id', colocate_with := 'pts') FROM unnest(ARRAY['nb_a', 'nb_b']) t;
CREATE INDEX ON nb_a (b, a, y, c);
CREATE INDEX ON nb_b (b, a, y, c);
SELECT dpobj.protect(t) FROM unnest(ARRAY['nb_a', 'nb_b']) t;
SELECT dpobj.grant_budget(t, 'analyst', 1000, 0.5) FROM unnest(ARRAY['nb_a', 'nb_b']) t;
SQL
# the counters of a table on the coordinator and of its shards on the workers (in shard
# order), read until two reads 0.2 s apart agree: the task sessions flush them as they end
table_stats() {
    local p prev="" cur
    for _ in $(seq 40); do
        cur="$(cq "$COORD" -c "SELECT concat_ws(':', seq_scan, seq_tup_read, coalesce(idx_scan, 0))
                               FROM pg_stat_user_tables WHERE relname = '$1'")"
        for p in "${PORTS[@]:1}"; do
            cur+=" | $(cq "$p" -c "SET citus.override_table_visibility = off" -c "SELECT string_agg(concat_ws(':', seq_scan, seq_tup_read, coalesce(idx_scan, 0),
                                 coalesce(idx_tup_fetch, 0), n_tup_ins), ' ' ORDER BY relname)
                              FROM pg_stat_user_tables WHERE relname ~ '^$1_[0-9]+$'")"
        done
        [[ $cur == "$prev" ]] && break
        prev=$cur
        sleep 0.2
    done
    echo "$cur"
}
# the change from counters $1 to $2 (the same layout), field by field
stats_delta() {
    paste -d' ' <(tr ' |' '\n\n' <<<"$1") <(tr ' |' '\n\n' <<<"$2") |
        awk '{ n = split($1, a, ":"); split($2, b, ":"); s = "";
               for (i = 1; i <= n; i++) s = s (i > 1 ? ":" : "") (b[i] - a[i]); printf "%s ", s }'
}
FILTER='"filter": [{"column": "b", "op": ">", "value": 1}]'
# the analyst's session running SQL (one statement) in a transaction under the plan settings
# an analyst may choose, then the newest ledger row: its output (errors, notices, rows)
analyst_session() { # SQL
    cq "$COORD" -v VERBOSITY=verbose 2>&1 <<SQL
SET citus.max_cached_conns_per_worker = 0;
SET ROLE analyst;
SET client_min_messages = notice;
BEGIN;
SET citus.propagate_set_commands = 'local';
SET LOCAL enable_seqscan = off;
SET LOCAL enable_bitmapscan = on;
SET LOCAL enable_indexscan = on;
SET LOCAL enable_indexonlyscan = on;
SET LOCAL client_min_messages = debug1;
SET LOCAL max_parallel_workers_per_gather = 4;
$1
COMMIT;
RESET ROLE;
SELECT mechanism, epsilon, delta, outcome, detail FROM dpobj.ledger WHERE id = (SELECT max(id) FROM dpobj.ledger);
SQL
}
# what the analyst observes of one run on table $1: the session's output (errors, notices),
# the model's public fields, its ledger row, the shards' counters on the workers
observe() { # TABLE MECH OPTIONS LABEL
    local out before
    before=$(table_stats "$1")
    out=$(analyst_session "SELECT (m).mechanism, (m).epsilon, (m).delta, $(public_params '(m).params'),
       CASE WHEN NOT (m).params ? 'selected' AND (m).params->>'binning' IS DISTINCT FROM 'private'
            THEN array_length((m).weights, 1) END
  FROM dpobj.train('$1', '$2', ARRAY['a', 'b'], '$4', 0.5, 1e-5, '$3') m;")
    echo "${out//$1/TABLE}"
    echo "counters (coordinator, shards): $(stats_delta "$before" "$(table_stats "$1")")"
}
# how many shards the counters of one observation ($1) show read by exactly one full
# sequential scan and no index scan
full_scans() {
    sed -n 's/^counters (coordinator, shards): [^ ]* *//p' <<<"$1" | tr ' ' '\n' | grep -v '^$' |
        awk -F: '$1 == 1 && $2 > 0 && $3 == 0 && $4 == 0 { n++ } END { print n + 0 }'
}
# every mechanism of the families' [neighbours] lines on nb_a and nb_b through OBSERVE (with
# the filter): nbfail counts the mechanisms whose observations differ or that did not
# release (PATTERN... must all match nb_a's observation); WHAT names the path
neighbour_runs() { # OBSERVE WHAT PATTERN...
    local observe=$1 what=$2 name mech opts label oa ob p
    shift 2
    nbfail=0
    while read -r name mech _ opts label; do
        [[ -z $name || $name == \#* ]] && continue
        opts="${opts%\}}"
        [[ $opts == "{" ]] && opts="{$FILTER}" || opts="$opts, $FILTER}"
        oa=$($observe nb_a "$mech" "$opts" "${label:-y}")
        ob=$($observe nb_b "$mech" "$opts" "${label:-y}")
        if [[ $name == opdisc ]]; then
            sed "s/^/# what the analyst observes ($what, opdisc, nb_a): /" <<<"$oa"
            # the counters are really read: each of the 8 shards scanned once, sequentially, whole
            t_is "$what: the shards' counters of one run: one full sequential scan per shard, no index scan" \
                "$(full_scans "$oa")" "$SHARDS"
        fi
        if [[ "$oa" != "$ob" ]]; then
            nbfail=$((nbfail + 1))
            echo "# neighbours differ on $name ($what):"; diff <(echo "$oa") <(echo "$ob") | sed 's/^/#   /'
        fi
        for p in "$@"; do
            grep -q -- "$p" <<<"$oa" || { nbfail=$((nbfail + 1)); echo "# $name ($what): no '$p': $oa"; break; }
        done
    done <<<"$NB_LINES"
}
NB_LINES=$(neighbour_lines) || bail "the families' [neighbours] lines"
neighbour_runs observe "train()" "|released|"
# dp_logistic and noisy GD from a sample on every shard and at the coordinator (what train()
# does on a distributed table larger than the cap holds; "sample_rows" makes K small here):
# the neighbours differ in one row, which the sample may or may not keep
for mech in logistic noisysgd; do
    oa=$(observe nb_a "$mech" '{"R": 1, "sample_rows": 50}' y)
    ob=$(observe nb_b "$mech" '{"R": 1, "sample_rows": 50}' y)
    [[ "$oa" == "$ob" ]] || { echo "# neighbours differ ($mech, sample):"; diff <(echo "$oa") <(echo "$ob") | sed 's/^/#   /'; }
    t_is "neighbouring distributed tables, $mech from a sample of 50 rows: the same observations, released" \
        "$([[ "$oa" == "$ob" ]] && echo same)/$(grep -c '|released|' <<<"$oa")" "same/1"
done
# the owner need not be a superuser: its SET LOCALs on the workers are settings any role may set
cq "$COORD" >/dev/null <<'SQL' || bail "setting up the table of an ordinary owner failed"
SET client_min_messages = warning;
CREATE ROLE tab_owner LOGIN;
CREATE TABLE nb_own AS SELECT id, a, b, y, (id % 3)::int AS c FROM pts_local;
ALTER TABLE nb_own OWNER TO tab_owner;
SELECT create_distributed_table('nb_own', 'id', colocate_with := 'pts');
CREATE INDEX ON nb_own (b, a, y, c);
SELECT dpobj.protect('nb_own');
SELECT dpobj.grant_budget('nb_own', 'analyst', 5, 1e-3);
SQL
oa=$(observe nb_own opdisc "{$FILTER}" y)
t_check "a table owned by an ordinary role: released under the forwarded attack settings" grep -q "|released|" <<<"$oa"
t_is "... each shard read by one full sequential scan" "$(full_scans "$oa")" "$SHARDS"
t_is "neighbouring distributed tables: every mechanism, same messages, model fields, ledger rows, shard counters (SET LOCAL propagated)" "$nbfail" 0
sa=$(table_stats nb_a)
sb=$(table_stats nb_b)
oa=$(cq "$COORD" -c "SET citus.max_cached_conns_per_worker = 0" -c "SET ROLE analyst" -c "SELECT dpobj.evaluate('nb_a', ROW('opdisc', ARRAY[1, 0.5]::float8[], 0, 1, 1e-6, '{}')::dpobj.model, ARRAY['a', 'b'], 'y', 0.5, 1e-5, '{$FILTER}') IS NOT NULL" 2>&1; stats_delta "$sa" "$(table_stats nb_a)")
ob=$(cq "$COORD" -c "SET citus.max_cached_conns_per_worker = 0" -c "SET ROLE analyst" -c "SELECT dpobj.evaluate('nb_b', ROW('opdisc', ARRAY[1, 0.5]::float8[], 0, 1, 1e-6, '{}')::dpobj.model, ARRAY['a', 'b'], 'y', 0.5, 1e-5, '{$FILTER}') IS NOT NULL" 2>&1; stats_delta "$sb" "$(table_stats nb_b)")
t_is "neighbouring distributed tables: evaluate() observes the same" "$oa" "$ob"

# the same neighbours through submit(): the job worker (a background worker of the
# coordinator) runs the sealed query; a role of its own (the zCDP runs above closed the
# analyst's budgets to approximate DP), one job at a time (the shard counters are per job)
cq "$COORD" >/dev/null <<'SQL' || bail "setting up the job analyst failed"
SET client_min_messages = warning;
CREATE ROLE janalyst LOGIN;
SELECT dpobj.grant_budget(t, 'janalyst', 1000, 0.5) FROM unnest(ARRAY['nb_a', 'nb_b']) t;
SQL
observe_job() { # TABLE MECH OPTIONS LABEL
    local before job out
    before=$(table_stats "$1")
    job=$(cq "$COORD" -c "SET ROLE janalyst" \
        -c "SELECT dpobj.submit('$1', '$2', ARRAY['a', 'b'], '$4', 0.5, 1e-5, '$3')" 2>&1)
    out="submit: $job"
    if [[ $job =~ ^[0-9]+$ ]]; then
        out="submit: a job id, $(job_end "$job")"$'\n'
        out+=$(cq "$COORD" -c "SET ROLE janalyst" -c "SELECT state, error, sqlstate, (model).mechanism,
                   (model).epsilon, (model).delta, $(public_params '(model).params'),
                   CASE WHEN NOT (model).params ? 'selected' AND (model).params->>'binning' IS DISTINCT FROM 'private' THEN cardinality((model).weights) END
              FROM dpobj.jobs WHERE id = $job" 2>&1)
    fi
    out+=$'\n'$(cq "$COORD" -c "SELECT mechanism, epsilon, delta, outcome, detail FROM dpobj.ledger
                                 WHERE id = (SELECT max(id) FROM dpobj.ledger)")
    echo "${out//$1/TABLE}"
    echo "counters (coordinator, shards): $(stats_delta "$before" "$(table_stats "$1")")"
}
# each mechanism's first line (a job wraps the run train() ran above for every line)
NB_LINES=$(mechanism_firsts <<<"$NB_LINES")
neighbour_runs observe_job "submit()" "|released|" "^succeeded|"
t_is "neighbouring distributed tables through submit(): each mechanism, same job rows, ledger rows, shard counters" "$nbfail" 0

# --- (g) a worker error on the protected path: the analyst sees only DP006, charged once ---
cq "$COORD" >/dev/null <<'SQL' || bail "setting up the broken table failed"
SET client_min_messages = warning;
CREATE TABLE brk AS SELECT * FROM pts_local;
SELECT create_distributed_table('brk', 'id', colocate_with := 'pts');
SELECT dpobj.protect('brk');
SELECT dpobj.grant_budget('brk', 'analyst', 100, 1e-3);
SQL
GENERIC="ERROR:  DP006: dpobj.train: the protected run failed and released no model"
# what the analyst sees of one train() on brk (verbose, every message level)
brk_train() {
    cq "$COORD" -v VERBOSITY=verbose -c "SET ROLE analyst" -c "SET client_min_messages = debug5" \
        -c "SELECT dpobj.train('brk', 'opdisc', ARRAY['a', 'b'], 'y', 1, 1e-6) IS NOT NULL" 2>&1
}
# brk_fails WHAT: train() and a job fail generically, each charged once, nothing of the cause
brk_fails() {
    local out nled job leaks
    nled=$(ledger_rows "$COORD")
    out=$(brk_train)
    t_check "$1: train() fails with the generic DP006" grep -qF "$GENERIC" <<<"$out"
    # (Citus's own DEBUG line when the transaction ends after a failed connection, "No entry
    # found for node HOST:PORT while decrementing connection counter", is left out: it names
    # a node of pg_dist_node, which every role reads, and follows the node's health, not the
    # rows; docs/SECURITY.md)
    leaks=$(awk '/No entry found for node .* while decrementing connection counter/ { skip = 2 }
                 skip { skip--; next } { print }' <<<"$out" |
        grep -iE "brk_|does not exist|remote|connect|$((COORD + 1))|$((COORD + 2))|shard|worker")
    t_is "$1: ... and shows nothing of the worker's error" "$leaks" ""
    [[ -z $leaks ]] || sed 's/^/#   /' <<<"$out"
    t_is "$1: ... charged once: one ledger row, outcome failed" \
        "$(($(ledger_rows "$COORD") - nled))/$(cq "$COORD" -c "SELECT outcome, detail FROM dpobj.ledger WHERE id = (SELECT max(id) FROM dpobj.ledger)")" \
        "1/failed|failed"
    nled=$(ledger_rows "$COORD")
    job=$(as_analyst -c "SELECT dpobj.submit('brk', 'opdisc', ARRAY['a', 'b'], 'y', 1, 1e-6)" 2>&1)
    t_is "$1: a job fails with the generic DP006, charged once" \
        "$(job_end "$job")/$(as_analyst -c "SELECT sqlstate, error FROM dpobj.jobs WHERE id = $job")/$(($(ledger_rows "$COORD") - nled))" \
        "failed/DP006|dpobj.train: the protected run failed and released no model/1"
}
read -r bshard bport < <(cq "$COORD" -F' ' -c "SELECT shard_name, nodeport FROM citus_shards
                                                WHERE table_name = 'brk'::regclass ORDER BY shardid LIMIT 1")
t_is "brk: released while every shard is there" "$(brk_train | tail -n 1)" "t"
# one shard renamed away on its worker: that shard's task fails in the scan, every time
cq "$bport" -c "SET citus.enable_manual_changes_to_shards = on" -c "ALTER TABLE $bshard RENAME TO brk_gone" >/dev/null
brk_fails "a shard missing on its worker"
cq "$bport" -c "SET citus.enable_manual_changes_to_shards = on" -c "ALTER TABLE brk_gone RENAME TO $bshard" >/dev/null
t_is "the shard back: released again" "$(brk_train | tail -n 1)" "t"
# a worker down before the run: train() reads every worker's dpobj.max_state_memory before
# the charge, so an unreachable worker is refused then, nothing charged (whether a node
# answers depends on no row of the table); a worker lost after that check fails the scan
# like the missing shard above: DP006, charged
dpobj_as_pg "$PG_BINDIR/pg_ctl" -D "$CITUS_DIR/n2" -m fast -w stop >/dev/null
nled=$(ledger_rows "$COORD")
out=$(brk_train)
t_is "a worker down: train() is refused before the charge, nothing charged" \
    "$(grep -c "08006: dpobj cannot train on public.brk: could not read dpobj.max_state_memory on the Citus worker" <<<"$out")/$(($(ledger_rows "$COORD") - nled))" "1/0"
out=$(as_analyst -v VERBOSITY=verbose -c "SELECT dpobj.submit('brk', 'opdisc', ARRAY['a', 'b'], 'y', 1, 1e-6)" 2>&1)
t_is "a worker down: submit() is refused too, no job, nothing charged" \
    "$(grep -c "08006: dpobj cannot train on public.brk: could not read dpobj.max_state_memory on the Citus worker" <<<"$out")/$(($(ledger_rows "$COORD") - nled))" "1/0"
dpobj_as_pg "$PG_BINDIR/pg_ctl" -D "$CITUS_DIR/n2" -l "$CITUS_DIR/n2.log" -w start >/dev/null
t_is "the worker back: released again" "$(brk_train | tail -n 1)" "t"
t_check "the coordinator's server log has the causes, for the administrator" \
    grep -q "dpobj: a protected run on public.brk for role \"analyst\" failed" "$CITUS_DIR/n0.log"
t_is "the workers' ledgers are still empty" "$(ledger_rows "${PORTS[1]}")/$(ledger_rows "${PORTS[2]}")" "0/0"

# --- (h) declared feature domains on a distributed table --------------------------------------
# raw text and numeric columns, encoded in the sealed query (dpobj.encode_features with the
# encoding as a bound parameter, pushed down to the shards); a row with an undeclared level,
# one with a NULL and one with a huge age: the encoding makes them "other" / drops / clips
cq "$COORD" >/dev/null <<'SQL' || bail "setting up the declared-domain tables failed"
SET client_min_messages = warning;
CREATE TABLE people_local AS
SELECT i AS id, (ARRAY['HS-grad', 'Bachelors', 'Masters', 'Doctorate', 'Preschool'])[1 + i % 5] AS edu,
       (17 + (i * 7) % 74)::numeric AS age, ((i % 5) IN (1, 2, 3) AND 17 + (i * 7) % 74 > 30) AS y
  FROM generate_series(1, 2000) i;
UPDATE people_local SET edu = 'x''); --', age = NULL WHERE id = 3;
UPDATE people_local SET age = 1e300 WHERE id = 4;
CREATE TABLE people (LIKE people_local);
SELECT create_distributed_table('people', 'id');
INSERT INTO people SELECT * FROM people_local;
SELECT dpobj.protect(t) FROM unnest(ARRAY['people', 'people_local']) t;
SELECT dpobj.grant_budget(t, 'analyst', 100, 1e-3) FROM unnest(ARRAY['people', 'people_local']) t;
SELECT dpobj.declare_domain(t, 'edu', ARRAY['HS-grad', 'Bachelors', 'Masters', 'x''); DROP TABLE people; --'])
  FROM unnest(ARRAY['people', 'people_local']::regclass[]) t;
SELECT dpobj.declare_domain(t, 'age', 17, 90) FROM unnest(ARRAY['people', 'people_local']::regclass[]) t;
SQL
dom_train() { # TABLE MECH OPTIONS: the public fields of the model train() releases
    as_analyst -c "SELECT (m).mechanism, cardinality((m).weights), (m).params->'R', (m).params->'encoding'
                     FROM dpobj.train('$1', '$2', ARRAY['edu', 'age'], 'y', 1, 1e-6, '$3') m" 2>&1
}
for mo in "opdisc|{}" "logistic|{\"R\": 1}"; do
    mech=${mo%%|*}
    opts=${mo#*|}
    d=$(dom_train people "$mech" "$opts")
    t_check "declared domains, $mech: train() on the distributed table encodes the raw columns (d = 4 + 1 + 1)" \
        grep -qE "^[a-z_]+\|6\|" <<<"$d"
    t_is "declared domains, $mech: the same public fields as on a local copy" "$d" "$(dom_train people_local "$mech" "$opts")"
done
enc=$(as_analyst -c "SELECT (m).params->'encoding' FROM dpobj.train('people', 'logistic', ARRAY['edu', 'age'], 'y', 1, 1e-6) m")
# the encoded rows themselves: the sealed query's aggregate under a seed, distributed = local
ENCAGG="dpobj.dp_logistic(dpobj.encode_features(\$enc\$$enc\$enc\$::jsonb, ARRAY[edu::text], ARRAY[CASE WHEN abs(age) >= 1e300 THEN NULL WHEN abs(age) < 1e-300 THEN 0 ELSE age::float8 END]), y, 1, 1e-6, '{\"R\": 2, \"sealed\": true}')"
t_is "declared domains: the pushed-down encoding gives the local model under a seed" \
    "$(cq "$COORD" -c "SET dpobj.seed = 5" -c "SELECT $ENCAGG FROM people")" \
    "$(cq "$COORD" -c "SET dpobj.seed = 5" -c "SELECT $ENCAGG FROM people_local")"
t_check "... and it is computed on the shards ($PARTIAL_AGG with encode_features)" \
    pushed_down "$(cq "$COORD" -c "EXPLAIN (VERBOSE, COSTS OFF) SELECT $ENCAGG FROM people")" encode_features
m=$(as_analyst -c "SELECT dpobj.evaluate('people', m, ARRAY['edu', 'age'], 'y', 0.5, 1e-6) IS NOT NULL
                     FROM dpobj.train('people', 'logistic', ARRAY['edu', 'age'], 'y', 1, 1e-6) m" 2>&1)
t_is "declared domains: evaluate() on the distributed table with the model's encoding" "$m" "t"
job=$(as_analyst -c "SELECT dpobj.submit('people', 'logistic', ARRAY['edu', 'age'], 'y', 1, 1e-6,
                       '{\"filter\": [{\"column\": \"edu\", \"op\": \"<>\", \"value\": \"Masters\"}]}')" 2>&1)
t_is "declared domains: a job (with a filter on a raw column) succeeds, d = 6" \
    "$(job_end "$job")/$(as_analyst -c "SELECT cardinality((model).weights), (model).params->'encoding' = \$enc\$$enc\$enc\$::jsonb FROM dpobj.jobs WHERE id = $job")" \
    "succeeded/6|t"
t_is "the table is still there (a level is data)" "$(cq "$COORD" -c "SELECT count(*) FROM people")" 2000

# --- (j) dpobj.aggregate() on a distributed protected table ------------------------------------
# every cell from one scan: dp_aggregate's partial states on the shards, combined, noised and
# charged once on the coordinator
l0=$(ledger_rows "$COORD")
m=$(as_analyst -c "SELECT count(*), bool_and(ci_low <= ci_high) FROM dpobj.aggregate('people',
                     '[{\"stat\": \"count\"}, {\"stat\": \"mean\", \"column\": \"age\"}]', 1, 1e-6, ARRAY['edu'])" 2>&1)
t_is "aggregate() on a distributed protected table: 5 groups x 2 statistics" "$m" "10|t"
t_is "... charged once, on the coordinator (coordinator/worker/worker ledger rows)" \
    "$(ledger_rows "$COORD")/$(ledger_rows "${PORTS[1]}")/$(ledger_rows "${PORTS[2]}")" "$((l0 + 1))/0/0"
t_is "... its ledger row: aggregate, released" \
    "$(cq "$COORD" -c "SELECT mechanism, outcome FROM dpobj.ledger WHERE id = (SELECT max(id) FROM dpobj.ledger)")" "aggregate|released"
AGGENC="[{\"column\": \"edu\", \"levels\": [\"HS-grad\", \"Bachelors\", \"Masters\", \"x''); DROP TABLE people; --\"]}, {\"column\": \"age\", \"lo\": 17, \"hi\": 90}]"
# a histogram and a quantile of 73 bins of [17, 90]: every (whole) age lies on an edge, in the bin
# above it on the shards as on the local copy (docs/PRIVACY.md, "Post-processing")
DPAGG="dpobj.dp_aggregate(dpobj.encode_features('$AGGENC', ARRAY[edu::text], ARRAY[dpobj.numeric_feature(age)]), true, 1, 1e-6, jsonb_build_object('sealed', true, 'layout', jsonb_build_object('encoding', '$AGGENC'::jsonb, 'group_by', '[\"edu\"]'::jsonb, 'what', '[{\"stat\": \"count\"}, {\"stat\": \"sum\", \"column\": \"age\"}, {\"stat\": \"histogram\", \"column\": \"age\", \"bins\": 73}, {\"stat\": \"quantile\", \"column\": \"age\", \"q\": 0.5, \"bins\": 73}]'::jsonb)))"
t_check "... dp_aggregate is pushed down ($PARTIAL_AGG on the shards, combined on the coordinator)" \
    pushed_down "$(cq "$COORD" -c "EXPLAIN (VERBOSE, COSTS OFF) SELECT $DPAGG FROM people")" dp_aggregate
t_is "... and its cells under a seed are the local copy's (histogram and quantile bins on edges too)" \
    "$(cq "$COORD" -c "SET dpobj.seed = 5" -c "SELECT $DPAGG->'values' FROM people")" \
    "$(cq "$COORD" -c "SET dpobj.seed = 5" -c "SELECT $DPAGG->'values' FROM people_local")"
# grouped by a column without declared levels: private key selection (dp_aggregate_keys),
# whose state is a sort of the encoded rows and has no combine function, so Citus would
# gather every row on the coordinator (a state that grows with the table, which the sealed
# path does not run): aggregate() refuses it on a distributed table before the charge
l0=$(ledger_rows "$COORD")
e=$(err_code "$COORD" "SET ROLE analyst; SELECT count(*) FROM dpobj.aggregate('people', '[{\"stat\": \"count\"}]', 1, 1e-6, ARRAY['y'])")
t_is "aggregate() grouped by a column without declared levels: refused on a distributed table, nothing charged" \
    "$e/$(ledger_rows "$COORD")" \
    "0A000: dpobj.aggregate: group_by column \"y\" has no declared levels, which a Citus distributed table does not support/$l0"
# a superuser's direct call: computed whole on the coordinator over the gathered rows (the
# final function, the charge and the noise there as always), charged once; under a seed the
# distributed table's release (keys, threshold, cells) is the local copy's: the final
# function reads the rows sorted by key and sums integers (lattice points), exactly
KEYENC='[{"column": "age", "lo": 17, "hi": 90}]'
KEYAGG="dpobj.dp_aggregate_keys(dpobj.encode_features('$KEYENC', '{}'::text[], ARRAY[dpobj.numeric_feature(age)]), edu, 1, 1e-6, jsonb_build_object('sealed', true, 'layout', jsonb_build_object('encoding', '$KEYENC'::jsonb, 'group_by', '[]'::jsonb, 'what', '[{\"stat\": \"count\"}, {\"stat\": \"sum\", \"column\": \"age\"}]'::jsonb)))"
t_check "dp_aggregate_keys (no combine function): computed whole on the coordinator, not pushed down" \
    computed_whole "$(cq "$COORD" -c "EXPLAIN (VERBOSE, COSTS OFF) SELECT $KEYAGG FROM people")" plan_coordinator dpobj.dp_aggregate_keys
l0=$(ledger_rows "$COORD")
dist=$(cq "$COORD" -c "SET dpobj.seed = 5" -c "SELECT $KEYAGG FROM people")
t_is "... a direct call on the distributed table: charged once, on the coordinator (coordinator/worker/worker ledger rows)" \
    "$(ledger_rows "$COORD")/$(ledger_rows "${PORTS[1]}")/$(ledger_rows "${PORTS[2]}")" "$((l0 + 1))/0/0"
# the 5 keys of 399 or 400 rows released, the lone injected level (1 row) not
t_is "... it releases the 5 large keys with 2 cells each" \
    "$(cq "$COORD" -c "SELECT jsonb_array_length(\$k\$$dist\$k\$::jsonb->'keys'), jsonb_array_length(\$k\$$dist\$k\$::jsonb->'values')")" "5|10"
t_is "... and under a seed the local copy's release (keys, threshold, noise, cells)" \
    "$dist" "$(cq "$COORD" -c "SET dpobj.seed = 5" -c "SELECT $KEYAGG FROM people_local")"

# --- (k) private additive boosting on a distributed protected table ---------------------------
# dp_ebm keeps noisy GD's rows: train() on Citus gives it the sample of the coordinator's K
# ("sample_rows", above the 2000 rows here: every row), run and charged on the coordinator;
# equal-width bins, so that the layout is public and compared with the local copy's
l0=$(ledger_rows "$COORD")
ebm_train() { # TABLE: the public fields of train(..., 'ebm') and whether it names a sample
    as_analyst -c "SELECT (m).mechanism, cardinality((m).weights), (m).params->'terms', (m).params ? 'sample_rows'
                     FROM dpobj.train('$1', 'ebm', ARRAY['edu', 'age'], 'y', 1, 1e-6, '{\"bins\": 8, \"binning\": \"uniform\"}') m" 2>&1
}
d=$(ebm_train people)
t_check "ebm: train() on the distributed table releases an additive model (4 levels + 1 \"other\" + 8 bins)" \
    grep -qE "^ebm\|13\|.*\|t$" <<<"$d"
t_is "... the same terms as on a local copy (which keeps every row, no sample)" "${d%|t}" "$(ebm_train people_local | sed 's/|f$//')"
t_is "... each charged once, on the coordinator (coordinator/worker/worker ledger rows)" \
    "$(ledger_rows "$COORD")/$(ledger_rows "${PORTS[1]}")/$(ledger_rows "${PORTS[2]}")" "$((l0 + 2))/0/0"
t_is "... the distributed table's ledger row: ebm, released" \
    "$(cq "$COORD" -c "SELECT mechanism, outcome FROM dpobj.ledger WHERE relation = 'public.people' ORDER BY id DESC LIMIT 1")" "ebm|released"

# --- (l) dpobj.synthesize() on a distributed protected table -----------------------------------
# one sealed scan: dp_synthesize's partial states (every candidate marginal's counts, in
# the coordinator's layout: train() fixes "max_state_cells") on the shards, combined, measured
# and charged once on the coordinator; the target is written there, as the analyst
cq "$COORD" -c "CREATE SCHEMA syn AUTHORIZATION analyst" >/dev/null || bail "creating schema syn failed"
l0=$(ledger_rows "$COORD")
m=$(as_analyst -c "SELECT target_table, model_name, rows > 0 FROM dpobj.synthesize('people', 'syn.people_syn', 1, 1e-6)" 2>&1)
t_is "synthesize() on a distributed protected table: the target and the model" "$m" "syn.people_syn|people_syn|t"
t_is "... charged once, on the coordinator (coordinator/worker/worker ledger rows)" \
    "$(ledger_rows "$COORD")/$(ledger_rows "${PORTS[1]}")/$(ledger_rows "${PORTS[2]}")" "$((l0 + 1))/0/0"
t_is "... its ledger row: synthesize, released, the distributed table" \
    "$(cq "$COORD" -c "SELECT mechanism, outcome, relation FROM dpobj.ledger WHERE id = (SELECT max(id) FROM dpobj.ledger)")" \
    "synthesize|released|public.people"
t_is "... the target owned by the analyst, every value within its declared domain" \
    "$(cq "$COORD" -c "SELECT (SELECT relowner::regrole FROM pg_class WHERE oid = 'syn.people_syn'::regclass),
                              bool_and(edu IS NULL OR edu IN ('HS-grad', 'Bachelors', 'Masters', 'x''); DROP TABLE people; --'))
                              AND bool_and(age BETWEEN 17 AND 90) FROM syn.people_syn")" "analyst|t"
syn_model() { # NAME: a stored synthesizer's public fields (a quantile column's edges: released)
    as_analyst -c "SELECT mechanism, epsilon, delta, dpobj.model_kind(m),
                          (SELECT jsonb_agg(c - 'edges') FROM jsonb_array_elements(params->'columns') c),
                          ARRAY(SELECT jsonb_object_keys(params) ORDER BY 1)
                     FROM dpobj.get_model('$1') m" 2>&1
}
as_analyst -c "SELECT dpobj.synthesize('people_local', 'syn.local_syn', 1, 1e-6)" >/dev/null
t_is "... the same public fields as a local copy's model" "$(syn_model people_syn)" "$(syn_model local_syn)"
# neighbours nb_a, nb_b (row 7: a NaN, which the synthesizer counts as NULL, and b = 5, clamped):
# the same messages, ledger rows and shard counters under the forwarded attack settings
cq "$COORD" -c "SELECT dpobj.declare_domain(t, c, -1, 6) FROM unnest(ARRAY['nb_a', 'nb_b']::regclass[]) t, unnest(ARRAY['a', 'b']) c" >/dev/null
observe_synth() { # TABLE
    local out before
    before=$(table_stats "$1")
    out=$(cq "$COORD" -v VERBOSITY=verbose 2>&1 <<SQL
SET citus.max_cached_conns_per_worker = 0;
SET ROLE analyst;
BEGIN;
SET citus.propagate_set_commands = 'local';
SET LOCAL enable_seqscan = off;
SET LOCAL client_min_messages = debug1;
SET LOCAL max_parallel_workers_per_gather = 4;
SELECT target_table, model_name FROM dpobj.synthesize('$1', 'syn.s_$1', 0.5, 1e-5, ARRAY['a', 'b'], '{$FILTER}');
COMMIT;
RESET ROLE;
SELECT mechanism, epsilon, delta, outcome, detail FROM dpobj.ledger WHERE id = (SELECT max(id) FROM dpobj.ledger);
SQL
)
    # (the target's TOAST table, made as the caller after the release, has the next OID)
    sed 's/pg_toast_[0-9]*/pg_toast_N/g' <<<"${out//$1/TABLE}"
    echo "counters (coordinator, shards): $(stats_delta "$before" "$(table_stats "$1")")"
}
oa=$(observe_synth nb_a)
ob=$(observe_synth nb_b)
[[ "$oa" == "$ob" ]] || { echo "# neighbours differ (synthesize):"; diff <(echo "$oa") <(echo "$ob") | sed 's/^/#   /'; }
t_is "neighbouring distributed tables, synthesize() with a filter: the same observations, released, one full scan per shard" \
    "$([[ "$oa" == "$ob" ]] && echo same)/$(grep -c '|released|' <<<"$oa")/$(full_scans "$oa")" "same/1/$SHARDS"

# --- (i) a shard's spilled state is not counted on its worker ------------------------------
# Under a 64kB cap a shard task's dp_logistic state spills to temporary files, whose number
# follows the shard's distinct rows; every role reads pg_stat_database on a worker.  A
# superuser's direct call shows the spill is real; the analyst's sealed run must leave the
# workers' counters unchanged (the shard session pins track_counts, log_temp_files).
worker_temp_files() { # the sum over the workers, after the task sessions have flushed
    local p prev="" cur
    for _ in $(seq 30); do
        cur=0
        for p in "${PORTS[@]:1}"; do
            cur=$((cur + $(cq "$p" -c "SELECT temp_files FROM pg_stat_database WHERE datname = current_database()")))
        done
        [[ $cur == "$prev" ]] && break
        prev=$cur
        sleep 0.5
    done
    echo "$cur"
}
set_cap() { # PORT VALUE: dpobj.max_state_memory on that node ('' resets it)
    local set="SET dpobj.max_state_memory = '$2'"
    [[ -z "$2" ]] && set="RESET dpobj.max_state_memory"
    cq "$1" -c "ALTER SYSTEM $set" -c "SELECT pg_reload_conf()" >/dev/null
}
cq "$COORD" >/dev/null <<'SQL' || bail "setting up the spill table failed"
SET client_min_messages = warning;
CREATE TABLE spill_t AS SELECT g AS id, (g % 97) / 96.0 AS a, (g % 89) / 88.0 AS b, (g % 83) / 82.0 AS c,
       (g % 79) / 78.0 AS e, g % 3 = 0 AS y FROM generate_series(1, 16000) g;
SELECT create_distributed_table('spill_t', 'id');
SELECT dpobj.protect('spill_t');
SELECT dpobj.grant_budget('spill_t', 'analyst', 100, 1e-3);
SQL
# A sampled state's K follows its node's cap, and a shard with no rows sends no state: a
# worker whose cap is smaller than the coordinator's could let one row change the K of a
# release.  train(), submit() and evaluate() read every worker's cap before the charge and
# refuse then (public settings); a larger cap on a worker is accepted.
set_cap "${PORTS[2]}" 64kB
l0=$(ledger_rows "$COORD")
for call in "dpobj.train('spill_t', 'opdisc', ARRAY['a', 'b'], 'y', 1, 1e-6)" \
            "dpobj.submit('spill_t', 'logistic', ARRAY['a', 'b'], 'y', 1, 1e-6, '{\"R\": 2}')"; do
    e=$(err_code "$COORD" "SET ROLE analyst; SELECT $call")
    t_is "a worker's smaller cap: ${call%%(*}() is refused before the charge" \
        "$(sed 's/([0-9]*) is smaller/(N) is smaller/; s/worker [^ ]*:[0-9]*/worker W/' <<<"$e")/$(ledger_rows "$COORD")" \
        "55000: dpobj cannot train on public.spill_t: dpobj.max_state_memory on the Citus worker W (N) is smaller than on this server (262144)/$l0"
done
set_cap "${PORTS[2]}" ''
# the halfspace kinds' K also counts the exact search's threads: more on a worker lowers it
cq "${PORTS[1]}" -c "ALTER SYSTEM SET dpobj.oracle_threads = 4" -c "SELECT pg_reload_conf()" >/dev/null
e=$(err_code "$COORD" "SET ROLE analyst; SELECT dpobj.train('spill_t', 'opdisc', ARRAY['a', 'b'], 'y', 1, 1e-6)")
t_is "a worker's larger dpobj.oracle_threads: train() is refused before the charge" \
    "$(sed 's/worker [^ ]*:[0-9]*/worker W/' <<<"$e")/$(ledger_rows "$COORD")" \
    "55000: dpobj cannot train on public.spill_t: dpobj.oracle_threads on the Citus worker W (4) is larger than on this server (2)/$l0"
cq "${PORTS[1]}" -c "ALTER SYSTEM SET dpobj.oracle_threads = 1" -c "SELECT pg_reload_conf()" >/dev/null
# a worker whose dpobj SQL objects are not this library's (an update not run there): the
# pushed-down query calls them, so the run is refused before the charge (the catalog's
# version is changed in place and restored: a stand-in for a worker left at 0.3.0)
v=$(cq "${PORTS[2]}" -c "SELECT extversion FROM pg_catalog.pg_extension WHERE extname = 'dpobj'")
cq "${PORTS[2]}" -c "UPDATE pg_catalog.pg_extension SET extversion = '0.3.0' WHERE extname = 'dpobj'" >/dev/null
e=$(err_code "$COORD" "SET ROLE analyst; SELECT dpobj.train('spill_t', 'logistic', ARRAY['a', 'b'], 'y', 1, 1e-6, '{\"R\": 2}')")
cq "${PORTS[2]}" -c "UPDATE pg_catalog.pg_extension SET extversion = '$v' WHERE extname = 'dpobj'" >/dev/null
t_is "a worker's dpobj objects at another version: train() is refused before the charge" \
    "$(sed 's/worker [^ ]*:[0-9]*/worker W/' <<<"$e")/$(ledger_rows "$COORD")" \
    "55000: dpobj cannot train on public.spill_t: dpobj's SQL objects on the Citus worker W are version 0.3.0, this library's are $v/$l0"
set_cap "${PORTS[2]}" 64kB
set_cap "$COORD" 64kB
set_cap "${PORTS[1]}" 128kB
m=$(as_analyst -c "SELECT (m).mechanism FROM dpobj.train('spill_t', 'opdisc', ARRAY['a', 'b'], 'y', 1, 1e-6) m" 2>&1)
t_is "equal or larger caps and fewer threads on the workers: released, charged once" "$m/$(ledger_rows "$COORD")" "opdisc/$((l0 + 1))"
cq "${PORTS[1]}" -c "ALTER SYSTEM RESET dpobj.oracle_threads" -c "SELECT pg_reload_conf()" >/dev/null
set_cap "${PORTS[1]}" 64kB
SPILLAGG="dpobj.dp_logistic(ARRAY[a, b, c, e]::float8[], y, 1, 1e-6, '{\"R\": 2}')"
t0=$(worker_temp_files)
m=$(cq "$COORD" -c "SELECT ($SPILLAGG).params->>'sample_rows' FROM spill_t")
t1=$(worker_temp_files)
t_check "64kB cap on the workers: a shard's dp_logistic state spills (superuser's direct call: $t0 -> $t1 temp files)" \
    test "$t1" -gt "$t0"
# ... and leaves its worker as the sample of the K rows the cap holds (K = 183 below), so
# no shard ships a value that grows with its rows: the model says it was fitted to K rows
t_is "a direct call without \"sample_rows\": each shard ships a sample of K = 183 rows" "$m" "183"
# train() on a Citus table gives dp_logistic and noisy GD a uniform sample of what the
# coordinator's cap holds with the final function's canonical copy, its design in blocks of
# a quarter of the cap (K = 49152 / (24 + 3 (8 d + 32) + 8 d + 20) = 183 rows at d = 4), so no
# shard state grows with the table; the model says so
for mech in logistic noisysgd; do
    m=$(as_analyst -c "SELECT (m).params->>'sample_rows' FROM dpobj.train('spill_t', '$mech', ARRAY['a', 'b', 'c', 'e'], 'y', 1, 1e-6, '{\"R\": 2}') m" 2>&1)
    t2=$(worker_temp_files)
    t_is "sealed $mech on a large table: released from a sample of K = 183 rows, and the workers count no temporary file" "$m/$t2" "183/$t1"
done
SAMPLEAGG="dpobj.dp_logistic(ARRAY[a, b, c, e]::float8[], y, 1, 1e-6, '{\"R\": 2, \"sample_rows\": 183}')"
cq "$COORD" -c "SELECT ($SAMPLEAGG).mechanism FROM spill_t" >/dev/null
t_is "a direct call with \"sample_rows\" (a superuser's): the shards keep a sample and spill nothing" \
    "$(worker_temp_files)" "$t1"
for p in "${PORTS[@]}"; do
    set_cap "$p" ''
done


# --- (m) privacy units on a table distributed by its unit ---------------------------------------
# Every unit's rows on one shard: the sealed query bounds them with the sorted bounding alone
# (src/context/trainquery.h), partitioned by the unit, which each shard runs on its own rows;
# the shards' partial states combine on the coordinator, charged once there.  60 units of 50
# rows, k = 3; a unit's rows share their features and label, so which 3 rows a unit keeps does
# not change the rows kept: under a seed the distributed run equals the local one.
cq "$COORD" >/dev/null <<'SQL' || bail "setting up the unit tables failed"
SET client_min_messages = warning;
CREATE TABLE units_local AS
SELECT i AS id, i % 60 AS person,
       ((i % 60) * 7 % 11) / 8.0 - 0.625 AS a, ((i % 60) * 3 % 13) / 8.0 - 0.75 AS b,
       ((i % 60) * 7 % 11) / 8.0 - 0.625 + 0.5 * (((i % 60) * 3 % 13) / 8.0 - 0.75) > 0 AS y
  FROM generate_series(1, 3000) i;
CREATE TABLE units_d (LIKE units_local);
SELECT create_distributed_table('units_d', 'person');
INSERT INTO units_d SELECT * FROM units_local;
SELECT dpobj.protect(t, 'person', 3) FROM unnest(ARRAY['units_d', 'units_local']) t;
SELECT dpobj.grant_budget(t, 'analyst', 100, 1e-3) FROM unnest(ARRAY['units_d', 'units_local']) t;
SELECT dpobj.declare_domain(t, c, -1, 1) FROM unnest(ARRAY['units_d', 'units_local']::regclass[]) t, unnest(ARRAY['a', 'b']) c;
SQL
l0=$(ledger_rows "$COORD")
m=$(as_analyst -c "SELECT (m).mechanism, (m).params->>'rows_per_unit' FROM dpobj.train('units_d', 'opdisc', ARRAY['a', 'b'], 'y', 1, 1e-6) m" 2>&1)
t_is "units: train() on a table distributed by its unit releases a unit-level model" "$m" "opdisc|3"
t_is "... charged once, on the coordinator (coordinator/worker/worker ledger rows)" \
    "$(ledger_rows "$COORD")/$(ledger_rows "${PORTS[1]}")/$(ledger_rows "${PORTS[2]}")" "$((l0 + 1))/0/0"
m=$(as_analyst -c "SELECT (m).mechanism FROM dpobj.train('units_d', 'logistic', ARRAY['a', 'b'], 'y', 1, 1e-6,
                     '{\"R\": 2, \"filter\": [{\"column\": \"person\", \"op\": \"=\", \"value\": 5}]}') m" 2>&1)
t_is "units: a filter on the unit (the distribution column): no router query, released" "$m" "objective_gauss"
m=$(as_analyst -c "SELECT count(*) FROM dpobj.aggregate('units_d', '[{\"stat\": \"count\"}, {\"stat\": \"mean\", \"column\": \"a\"}]', 1, 1e-6, ARRAY[]::text[])" 2>&1)
t_is "units: aggregate() releases its 2 cells" "$m" "2"
m=$(as_analyst -c "SELECT count(*) > 0 FROM dpobj.describe('units_d', 1, 1e-6)" 2>&1)
t_is "units: describe() releases" "$m" "t"
m=$(as_analyst -c "SET dpobj.query_epsilon = 1" -c "SELECT count(*) AS n, avg(a) AS m FROM units_d" 2>&1)
t_check "units: a private SQL query releases one row ($m)" grep -qE '^-?[0-9]+\|-?[0-9.e-]+$' <<<"$m"
job=$(as_analyst -c "SELECT dpobj.submit('units_d', 'logistic', ARRAY['a', 'b'], 'y', 1, 1e-6, '{\"R\": 2}')" 2>&1)
t_is "units: a job runs the same sealed query" \
    "$(job_end "$job")/$(as_analyst -c "SELECT (model).params->>'rows_per_unit' FROM dpobj.jobs WHERE id = $job")" "succeeded/3"
m=$(as_analyst -c "SELECT dpobj.evaluate('units_d', ROW('opdisc', ARRAY[1, 0.5]::float8[], 0, 1, 1e-6, '{}')::dpobj.model,
                     ARRAY['a', 'b'], 'y', 0.5, 1e-6) IS NOT NULL" 2>&1)
t_is "units: evaluate() releases" "$m" "t"
m=$(as_analyst -c "SELECT target_table, rows > 0 FROM dpobj.synthesize('units_d', 'syn.units_syn', 1, 1e-6, ARRAY['a', 'b'])" 2>&1)
t_is "units: synthesize() writes its target" "$m" "syn.units_syn|t"
t_is "units: 8 runs (train twice, aggregate, describe, query, job, evaluate, synthesize), each charged once on the coordinator" \
    "$(($(ledger_rows "$COORD") - l0))/$(ledger_rows "${PORTS[1]}")/$(ledger_rows "${PORTS[2]}")/$(cq "$COORD" -c "SELECT count(*) FROM dpobj.ledger WHERE id > $l0 AND relation = 'public.units_d' AND outcome = 'released'")" \
    "8/0/0/8"
# the sealed query's bounding (trainquery.h) as a direct call: UNITS TABLE COND
LINU="dpobj.dp_linear_regression(ARRAY[a, b]::float8[], a + 0.5 * b, 1, 1e-6, '{\"R\": 2, \"y_min\": -2, \"y_max\": 2, \"sealed\": true, \"rows_per_unit\": 3}')"
units_sorted() {
    echo "SELECT $LINU FROM (SELECT a, b, y FROM (SELECT a, b, y, pg_catalog.row_number() OVER \"dpobj unit\" AS \"dpobj unit row\",
            pg_catalog.count(*) OVER \"dpobj unit\" AS \"dpobj unit size\" FROM $1 WHERE $2 WINDOW \"dpobj unit\" AS (PARTITION BY person)) s
          WHERE dpobj.unit_keep_sorted(s.\"dpobj unit row\", s.\"dpobj unit size\", 3)) r"
}
COND="pg_catalog.num_nulls(CASE WHEN person IS NOT NULL THEN 1 END) = 0"
plan=$(cq "$COORD" -c "EXPLAIN (VERBOSE, COSTS OFF) $(units_sorted units_d "$COND")")
t_check "units: the bounding runs in the shard tasks, the coordinator combines their states" pushed_down "$plan"
t_is "... one task per shard, each bounding its units (unit_keep_sorted)" \
    "$(sed -n 's/^ *Task Count: \([0-9]*\)$/\1/p' <<<"$plan")/$(plan_task "$plan" | grep -c 'Filter: dpobj.unit_keep_sorted(')" "$SHARDS/1"
plan=$(cq "$COORD" -c "EXPLAIN (VERBOSE, COSTS OFF) $(units_sorted units_d "pg_catalog.num_nulls(CASE WHEN person IS NOT NULL THEN 1 END, CASE WHEN person OPERATOR(pg_catalog.=) 5 THEN 1 END) = 0")")
t_is "... with a filter on the unit: still every shard" "$(sed -n 's/^ *Task Count: \([0-9]*\)$/\1/p' <<<"$plan")" "$SHARDS"
INMEM="SELECT $LINU FROM (SELECT dpobj.unit_counts(person, 3) AS c FROM units_local WHERE $COND) u
         CROSS JOIN LATERAL (SELECT a, b, y FROM units_local
                              WHERE u.c > 0 AND CASE WHEN $COND THEN dpobj.unit_keep(person, u.c) ELSE false END OFFSET 0) r"
dist=$(cq "$COORD" -c "SET dpobj.seed = 13" -c "$(units_sorted units_d "$COND")")
t_is "units: under a seed the distributed bounding gives the local run's model (train()'s in-memory bounding)" \
    "$dist" "$(cq "$COORD" -c "SET dpobj.seed = 13" -c "$INMEM")"
t_is "... and a plain query's that keeps 3 rows of each unit" \
    "$dist" "$(cq "$COORD" -c "SET dpobj.seed = 13" -c "SELECT $LINU FROM (SELECT *, row_number() OVER (PARTITION BY person ORDER BY id) AS r FROM units_local) s WHERE r <= 3")"
t_check "... which bounding changes: the unbounded rows give another model" \
    test "$dist" != "$(cq "$COORD" -c "SET dpobj.seed = 13" -c "SELECT $LINU FROM units_local")"
# unit-neighbours (unit 7's rows all differ: NaN features and b = 5 in nbu_a, the only rows the
# filter b > 1 selects): the same messages, model fields, ledger rows and shard counters
cq "$COORD" >/dev/null <<'SQL' || bail "setting up the unit neighbours failed"
SET client_min_messages = warning;
CREATE TABLE nbu_a AS SELECT id, person, a, b, y FROM units_local;
UPDATE nbu_a SET a = 'NaN', b = 5 WHERE person = 7;
CREATE TABLE nbu_b AS SELECT id, person, a, b, y FROM units_local;
SELECT create_distributed_table(t, 'person', colocate_with := 'units_d') FROM unnest(ARRAY['nbu_a', 'nbu_b']) t;
CREATE INDEX ON nbu_a (b, a, y);
CREATE INDEX ON nbu_b (b, a, y);
SELECT dpobj.protect(t, 'person', 3) FROM unnest(ARRAY['nbu_a', 'nbu_b']) t;
SELECT dpobj.grant_budget(t, 'analyst', 1000, 0.5) FROM unnest(ARRAY['nbu_a', 'nbu_b']) t;
SQL
for mo in "opdisc|{$FILTER}" "logistic|{\"R\": 1, $FILTER}"; do
    oa=$(observe nbu_a "${mo%%|*}" "${mo#*|}" y)
    ob=$(observe nbu_b "${mo%%|*}" "${mo#*|}" y)
    [[ "$oa" == "$ob" ]] || { echo "# unit-neighbours differ (${mo%%|*}):"; diff <(echo "$oa") <(echo "$ob") | sed 's/^/#   /'; }
    t_is "units, neighbouring tables (${mo%%|*}, filter): the same observations, released, one full scan per shard" \
        "$([[ "$oa" == "$ob" ]] && echo same)/$(grep -c '|released|' <<<"$oa")/$(full_scans "$oa")" "same/1/$SHARDS"
done
# the private bound ("rows_per_unit": "private", src/protected/unitboundshards.c): a first sealed
# query draws k' on the coordinator from the shards' combined histograms of their units' row
# counts (grouped by the unit in each shard task), then the sorted bounding keeps k' rows a unit;
# one charge.  2000 units: 1900 of one row, 100 of 40 (5900 rows), k = 64: at epsilon 4 k' = 1
# (every other candidate's loss is 100, sql/unitbound.sql), so each unit keeps one row: a count
# of about 2000 where k = 64 keeps 5900, as on a local copy (seeded runs are refused)
cq "$COORD" >/dev/null <<'SQL' || bail "setting up the private bound's tables failed"
SET client_min_messages = warning;
CREATE TABLE ub_local AS SELECT u AS person, CASE (u + r) % 2 WHEN 0 THEN 'F' ELSE 'M' END AS sex,
       (u % 7) / 7.0 AS b
  FROM generate_series(1, 2000) u, generate_series(1, CASE WHEN u % 20 = 0 THEN 40 ELSE 1 END) r;
CREATE TABLE ub_d (LIKE ub_local);
CREATE TABLE ubn_a (LIKE ub_local);
CREATE TABLE ubn_b (LIKE ub_local);
SELECT create_distributed_table(t, 'person') FROM unnest(ARRAY['ub_d', 'ubn_a', 'ubn_b']) t;
INSERT INTO ub_d SELECT * FROM ub_local;
INSERT INTO ubn_a SELECT * FROM ub_local;
INSERT INTO ubn_b SELECT * FROM ub_local;
UPDATE ubn_a SET b = 5 WHERE person = 20;
SELECT dpobj.protect(t, 'person', 64) FROM unnest(ARRAY['ub_d', 'ub_local', 'ubn_a', 'ubn_b']) t;
SELECT dpobj.grant_budget(t, 'analyst', 100, 1e-3) FROM unnest(ARRAY['ub_d', 'ub_local', 'ubn_a', 'ubn_b']) t;
SELECT dpobj.declare_domain(t, 'sex', ARRAY['F', 'M']) FROM unnest(ARRAY['ub_d', 'ub_local', 'ubn_a', 'ubn_b']::regclass[]) t;
SQL
l0=$(ledger_rows "$COORD")
plan=$(cq "$COORD" -c "EXPLAIN (VERBOSE, COSTS OFF) SELECT dpobj.unit_bound_shards(s.m, '{}') FROM (SELECT count(*) AS m FROM ub_d GROUP BY person) s")
t_check "units, private bound: its first query is pushed down, a partial histogram per shard combined on the coordinator" pushed_down "$plan"
# private_shape TABLE: the statistics, k' and the count in hundreds
private_shape() {
    as_analyst -c "SELECT statistic, CASE WHEN statistic = 'rows_per_unit' THEN estimate ELSE round(estimate / 100) END
                     FROM dpobj.aggregate('$1', '[{\"stat\": \"count\"}]', 4, 1e-6, ARRAY[]::text[], '{\"rows_per_unit\": \"private\"}')
                    ORDER BY 1" 2>&1
}
dist=$(private_shape ub_d)
t_is "units, private bound: aggregate() on a distributed table releases k' = 1 and a count of one row a unit ($(tr '\n' ' ' <<<"$dist"))" \
    "$dist" "$(printf 'count|20\nrows_per_unit|1')"
t_is "... as on a local copy" "$dist" "$(private_shape ub_local)"
t_is "... each run charged once, on the coordinator (coordinator/worker/worker ledger rows, released)" \
    "$(($(ledger_rows "$COORD") - l0))/$(ledger_rows "${PORTS[1]}")/$(ledger_rows "${PORTS[2]}")/$(cq "$COORD" -c "SELECT count(*) FROM dpobj.ledger WHERE id > $l0 AND outcome = 'released'")" \
    "2/0/0/2"
# unit-neighbours through the private bound (unit 20's 40 rows differ: b = 5 in ubn_a, the only
# rows the filter b > 1 selects): the same messages, ledger rows and shard counters
observe_private() { # TABLE
    local out before
    before=$(table_stats "$1")
    out=$(analyst_session "SELECT count(*) FROM dpobj.aggregate('$1', '[{\"stat\": \"count\"}]', 0.5, 1e-5, ARRAY[]::text[], '{\"rows_per_unit\": \"private\", $FILTER}');")
    echo "${out//$1/TABLE}"
    echo "counters (coordinator, shards): $(stats_delta "$before" "$(table_stats "$1")")"
}
oa=$(observe_private ubn_a)
ob=$(observe_private ubn_b)
sed "s/^/# what the analyst observes (private bound, ubn_a): /" <<<"$oa"
[[ "$oa" == "$ob" ]] || { echo "# unit-neighbours differ (private bound):"; diff <(echo "$oa") <(echo "$ob") | sed 's/^/#   /'; }
t_is "units, neighbouring tables (private bound, filter): the same observations, released once" \
    "$([[ "$oa" == "$ob" ]] && echo same)/$(grep -c '|released|' <<<"$oa")" "same/1"
# a shard's sort spills past work_mem: the coordinator's pinned work_mem (at most the cap) goes
# to the shards, and a worker counts none of the sealed run's temporary files
cq "$COORD" >/dev/null <<'SQL' || bail "setting up the large unit table failed"
SET client_min_messages = warning;
CREATE TABLE units_big AS SELECT g AS id, g % 500 AS person, (g % 97) / 96.0 AS a, (g % 89) / 88.0 AS b,
       g % 3 = 0 AS y FROM generate_series(1, 40000) g;
SELECT create_distributed_table('units_big', 'person');
SELECT dpobj.protect('units_big', 'person', 3);
SELECT dpobj.grant_budget('units_big', 'analyst', 100, 1e-3);
SQL
# plain_spills SOURCE UNIT: t0, t1 the workers' temporary files before and after a superuser's
# plain bounding of SOURCE by UNIT at work_mem 64kB
plain_spills() {
    t0=$(worker_temp_files)
    cq "$COORD" -c "SET citus.propagate_set_commands = 'local'" -c "BEGIN" -c "SET LOCAL work_mem = '64kB'" \
        -c "SELECT count(*) FROM (SELECT row_number() OVER (PARTITION BY $2) AS r FROM $1) s WHERE r <= 3" -c "COMMIT" >/dev/null
    t1=$(worker_temp_files)
}
plain_spills units_big person
t_check "units: at work_mem 64kB a shard's sort by unit spills (a superuser's plain query: $t0 -> $t1 temp files)" \
    test "$t1" -gt "$t0"
m=$(as_analyst -c "SET work_mem = '64kB'" -c "SELECT (m).mechanism FROM dpobj.train('units_big', 'opdisc', ARRAY['a', 'b'], 'y', 1, 1e-6) m" 2>&1)
t_is "units: the analyst's sealed run at work_mem 64kB: released, the workers count no temporary file" \
    "$m/$(worker_temp_files)" "opdisc/$t1"
# the pinned work_mem reaches the shards: under a 64kB temp_file_limit on the workers the run
# releases at the default work_mem and fails (DP006, charged) at 64kB, whose sorts spill
for p in "${PORTS[@]:1}"; do
    cq "$p" -c "ALTER SYSTEM SET temp_file_limit = '64kB'" -c "SELECT pg_reload_conf()" >/dev/null
done
m=$(as_analyst -c "SELECT (m).mechanism FROM dpobj.train('units_big', 'opdisc', ARRAY['a', 'b'], 'y', 1, 1e-6) m" 2>&1)
e=$(as_analyst -v VERBOSITY=verbose -c "SET work_mem = '64kB'" -c "SELECT (m).mechanism FROM dpobj.train('units_big', 'opdisc', ARRAY['a', 'b'], 'y', 1, 1e-6) m" 2>&1 | grep -c "^ERROR:  DP006")
for p in "${PORTS[@]:1}"; do
    cq "$p" -c "ALTER SYSTEM RESET temp_file_limit" -c "SELECT pg_reload_conf()" >/dev/null
done
t_is "units: the shards sort within the coordinator's pinned work_mem (released at the default, DP006 at 64kB)" "$m/$e" "opdisc/1"
# the private bound's first query groups each shard's rows by unit: at work_mem 64kB a shard of
# 2500 units spills (a superuser's plain query), and the analyst's sealed run counts none
cq "$COORD" >/dev/null <<'SQL' || bail "setting up the many-unit table failed"
SET client_min_messages = warning;
CREATE TABLE units_many AS SELECT g AS id, g % 20000 AS person, 'F' AS sex FROM generate_series(1, 40000) g;
SELECT create_distributed_table('units_many', 'person');
SELECT dpobj.protect('units_many', 'person', 3);
SELECT dpobj.grant_budget('units_many', 'analyst', 100, 1e-3);
SELECT dpobj.declare_domain('units_many', 'sex', ARRAY['F']);
SQL
t0=$(worker_temp_files)
cq "$COORD" -c "SET citus.propagate_set_commands = 'local'" -c "BEGIN" -c "SET LOCAL work_mem = '64kB'" \
    -c "SELECT count(*) FROM (SELECT count(*) FROM units_many GROUP BY person) s" -c "COMMIT" >/dev/null
t1=$(worker_temp_files)
t_check "units, private bound: at work_mem 64kB a shard's grouping by unit spills (a superuser's plain query: $t0 -> $t1 temp files)" \
    test "$t1" -gt "$t0"
m=$(as_analyst -c "SET work_mem = '64kB'" -c "SELECT estimate FROM dpobj.aggregate('units_many', '[{\"stat\": \"count\"}]', 1, 1e-6, ARRAY[]::text[], '{\"rows_per_unit\": \"private\"}') WHERE statistic = 'rows_per_unit'" 2>&1)
t_is "units, private bound: the analyst's sealed run at work_mem 64kB: released (every unit of 2 rows: k' = 2), the workers count no temporary file" \
    "$m/$(worker_temp_files)" "2/$t1"
# a table linked to its unit through foreign keys (link_unit) on Citus: refused before the charge
cq "$COORD" >/dev/null <<'SQL' || bail "setting up the linked tables failed"
SET client_min_messages = warning;
SELECT dpobj.create_budget_domain('shop');
CREATE TABLE cust (person int PRIMARY KEY, seg int);
SELECT create_distributed_table('cust', 'person');
INSERT INTO cust SELECT g, g % 4 FROM generate_series(0, 49) g;
CREATE TABLE ord (id int, person int REFERENCES cust (person), amt float8, PRIMARY KEY (id, person));
SELECT create_distributed_table('ord', 'person', colocate_with := 'cust');
INSERT INTO ord SELECT g, g % 50, (g % 9) / 9.0 FROM generate_series(1, 1000) g;
SELECT dpobj.protect('cust', 'person', 3, 'shop');
SELECT dpobj.link_unit('ord', ARRAY['cust']::regclass[], 3);
SELECT dpobj.grant_domain_budget('shop', 'analyst', 100, 1e-3);
SELECT dpobj.declare_domain('ord', 'amt', 0, 1);
SQL
l0=$(ledger_rows "$COORD")
e=$(err_code "$COORD" "SET ROLE analyst; SELECT count(*) FROM dpobj.aggregate('ord', '[{\"stat\": \"mean\", \"column\": \"amt\"}]', 1, 1e-6)")
t_is "units: a linked table (link_unit) on Citus: refused before the charge, nothing charged" "$e/$(ledger_rows "$COORD")" \
    "42809: dpobj cannot protect or train on public.ord: a privacy unit linked through foreign keys does not run on Citus tables/$l0"


# unit joins: protected tables of one budget domain, each distributed by its unit column in one
# colocation group, joined on the unit in a private query: Citus joins them shard by shard (a
# co-located join), every unit's joined rows in one task, which bounds them after the join.
# 60 units: ujv 20 rows each (a, y of its unit), ujp 2 each (b, seg of its unit): 40 joined rows
# per unit, k = 3.
cq "$COORD" >/dev/null <<'SQL' || bail "setting up the unit join tables failed"
SET client_min_messages = warning;
CREATE TABLE ujv_local AS SELECT i AS id, i % 60 AS person, ((i % 60) * 7 % 11) / 8.0 - 0.625 AS a,
       (i % 60) % 3 = 0 AS y FROM generate_series(1, 1200) i;
CREATE TABLE ujp_local AS SELECT p AS person, ((p * 3) % 13) / 8.0 - 0.75 AS b, 'seg' || (p % 3) AS seg
  FROM generate_series(0, 59) p, generate_series(1, 2) r;
CREATE TABLE ujv (LIKE ujv_local);
CREATE TABLE ujp (LIKE ujp_local);
CREATE TABLE ujn (LIKE ujp_local);
CREATE TABLE ujs (LIKE ujp_local);
CREATE TABLE ujl (LIKE ujp_local);
SELECT create_distributed_table('ujv', 'person', colocate_with := 'units_d');
SELECT create_distributed_table('ujp', 'person', colocate_with := 'ujv');
SELECT create_distributed_table('ujn', 'person', colocate_with := 'none');
SELECT create_distributed_table('ujs', 'seg');
INSERT INTO ujv SELECT * FROM ujv_local;
INSERT INTO ujp SELECT * FROM ujp_local;
INSERT INTO ujn SELECT * FROM ujp_local;
INSERT INTO ujs SELECT * FROM ujp_local;
INSERT INTO ujl SELECT * FROM ujp_local;
SELECT dpobj.create_budget_domain('ujd');
SELECT dpobj.protect(t, 'person', 3, 'ujd') FROM unnest(ARRAY['ujv', 'ujp', 'ujn', 'ujs', 'ujl']) t;
SELECT dpobj.grant_domain_budget('ujd', 'analyst', 100, 1e-3);
SELECT dpobj.declare_domain('ujv', 'a', -1, 1);
SELECT dpobj.declare_domain(t, 'seg', ARRAY['seg0', 'seg1', 'seg2']) FROM unnest(ARRAY['ujp', 'ujn', 'ujs', 'ujl']::regclass[]) t;
SQL
l0=$(ledger_rows "$COORD")
m=$(as_analyst -c "SET dpobj.query_epsilon = 1" -c "SELECT p.seg, count(*), avg(v.a) FROM ujv v JOIN ujp p ON p.person = v.person GROUP BY 1 ORDER BY 1" 2>&1)
t_is "unit joins: a private query joining co-located tables on the unit releases its 3 groups ($(tr '\n' ' ' <<<"$m"))" \
    "$(grep -c '^seg[0-2]|' <<<"$m")" 3
m=$(as_analyst -c "SET dpobj.query_epsilon = 1" -c "SELECT count(*), avg(v.a) FROM ujv v LEFT JOIN ujp p ON p.person = v.person WHERE p.seg = 'seg1'" 2>&1)
t_check "... a LEFT JOIN with a filter on the partner's column releases ($m)" grep -qE '^-?[0-9]+\|' <<<"$m"
t_is "... each charged once to the domain, on the coordinator, released" \
    "$(($(ledger_rows "$COORD") - l0))/$(ledger_rows "${PORTS[1]}")/$(ledger_rows "${PORTS[2]}")/$(cq "$COORD" -c "SELECT count(*) FROM dpobj.ledger WHERE id > $l0 AND relation = 'public.ujv' AND outcome = 'released'")" \
    "2/0/0/2"
# refused before the charge (0A000): not co-located, the partner distributed by another column,
# the partner off Citus; a public lookup table on Citus
l0=$(ledger_rows "$COORD")
join_err() { err_code "$COORD" "SET ROLE analyst; SET dpobj.query_epsilon = 1; SELECT count(*) FROM ujv v JOIN $1 p ON p.person = v.person"; }
t_is "unit joins: a partner in another colocation group: refused" "$(join_err ujn)" \
    "0A000: dpobj: a private query does not allow a join on Citus of protected table public.ujn, which is not co-located with table ujv (create_distributed_table(..., colocate_with => ...))"
t_is "unit joins: a partner distributed by another column: refused" "$(join_err ujs)" \
    "0A000: dpobj: a private query does not allow a join on Citus of protected table public.ujs where a table is not hash-distributed by its privacy unit column"
t_is "unit joins: a partner off Citus: refused" "$(join_err ujl)" \
    "0A000: dpobj: a private query does not allow a join of protected table public.ujl on Citus to a table off Citus (or the reverse)"
# public lookup tables on Citus: a reference table (a copy on every node) joined to a
# distributed table in each shard task; a lookup off Citus, or a reference table joined to a
# table off Citus, is refused
cq "$COORD" >/dev/null <<'SQL' || bail "setting up the lookup tables failed"
SET client_min_messages = warning;
CREATE TABLE ujlookup (id int PRIMARY KEY, name text NOT NULL);
INSERT INTO ujlookup SELECT p, 'g' || (p % 4) FROM generate_series(0, 59) p;
CREATE TABLE ujlocal (LIKE ujlookup INCLUDING ALL);
INSERT INTO ujlocal SELECT * FROM ujlookup;
SELECT create_reference_table('ujlookup');
GRANT SELECT ON ujlookup, ujlocal TO analyst;
SQL
t_is "lookups: a lookup table off Citus joined to a distributed table: refused" \
    "$(err_code "$COORD" "SET ROLE analyst; SET dpobj.query_epsilon = 1; SELECT count(*) FROM ujv v JOIN ujlocal l ON l.id = v.person")" \
    "0A000: dpobj: a private query does not allow a join of lookup table public.ujlocal, on Citus a reference table joined to a distributed table only"
t_is "lookups: a reference table joined to a table off Citus: refused" \
    "$(err_code "$COORD" "SET ROLE analyst; SET dpobj.query_epsilon = 1; SELECT count(*) FROM ujl v JOIN ujlookup l ON l.id = v.person")" \
    "0A000: dpobj: a private query does not allow a join of lookup table public.ujlookup, on Citus a reference table joined to a distributed table only"
t_is "... nothing charged" "$(ledger_rows "$COORD")" "$l0"
m=$(as_analyst -c "SET dpobj.query_epsilon = 1" -c "SELECT l.name, count(*), avg(v.a) FROM ujv v JOIN ujlookup l ON l.id = v.person GROUP BY 1 ORDER BY 1" 2>&1)
t_is "lookups: a reference table joined to a table distributed by its unit: its 4 groups released ($(tr '\n' ' ' <<<"$m"))" \
    "$(grep -c '^g[0-3]|' <<<"$m")" 4
m=$(as_analyst -c "SET dpobj.query_epsilon = 1" -c "SELECT l.name, count(*), avg(v.a) FROM nb_a v LEFT JOIN ujlookup l ON l.id = v.c GROUP BY 1 ORDER BY 1" 2>&1)
t_is "lookups: ... and LEFT JOINed to a row-level distributed table: released ($(tr '\n' ' ' <<<"$m"))" \
    "$(grep -c '^g[0-3]|' <<<"$m")" 4
t_is "... each charged once, on the coordinator" \
    "$(($(ledger_rows "$COORD") - l0))/$(ledger_rows "${PORTS[1]}")/$(ledger_rows "${PORTS[2]}")" "2/0/0"
# the sealed query's bounding of the join (units_sorted above, its source the join): pushed down,
# every shard task bounding its units; under a seed the distributed run equals the local one's
JSRC="(SELECT v.person, v.a, p.b, v.y FROM %s v JOIN ONLY %s p ON v.person OPERATOR(pg_catalog.=) p.person%s) AS j"
# shellcheck disable=SC2059
JD=$(printf "$JSRC" ujv ujp "") JL=$(printf "$JSRC" ujv_local ujp_local " OFFSET 0")
plan=$(cq "$COORD" -c "EXPLAIN (VERBOSE, COSTS OFF) $(units_sorted "$JD" "$COND")")
t_check "unit joins: the join and its bounding run in the shard tasks, the coordinator combines their states" pushed_down "$plan"
t_is "... one task per shard, each joining and bounding its units" \
    "$(sed -n 's/^ *Task Count: \([0-9]*\)$/\1/p' <<<"$plan")/$(plan_task "$plan" | grep -c 'Filter: dpobj.unit_keep_sorted(')/$(plan_task "$plan" | grep -cE 'Join')" "$SHARDS/1/1"
dist=$(cq "$COORD" -c "SET dpobj.seed = 13" -c "$(units_sorted "$JD" "$COND")")
t_is "unit joins: under a seed the distributed bounding of the join gives the local run's model (in-memory bounding)" \
    "$dist" "$(cq "$COORD" -c "SET dpobj.seed = 13" -c "SELECT $LINU FROM (SELECT dpobj.unit_counts(person, 3) AS c FROM $JL WHERE $COND) u
         CROSS JOIN LATERAL (SELECT a, b, y FROM $JL WHERE u.c > 0 AND CASE WHEN $COND THEN dpobj.unit_keep(person, u.c) ELSE false END OFFSET 0) r")"
t_check "... which bounding changes: the unbounded joined rows give another model" \
    test "$dist" != "$(cq "$COORD" -c "SET dpobj.seed = 13" -c "SELECT $LINU FROM $JL")"
# unit-neighbours of a join (unit 7's rows differ in both members: nbj_a's b = 5, the only rows
# the filter selects): the same messages, output shape, ledger rows and counters of both tables
cq "$COORD" >/dev/null <<'SQL' || bail "setting up the unit join neighbours failed"
SET client_min_messages = warning;
SELECT dpobj.create_budget_domain('ujnb');
CREATE TABLE nbj_a AS SELECT id, person, a, b, y FROM units_local;
UPDATE nbj_a SET a = 'NaN', b = 5 WHERE person = 7;
CREATE TABLE nbj_b AS SELECT id, person, a, b, y FROM units_local;
CREATE TABLE nbjp_a AS SELECT person, seg AS s, b AS w FROM ujp_local;
UPDATE nbjp_a SET w = 'NaN', s = 'x' WHERE person = 7;
CREATE TABLE nbjp_b AS SELECT person, seg AS s, b AS w FROM ujp_local;
SELECT create_distributed_table(t, 'person', colocate_with := 'units_d') FROM unnest(ARRAY['nbj_a', 'nbj_b', 'nbjp_a', 'nbjp_b']) t;
CREATE INDEX ON nbj_a (person, b);
CREATE INDEX ON nbj_b (person, b);
CREATE INDEX ON nbjp_a (person);
CREATE INDEX ON nbjp_b (person);
SELECT dpobj.protect(t, 'person', 3, 'ujnb') FROM unnest(ARRAY['nbj_a', 'nbj_b', 'nbjp_a', 'nbjp_b']) t;
SELECT dpobj.grant_domain_budget('ujnb', 'analyst', 1000, 0.5);
SELECT dpobj.declare_domain(t, c, -1, 1) FROM unnest(ARRAY['nbj_a', 'nbj_b']::regclass[]) t, unnest(ARRAY['a', 'b']) c;
SELECT dpobj.declare_domain(t, 'w', -1, 1) FROM unnest(ARRAY['nbjp_a', 'nbjp_b']::regclass[]) t;
SQL
observe_join() { # TABLE PARTNER: a private query's session output (released values masked)
    local out before
    before="$(table_stats "$1") | $(table_stats "$2")"
    out=$(analyst_session "SET LOCAL enable_hashjoin = off; SET LOCAL dpobj.query_epsilon = 0.5; ${QUERY_SETTINGS:-}
SELECT count(*), sum(p.w), avg(v.b) FROM $1 v JOIN $2 p ON p.person = v.person WHERE v.b > 1;")
    out=${out//$1/TABLE}
    sed -E '/^[-0-9.e+|NaInfity]*$/s/[^|]*/N/g' <<<"${out//$2/PARTNER}"
    echo "counters (coordinator, shards): $(stats_delta "$before" "$(table_stats "$1") | $(table_stats "$2")")"
}
oa=$(observe_join nbj_a nbjp_a)
ob=$(observe_join nbj_b nbjp_b)
sed "s/^/# what the analyst observes (unit join, nbj_a): /" <<<"$oa"
[[ "$oa" == "$ob" ]] || { echo "# unit-join neighbours differ:"; diff <(echo "$oa") <(echo "$ob") | sed 's/^/#   /'; }
# moved counters: the fields of the counters line other than 0
moved() { sed -n 's/^counters (coordinator, shards): //p' <<<"$1" | tr ' ' '\n' | grep -v '^$' | grep -vc '^[0:]*$'; }
t_is "unit joins, neighbouring tables (filter): the same observations, released, no counter moved on a shard" \
    "$([[ "$oa" == "$ob" ]] && echo same)/$(grep -c '|released|' <<<"$oa")/$(moved "$oa")" "same/1/0"
# the same through the private bound (dpobj.query_rows_per_unit = private): its first query
# joins and groups in the shard tasks, unobserved from their start as the bounding is
oa=$(QUERY_SETTINGS="SET LOCAL dpobj.query_rows_per_unit = private;" observe_join nbj_a nbjp_a)
ob=$(QUERY_SETTINGS="SET LOCAL dpobj.query_rows_per_unit = private;" observe_join nbj_b nbjp_b)
[[ "$oa" == "$ob" ]] || { echo "# unit-join neighbours differ (private bound):"; diff <(echo "$oa") <(echo "$ob") | sed 's/^/#   /'; }
t_is "unit joins, neighbouring tables (filter, private bound): the same observations, released, no counter moved on a shard" \
    "$([[ "$oa" == "$ob" ]] && echo same)/$(grep -c '|released|' <<<"$oa")/$(moved "$oa")" "same/1/0"
# a join's temporary files (a hash join's batches, closed before the first bounded row, and
# the sort's): none counted on the workers when the run is sealed
cq "$COORD" >/dev/null <<'SQL' || bail "setting up the large unit join tables failed"
SET client_min_messages = warning;
CREATE TABLE ujbv AS SELECT g AS id, g % 500 AS person, (g % 97) / 96.0 AS a FROM generate_series(1, 20000) g;
CREATE TABLE ujbp AS SELECT g AS id, g % 500 AS person, (g % 89) / 88.0 AS w FROM generate_series(1, 20000) g;
SELECT create_distributed_table(t, 'person', colocate_with := 'units_d') FROM unnest(ARRAY['ujbv', 'ujbp']) t;
SELECT dpobj.protect(t, 'person', 3, 'ujd') FROM unnest(ARRAY['ujbv', 'ujbp']) t;
SELECT dpobj.declare_domain('ujbv', 'a', 0, 1);
SQL
plain_spills "ujbv v JOIN ujbp p ON p.person = v.person" v.person
t_check "unit joins: at work_mem 64kB a shard's join and sort by unit spill (a superuser's plain query: $t0 -> $t1 temp files)" \
    test "$t1" -gt "$t0"
m=$(as_analyst -c "SET work_mem = '64kB'" -c "SET dpobj.query_epsilon = 1" -c "SELECT count(*), avg(v.a) FROM ujbv v JOIN ujbp p ON p.person = v.person" 2>&1)
t_check "unit joins: the analyst's sealed join at work_mem 64kB: released ($m), the workers count no temporary file" \
    test "$(grep -cE '^-?[0-9]+\|' <<<"$m")/$(worker_temp_files)" == "1/$t1"
# row-level neighbours (nb_a, nb_b: id 7 differs, the only row b > 1 selects) joined to a
# reference lookup table: the same observations, no counter moved on a shard (jit off: the
# lookup's levels are read before the charge by a Citus query, costed high, whose JIT timings
# DEBUG1 prints -- public table, not the rows)
observe_lookup() { # TABLE
    local out before
    before="$(table_stats "$1") | $(table_stats ujlookup)"
    out=$(analyst_session "SET LOCAL enable_hashjoin = off; SET LOCAL jit = off; SET LOCAL dpobj.query_epsilon = 0.5;
SELECT l.name, count(*), avg(v.a) FROM $1 v JOIN ujlookup l ON l.id = v.c WHERE v.b > 1 GROUP BY 1 ORDER BY 1;")
    sed -E '/^[-0-9.e+|NaInfity]*$/s/[^|]*/N/g; s/^(g[0-3])\|.*/\1|N/' <<<"${out//$1/TABLE}"
    echo "counters (coordinator, shards): $(stats_delta "$before" "$(table_stats "$1") | $(table_stats ujlookup)")"
}
oa=$(observe_lookup nb_a)
ob=$(observe_lookup nb_b)
sed "s/^/# what the analyst observes (lookup, nb_a): /" <<<"$oa"
[[ "$oa" == "$ob" ]] || { echo "# lookup neighbours differ:"; diff <(echo "$oa") <(echo "$ob") | sed 's/^/#   /'; }
t_is "lookups, neighbouring tables (filter): the same observations, released, no counter moved on a shard" \
    "$([[ "$oa" == "$ob" ]] && echo same)/$(grep -c '|released|' <<<"$oa")/$(moved "$oa")" "same/1/0"
before="$(table_stats nbj_a) | $(table_stats nbjp_a)"
cq "$COORD" -c "SELECT count(*) FROM nbj_a v JOIN nbjp_a p ON p.person = v.person" >/dev/null
t_check "... which a superuser's plain join of the same tables moves" \
    test "$(moved "counters (coordinator, shards): $(stats_delta "$before" "$(table_stats nbj_a) | $(table_stats nbjp_a)")")" -gt 0

t_summary
