#!/usr/bin/env bash
# scripts/demo.sh — the dpobj demo in one command:
#
#   bash scripts/demo.sh
#
# Installs missing Debian packages, builds and installs the extension, starts a throwaway
# PostgreSQL cluster (private unix socket, see scripts/common.sh), loads UCI Adult
# (data/adult/load.sql) into database dpobj_demo, creates the extension and runs
# scripts/demo.sql: trains a differentially private halfspace (epsilon = 1,
# delta = 1/n^2) on the balanced d15 training set, shows the model and its accuracy on
# adult.test; then the product, README.md's recommended path as written there: the owner
# protects a raw table in a budget domain, declares its columns' public domains and grants a
# budget, an analyst without SELECT trains with 'auto' on the raw columns, evaluates
# privately, stores the model by name and predicts from raw values; the ledger is printed.
#
# The cluster is removed at the end.  Environment:
#   DPOBJ_KEEP=1     leave the cluster running and print how to connect to it
#   DPOBJ_SEED=N     set dpobj.seed = N for a reproducible noise draw (demonstration only)
#   DPOBJ_PGPORT     port number of the throwaway cluster (default 55432; socket only)
set -euo pipefail

# shellcheck source=scripts/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

dpobj_ensure_packages
dpobj_build_install
dpobj_start_cluster

dpobj_log "creating database dpobj_demo"
dpobj_psql -c 'CREATE DATABASE dpobj_demo'
export PGDATABASE=dpobj_demo

dpobj_log "loading UCI Adult from $REPO/data/adult"
dpobj_psql -v datadir="$REPO/data/adult" -f "$REPO/data/adult/load.sql"

dpobj_log "CREATE EXTENSION dpobj"
dpobj_psql -c 'CREATE EXTENSION dpobj'

seed_args=()
if [[ -n "${DPOBJ_SEED:-}" ]]; then
    [[ "$DPOBJ_SEED" =~ ^-?[0-9]+$ ]] || dpobj_die "DPOBJ_SEED must be an integer"
    seed_args=(-v "seed=$DPOBJ_SEED")
fi
dpobj_psql "${seed_args[@]}" -f "$REPO/scripts/demo.sql"

# Part 2: README.md's recommended path, exactly as written there (protected runs refuse
# dpobj.seed, so it runs without one), then the whole privacy ledger.
dpobj_log "part 2: README.md's recommended path (scripts/readme_path.sh)"
bash "$REPO/scripts/readme_path.sh" "$REPO/README.md" | dpobj_psql -e -f -
dpobj_psql -c 'SELECT id, rolname, relation, mechanism, epsilon, delta, outcome FROM dpobj.ledger ORDER BY id'
dpobj_log "demo finished"
