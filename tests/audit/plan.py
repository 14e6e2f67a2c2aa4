"""tests/audit/plan.py — how many runs a row needs (audit.py plan SPEC FACTOR).

For each row of SPEC whose bound has a closed-form normal approximation, the runs
per side at which a build `FACTOR` times under-calibrated in the row's own parameter (a
noise scale FACTOR times too small, a mu or gamma FACTOR times too large) is flagged with
probability at least 1 - 10^-5 at the row's level, against the runs the row has (CI / bench).
The bench's results (bench/audit/results.md) measure what the approximation predicts.
Kinds: lap (the pooled noise's Fisher information), gauss (log sd: 1 / (2 n)), em (the
losses' variance at the mutant's gamma), mu (the mean difference and sd), probit (both
sides' Clopper-Pearson bounds); eps, sd and bern rows print "-" (their power depends on the
mechanism's own output law: measured only).
"""
import math

import noiselaw
from stats import norm_ppf, phi_upper, z_quantile

MISS = 1e-5


def probit_runs(mu_c, factor, level):
    """runs per side for probit_lower to pass mu_c when the truth is factor mu_c"""
    mu = factor * mu_c
    p = 1.0 - phi_upper(mu / 2.0)
    dens = math.exp(-(mu / 2.0) ** 2 / 2.0) / math.sqrt(2.0 * math.pi)
    s = math.sqrt(p * (1.0 - p)) / dens
    zl, zp = z_quantile(level / 4.0), z_quantile(MISS)
    return int(math.ceil(((2.0 * zl + math.sqrt(2.0) * zp) * s / (mu - mu_c)) ** 2))


def row_runs(row, nstats, factor, level):
    """the runs per side a row needs at factor, or None"""
    kind, claim = row["kind"], row["claim"]
    if kind == "lap":
        scales = [claim["scales"][j % len(claim["scales"])] for j in range(nstats)]
        cs = [claim["grain"] / b if claim["grain"] > 0 else 0.0 for b in scales]
        return noiselaw.runs_needed("lap", cs, factor, level, nstats, MISS)
    if kind == "gauss":
        return noiselaw.runs_needed("gauss", 0.0, factor, level, nstats, MISS)
    if kind == "em":
        extra = []
        for ld, ldp in claim["losses"]:
            extra += [(ld, 1.0), (ldp, 1.0)]
        return noiselaw.runs_needed("em", claim["value"], factor, level, 1, MISS, extra)
    if kind == "mu":
        return noiselaw.runs_needed("mu", claim["value"], factor, level, 1, MISS)
    if kind == "probit":
        return probit_runs(claim["value"], factor, level)
    return None


def plan(spec_path, factor):
    """prints, per row, the runs it needs at factor against the runs it has"""
    import audit
    rows = audit.read_spec(spec_path)
    level = audit.row_level(rows)
    print("| row | kind | runs needed at %g× | CI / bench runs |" % factor)
    print("|---|---|---|---|")
    for row in rows:
        fields = row["fields"]
        nstats = len(fields[8].split(";"))
        need = row_runs(row, nstats, factor, level)
        print("| %s | %s | %s | %s |" % (row["name"], row["kind"],
                                         "-" if need is None else need, fields[6]))
    return 0
