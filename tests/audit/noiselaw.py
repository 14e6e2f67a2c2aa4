"""tests/audit/noiselaw.py — the audit's bounds on a release's own noise law (audit.py).

A mechanism whose noise law is known up to its scale can be audited through that scale:
its samples (the release minus the true value, which the audit's tables fix) bound the
scale, and the pair's privacy loss follows from it and the move the canary makes.  That
uses every run and every released coordinate, where an event bound uses one bit per run,
so a 10 % under-calibration is seen in a few thousand runs instead of a few hundred
thousand.  Each bound is exact (no asymptotics): the exact chi-square or gamma law, or the
Cramer-Chernoff bound of an exponential family, which at the family's MLE is

    P_g0[T <= t] <= exp(l(g0) - l(g_hat))

(l the log-likelihood of the observed t, g_hat its maximiser; Chernoff's bound with the
tilt at g_hat).  So g_lb = inf{g <= g_hat: l(g_hat) - l(g) <= ln(1/level)} is a lower
confidence bound at the level: a likelihood-ratio interval with ln(1/level) where the
asymptotic one uses z^2 / 2, nearly the same at these levels.

    laplace_lower  discrete Laplace noise (dpnoise.c) on a lattice, P(z) ~ e^(-g |z|), or
                   continuous (CMS's Gamma norm in one dimension): its scale against the
                   claimed one
    gauss_upper    Gaussian noise about a known centre: its sd from above
    em_lower       the exponential mechanism P(j) ~ e^(-g L_j) over known losses (given,
                   or a quantile's rank losses of a known histogram: quantile_losses)
    bern_lower     an event's probability (Clopper-Pearson), pooled over both sides
"""
import math
from fractions import Fraction

from stats import bisect_last, chi2_quantile, cp_lower, z_quantile


def lr_lower(loglik, g_hat, level):
    """The lower end of {g <= g_hat: l(g_hat) - l(g) <= ln(1 / level)} for a concave l
    (bisection on log g, rounded down); 0 when l(0+) is within it."""
    if g_hat <= 0.0:
        return 0.0
    top = loglik(g_hat) - math.log(1.0 / level)
    tiny = g_hat * 1e-12
    if loglik(tiny) >= top:
        return 0.0
    lo, _ = bisect_last(lambda lg: loglik(math.exp(lg)) < top, math.log(tiny), math.log(g_hat))
    return math.exp(lo)


# --- Laplace noise ------------------------------------------------------------------------

def _csch(x):
    return 0.0 if x > 700.0 else 1.0 / math.sinh(x)


def dlap_loglik(g, total, n):
    """log-likelihood of n discrete Laplace draws with sum |z| = total at g = 1 / t:
    P(z) = tanh(g / 2) e^(-g |z|) (the normaliser sum_z e^(-g |z|) = coth(g / 2))."""
    return -g * total + n * (math.log(-math.expm1(-g)) - math.log1p(math.exp(-g)))


def laplace_lower(stats, scales, grain, slack, level):
    """A lower confidence bound on r, the ratio of the claimed Laplace scales to the
    noise's: stats[j] are the noise values (release minus truth, in the statistic's units)
    of statistic j, whose claimed scale is scales[j]; a build r times under-calibrated
    draws statistic j at scale scales[j] / r, so r <= 1 for a sound one.  The noise is
    discrete on the lattice grain (grain > 0: |z| = (|v| + slack) / grain, whose law is
    tanh(g / 2) e^(-g |z|), g = r grain / scale: one exponential family in r, its
    sufficient statistic sum_j g_j sum |z|; a real |z| only rounds the bound down) or
    continuous (grain 0: r sum_j (|v| + slack) / scale_j ~ Gamma(n, 1), the exact
    quantile).  slack covers what the release adds beyond the noise (rounding, a smaller
    noise): each |v| is at least the noise's |z| less it.  Returns (r_lb, r_hat)."""
    groups = [(len(v), sum(abs(x) + slack for x in v), b) for v, b in zip(stats, scales) if v]
    n = sum(g[0] for g in groups)
    if grain <= 0.0:
        t = sum(total / b for _, total, b in groups)
        if t <= 0.0:
            return float("inf"), float("inf")
        return chi2_quantile(level, 2 * n) / 2.0 / t, n / t
    groups = [(m, total / grain, grain / b) for m, total, b in groups]

    def loglik(r):
        return sum(dlap_loglik(r * c, total, m) for m, total, c in groups)

    def score(r):
        return sum(c * (m * _csch(r * c) - total) for m, total, c in groups)

    hi = 1.0
    while hi < 1e9 and score(hi) > 0.0:
        hi *= 2.0
    r_hat = bisect_last(lambda r: score(r) > 0.0, 0.0, hi)[1]
    return lr_lower(loglik, r_hat, level), r_hat


# --- Gaussian noise about a known centre ------------------------------------------------

def gauss_upper(values, slack, level):
    """An upper confidence bound on sigma for N(0, sigma^2) noise values (release minus
    truth): sum (|v| + slack)^2 / sigma^2 is at least a chi-square with n degrees of
    freedom.  Returns (sd_ub, sd_hat)."""
    n = len(values)
    ss = sum((abs(v) + slack) ** 2 for v in values)
    return math.sqrt(ss / chi2_quantile(level, n)), math.sqrt(ss / n)


# --- the exponential mechanism over known losses ----------------------------------------

def _em_groups(groups):
    """[(counts by candidate, losses)] -> [(n, losses shifted to min 0)]"""
    out = []
    for counts, losses in groups:
        m = min(losses)
        out.append((counts, [x - m for x in losses]))
    return out


def _em_logz(losses, g):
    return math.log(sum(math.exp(-g * x) for x in losses))


def _em_mean(losses, g):
    w = [math.exp(-g * x) for x in losses]
    return sum(a * x for a, x in zip(w, losses)) / sum(w)


def em_lower(groups, level):
    """A lower confidence bound on gamma of an exponential mechanism P(j) ~ e^(-gamma L_j)
    (uniform base) from draws in several groups, each with its own known losses (a side,
    a statistic): groups = [(counts of each candidate drawn, losses)].  The sufficient
    statistic is the sum of the drawn losses; Chernoff at the MLE (lr_lower).  Returns
    (gamma_lb, gamma_hat)."""
    gs = _em_groups(groups)
    t = sum(c * x for counts, losses in gs for c, x in zip(counts, losses))
    sizes = [sum(counts) for counts, _ in gs]

    def loglik(g):
        return -g * t - sum(n * _em_logz(losses, g) for n, (_, losses) in zip(sizes, gs))

    def mean(g):
        return sum(n * _em_mean(losses, g) for n, (_, losses) in zip(sizes, gs))

    if t >= mean(0.0):
        return 0.0, 0.0
    hi = 1.0
    while hi < 1e6 and mean(hi) > t:
        hi *= 2.0
    g_hat = hi if mean(hi) > t else bisect_last(lambda g: mean(g) > t, 0.0, hi)[1]
    return lr_lower(loglik, g_hat, level), g_hat


def em_pair_eps(loss_d, loss_dp, g):
    """The pair's largest |ln P_D(j) - ln P_D'(j)| at gamma g: what the claim is about."""
    ld = [-g * x - _em_logz(loss_d, g) for x in loss_d]
    lp = [-g * x - _em_logz(loss_dp, g) for x in loss_dp]
    return max(abs(a - b) for a, b in zip(ld, lp))


def parse_losses(text):
    """"0,3*2,5" -> [0, 2, 2, 2, 5] (n*x: x n times)"""
    out = []
    for part in text.split(","):
        if "*" in part:
            n, x = part.split("*")
            out.extend([float(x)] * int(n))
        else:
            out.append(float(part))
    return out


def quantile_losses(hist, q):
    """The rank loss of each bin for the q-quantile of a histogram, src/core/privquant.c's
    re-derived: t = ceil(q n); t - c_i while c_i < t, c_(i-1) - t + 1 once c_(i-1) >= t
    (c_i the rows in bins 0..i), else 0."""
    n = sum(hist)
    t = math.ceil(Fraction(q) * n) if n > 0 else 0
    c, out = 0, []
    for h in hist:
        prev, c = c, c + h
        loss = t - c if t > c else 0
        out.append(max(loss, prev - t + 1) if prev >= t else loss)
    return out


# --- one event's probability ------------------------------------------------------------

def bern_lower(k, n, level):
    """Clopper-Pearson lower bound on an event's probability from k of n runs."""
    return cp_lower(k, n, level)


# --- sizing: runs per side for a given power ---------------------------------------------

def runs_needed(kind, claim, factor, level, per_run, miss=1e-5, extra=None):
    """Runs per side so that a build `factor` times under-calibrated in the row's own
    parameter (a scale factor times too small, a gamma or mu factor times too large) is
    flagged with probability >= 1 - miss, by the normal approximation of each bound (the
    bench's results check it).  kind "lap": claim lists grain / scale of each statistic
    ([0]: continuous noise); "gauss": per_run noise draws a run and side; "em": claim is
    gamma, extra [(losses, draws per run)]; "mu": claim is the pair's mu."""
    zl, zp = math.sqrt(2.0 * math.log(1.0 / level)), z_quantile(miss)
    if kind == "lap":
        if not claim or claim[0] <= 0.0:    # continuous: r_hat / r has sd 1 / sqrt(n)
            n = ((zl + zp) / (1.0 - 1.0 / factor)) ** 2 / len(claim or [0])
        else:                               # Fisher information of r: c^2 Var |z|
            info = sum(c * c * math.cosh(factor * c) / math.sinh(factor * c) ** 2
                       for c in claim)
            n = ((zl + zp) / (factor - 1.0)) ** 2 / info
        return int(math.ceil(n / 2))
    if kind == "gauss":                     # log sd_hat has sd 1 / sqrt(2 n)
        n = ((z_quantile(level) + zp) / math.log(factor)) ** 2 / 2.0
        return int(math.ceil(n / (2 * per_run)))
    if kind == "em":                        # Fisher information of gamma: Var L per draw
        g = claim * factor
        info = sum(w * _em_var(losses, g) for losses, w in extra)
        return int(math.ceil(((zl + zp) / (g - claim)) ** 2 / info))
    if kind == "mu":    # gdp_lower: mu_hat (1 - z_c / sqrt(4 n)) - z_m sqrt(2 / n), and
        mu = claim * factor     # mu_hat = diff / sd has variance (2 + mu^2 / 4) / n
        zm, zc = z_quantile(level / 4.0), z_quantile(level / 2.0)
        width = zm * math.sqrt(2.0) + zc * mu / 2.0 + zp * math.sqrt(2.0 + mu * mu / 4.0)
        return int(math.ceil((width / (mu - claim)) ** 2))
    raise ValueError(kind)


def _em_var(losses, g):
    m = min(losses)
    xs = [x - m for x in losses]
    mean = _em_mean(xs, g)
    w = [math.exp(-g * x) for x in xs]
    return sum(a * (x - mean) ** 2 for a, x in zip(w, xs)) / sum(w)
