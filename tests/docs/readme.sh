#!/usr/bin/env bash
# tests/docs/readme.sh — README.md's recommended path and docs/TUTORIAL.md run as written:
# starts a throwaway cluster (scripts/common.sh), loads UCI Adult, creates the extension and
# runs the SQL blocks scripts/readme_path.sh extracts from README.md with ON_ERROR_STOP, then
# checks what the path must leave behind (a stored model, charges on the budget domain, a
# prediction); then runs every ```sql block of docs/TUTORIAL.md, in order, on the state the
# path left (the tutorial walks through it); and checks that ALTER SYSTEM SET of a dpobj
# setting works after LOAD 'dpobj' as docs/REFERENCE.md "settings" says.  Needs the extension installed for the server in DPOBJ_PG_BINDIR / PATH.
# Last line: "N passed, M failed".
set -euo pipefail
# shellcheck source=scripts/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/common.sh"
dpobj_start_cluster
dpobj_psql -q -c 'CREATE DATABASE dpobj_readme'
export PGDATABASE=dpobj_readme
dpobj_psql -q -v datadir="$REPO/data/adult" -f "$REPO/data/adult/load.sql" >/dev/null
dpobj_psql -q -c 'CREATE EXTENSION dpobj'

passed=0 failed=0
check() {   # check NAME SQL-returning-one-boolean
    local got
    got=$(dpobj_psql -Atq -c "$2" 2>&1) || got="error: $got"
    got=${got##*$'\n'}
    if [[ "$got" == t ]]; then passed=$((passed + 1)); echo "ok - $1"
    else failed=$((failed + 1)); echo "not ok - $1 ($got)"; fi
}

sql=$(bash "$REPO/scripts/readme_path.sh" "$REPO/README.md")
steps=$(grep -c '^SELECT dpobj\.\|^FROM dpobj\.\|^CREATE TABLE' <<<"$sql" || true)
check "README.md has the path's statements ($steps)" "SELECT $steps >= 6"
if dpobj_psql -q -f - <<<"$sql" >"$DPOBJ_CLUSTER_DIR/readme.out" 2>&1; then
    cat "$DPOBJ_CLUSTER_DIR/readme.out"
    passed=$((passed + 1)); echo "ok - README.md's path runs as written"
else
    failed=$((failed + 1)); echo "not ok - README.md's path runs as written"; cat "$DPOBJ_CLUSTER_DIR/readme.out"
fi
check "the path stored model income_v1" \
    "SELECT count(*) = 1 FROM dpobj.models WHERE name = 'income_v1'"
check "describe, two private queries (one a join along the link), synthesize, train and evaluate were charged to the budget domain" \
    "SELECT count(*) = 6 FROM dpobj.ledger WHERE budget_domain = 'adult_people' AND outcome = 'released'"
check "the path stored the synthesizer people_syn" \
    "SELECT count(*) = 1 FROM dpobj.models WHERE name = 'people_syn'"
check "the stored model predicts from raw values" \
    "SET ROLE analyst; SELECT dpobj.predict_raw('income_v1', '{\"relationship\": \"Wife\", \"race\": \"Black\", \"sex\": \"Female\", \"capital_gain\": 0, \"hours_per_week\": 40}') IS NOT NULL"
check "the path's last step shows a prediction and a probability from raw values" \
    "SELECT $(grep -cE '^ *prediction +\| +probability *$' "$DPOBJ_CLUSTER_DIR/readme.out" || true) = 1"
# docs/TUTORIAL.md: every ```sql block, in order, after the README's path
tutorial=$(awk '/^```sql$/ { on = 1; next } on && /^```$/ { on = 0; print ""; next } on { print }' \
    "$REPO/docs/TUTORIAL.md")
blocks=$(grep -c '^```sql$' "$REPO/docs/TUTORIAL.md" || true)
check "TUTORIAL.md has SQL blocks ($blocks)" "SELECT $blocks >= 1"
if dpobj_psql -q -f - <<<"$tutorial" >"$DPOBJ_CLUSTER_DIR/tutorial.out" 2>&1; then
    cat "$DPOBJ_CLUSTER_DIR/tutorial.out"
    passed=$((passed + 1)); echo "ok - TUTORIAL.md's SQL blocks run as written"
else
    failed=$((failed + 1)); echo "not ok - TUTORIAL.md's SQL blocks run as written"
    cat "$DPOBJ_CLUSTER_DIR/tutorial.out"
fi
# docs/REFERENCE.md "settings": on this server (no preload) ALTER SYSTEM of a dpobj setting
# works once the session loaded the library, and a misspelt dpobj name is refused
if dpobj_psql -q -c "LOAD 'dpobj'" -c 'ALTER SYSTEM SET dpobj.max_jobs = 3' \
        -c 'ALTER SYSTEM RESET dpobj.max_jobs' >/dev/null 2>&1; then
    passed=$((passed + 1)); echo "ok - ALTER SYSTEM SET dpobj.max_jobs after LOAD 'dpobj'"
else
    failed=$((failed + 1)); echo "not ok - ALTER SYSTEM SET dpobj.max_jobs after LOAD 'dpobj'"
fi
if ! dpobj_psql -q -c "LOAD 'dpobj'" -c 'ALTER SYSTEM SET dpobj.max_jobz = 3' >/dev/null 2>&1; then
    passed=$((passed + 1)); echo "ok - a misspelt dpobj setting is refused once loaded"
else
    failed=$((failed + 1)); echo "not ok - a misspelt dpobj setting is refused once loaded"
    dpobj_psql -q -c 'ALTER SYSTEM RESET ALL'
fi
echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
