#!/usr/bin/env bash
# bench/figure1/run.sh — reproduce the paper's Figure 1 in the database (a bench, not a test):
#
#   bash bench/figure1/run.sh
#
# Builds and installs dpobj (FIG_SKIP_BUILD=1 to skip), installs gnuplot (Debian package
# gnuplot-nox, this script only), starts a throwaway cluster (scripts/common.sh), loads UCI
# Adult, runs figure1.sql and writes bench/figure1/results.csv, summary.dat, meta.csv (the run's
# command, commit, date, load) and docs/figure1.png; bench/render.py renders them into
# docs/BENCHMARKS.md.
#
# Environment (defaults in brackets):
#   FIG_EPS ["0.01 0.05 0.1 0.3 0.5 1"]   FIG_RUNS [15]
#   FIG_MECHS ["opdisc rspm logistic noisysgd"]
#   FIG_OPDISC_LIMIT [20]  FIG_RSPM_LIMIT [10]  FIG_NONPRIV_LIMIT [120]  (seconds per run)
#   FIG_SGD_T [30]         noisy GD's "T" (its default): steps, each a pass over the rows
#   FIG_FSET [d23]         feature view adult.features_<FIG_FSET>; outputs for other sets get
#                          the suffix _<FIG_FSET> (results_d9.csv, docs/figure1_d9.png)
#   FIG_R2 [7 for d23, 4 for d9, 6 for d15, 3 for d4]  squared clipping bound R^2
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=scripts/common.sh
. "$HERE/../../scripts/common.sh"

FIG_EPS="${FIG_EPS:-0.01 0.05 0.1 0.3 0.5 1}"
FIG_RUNS="${FIG_RUNS:-15}"
FIG_MECHS="${FIG_MECHS:-opdisc rspm logistic noisysgd}"
FIG_OPDISC_LIMIT="${FIG_OPDISC_LIMIT:-20}"
FIG_RSPM_LIMIT="${FIG_RSPM_LIMIT:-10}"
FIG_NONPRIV_LIMIT="${FIG_NONPRIV_LIMIT:-120}"
FIG_SGD_T="${FIG_SGD_T:-30}"
FIG_FSET="${FIG_FSET:-d23}"
case "$FIG_FSET" in d23) r2=7 ;; d15) r2=6 ;; d9) r2=4 ;; *) r2=3 ;; esac
FIG_R2="${FIG_R2:-$r2}"
sfx=""
[[ "$FIG_FSET" == d23 ]] || sfx="_$FIG_FSET"
export DPOBJ_PGPORT="${DPOBJ_PGPORT:-55467}"
DPOBJ_EXTRA_CONF="max_parallel_workers_per_gather = 0
jit = off
max_worker_processes = 32"
export DPOBJ_EXTRA_CONF

if ! command -v gnuplot >/dev/null 2>&1; then
    dpobj_log "installing gnuplot-nox (for the plot only)"
    dpobj_as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends gnuplot-nox
fi
if [[ "${FIG_SKIP_BUILD:-0}" != 1 ]]; then
    dpobj_ensure_packages
    dpobj_build_install
fi
dpobj_start_cluster
dpobj_psql -c 'CREATE DATABASE dpobj_fig1'
export PGDATABASE=dpobj_fig1
dpobj_psql -v datadir="$REPO/data/adult" -f "$REPO/data/adult/load.sql" >/dev/null
dpobj_psql -c 'CREATE EXTENSION dpobj'

start=$(date +%s)
# psql's \copy (client side) writes results.csv and summary.dat into the current
# directory: a private one, so that runs of different feature sets never overwrite
# each other's files
WORKDIR="$(mktemp -d)"
cd "$WORKDIR"
dpobj_psql -v eps_list="$FIG_EPS" -v runs="$FIG_RUNS" -v mechs="$FIG_MECHS" \
    -v opdisc_limit="$FIG_OPDISC_LIMIT" -v rspm_limit="$FIG_RSPM_LIMIT" \
    -v nonpriv_limit="$FIG_NONPRIV_LIMIT" -v sgd_T="$FIG_SGD_T" \
    -v view="features_$FIG_FSET" -v r2="$FIG_R2" \
    -f "$HERE/figure1.sql" >/dev/null
dpobj_log "figure 1: $(( $(date +%s) - start )) s"
mv "$WORKDIR/results.csv" "$HERE/results$sfx.csv"
mv "$WORKDIR/summary.dat" "$HERE/summary$sfx.dat"
# the run's command, commit, date, machine and load (bench/record.py's columns) for render.py
(cd "$REPO/bench" && python3 -c 'import csv, sys, record
csv.writer(sys.stdout).writerows([["command", "commit", "date", "machine", "load"],
                                  record.meta(sys.argv[1])])' \
    "$(env | grep -o '^FIG_[A-Z0-9_]*=.*' | grep -v '^FIG_SKIP_BUILD=' | sort | sed 's/=\(.* .*\)/="\1"/' | tr '\n' ' ')bash bench/figure1/run.sh") \
    >"$HERE/meta$sfx.csv"
cd "$HERE"
rmdir "$WORKDIR"
ref() { awk -v m="$1" -v c="$2" '$1 == m { print $c }' "$HERE/summary$sfx.dat"; }
gnuplot -e "outfile='$REPO/docs/figure1$sfx.png'; dfile='summary$sfx.dat'; fset='$FIG_FSET'; \
np_op_train=$(ref opdisc_nonprivate 5); np_op_test=$(ref opdisc_nonprivate 7); \
np_lr_train=$(ref logistic_nonprivate 5); np_lr_test=$(ref logistic_nonprivate 7)" "$HERE/plot.gp"
dpobj_log "wrote $REPO/docs/figure1$sfx.png, $HERE/results$sfx.csv, $HERE/summary$sfx.dat"
column -t "$HERE/summary$sfx.dat" >&2 || cat "$HERE/summary$sfx.dat" >&2
python3 "$REPO/bench/render.py"
