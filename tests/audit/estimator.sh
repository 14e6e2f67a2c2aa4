#!/usr/bin/env bash
# tests/audit/estimator.sh — unit checks of the audit's estimator (audit.py selftest): the
# incomplete beta function and the Clopper-Pearson bounds against closed forms and the
# binomial tails, the lower bound on synthetic Bernoulli and Gaussian samples with a
# known epsilon; the chi-square and z quantiles, the zCDP and GDP claims, the mu-GDP bound
# on Gaussian pairs with a known mu (never above it, flags 1.5 mu), and the noise-law
# bounds (tests/audit/noiselaw.py) on exact samples: never past the truth, a 1.25-fold
# under-calibration flagged.  Needs no server.  Last line: "N passed, M failed".
set -uo pipefail
exec python3 "$(dirname "${BASH_SOURCE[0]}")/audit.py" selftest
