"""tests/audit/stats.py — the audit's exact quantiles and bounds (audit.py, noiselaw.py).

Exact binomial (Clopper-Pearson), chi-square, gamma and normal quantiles by bisection on
the regularised incomplete beta and gamma functions (no scipy); the Gaussian-DP and zCDP
claims (Dong, Roth, Su 2019; Balle et al. 2020) and the radial-shift calibration
re-derived; the Gaussian shift (mu) and threshold (probit) lower bounds.
"""
import bisect
import math


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


def sd_upper(xs, ys, level):
    """An upper confidence bound on the common sd of two Gaussian samples (chi-square on
    the pooled sum of squares about each sample's mean): P[bound < sd] <= level."""
    m1, m2 = sum(xs) / len(xs), sum(ys) / len(ys)
    ss = sum((v - m1) ** 2 for v in xs) + sum((v - m2) ** 2 for v in ys)
    df = len(xs) + len(ys) - 2
    return math.sqrt(ss / chi2_quantile(level, df)), math.sqrt(ss / df)


MAX_THRESHOLDS = 400  # candidate thresholds per statistic on the selection half


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
