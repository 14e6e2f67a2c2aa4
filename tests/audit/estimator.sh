#!/usr/bin/env bash
# tests/audit/estimator.sh — unit checks of the audit's estimator (audit.py selftest): the
# incomplete beta function and the Clopper-Pearson bounds against closed forms and the
# binomial tails, and the lower bound on synthetic Bernoulli and Gaussian samples with a
# known epsilon.  Needs no server.  Last line: "N passed, M failed".
set -uo pipefail
exec python3 "$(dirname "${BASH_SOURCE[0]}")/audit.py" selftest
