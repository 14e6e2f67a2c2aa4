#!/usr/bin/env python3
"""tests/audit/audit.py — the empirical privacy audit's bounds (tests/audit).

Given samples of statistics of a mechanism's output on two neighbouring tables D and D'
(the families' audit rows, mechanisms.sh's runs), it computes one statistically valid bound per
row that must stay within the row's claim:

"mu" rows (Gaussian releases; Dong, Roth, Su 2019, Nasr et al. 2023): mu = |E[s|D] -
E[s|D']| / sd from below (gdp_lower: a z bound on the mean difference, a chi-square bound
on sd), against sqrt(2 rho) for a release calibrated to rho-zCDP (a Gaussian shift of mu
is exactly (mu^2 / 2)-zCDP), or the largest mu (eps, delta)-DP allows a Gaussian shift.
"probit" rows: mu of a Gaussian threshold seen through one event.  "sd" rows: a Gaussian
release's sd from above against its calibration.

"eps" rows: for a test event E = {s >= t} or {s <= t},

    eps_lb = ln((p_lo(D) - delta) / p_hi(D'))     (and the same with D and D' swapped)

with one-sided exact Clopper-Pearson bounds p_lo, p_hi on P[E | D] and P[E | D'].  If the
mechanism is (eps, delta)-DP then P[E|D] <= e^eps P[E|D'] + delta.  E is chosen on the
first half of each side's runs and the probabilities are counted on the second half only,
so choosing the best of many events introduces no selection bias.

Noise-law rows ("lap", "gauss", "em", "bern"; noiselaw.py): the release minus its true
value (which the audit's tables fix) has a known law up to its scale, so every run and
every released coordinate bounds the scale, and the pair's privacy loss follows from the
canary's move: what sees a 10 % under-calibration.

Each row gets ALPHA / rows (Bonferroni), so the probability that ANY row of a real build
is flagged while every mechanism meets its claim is at most ALPHA.  With a mutant name
(mutants.sh), the rows that name it must all be flagged instead.  Exact quantiles by
bisection on the regularised incomplete beta and gamma functions (stats.py), no scipy.

Usage:
    audit.py selftest                      unit checks of the estimators (no database)
    audit.py report SPEC SAMPLES_DIR [MUTANT]  the audit table and one check per row
    audit.py plan SPEC FACTOR              the runs each row needs to flag FACTOR (plan.py)
    audit.py rho-matches EPS DELTA RHO     exit 0 when zcdp_rho(EPS, DELTA) is RHO
    audit.py claim-matches ROW VALUE       exit 0 when ROW's claim is VALUE (to 1e-3)
SPEC is a file of rows, or tests/families (every family's [audit] rows, lines.sh); SAMPLES_DIR holds NAME.csv ("side,r,s1,s2,...", side 0 = D,
1 = D'), NAME.time (seconds) and NAME.cpu (the backend's CPU seconds) per row.  Every
output line but the last starts with "ok", "not ok" or "#"; the last is "N passed, M
failed".  Env: DPOBJ_AUDIT_RUNS=bench (bench runs), DPOBJ_AUDIT_ONLY (rows),
DPOBJ_AUDIT_FACTOR (the mutants' factor, for the report).
"""
import math
import os
import subprocess
import sys

import noiselaw
from plan import plan
from selftest import Checks, selftest
from stats import (audit_direction, gdp_lower, gdp_mu, opsamp_laplace_scale, probit_lower,
                   sd_upper, shift_sigma_k2, zcdp_rho)

# Family-wise error level of the real build's audit: the probability that any row's bound
# exceeds its claim although every mechanism meets its claim (Bonferroni: each row gets
# ALPHA / rows, split inside the row as gdp_lower and audit_direction say).  10^-4: at most
# one CI run in 10 000 fails by chance (docs/PRIVACY.md "Empirical audit").
ALPHA = 1e-4
# DPOBJ_AUDIT_RUNS=bench (bench/audit): each row's second runs figure, sized for the
# 1.1-fold mutants; else (CI) its first, sized for the 1.25-fold ones
BENCH = os.environ.get("DPOBJ_AUDIT_RUNS", "ci") == "bench"
# every family's rows (tests/families/lines.sh)
FAMILIES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "families")
# the mutant builds' factor (mutants.sh builds them with it), for the report only
FACTOR = os.environ.get("DPOBJ_AUDIT_FACTOR", "1.25")


# --- the spec: the rows ----------------------------------------------------------------

def mu_claim(spec, run_eps, run_delta):
    """"zcdp[/K][*R]": sqrt(2 rho / K) R, rho = zcdp_rho(eps, delta) (a snapped Gaussian
    release, the K-th share of a composition, a pair that moves R of the sensitivity);
    "gdp": the largest mu (eps, delta) allows a Gaussian shift; "tune:S": noisy GD's
    "tune" at tune_gamma 1 (one run of Q, all of A: rho_Q <= zcdp_rho(eps, 0.9 delta), the
    release at (1 - S) rho_Q); "shift:C:F": F / sigma, sigma the radial-shift calibration
    of c = C, k = 2; a number: itself (a calibration pinned by a CLAIMS check)."""
    ratio = 1.0
    if "*" in spec:
        spec, r = spec.split("*", 1)
        ratio = float(r)
    if spec.startswith("zcdp"):
        share = float(spec.split("/", 1)[1]) if "/" in spec else 1.0
        return ratio * math.sqrt(2.0 * zcdp_rho(run_eps, run_delta) / share)
    if spec == "gdp":
        return ratio * gdp_mu(run_eps, run_delta)
    if spec.startswith("tune:"):
        share = float(spec.split(":", 1)[1])
        return ratio * math.sqrt(2.0 * (1.0 - share) * zcdp_rho(run_eps, 0.9 * run_delta))
    if spec.startswith("shift:"):
        _, c, f = spec.split(":")
        return ratio * float(f) / shift_sigma_k2(run_eps, run_delta, float(c))
    return ratio * float(spec)


def parse_claim(kind, text, run_eps, run_delta):
    """A row's claim as {"value": the bound's limit, ...}: "mu=SPEC" (mu_claim; kinds mu,
    probit; gauss: with "move=M"), "sd=auto:S" (the final Output-Gauss release of 'auto'
    at select_share S: sd eps_f / sqrt(2 rho_f), Huber, L = R = 1, Lambda = 2 / eps_f),
    "eps=E delta=D" (eps: an event bound; lap: with "move=M", the Laplace scale M / E of
    every statistic), "scale=B1,B2,..." (lap: each statistic's Laplace scale, the list
    repeated), "lap=opsamp:N" (OPSamp's Laplace scale at the public n = N, p = 1, R = 1),
    "gamma=G L=D/D'[;D/D'...]" (em: the exponential mechanism's gamma and, per statistic,
    the losses of its candidates on D and on D', noiselaw.parse_losses; or "q=Q1[,Q2...]
    hist=D/D'": statistic j is the q_j-quantile's bin drawn from that histogram of D and
    of D', noiselaw.quantile_losses), "p=P [trials=T]" (bern: each statistic counts the
    events of T trials).
    lap and gauss rows may add "grain=G" (the noise's lattice in the statistic's units;
    0: continuous; default 1) and "slack=S" (noiselaw.laplace_lower)."""
    f = dict(x.split("=", 1) for x in text.split())
    c = {"text": text, "delta": 0.0, "grain": float(f.get("grain", "1")),
         "slack": float(f.get("slack", "0")), "move": float(f.get("move", "0"))}
    if "mu" in f:
        c["value"] = mu_claim(f["mu"], run_eps, run_delta)
    elif "sd" in f:
        share = float(f["sd"].split(":", 1)[1])
        eps_f, delta_f = (1.0 - share) * run_eps, (1.0 - share) * run_delta
        c.update(value=eps_f / math.sqrt(2.0 * zcdp_rho(eps_f, delta_f)), delta=delta_f,
                 share=share)
    elif "lap" in f:
        n = float(f["lap"].split(":", 1)[1])
        c["value"] = opsamp_laplace_scale(run_eps, run_delta, n, 1.0, 1.0, 0.05)
    elif "scale" in f:
        c["scales"] = [float(x) for x in f["scale"].split(",")]
        c["value"] = c["scales"][0]
    elif "gamma" in f:
        c["value"] = float(f["gamma"])
        if "L" in f:
            c["losses"] = [[noiselaw.parse_losses(s) for s in part.split("/")]
                           for part in f["L"].split(";")]
        else:
            hists = [noiselaw.parse_losses(h) for h in f["hist"].split("/")]
            c["losses"] = [[noiselaw.quantile_losses(h, float(q)) for h in hists]
                           for q in f["q"].split(",")]
    elif "p" in f:
        c["value"] = float(f["p"])
        c["trials"] = float(f.get("trials", "1"))
    else:
        c["value"] = float(f["eps"])
        c["delta"] = float(f.get("delta", "0"))
    if kind == "lap" and "eps" in f:
        c["eps"], c["value"] = c["value"], c["move"] / c["value"]
    if kind == "lap" and "scales" not in c:
        c["scales"] = [c["value"]]
    return c


def read_spec(path):
    """the rows (tests/families/README) of a file, or of every family's [audit] section
    for a directory (tests/families): name | kind | table | run eps | run delta | claim |
    runs per side (CI, or CI/bench) | call | statistics | mutant builds that must be flagged"""
    if os.path.isdir(path):
        text = subprocess.run(["bash", os.path.join(path, "lines.sh"), "audit"], check=True,
                              capture_output=True, text=True).stdout
    else:
        text = open(path).read()
    rows = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        fields = [x.strip() for x in line.split("|")]
        run_eps, run_delta = float(fields[3]), float(fields[4])
        runs = fields[6].split("/")
        rows.append({"name": fields[0], "kind": fields[1], "run_eps": run_eps,
                     "run_delta": run_delta,
                     "claim": parse_claim(fields[1], fields[5], run_eps, run_delta),
                     "runs": int(runs[-1] if BENCH else runs[0]),
                     "mutants": [m for m in fields[9].split() if m != "-"],
                     "fields": fields})
    return rows


def read_samples(path):
    """NAME.csv ("side,r,s1,s2,...") -> [statistics of D, statistics of D'], each a list
    of per-statistic value lists in run order (None for an SQL NULL)."""
    sides = {0: [], 1: []}
    with open(path) as f:
        for line in f:
            parts = line.strip().split(",")
            sides[int(parts[0])].append(
                (int(parts[1]), [float(v) if v != "" else None for v in parts[2:]]))
    out = []
    for side in (0, 1):
        runs = sorted(sides[side])
        width = len(runs[0][1]) if runs else 0
        out.append([[r[1][j] for r in runs] for j in range(width)])
    return out


def row_level(rows):
    """Each row's share of the family-wise level ALPHA (Bonferroni over every row of the
    spec, whether or not this run measures it)."""
    return ALPHA / len(rows)


# --- one row's bound ----------------------------------------------------------------------

def pooled(d, dp):
    """every statistic's non-NULL values of both sides, in one list"""
    return [v for side in (d, dp) for s in side for v in s if v is not None]


def bound_noise(kind, claim, d, dp, level):
    """(bound, holds, text) of the noise-law kinds (noiselaw.py): "lap" r_lb <= 1, r the
    claimed scales over the noise's (shown as eps_lb = r_lb eps with "eps=E move=M"),
    "gauss" mu_lb = move / sd_ub <= the claimed mu, "em" gamma_lb <= gamma, "bern" p_lb
    <= p."""
    if kind == "lap":
        stats = [[v for side in (d, dp) for v in side[j] if v is not None]
                 for j in range(len(d))]
        scales = [claim["scales"][j % len(claim["scales"])] for j in range(len(d))]
        lb, hat = noiselaw.laplace_lower(stats, scales, claim["grain"], claim["slack"], level)
        text = "r_hat %.3f over %d draws" % (hat, sum(len(v) for v in stats))
        if "eps" in claim:
            return claim["eps"] * lb, lb <= 1.0, text
        return lb, lb <= 1.0, text
    if kind == "gauss":
        vals = pooled(d, dp)
        ub, hat = noiselaw.gauss_upper(vals, claim["slack"], level)
        return claim["move"] / ub, claim["move"] / ub <= claim["value"], (
            "sd_ub %.4g, mu_hat %.3f over %d draws" % (ub, claim["move"] / hat, len(vals)))
    if kind == "em":
        groups = []
        for j, (ld, ldp) in enumerate(claim["losses"]):
            for side, losses in ((d, ld), (dp, ldp)):
                counts = [0] * len(losses)
                for v in side[j]:
                    counts[int(v)] += 1
                groups.append((counts, losses))
        lb, hat = noiselaw.em_lower(groups, level)
        ld, ldp = claim["losses"][0]
        text = "gamma_hat %.3f" % hat
        if ld != ldp:
            text += "; the pair's ln-ratio %.3f at gamma_lb, %.3f claimed" % (
                noiselaw.em_pair_eps(ld, ldp, lb), noiselaw.em_pair_eps(ld, ldp, claim["value"]))
        return lb, lb <= claim["value"], text
    vals = pooled(d, dp)
    trials = int(claim.get("trials", 1))
    k, n = int(round(sum(vals))), trials * len(vals)
    lb = noiselaw.bern_lower(k, n, level)
    return lb, lb <= claim["value"], "%d of %d" % (k, n)


def bound_sd(row, d, dp, level):
    """"sd": the pooled sd's upper bound >= the claim and mu_lb <= sqrt(2 rho_f), over the
    runs whose statistic is not NULL (half the level each)"""
    xs, ys = [v for v in d[0] if v is not None], [v for v in dp[0] if v is not None]
    if len(xs) < row["runs"] // 4 or len(ys) < row["runs"] // 4:
        raise ValueError("too few runs released the audited candidate (%d, %d)"
                         % (len(xs), len(ys)))
    claim = row["claim"]
    ub, sd_hat = sd_upper(xs, ys, level / 2.0)
    share = claim["share"]
    mu_c = math.sqrt(2.0 * zcdp_rho((1.0 - share) * row["run_eps"],
                                    (1.0 - share) * row["run_delta"]))
    mu_lb, mu_hat, _ = gdp_lower(xs, ys, level / 2.0)
    return ub, ub >= claim["value"] and mu_lb <= mu_c, (
        "sd_hat %.3f over %d, %d runs; mu_lb %.3f <= %.3f, mu_hat %.3f"
        % (sd_hat, len(xs), len(ys), mu_lb, mu_c, mu_hat))


def bound_eps(claim, d, dp, level):
    """"eps": eps_lb (level / 4: two directions, two bounds each) <= the claim"""
    fwd = audit_direction(d, dp, claim["delta"], level / 4.0)
    rev = audit_direction(dp, d, claim["delta"], level / 4.0)
    best, label = (fwd, "D/D'") if fwd[0] >= rev[0] else (rev, "D'/D")
    lb, event, counts = best
    if event is None:
        return lb, lb <= claim["value"], "no event"
    j, t, upper = event
    return lb, lb <= claim["value"], "%s: s%d %s %.6g (%d, %d of %d)" % (
        label, j + 1, ">=" if upper else "<=", t,
        counts[0] if label == "D/D'" else counts[2],
        counts[2] if label == "D/D'" else counts[0], counts[1])


def audit_row(row, samples_dir, level):
    """(bound, holds, text) for one row from its samples; holds: the bound is within the
    claim.  "mu": mu_lb (gdp_lower) <= claim; "probit": mu_lb of the first statistic, an
    event indicator (probit_lower); "sd": bound_sd; "lap", "gauss", "em", "bern":
    bound_noise; "eps": bound_eps."""
    d, dp = read_samples(os.path.join(samples_dir, row["name"] + ".csv"))
    if not d or len(d[0]) != row["runs"] or len(dp[0]) != row["runs"]:
        raise ValueError("not %d runs per side" % row["runs"])
    claim = row["claim"]
    if row["kind"] == "mu":
        lb, mu_hat, _ = gdp_lower(d[0], dp[0], level)
        return lb, lb <= claim["value"], "mu_hat %.3f" % mu_hat
    if row["kind"] == "probit":
        k_a, k_b = sum(1 for v in d[0] if v > 0.5), sum(1 for v in dp[0] if v > 0.5)
        lb, hat = probit_lower(k_a, len(d[0]), k_b, len(dp[0]), level)
        return lb, lb <= claim["value"], "mu_hat %.3f (events %d, %d of %d)" % (
            hat, k_a, k_b, len(d[0]))
    if row["kind"] == "sd":
        return bound_sd(row, d, dp, level)
    if row["kind"] in ("lap", "gauss", "em", "bern"):
        return bound_noise(row["kind"], claim, d, dp, level)
    return bound_eps(claim, d, dp, level)


# --- report: the audit of every mechanism -----------------------------------------------

# each kind's bound: (its name, the claim's symbol, whether it must stay at or above)
BOUND = {"mu": ("μ_lb", "μ", False), "probit": ("μ_lb", "μ", False), "sd": ("sd_ub", "sd", True),
         "gauss": ("μ_lb", "μ", False), "em": ("γ_lb", "γ", False), "bern": ("p_lb", "p", False),
         "eps": ("ε_lb", "ε", False)}


def bound_names(row):
    """(bound name, claim symbol, claim value, at or above) of a row"""
    claim = row["claim"]
    if row["kind"] == "lap":
        if "eps" in claim:
            return "ε_lb", "ε", claim["eps"], False
        return "r_lb", "scale ratio", 1.0, False
    name, sym, above = BOUND[row["kind"]]
    return name, sym, claim["value"], above


def report(spec_path, samples_dir, mutant=None):
    """Every row with samples in samples_dir.  The real build (mutant None): each bound
    must stay within its claim (audit_row).  A mutant build: each row that names the
    mutant must be flagged (its bound beyond the claim)."""
    c = Checks()
    rows = read_spec(spec_path)
    level = row_level(rows)
    build = "real" if mutant is None else "%s %s×" % (mutant, FACTOR)
    print("# per-row level %.2e (family-wise %g over %d rows)%s"
          % (level, ALPHA, len(rows), "" if mutant is None else "; mutant build: " + build))
    table = ["| row | build | run at ε, δ | claim | runs per side | bound | estimate / event (held-out counts D, D') | s (CPU s) |",
             "|---|---|---|---|---|---|---|---|"]
    only = os.environ.get("DPOBJ_AUDIT_ONLY", "").split()
    for row in rows:
        name = row["name"]
        if (mutant is not None and mutant not in row["mutants"]) or (only and name not in only):
            continue
        try:
            lb, holds, text = audit_row(row, samples_dir, level)
            with open(os.path.join(samples_dir, name + ".time")) as f:
                secs = "%.1f" % float(f.read().strip())
            if os.path.exists(os.path.join(samples_dir, name + ".cpu")):
                with open(os.path.join(samples_dir, name + ".cpu")) as f:
                    secs += " (%.1f)" % float(f.read().strip() or "0")
        except (OSError, ValueError, IndexError) as exc:
            c.check("%s: samples read (%s)" % (name, exc), False)
            continue
        bname, sym, value, above = bound_names(row)
        table.append("| %s | %s | %g, %g | %s %.4g | %d | %s %.4g | %s | %s |" % (
            name, build, row["run_eps"], row["run_delta"], sym, value, row["runs"], bname,
            lb, text, secs))
        if mutant is None:
            c.check("%s: %s %.4g %s claimed %s %.4g (%s)"
                    % (name, bname, lb, ">=" if above else "<=", sym, value, text), holds)
        else:
            c.check("%s: the %s mutant is flagged: %s %.4g, claimed %s %.4g (%s)"
                    % (name, build, bname, lb, sym, value, text), not holds)
    for line in table:
        print("# " + line)
    return c.summary()


def main(argv):
    if len(argv) == 2 and argv[1] == "selftest":
        return selftest()
    if len(argv) == 5 and argv[1] == "rho-matches":
        # the claim's rho against the rho a mechanism reports it was calibrated to
        ours, theirs = zcdp_rho(float(argv[2]), float(argv[3])), float(argv[4])
        print("%.17g" % ours)
        return 0 if abs(ours - theirs) <= 1e-12 * theirs else 1
    if len(argv) == 4 and argv[1] == "claim-matches":
        # a row's claim, re-derived here, against the same quantity the real build reports
        row = [r for r in read_spec(FAMILIES)
               if r["name"] == argv[2]][0]
        ours, theirs = row["claim"]["value"], float(argv[3])
        print("%.12g" % ours)
        return 0 if abs(ours - theirs) <= 1e-3 * abs(ours) else 1
    if len(argv) in (4, 5) and argv[1] == "report":
        return report(argv[2], argv[3], argv[4] if len(argv) == 5 else None)
    if len(argv) == 4 and argv[1] == "plan":
        return plan(argv[2], float(argv[3]))
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
