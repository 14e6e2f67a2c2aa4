#!/usr/bin/env bash
# tests/citus/run.sh — dpobj on a real Citus cluster: a coordinator and two workers on
# 127.0.0.1, all running the PostgreSQL installation under test with Citus 12.1.12 built
# from ../shared/vendor/citus (tests/citus/build.sh; the build is cached outside the
# repository, so only the first run on a machine takes the ~6 minutes of compiling).
#
# What it checks (docs/SCALING.md; issue "Scale out on Citus"):
#   (a) every dpobj aggregate is pushed down: EXPLAIN shows worker_partial_agg on the
#       shards and coord_combine_agg on the coordinator, and the coordinator receives one
#       partial state per shard (one task per shard, each an ungrouped Aggregate);
#   (b) the released model (dp_evaluate: the released counts or regression metrics) on
#       the distributed table equals the one on a local copy under the same dpobj.seed,
#       for every mechanism (linear regression, AdaSSP and SSP, included);
#   (c) the final function -- the charge, the noise -- runs only on the coordinator: a
#       single-shard query and GROUP BY the distribution column are refused before any
#       charge on any node; with router execution off the same filter finalises on the
#       coordinator and equals the local run;
#   (d) the ledger row names the distributed (or reference) table;
#   (e) the protected path fails closed on Citus tables: protect() refuses distributed
#       and reference tables, and a table protected while local and distributed later is
#       refused by train() and submit() before anything is charged;
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
ledger_rows() { cq "$1" -c "SELECT count(*) FROM dpobj.ledger"; }
PORTS=("${CITUS_PORTS[@]}")
COORD=${PORTS[0]}

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
declare -A AGG=(
    [opdisc]="dpobj.dp_halfspace(x, y, 1, 1e-6)"
    [opdisc_opts]="dpobj.dp_halfspace(x, y, 1, 1e-6, '{\"B\": 1, \"D2\": 3}')"
    [rspm]="dpobj.dp_halfspace_rspm(x, y, 1, 1e-6)"
    [expmech]="dpobj.dp_expmech(x, y, 1, 1e-6, '{\"B\": 1, \"D2\": 3}')"
    [logistic]="dpobj.dp_logistic(x, y, 1, 1e-6, '{\"R\": 2}')"
    [cms]="dpobj.dp_logistic(x, y, 1, 1e-6, '{\"R\": 2, \"method\": \"cms\", \"loss\": \"huber\"}')"
    [noisysgd]="dpobj.dp_noisysgd(x, y, 1, 1e-6, '{\"R\": 2, \"T\": 200}')"
    [opsamp]="dpobj.dp_opsamp(x, y, 1, 1e-6, '{\"R\": 1, \"n\": 2000}')"
    [evaluate]="dpobj.dp_evaluate(x, y, 1, 1e-6, jsonb_build_object('model', ($MODEL)::text))"
    [linear]="dpobj.dp_linear_regression(x, $LABEL, 1, 1e-6, '$LINOPTS')"
    [linear_ssp]="dpobj.dp_linear_regression(x, $LABEL, 1, 1e-6, '{\"R\": 2, \"y_min\": -2, \"y_max\": 2, \"method\": \"ssp\"}')"
    [evaluate_linear]="dpobj.dp_evaluate(x, ($LABEL)::float8, 1, 1e-6, jsonb_build_object('model', ($LINMODEL)::text))"
)
runs=0
for k in opdisc opdisc_opts rspm expmech logistic cms noisysgd opsamp evaluate linear linear_ssp evaluate_linear; do
    a=${AGG[$k]}
    plan=$(cq "$COORD" -c "EXPLAIN (VERBOSE, COSTS OFF) SELECT $a FROM pts")
    t_check "$k: the shards compute partial states (worker_partial_agg)" \
        grep -q "worker_partial_agg" <<<"$plan"
    t_check "$k: the coordinator's Aggregate combines (coord_combine_agg)" grep -q "coord_combine_agg" <<<"$plan"
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

# --- (e) the protected path fails closed ----------------------------------------------------
cq "$COORD" >/dev/null <<'SQL' || bail "setting up the protected tables failed"
SET client_min_messages = warning;
CREATE ROLE analyst LOGIN;
CREATE TABLE secret AS SELECT * FROM pts_local;
SELECT dpobj.protect('secret');
SELECT dpobj.grant_budget('secret', 'analyst', 5, 1e-3);
SELECT create_distributed_table('secret', 'id');
SELECT truncate_local_data_after_distributing_table('secret');
SQL
for t in pts pts_ref; do
    e=$(err "$COORD" "SELECT dpobj.protect('$t')")
    t_check "protect() refuses the Citus table $t" \
        grep -q "cannot protect or train on public.$t: it is a Citus" <<<"$e"
done
nled=$(ledger_rows "$COORD")
e=$(cq "$COORD" -c "SET ROLE analyst" \
      -c "SELECT * FROM dpobj.train('secret', 'opdisc', ARRAY['a', 'b'], 'y', 1, 1e-6)" 2>&1 >/dev/null |
    sed -n 's/^\(psql:[^ ]* \)\{0,1\}ERROR:  //p' | head -n 1)
t_check "train() on a protected table distributed later: refused (a Citus table)" \
    grep -q "cannot protect or train on public.secret: it is a Citus" <<<"$e"
e=$(cq "$COORD" -c "SET ROLE analyst" \
      -c "SELECT dpobj.submit('secret', 'opdisc', ARRAY['a', 'b'], 'y', 1, 1e-6)" 2>&1 >/dev/null |
    sed -n 's/^\(psql:[^ ]* \)\{0,1\}ERROR:  //p' | head -n 1)
t_check "submit() on it: refused at once" grep -q "cannot protect or train on public.secret: it is a Citus" <<<"$e"
t_is "nothing was charged for the refused protected runs" "$(ledger_rows "$COORD")" "$nled"
t_is "the analyst still cannot read the table" \
    "$(cq "$COORD" -c "SET ROLE analyst" -c "SELECT count(*) FROM secret" 2>&1 | grep -c 'permission denied')" 1

# --- (f) one ledger for the cluster ----------------------------------------------------------
t_is "the coordinator's ledger has one row per run" "$(ledger_rows "$COORD")" "$runs"
t_is "the workers' ledgers are empty" "$(ledger_rows "${PORTS[1]}")/$(ledger_rows "${PORTS[2]}")" "0/0"
cq "${PORTS[1]}" -c "CREATE TABLE wlocal AS SELECT * FROM generate_series(1, 10) i" >/dev/null
e=$(err "${PORTS[1]}" "SELECT dpobj.dp_halfspace(ARRAY[i / 10.0]::float8[], i > 5, 1, 1e-6) FROM wlocal")
t_check "an aggregate called directly on a worker is refused" \
    grep -q "dpobj mechanisms run only on the Citus coordinator" <<<"$e"
t_is "and charged nothing there" "$(ledger_rows "${PORTS[1]}")" 0

t_summary
