#!/usr/bin/env python3
"""tests/audit/audit.py — the statistics of the empirical privacy audit (tests/audit).

Given samples of a scalar statistic of a mechanism's output on two neighbouring tables D
and D', it computes a statistically valid LOWER bound of one of two kinds per row
(audits.txt):

"mu" rows (Gaussian releases; Dong, Roth, Su 2019, Nasr et al. 2023): the statistic is
a Gaussian shift, mu = |E[s|D] - E[s|D']| / sd; gdp_lower() bounds it from below
(a z bound on the mean difference, a chi-square bound on sd, union bound) and the row
fails when mu_lb exceeds the claim: sqrt(2 rho) for a release calibrated to rho-zCDP
(a Gaussian shift of mu is exactly (mu^2 / 2)-zCDP), or the largest mu that (eps,
delta)-DP allows a Gaussian shift (gdp_mu).

"eps" rows: for a test event E = {s >= t} or {s <= t},

    eps_lb = ln((p_lo(D) - delta) / p_hi(D'))     (and the same with D and D' swapped)

with one-sided exact Clopper-Pearson bounds p_lo, p_hi on P[E | D] and P[E | D'].  If the
mechanism is (eps, delta)-DP then P[E|D] <= e^eps P[E|D'] + delta.  E is chosen on the
first half of each side's runs (the selection half) and the probabilities are estimated on
the second half only, so choosing the best of many events introduces no selection bias.

Each row gets ALPHA / rows (Bonferroni), so the probability that ANY row of a real build
is flagged while every mechanism meets its claim is at most ALPHA.  With a mutant name
(mutants.sh), the rows that name it must all be flagged instead.  Exact quantiles by
bisection on the regularised incomplete beta and gamma functions, no scipy.

Usage:
    audit.py selftest                      unit checks of the estimators (no database)
    audit.py report SPEC SAMPLES_DIR [MUTANT]  the audit table and one check per row
    audit.py rho-matches EPS DELTA RHO     exit 0 when zcdp_rho(EPS, DELTA) is RHO
    audit.py claim-matches ROW VALUE       exit 0 when ROW's claim is VALUE (to 1e-3)
SPEC is tests/audit/audits.txt; SAMPLES_DIR holds NAME.csv ("side,r,s1,s2,...", side 0 = D,
1 = D') and NAME.time (seconds) per row.  Every output line but the last starts with
"ok", "not ok" or "#"; the last is "N passed, M failed".
"""
import bisect
import math
import os
import random
import sys

# Family-wise error level of the real build's audit: the probability that any row's bound
# exceeds its claim although every mechanism meets its claim (Bonferroni: each row gets
# ALPHA / rows, split inside the row as gdp_lower and audit_direction say).  10^-4: at most
# one CI run in 10 000 fails by chance, while a 1.5-fold under-calibration stays several
# standard errors above every claim (docs/PRIVACY.md "Empirical audit").
ALPHA = 1e-4
# DPOBJ_AUDIT_FULL=1 (mechanisms.sh): four times the runs of audits.txt
RUNS_SCALE = 4 if os.environ.get("DPOBJ_AUDIT_FULL") == "1" else 1
MAX_THRESHOLDS = 400  # candidate thresholds per statistic on the selection half


# --- exact binomial confidence bounds ------------------------------------------------

def _betacf(a, b, x):
    """Continued fraction of the incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = tiny if abs(d) < tiny else d
    d = 1.0 / d
    h = d
    for m in range(1, 10000):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = tiny if abs(d) < tiny else d
        c = 1.0 + aa / c
        c = tiny if abs(c) < tiny else c
        d = 1.0 / d
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = tiny if abs(d) < tiny else d
        c = 1.0 + aa / c
        c = tiny if abs(c) < tiny else c
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            return h
    raise ArithmeticError("incomplete beta: no convergence (a=%g, b=%g, x=%g)" % (a, b, x))


def betainc(a, b, x):
    """The regularised incomplete beta function I_x(a, b), a, b > 0."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    lbt = (math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
           + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(lbt) * _betacf(a, b, x) / a
    return 1.0 - math.exp(lbt) * _betacf(b, a, 1.0 - x) / b


def beta_quantile(q, a, b):
    """x with I_x(a, b) = q, by bisection (I_x is increasing in x)."""
    lo, hi = 0.0, 1.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if betainc(a, b, mid) < q:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-15:
            break
    return lo, hi


def cp_lower(k, n, level):
    """One-sided Clopper-Pearson lower bound: P[p < bound] <= level.  Rounded down."""
    if k == 0:
        return 0.0
    return beta_quantile(level, k, n - k + 1)[0]


def cp_upper(k, n, level):
    """One-sided Clopper-Pearson upper bound: P[p > bound] <= level.  Rounded up."""
    if k == n:
        return 1.0
    return beta_quantile(1.0 - level, k + 1, n - k)[1]


def eps_lower(k_a, n_a, k_b, n_b, delta, level):
    """ln((p_lo(A) - delta) / p_hi(B)), 0 when the numerator is not positive."""
    num = cp_lower(k_a, n_a, level) - delta
    den = cp_upper(k_b, n_b, level)
    if num <= 0.0:
        return 0.0
    return max(0.0, math.log(num / den))


# --- Gaussian differential privacy (Dong, Roth, Su 2019) --------------------------------

def _gammainc_lower(a, x):
    """The regularised lower incomplete gamma function P(a, x), a > 0 (series below a + 1,
    continued fraction above; Numerical Recipes' gser/gcf)."""
    if x <= 0.0:
        return 0.0
    lg = a * math.log(x) - x - math.lgamma(a)
    if x < a + 1.0:
        term = total = 1.0 / a
        ap = a
        for _ in range(100000):
            ap += 1.0
            term *= x / ap
            total += term
            if abs(term) < abs(total) * 1e-16:
                return total * math.exp(lg)
        raise ArithmeticError("incomplete gamma series: no convergence (a=%g, x=%g)" % (a, x))
    tiny = 1e-300
    b = x + 1.0 - a
    c = 1.0 / tiny
    d = 1.0 / b
    h = d
    for i in range(1, 100000):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-16:
            return 1.0 - math.exp(lg) * h
    raise ArithmeticError("incomplete gamma fraction: no convergence (a=%g, x=%g)" % (a, x))


def chi2_quantile(q, df):
    """x with P[chi2(df) <= x] = q, by bisection; rounded down."""
    lo, hi = 0.0, float(df)
    while _gammainc_lower(df / 2.0, hi / 2.0) < q:
        hi *= 2.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if _gammainc_lower(df / 2.0, mid / 2.0) < q:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-12 * hi:
            break
    return lo


def phi_upper(x):
    """P[N(0, 1) >= x]."""
    return 0.5 * math.erfc(x / math.sqrt(2.0))


def z_quantile(level):
    """z with P[N(0, 1) >= z] = level, by bisection; rounded up."""
    lo, hi = 0.0, 40.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if phi_upper(mid) > level:
            lo = mid
        else:
            hi = mid
    return hi


def gdp_delta(mu, eps):
    """The smallest delta of a mu-GDP mechanism at eps (Dong, Roth, Su 2019, Cor. 2.13)."""
    return phi_upper(eps / mu - mu / 2.0) - math.exp(eps) * phi_upper(eps / mu + mu / 2.0)


def bisect_last(holds, lo, hi):
    """(lo, hi) after 200 halvings of [lo, hi], for a predicate true up to a point and false
    after it (holds(lo) true, holds(hi) false): lo the last value seen to hold, hi the first
    seen not to."""
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if holds(mid):
            lo = mid
        else:
            hi = mid
    return lo, hi


def gdp_mu(eps, delta):
    """The largest mu whose Gaussian shift is (eps, delta)-DP (bisection; rounded down)."""
    return bisect_last(lambda mu: gdp_delta(mu, eps) <= delta, 1e-9, 100.0)[0]


def zcdp_eps(rho, delta):
    """src/core/calibrate.c's zcdp_eps, re-derived (Balle et al. 2020, Thm 21): the least
    eps over the same grid of Renyi orders."""
    big_l = -math.log(delta)
    best = float("inf")
    for k in range(-192, 385):
        am1 = 10.0 ** (k / 64.0)
        a = 1.0 + am1
        best = min(best, a * rho + (big_l + am1 * math.log(am1 / a) - math.log(a)) / am1)
    return best


def zcdp_rho(eps, delta):
    """The largest rho with zcdp_eps(rho, delta) <= eps (what dpobj calibrates a snapped
    Gaussian release of (eps, delta) to), by bisection; rounded up so the claim is never
    understated."""
    hi = eps
    while zcdp_eps(hi, delta) <= eps:
        hi *= 2.0
    return bisect_last(lambda rho: zcdp_eps(rho, delta) <= eps, 0.0, hi)[1]


def gdp_lower(xs, ys, level):
    """A lower confidence bound on mu = |E[X] - E[Y]| / sd for two samples of Gaussians
    with one variance: P[bound > mu] <= level.  Half the level bounds the difference of the
    means (two-sided z, the sign is not known in advance) given sd, half bounds sd from
    above (chi-square with n1 + n2 - 2 degrees of freedom on the pooled sum of squares):
    mu >= |mean diff| / sd_up - z sqrt(1/n1 + 1/n2).  Returns (bound, mu_hat, sd_up)."""
    n1, n2 = len(xs), len(ys)
    m1, m2 = sum(xs) / n1, sum(ys) / n2
    ss = sum((v - m1) ** 2 for v in xs) + sum((v - m2) ** 2 for v in ys)
    df = n1 + n2 - 2
    if ss <= 0.0:
        return float("inf"), float("inf"), 0.0
    sd_hat = math.sqrt(ss / df)
    sd_up = math.sqrt(ss / chi2_quantile(level / 2.0, df))
    z = z_quantile(level / 4.0)
    c = math.sqrt(1.0 / n1 + 1.0 / n2)
    return max(0.0, abs(m1 - m2) / sd_up - z * c), abs(m1 - m2) / sd_hat, sd_up


# --- probit rows: a Gaussian threshold seen through one event ---------------------------

def norm_ppf(p):
    """z with P[N(0, 1) <= z] = p, by bisection on [-40, 40]."""
    if p <= 0.0:
        return -40.0
    if p >= 1.0:
        return 40.0
    lo, hi = -40.0, 40.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if 1.0 - phi_upper(mid) < p:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def probit_lower(k_a, n_a, k_b, n_b, level):
    """A lower confidence bound on mu = |Phi^-1(P[E|A]) - Phi^-1(P[E|B])| for an event E
    whose probability is Phi(a + mu) on one side and Phi(a) on the other (a Gaussian
    threshold moved by mu standard deviations): P[bound > mu] <= level.  Each direction
    gets half the level, split between the two Clopper-Pearson bounds.  Returns (bound,
    mu_hat)."""
    lv = level / 4.0
    fwd = norm_ppf(cp_lower(k_a, n_a, lv)) - norm_ppf(cp_upper(k_b, n_b, lv))
    rev = norm_ppf(cp_lower(k_b, n_b, lv)) - norm_ppf(cp_upper(k_a, n_a, lv))
    hat = abs(norm_ppf(k_a / n_a) - norm_ppf(k_b / n_b))
    return max(0.0, fwd, rev), hat


# --- the radial-shift calibration, re-derived (k = 2, closed form) ----------------------

def shift_delta_k2(eps, sigma, c):
    """docs/PRIVACY.md "The radial-shift bound" (RS) for k = 2 in closed form:
    delta = e^(-r0^2/2) - e^eps [e^(-(r0+s)^2/2) - s sqrt(2 pi) Q(r0 + s)],
    s = c / sigma, r0 = max(0, (eps - s^2/2) / s)."""
    s = c / sigma
    r0 = max(0.0, (eps - s * s / 2.0) / s)
    inner = math.exp(-(r0 + s) ** 2 / 2.0) - s * math.sqrt(2.0 * math.pi) * phi_upper(r0 + s)
    return math.exp(-r0 * r0 / 2.0) - math.exp(eps) * inner


def shift_sigma_k2(eps, delta, c):
    """The smallest sigma whose (RS) bound is <= delta (1 - 1e-6), as dp_shift_sigma()
    calibrates OPDisc, RSPM and Objective-Gauss; bisection, rounded down (a smaller
    claimed sigma makes the claimed mu larger: the real build is never flagged by it)."""
    target = delta * (1.0 - 1e-6)
    hi = c
    while shift_delta_k2(eps, hi, c) > target:
        hi *= 2.0
    return bisect_last(lambda sg: shift_delta_k2(eps, sg, c) > target, 1e-6 * c, hi)[0]


# --- noise-scale rows: the noise against its documented calibration -----------------------

def opsamp_laplace_scale(eps, delta, n, p, r, beta):
    """OPSamp's Laplace scale lambda / (eps + ln(1 - delta)) from docs/PRIVACY.md "OPSamp"
    (no intercept: R_1 = R): gamma, eta and lambda as written there."""
    g = r / (1.0 + r)
    d_inf, d_2 = 2.0, 2.0 * math.sqrt(p)
    gamma = min(1.0, math.sqrt(eps / n) * p ** 1.25 * math.sqrt(d_2))
    eta = math.sqrt(d_2 * math.sqrt(2.0 * p) * eps
                    / (250.0 * g * g * p * p * d_inf ** 2 * (1.0 + math.log(2.0 / beta)) * n))
    lam = 2.0 * p * d_inf * gamma + 250.0 * eta * g * p * p * d_inf ** 2
    return lam / (eps + math.log1p(-delta))


def laplace_scale_upper(values, scale, level):
    """For |X| with X Laplace of scale b: P[|X| <= b ln 2] = 1/2.  With q = scale ln 2 and
    the Clopper-Pearson lower bound P_lb on P[|X| <= q], the largest b consistent with it is
    b_ub = q / -ln(1 - P_lb); P[b_ub < b] <= level.  Returns (b_ub, P_lb, fraction)."""
    q = scale * math.log(2.0)
    k = sum(1 for v in values if abs(v) <= q)
    p_lb = cp_lower(k, len(values), level)
    b_ub = float("inf") if p_lb <= 0.0 else q / -math.log1p(-p_lb)
    return b_ub, p_lb, k / len(values)


def sd_upper(xs, ys, level):
    """An upper confidence bound on the common sd of two Gaussian samples (chi-square on
    the pooled sum of squares about each sample's mean): P[bound < sd] <= level."""
    m1, m2 = sum(xs) / len(xs), sum(ys) / len(ys)
    ss = sum((v - m1) ** 2 for v in xs) + sum((v - m2) ** 2 for v in ys)
    df = len(xs) + len(ys) - 2
    return math.sqrt(ss / chi2_quantile(level, df)), math.sqrt(ss / df)


# --- choosing the event on the selection half -----------------------------------------

def _wilson(k, n, z):
    """Wilson score interval (approximate; used only to RANK events on the selection half)."""
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def _thresholds(values):
    vals = sorted(set(values))
    if len(vals) <= MAX_THRESHOLDS:
        return vals
    step = (len(vals) - 1) / (MAX_THRESHOLDS - 1)
    return sorted({vals[int(round(i * step))] for i in range(MAX_THRESHOLDS)})


def _count(sorted_vals, t, upper):
    """#{v >= t} (upper) or #{v <= t} in a sorted list."""
    if upper:
        return len(sorted_vals) - bisect.bisect_left(sorted_vals, t)
    return bisect.bisect_right(sorted_vals, t)


def choose_event(sel_a, sel_b, delta, z):
    """The event (statistic j, threshold t, upper) that maximises the approximate lower
    bound of ln(P[E|A] / P[E|B]) on the selection half; None if no event has one."""
    best, best_score = None, 0.0
    for j in range(len(sel_a)):
        sa, sb = sorted(sel_a[j]), sorted(sel_b[j])
        na, nb = len(sa), len(sb)
        for t in _thresholds(sa + sb):
            for upper in (True, False):
                lo_a = _wilson(_count(sa, t, upper), na, z)[0] - delta
                hi_b = _wilson(_count(sb, t, upper), nb, z)[1]
                if lo_a <= 0.0 or hi_b <= 0.0:
                    continue
                score = math.log(lo_a / hi_b)
                if score > best_score:
                    best, best_score = (j, t, upper), score
    return best


def audit_direction(samp_a, samp_b, delta, level):
    """samp_x[j] = the j-th statistic's values in run order.  Returns (eps_lb, event,
    counts): the event chosen on the first half of each side, evaluated on the second."""
    half_a = len(samp_a[0]) // 2
    half_b = len(samp_b[0]) // 2
    sel_a = [s[:half_a] for s in samp_a]
    sel_b = [s[:half_b] for s in samp_b]
    ev_a = [s[half_a:] for s in samp_a]
    ev_b = [s[half_b:] for s in samp_b]
    z = z_quantile(level)  # rank events by the bound they will be held to
    event = choose_event(sel_a, sel_b, delta, z)
    if event is None:
        return 0.0, None, (0, len(ev_a[0]), 0, len(ev_b[0]))
    j, t, upper = event
    k_a = _count(sorted(ev_a[j]), t, upper)
    k_b = _count(sorted(ev_b[j]), t, upper)
    n_a, n_b = len(ev_a[j]), len(ev_b[j])
    return eps_lower(k_a, n_a, k_b, n_b, delta, level), event, (k_a, n_a, k_b, n_b)


# --- selftest: the estimator on synthetic Bernoulli samples ---------------------------

class Checks:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, desc, cond):
        if cond:
            self.passed += 1
            print("ok - " + desc)
        else:
            self.failed += 1
            print("not ok - " + desc)

    def summary(self):
        print("%d passed, %d failed" % (self.passed, self.failed))
        return 0 if self.failed == 0 else 1


def _binom_cdf(k, n, p):
    """P[Bin(n, p) <= k] by direct summation in log space (independent of betainc)."""
    total = 0.0
    for i in range(0, k + 1):
        total += math.exp(math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1)
                          + i * math.log(p) + (n - i) * math.log1p(-p))
    return total


def selftest():
    c = Checks()
    # I_x(a, b) against closed forms: I_x(1, b) = 1 - (1-x)^b, I_x(a, 1) = x^a.
    worst = 0.0
    for x in (0.001, 0.1, 0.37, 0.5, 0.9, 0.999):
        for e in (1, 2.5, 7, 300, 4000):
            worst = max(worst, abs(betainc(1, e, x) - (1 - (1 - x) ** e)),
                        abs(betainc(e, 1, x) - x ** e))
    c.check("incomplete beta: I_x(1,b) and I_x(a,1) match their closed forms (max error %.1e)"
            % worst, worst < 1e-12)
    # Clopper-Pearson at k = 0 and k = n: 1 - level^(1/n) and level^(1/n).
    n, lv = 2000, 2.5e-4
    ok = (abs(cp_upper(0, n, lv) - (1 - lv ** (1 / n))) < 1e-12
          and abs(cp_lower(n, n, lv) - lv ** (1 / n)) < 1e-12)
    c.check("Clopper-Pearson: k = 0 and k = n give the closed forms 1 - a^(1/n), a^(1/n)", ok)
    # Clopper-Pearson against the binomial tails it inverts, computed by summation.
    worst = 0.0
    for k, n in ((1, 10), (7, 50), (130, 2000), (1000, 2000), (1995, 2000)):
        for lv in (0.05, 1e-3, 2.5e-4):
            lo, hi = cp_lower(k, n, lv), cp_upper(k, n, lv)
            worst = max(worst, abs((1 - _binom_cdf(k - 1, n, lo)) - lv) / lv,
                        abs(_binom_cdf(k, n, hi) - lv) / lv)
    c.check("Clopper-Pearson: P[Bin(n, p_lo) >= k] = P[Bin(n, p_hi) <= k] = level "
            "(max relative error %.1e)" % worst, worst < 1e-6)

    rng = random.Random(20230517)

    def bern(p, n):
        return [1.0 if rng.random() < p else 0.0 for _ in range(n)]

    # A true ratio of e^1 (P[E|D] = 0.5, P[E|D'] = 0.5/e): the bound stays below 1 in
    # every trial and is informative on average.
    trials, n, lv = 200, 2000, 2.5e-4
    lbs = [eps_lower(sum(bern(0.5, n)), n, sum(bern(0.5 / math.e, n)), n, 0.0, lv)
           for _ in range(trials)]
    c.check("Bernoulli, true eps = 1: eps_lb <= 1 in %d of %d trials (mean %.3f)"
            % (sum(1 for v in lbs if v <= 1.0), trials, sum(lbs) / trials),
            all(v <= 1.0 for v in lbs) and sum(lbs) / trials > 0.6)
    # delta is subtracted: P[E|D] = 0.3, P[E|D'] = 0.1 is (ln 2, 0.1)-DP.
    lbs = [eps_lower(sum(bern(0.3, n)), n, sum(bern(0.1, n)), n, 0.1, lv) for _ in range(50)]
    c.check("Bernoulli, (ln 2, 0.1): with delta = 0.1 subtracted eps_lb <= ln 2 (max %.3f)"
            % max(lbs), max(lbs) <= math.log(2))
    # The audit can fail: a true eps of 3 checked against a claim of 1 is flagged.
    lbs = [eps_lower(sum(bern(0.6, n)), n, sum(bern(0.6 * math.exp(-3), n)), n, 0.0, lv)
           for _ in range(20)]
    c.check("Bernoulli, true eps = 3: eps_lb > 1 in every trial (min %.3f)" % min(lbs),
            min(lbs) > 1.0)
    # Selection on a separate half: identical continuous distributions, 2 x 400 candidate
    # events; the held-out bound stays 0 although the best event on the selection half
    # looks distinguishing by chance.
    worst = 0.0
    for _ in range(20):
        a = [[rng.gauss(0, 1) for _ in range(2000)]]
        b = [[rng.gauss(0, 1) for _ in range(2000)]]
        worst = max(worst, audit_direction(a, b, 0.0, lv)[0])
    c.check("identical distributions, event chosen on the selection half: eps_lb = 0 "
            "in 20 trials (max %.3f)" % worst, worst == 0.0)
    # A Gaussian shift of 2 sigma (eps at delta = 1e-5 about 8.4): found and flagged > 1.
    a = [[rng.gauss(2, 1) for _ in range(4000)]]
    b = [[rng.gauss(0, 1) for _ in range(4000)]]
    lb = audit_direction(a, b, 1e-5, lv)[0]
    c.check("Gaussian shift of 2 sigma: the selected event gives eps_lb %.3f > 1" % lb, lb > 1.0)
    # The Gaussian (mu-GDP) bound.  Chi-square quantiles against the closed form of two
    # degrees of freedom, P[chi2(2) <= x] = 1 - e^(-x/2), and a z quantile.
    worst = max(abs(chi2_quantile(q, 2) - (-2.0 * math.log1p(-q))) / (-2.0 * math.log1p(-q))
                for q in (1e-9, 1e-4, 0.05, 0.5, 0.99))
    c.check("chi-square quantile: df = 2 matches -2 ln(1 - q) (max relative error %.1e)"
            % worst, worst < 1e-9)
    c.check("z quantile: P[N(0,1) >= 1.959964] = 0.025",
            abs(z_quantile(0.025) - 1.959964) < 1e-6)
    # The claims: sqrt(2 rho) below what (eps, delta) allows a Gaussian shift, and the
    # GDP conversion at its own mu gives back delta.
    mu_z, mu_g = math.sqrt(2.0 * zcdp_rho(4.0, 1e-5)), gdp_mu(4.0, 1e-5)
    c.check("claims at (4, 1e-5): sqrt(2 rho) = %.4f <= mu_GDP = %.4f, delta(mu_GDP) = 1e-5"
            % (mu_z, mu_g), mu_z <= mu_g and abs(gdp_delta(mu_g, 4.0) - 1e-5) < 1e-9)
    # Gaussian pairs with a known mu: the bound stays below mu in every trial, and flags
    # 1.5 mu against a claim of mu at the audit's counts (4000 runs per side).
    lv = 1e-4 / 17
    lbs = []
    for _ in range(60):
        a = [rng.gauss(0.864, 1) for _ in range(4000)]
        b = [rng.gauss(0, 1) for _ in range(4000)]
        lbs.append(gdp_lower(a, b, lv)[0])
    c.check("Gaussian shift mu = 0.864: mu_lb <= 0.864 in 60 trials (max %.3f)" % max(lbs),
            max(lbs) <= 0.864)
    lbs = []
    for _ in range(20):
        a = [rng.gauss(7.0 * 1.5 * 0.864, 7.0) for _ in range(4000)]
        b = [rng.gauss(0, 7.0) for _ in range(4000)]
        lbs.append(gdp_lower(a, b, lv)[0])
    c.check("Gaussian shift 1.5 x 0.864 (any scale): mu_lb > 0.864 in 20 trials (min %.3f)"
            % min(lbs), min(lbs) > 0.864)
    # Probit rows: a Gaussian threshold moved by mu = 0.674 (OPDisc's canary at eps = 16)
    # seen through one event, 4000 runs per side.
    def probit_trial(mu):
        ka = sum(1 for _ in range(4000) if rng.gauss(0, 1) < mu / 2.0)
        kb = sum(1 for _ in range(4000) if rng.gauss(0, 1) < -mu / 2.0)
        return probit_lower(ka, 4000, kb, 4000, lv)[0]
    lbs = [probit_trial(0.674) for _ in range(60)]
    c.check("probit, mu = 0.674: mu_lb <= 0.674 in 60 trials (max %.3f)" % max(lbs),
            max(lbs) <= 0.674)
    lbs = [probit_trial(1.5 * 0.674) for _ in range(20)]
    c.check("probit, mu = 1.5 x 0.674: mu_lb > 0.674 in 20 trials (min %.3f)" % min(lbs),
            min(lbs) > 0.674)
    # The radial-shift re-derivation against the values test_calibrate.c pins for k = 2
    # (dpobj.opdisc_sigma(4, 1e-5, 1, 1)): the closed form and the quadrature agree.
    sg = shift_sigma_k2(4.0, 1e-5, 4.0)
    c.check("radial shift, k = 2: sigma(4, 1e-5, c = 4) = %.9f (dpobj 4.807408837)" % sg,
            abs(sg - 4.807408837) < 1e-6 and shift_delta_k2(4.0, sg, 4.0) <= 1e-5)
    # Laplace scale rows: the scale's upper bound stays above the true scale, and a scale
    # 1.5 times too small is flagged, at 2 x 2000 draws.
    def lap(b, n):
        return [rng.expovariate(1.0 / b) * (1 if rng.random() < 0.5 else -1) for _ in range(n)]
    ubs = [laplace_scale_upper(lap(13.28, 4000), 13.28, lv)[0] for _ in range(60)]
    c.check("Laplace scale 13.28: b_ub >= 13.28 in 60 trials (min %.3f)" % min(ubs),
            min(ubs) >= 13.28)
    ubs = [laplace_scale_upper(lap(13.28 / 1.5, 4000), 13.28, lv)[0] for _ in range(20)]
    c.check("Laplace scale 13.28 / 1.5: b_ub < 13.28 in 20 trials (max %.3f)" % max(ubs),
            max(ubs) < 13.28)
    # Gaussian sd rows: the same for a Gaussian's sd, 2 x 1000 draws.
    ups = [sd_upper([rng.gauss(1, 4.6) for _ in range(1000)],
                    [rng.gauss(-1, 4.6) for _ in range(1000)], lv)[0] for _ in range(60)]
    c.check("Gaussian sd 4.6: sd_up >= 4.6 in 60 trials (min %.3f)" % min(ups), min(ups) >= 4.6)
    ups = [sd_upper([rng.gauss(1, 4.6 / 1.5) for _ in range(1000)],
                    [rng.gauss(-1, 4.6 / 1.5) for _ in range(1000)], lv)[0] for _ in range(20)]
    c.check("Gaussian sd 4.6 / 1.5: sd_up < 4.6 in 20 trials (max %.3f)" % max(ups),
            max(ups) < 4.6)
    return c.summary()


# --- report: the audit of every mechanism -----------------------------------------------

def parse_claim(text, run_eps, run_delta):
    """A row's claim: "mu=zcdp[/K]" (sqrt(2 rho / K), rho = zcdp_rho(eps, delta): the
    snapped Gaussian releases, claimed in zCDP, and the K-th share of a composition),
    "mu=gdp" (the largest mu that (eps, delta)-DP allows a Gaussian shift),
    "mu=tune:S" (noisy GD's "tune" at tune_gamma 1: one run of Q, which is then all of A, so
    rho_Q <= zcdp_rho(eps, 0.9 delta), the other 0.1 delta paying for the cap K_max = 1;
    the release trains at (1 - S) rho_Q, S the score's share: sqrt(2 (1 - S) rho_Q)),
    "mu=shift:C:F" (F / sigma, sigma the radial-shift calibration of c = C and k = 2:
    the canary moves a Gaussian threshold of the noise by F),
    "lap=opsamp:N" (OPSamp's Laplace scale with the public n = N, p = 1, R = 1),
    "sd=auto:S" (the final Output-Gauss release of 'auto' with select_share S: its sd
    eps_f / sqrt(2 rho_f) for Huber, L = R = 1, Lambda = 2 / eps_f) or "eps=E delta=D" (an
    event bound against (E, D)).  Returns (kind, value, delta)."""
    fields = dict(f.split("=", 1) for f in text.split())
    if "mu" in fields:
        spec = fields["mu"]
        if spec.startswith("zcdp"):
            share = float(spec.split("/", 1)[1]) if "/" in spec else 1.0
            return "mu", math.sqrt(2.0 * zcdp_rho(run_eps, run_delta) / share), 0.0
        if spec == "gdp":
            return "mu", gdp_mu(run_eps, run_delta), 0.0
        if spec.startswith("tune:"):
            share = float(spec.split(":", 1)[1])
            rho_q = zcdp_rho(run_eps, 0.9 * run_delta)
            return "mu", math.sqrt(2.0 * (1.0 - share) * rho_q), 0.0
        if spec.startswith("shift:"):
            _, c, f = spec.split(":")
            return "mu", float(f) / shift_sigma_k2(run_eps, run_delta, float(c)), 0.0
        return "mu", float(spec), 0.0
    if "lap" in fields:
        n = float(fields["lap"].split(":", 1)[1])
        return "lap", opsamp_laplace_scale(run_eps, run_delta, n, 1.0, 1.0, 0.05), 0.0
    if "sd" in fields:
        share = float(fields["sd"].split(":", 1)[1])
        eps_f, delta_f = (1.0 - share) * run_eps, (1.0 - share) * run_delta
        return "sd", eps_f / math.sqrt(2.0 * zcdp_rho(eps_f, delta_f)), delta_f
    return "eps", float(fields["eps"]), float(fields.get("delta", "0"))


def read_spec(path):
    """audits.txt: name | kind | table | run eps | run delta | claim | runs per side | call |
    statistics | mutants that must be flagged"""
    rows = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            fields = [x.strip() for x in line.split("|")]
            run_eps, run_delta = float(fields[3]), float(fields[4])
            _, claim, claim_delta = parse_claim(fields[5], run_eps, run_delta)
            kind = fields[1]
            rows.append({"name": fields[0], "kind": kind, "run_eps": run_eps,
                         "run_delta": run_delta, "claim": claim, "claim_delta": claim_delta,
                         "claim_text": fields[5], "runs": int(fields[6]) * RUNS_SCALE,
                         "mutants": [m for m in fields[9].split() if m != "-"]})
    return rows


def read_samples(path):
    """NAME.csv ("side,r,s1,s2,...") -> [statistics of D, statistics of D'], each a list
    of per-statistic value lists in run order."""
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


def audit_row(row, samples_dir, level):
    """(bound, holds, text) for one row from its samples; holds: the bound is within the
    claim.  "mu" rows: mu_lb (level split as in gdp_lower) <= claim; "probit": mu_lb of
    the first statistic, an event indicator (probit_lower); "lap": the Laplace scale's
    upper bound b_ub >= claim, the first statistic of both sides being the noise;
    "sd": the pooled sd's upper bound >= claim and mu_lb <= sqrt(2 rho_f), over the runs
    whose statistic is not NULL (half the level each); "eps": eps_lb (level / 4: two
    directions, two bounds each) <= claim."""
    d, dp = read_samples(os.path.join(samples_dir, row["name"] + ".csv"))
    if not d or len(d[0]) != row["runs"] or len(dp[0]) != row["runs"]:
        raise ValueError("not %d runs per side" % row["runs"])
    claim = row["claim"]
    if row["kind"] == "mu":
        lb, mu_hat, _ = gdp_lower(d[0], dp[0], level)
        return lb, lb <= claim, "mu_hat %.3f" % mu_hat
    if row["kind"] == "probit":
        k_a, k_b = sum(1 for v in d[0] if v > 0.5), sum(1 for v in dp[0] if v > 0.5)
        lb, hat = probit_lower(k_a, len(d[0]), k_b, len(dp[0]), level)
        return lb, lb <= claim, "mu_hat %.3f (events %d, %d of %d)" % (hat, k_a, k_b, len(d[0]))
    if row["kind"] == "lap":
        ub, p_lb, frac = laplace_scale_upper(d[0] + dp[0], claim, level)
        return ub, ub >= claim, "P[abs(noise) <= b ln 2] %.3f, lower bound %.3f" % (frac, p_lb)
    if row["kind"] == "sd":
        xs, ys = [v for v in d[0] if v is not None], [v for v in dp[0] if v is not None]
        if len(xs) < row["runs"] // 4 or len(ys) < row["runs"] // 4:
            raise ValueError("too few runs released the audited candidate (%d, %d)"
                             % (len(xs), len(ys)))
        ub, sd_hat = sd_upper(xs, ys, level / 2.0)
        share = float(row["claim_text"].split("=", 1)[1].split(":", 1)[1])
        mu_claim = math.sqrt(2.0 * zcdp_rho((1.0 - share) * row["run_eps"],
                                            (1.0 - share) * row["run_delta"]))
        mu_lb, mu_hat, _ = gdp_lower(xs, ys, level / 2.0)
        return ub, ub >= claim and mu_lb <= mu_claim, (
            "sd_hat %.3f over %d, %d runs; mu_lb %.3f <= %.3f, mu_hat %.3f"
            % (sd_hat, len(xs), len(ys), mu_lb, mu_claim, mu_hat))
    fwd = audit_direction(d, dp, row["claim_delta"], level / 4.0)
    rev = audit_direction(dp, d, row["claim_delta"], level / 4.0)
    best, label = (fwd, "D/D'") if fwd[0] >= rev[0] else (rev, "D'/D")
    lb, event, counts = best
    if event is None:
        return lb, lb <= claim, "no event"
    j, t, upper = event
    return lb, lb <= claim, "%s: s%d %s %.6g (%d, %d of %d)" % (
        label, j + 1, ">=" if upper else "<=", t,
        counts[0] if label == "D/D'" else counts[2],
        counts[2] if label == "D/D'" else counts[0], counts[1])


def report(spec_path, samples_dir, mutant=None):
    """Every row with samples in samples_dir.  The real build (mutant None): each bound
    must stay within its claim (audit_row).  A mutant build: each row that names the
    mutant must be flagged (its bound beyond the claim)."""
    c = Checks()
    rows = read_spec(spec_path)
    level = row_level(rows)
    print("# per-row level %.2e (family-wise %g over %d rows)%s"
          % (level, ALPHA, len(rows), "" if mutant is None else "; mutant build: " + mutant))
    table = ["| row | build | run at ε, δ | claim | runs per side | bound | estimate / event (held-out counts D, D') | seconds |",
             "|---|---|---|---|---|---|---|---|"]
    for row in rows:
        name = row["name"]
        if mutant is not None and mutant not in row["mutants"]:
            continue
        try:
            lb, holds, text = audit_row(row, samples_dir, level)
            with open(os.path.join(samples_dir, name + ".time")) as f:
                secs = float(f.read().strip())
        except (OSError, ValueError, IndexError) as exc:
            c.check("%s: samples read (%s)" % (name, exc), False)
            continue
        sym = {"mu": "mu", "probit": "mu", "lap": "b", "sd": "sd"}.get(row["kind"], "eps")
        bound = "%s_ub" % sym if row["kind"] in ("lap", "sd") else "%s_lb" % sym
        rel = ">=" if row["kind"] in ("lap", "sd") else "<="
        table.append("| %s | %s | %g, %g | %s %.3f | %d | %s %.3f | %s | %.1f |" % (
            name, mutant or "real", row["run_eps"], row["run_delta"], sym, row["claim"],
            row["runs"], bound, lb, text, secs))
        if mutant is None:
            c.check("%s: %s %.3f %s claimed %s %.3f (%s)"
                    % (name, bound, lb, rel, sym, row["claim"], text), holds)
        else:
            c.check("%s: the %s mutant is flagged: %s %.3f, claimed %s %.3f (%s)"
                    % (name, mutant, bound, lb, sym, row["claim"], text), not holds)
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
        row = [r for r in read_spec(os.path.join(os.path.dirname(__file__), "audits.txt"))
               if r["name"] == argv[2]][0]
        ours, theirs = row["claim"], float(argv[3])
        print("%.12g" % ours)
        return 0 if abs(ours - theirs) <= 1e-3 * abs(ours) else 1
    if len(argv) in (4, 5) and argv[1] == "report":
        return report(argv[2], argv[3], argv[4] if len(argv) == 5 else None)
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
