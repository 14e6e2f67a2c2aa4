#!/usr/bin/env bash
# tests/audit/mechanisms.sh — the empirical privacy audit of every mechanism dpobj
# releases (docs/PRIVACY.md "Empirical audit").  For each row of the families' [audit]
# sections (tests/families/README, read by tests/families/lines.sh) it runs the
# mechanism many times on the two neighbouring tables of tables.sql (one statement: one
# run per (side, r) group, each charged and drawing fresh noise from pg_strong_random),
# writes one line per run with the statistics of its output, and audit.py turns the
# samples into a bound per row that must stay within the row's claim.
# With DPOBJ_AUDIT_MUTANT=<family> (the server runs a library built with
# -DDPOBJ_AUDIT_MUTANT=<family>, tests/audit/mutants.sh) it runs only the rows that name the
# family and each must be flagged instead.  DPOBJ_AUDIT_RUNS=bench: each row's bench runs
# (bench/audit); DPOBJ_AUDIT_ONLY="row ...": only those rows (a row being written).
# Needs PGHOST/PGPORT/PGUSER (a superuser) and a server with dpobj installed and in
# shared_preload_libraries (the ledger writers).
set -uo pipefail
DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=tests/concurrency/lib.sh
. "$DIR/../concurrency/lib.sh"
DB=dpobj_audit
MUTANT="${DPOBJ_AUDIT_MUTANT:-}"
ONLY="${DPOBJ_AUDIT_ONLY:-}"
SAMPLES="$(mktemp -d "${TMPDIR:-/tmp}/dpobj-audit.XXXXXX")"
trap 'rm -rf -- "$SAMPLES"' EXIT
# the rows: every family's, in the registry's order
if ! bash "$DIR/../families/lines.sh" audit >"$SAMPLES/rows.txt"; then
    echo "not ok - the families' [audit] rows"
    t_summary
    exit 1
fi

if ! t_fresh_db "$DB" || ! t_psql -d "$DB" -f "$DIR/tables.sql"; then
    echo "not ok - audit database $DB with dpobj and tables.sql"
    t_summary
    exit 1
fi
# The long-lived ledger writers charge a run in about a millisecond; without the preload
# each charge launches a worker (about 60 ms, docs/BENCHMARKS.md) and the audit's tens of
# thousands of runs would take an hour: refuse rather than run for that long.
if ! t_psql -d "$DB" -c 'SHOW shared_preload_libraries' | grep -qw dpobj; then
    echo "not ok - the audit needs shared_preload_libraries = 'dpobj'"
    t_summary
    exit 1
fi
# Fresh noise in every run: a seed would make the runs of one statement identical.
t_is "dpobj.seed is unset: noise from pg_strong_random()" \
    "$(t_psql -d "$DB" -c 'SHOW dpobj.seed')" "-1"

# The "mu=zcdp" claims are sqrt(2 rho) with audit.py's own rho(eps, delta): it must be the
# rho the real build's Gaussian releases are calibrated to (params "rho", a run without the
# operating point's balance estimate), else the claims are wrong (a mutant build may report
# a mutated rho: not checked there).
if [[ -z $MUTANT ]]; then
    rho_lib=$(t_psql -d "$DB" -c "SELECT (dpobj.dp_noisysgd(x, y, 16, 1e-5, '{\"R\":1,\"intercept\":false,\"T\":1,\"metric\":\"accuracy\"}')).params->>'rho' FROM canary WHERE side = 0")
    rho_py=$(python3 "$DIR/audit.py" rho-matches 16 1e-5 "${rho_lib:-0}")
    rho_ok() { python3 "$DIR/audit.py" rho-matches 16 1e-5 "${rho_lib:-0}" >/dev/null; }
    t_check "the mu rows' claim: audit.py's rho(16, 1e-5) = $rho_py is dp_noisysgd's ($rho_lib)" rho_ok
    # The claims audit.py re-derives (probit, tune, OPSamp, 'auto') or that the rows pin
    # (objective, CMS, the regression evaluation), against the real build's own
    # calibration of the same runs (its params, or the release's noise scale).
    claim_ok() { python3 "$DIR/audit.py" claim-matches "$1" "${2:-0}" >/dev/null; }
    while IFS="|" read -r row run expr; do
        lib=$(t_psql -d "$DB" -c "SELECT $expr FROM (SELECT $run AS m) s")
        py=$(python3 "$DIR/audit.py" claim-matches "$row" "${lib:-0}")
        t_check "the $row row's claim: audit.py's $py is the real build's ${lib:-?}" \
            claim_ok "$row" "$lib"
    done <<'CLAIMS'
opdisc_probit|(SELECT dpobj.dp_halfspace(x, y, 64, 1e-5, '{"B":1,"D2":1,"oracle":"search"}') FROM halfspace WHERE side = 0)|1 / ((m).params->>'sigma')::float8
rspm_probit|(SELECT dpobj.dp_halfspace_rspm(x, y, 32, 1e-5, '{"oracle":"search"}') FROM halfspace WHERE side = 0)|sqrt(2) / ((m).params->>'sigma')::float8
noisysgd_tune|(SELECT dpobj.dp_noisysgd(x, y, 16, 1e-5, '{"R":1,"intercept":false,"loss":"huber","T":1,"n":1000000,"tune":{"R":[1]},"tune_gamma":1,"metric":"accuracy"}') FROM canary WHERE side = 0)|sqrt(2 * ((m).params->>'rho')::float8)
objective|(SELECT dpobj.dp_logistic(x, y, 16, 1e-5, '{"R":1,"intercept":false,"loss":"huber","lambda":64,"metric":"accuracy"}') FROM canary WHERE side = 0)|2 / ((m).params->>'sigma')::float8
cms_noise|(SELECT dpobj.dp_logistic(x, y, 2, 1e-5, '{"R":1,"intercept":false,"loss":"huber","lambda":64,"method":"cms","metric":"accuracy"}') FROM canary WHERE side = 0)|2 / ((m).params->>'epsilon_prime')::float8
opsamp_scale|(SELECT dpobj.dp_opsamp(x, y, 4, 1e-5, '{"R":1,"n":1}') FROM opsamp WHERE side = 0)|((m).params->>'laplace_scale')::float8
evalreg_noise|(SELECT dpobj.dp_evaluate(x, y, 0.2, 1e-5, jsonb_build_object('model', (SELECT m FROM lrmodel)::text)) FROM evalreg WHERE side = 0)|(m->'noise'->>'scale')::float8
auto_output|(SELECT dpobj.dp_logistic(x, y, 3.6, 9e-6, '{"R":1,"intercept":false,"loss":"huber","method":"output","metric":"accuracy"}') FROM canary WHERE side = 0)|((m).params->>'sigma')::float8
ebm_edges|(SELECT dpobj.dp_ebm(x, y, 16, 1e-5, '{"lo":0,"hi":1,"bins":2,"rounds":1,"bin_grid":2,"bin_share":0.9,"metric":"accuracy"}') FROM ebm_edges WHERE side = 0)|sqrt(2) / ((m).params->>'bin_sigma')::float8
CLAIMS
fi

trim() { local v="${1#"${1%%[![:space:]]*}"}"; printf '%s' "${v%"${v##*[![:space:]]}"}"; }
ledger_count() { t_psql -d "$DB" -c 'SELECT count(*) FROM dpobj.ledger'; }

# one row's runs: $SAMPLES/NAME.csv (side, r, statistics), .time (wall s), .cpu (the
# backend's CPU s: the machine may be shared)
run_row() { # NAME TABLE RUNS CALL STATS
    local cols="" e
    IFS=';' read -ra exprs <<<"$5"
    for e in "${exprs[@]}"; do cols="$cols, $e"; done
    t_psql -d "$DB" <<SQL
SELECT pg_backend_pid() AS pid \gset
\setenv DPOBJ_AUDIT_PID :pid
\o $SAMPLES/$1.csv
COPY (SELECT side, r$cols
        FROM (SELECT side, r, $4 AS m
                FROM $2 CROSS JOIN generate_series(1, $3) r
               GROUP BY side, r) runs
       ORDER BY side, r) TO STDOUT WITH (FORMAT csv);
\o
\! awk -v hz="\$(getconf CLK_TCK)" '{ printf "%.2f\n", (\$14 + \$15) / hz }' /proc/\$DPOBJ_AUDIT_PID/stat >$SAMPLES/$1.cpu
SQL
}

while IFS="|" read -r name _kind table run_eps run_delta _claim runs call stats mutants; do
    name=$(trim "$name")
    [[ -z $name || $name == \#* ]] && continue
    [[ -n $MUTANT && " $(trim "$mutants") " != *" $MUTANT "* ]] && continue
    [[ -n $ONLY && " $ONLY " != *" $name "* ]] && continue
    table=$(trim "$table") run_eps=$(trim "$run_eps") run_delta=$(trim "$run_delta")
    runs=$(trim "$runs")
    # "CI/bench": the first figure, or the second under DPOBJ_AUDIT_RUNS=bench
    if [[ "${DPOBJ_AUDIT_RUNS:-ci}" == bench ]]; then runs=${runs#*/}; else runs=${runs%%/*}; fi
    call=${call//@EPS@/$run_eps}
    call=${call//@DELTA@/$run_delta}
    before=$(ledger_count)
    start=$(date +%s.%N)
    if ! run_row "$name" "$table" "$runs" "$call" "$stats"; then
        echo "not ok - $name: the mechanism ran $runs times per side"
        T_FAIL=$((T_FAIL + 1))
        continue
    fi
    end=$(date +%s.%N)
    awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f\n", b - a }' >"$SAMPLES/$name.time"
    # One ledger row per sample: every group was a separate charged run.
    t_is "$name: $runs runs per side, each a charged run" \
        "$(( $(ledger_count) - before ))" "$((2 * runs))"
done <"$SAMPLES/rows.txt"

out=$(DPOBJ_AUDIT_ONLY="$ONLY" python3 "$DIR/audit.py" report "$SAMPLES/rows.txt" "$SAMPLES" ${MUTANT:+"$MUTANT"})
t_absorb "audit.py report" "$out"
t_psql -d postgres -c "DROP DATABASE IF EXISTS $DB" >/dev/null 2>&1
t_summary
