"""tests/audit/selftest.py — unit checks of the audit's estimators (audit.py selftest,
tests/audit/estimator.sh): the incomplete beta function and the Clopper-Pearson bounds
against closed forms and the binomial tails, the event bound on synthetic Bernoulli and
Gaussian samples with a known epsilon, the chi-square and z quantiles, the zCDP and GDP
claims, the mu, probit and sd bounds on samples with a known mu or sd, and the noise-law
bounds (noiselaw.py) on exact samples of the laws they assume: never beyond the truth at
the audit's level, past the claim for a scale 1.25 times too small.  No server.
"""
import math
import random

import noiselaw
from stats import (audit_direction, betainc, chi2_quantile, cp_lower, cp_upper, eps_lower,
                   gdp_delta, gdp_lower, gdp_mu, probit_lower, sd_upper, shift_delta_k2,
                   shift_sigma_k2, z_quantile, zcdp_rho)


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
    # Gaussian sd rows: the same for a Gaussian's sd, 2 x 1000 draws.
    ups = [sd_upper([rng.gauss(1, 4.6) for _ in range(1000)],
                    [rng.gauss(-1, 4.6) for _ in range(1000)], lv)[0] for _ in range(60)]
    c.check("Gaussian sd 4.6: sd_up >= 4.6 in 60 trials (min %.3f)" % min(ups), min(ups) >= 4.6)
    ups = [sd_upper([rng.gauss(1, 4.6 / 1.5) for _ in range(1000)],
                    [rng.gauss(-1, 4.6 / 1.5) for _ in range(1000)], lv)[0] for _ in range(20)]
    c.check("Gaussian sd 4.6 / 1.5: sd_up < 4.6 in 20 trials (max %.3f)" % max(ups),
            max(ups) < 4.6)
    noiselaw_checks(c, rng, lv)
    return c.summary()


def dlap(rng, t, n):
    """n exact discrete Laplace draws of scale t: the difference of two geometrics."""
    lq = -1.0 / t
    def geo():
        return int(math.floor(math.log(1.0 - rng.random()) / lq))
    return [geo() - geo() for _ in range(n)]


def noiselaw_checks(c, rng, lv):
    """noiselaw.py on exact samples: coverage at the truth, a 1.25-fold scale flagged."""
    # the discrete Laplace law's normaliser: sum_z tanh(g/2) e^(-g |z|) = 1
    worst = max(abs(sum(math.exp(noiselaw.dlap_loglik(g, abs(z), 1)) for z in range(-4000, 4001))
                    - 1.0) for g in (0.01, 0.5, 2.0))
    c.check("discrete Laplace likelihood sums to 1 (max error %.1e)" % worst, worst < 1e-9)
    # coverage at a loose level (0.05): the bound is past the truth (r > 1) in at most
    # about 5 % of 400 trials of 300 draws (a Chernoff bound: far fewer)
    def r_lb(vals, scales, grain=1.0, slack=0.0):
        return noiselaw.laplace_lower(vals, scales, grain, slack, lv)[0]
    past = sum(1 for _ in range(400)
               if noiselaw.laplace_lower([dlap(rng, 2.0, 300)], [2.0], 1.0, 0.0, 0.05)[0] > 1.0)
    c.check("discrete Laplace t = 2, level 0.05: r_lb > 1 in %d of 400 trials" % past,
            past <= 20 + 3 * math.sqrt(400 * 0.05))
    # at the audit's level: never past the truth; a scale 1.25 times too small flagged
    # (1000 draws a side, 4 counts a run: evaluate's row at 250 runs)
    worst = max(r_lb([dlap(rng, 2.0, 2000)], [2.0]) for _ in range(40))
    c.check("discrete Laplace t = 2: r_lb <= 1 in 40 trials (max %.3f)" % worst, worst <= 1.0)
    best = min(r_lb([dlap(rng, 2.0 / 1.25, 2000)], [2.0]) for _ in range(20))
    c.check("discrete Laplace t = 2 / 1.25: r_lb > 1 in 20 trials (min %.3f)" % best, best > 1.0)
    # statistics of several scales (a mean's sum and count) in one family, and a large
    # scale on a fine lattice (sums, OPSamp)
    worst = max(r_lb([dlap(rng, 5000.0, 1000), dlap(rng, 4.0, 1000)], [5000.0, 4.0])
                for _ in range(20))
    c.check("discrete Laplace t = 5000 and 4 pooled: r_lb <= 1 in 20 trials (max %.3f)"
            % worst, worst <= 1.0)
    best = min(r_lb([dlap(rng, 4000.0, 1000), dlap(rng, 3.2, 1000)], [5000.0, 4.0])
               for _ in range(20))
    c.check("discrete Laplace t = 5000 and 4, both 1.25 times too small: r_lb > 1 in 20 "
            "trials (min %.3f)" % best, best > 1.0)
    # continuous Laplace (grain 0): the exact gamma bound
    def lapc(b, n):
        return [rng.expovariate(1.0 / b) * (1 if rng.random() < 0.5 else -1) for _ in range(n)]
    worst = max(r_lb([lapc(1.026, 2000)], [1.026], 0.0) for _ in range(40))
    c.check("continuous Laplace b = 1.026: r_lb <= 1 in 40 trials (max %.3f)" % worst,
            worst <= 1.0)
    best = min(r_lb([lapc(1.026 / 1.25, 2000)], [1.026], 0.0) for _ in range(20))
    c.check("continuous Laplace b / 1.25: r_lb > 1 in 20 trials (min %.3f)" % best, best > 1.0)
    # Gaussian noise about a known centre
    worst = min(noiselaw.gauss_upper([rng.gauss(0, 3.0) for _ in range(1500)], 0.0, lv)[0]
                for _ in range(40))
    c.check("Gaussian sd 3, known centre: sd_ub >= 3 in 40 trials (min %.3f)" % worst,
            worst >= 3.0)
    best = max(noiselaw.gauss_upper([rng.gauss(0, 3.0 / 1.25) for _ in range(1500)], 0.0,
                                    lv)[0] for _ in range(20))
    c.check("Gaussian sd 3 / 1.25: sd_ub < 3 in 20 trials (max %.3f)" % best, best < 3.0)
    # the exponential mechanism: 2-point randomised response (losses 0, 1 in D, 1, 0 in
    # D'), and one point of loss 0 against 999 of loss L (a quartile over 1000 bins)
    def em_trial(g, n, d, dp):
        def draws(losses):
            w = [math.exp(-g * x) for x in losses]
            counts = [0] * len(losses)
            for _ in range(n):
                u, j = rng.random() * sum(w), 0
                while u > w[j] and j < len(w) - 1:
                    u -= w[j]
                    j += 1
                counts[j] += 1
            return counts
        return noiselaw.em_lower([(draws(d), d), (draws(dp), dp)], lv)[0]
    worst = max(em_trial(2.0, 1500, [0, 1], [1, 0]) for _ in range(40))
    c.check("exponential mechanism gamma = 2, 2 points: gamma_lb <= 2 in 40 trials (max %.3f)"
            % worst, worst <= 2.0)
    best = min(em_trial(2.5, 1500, [0, 1], [1, 0]) for _ in range(20))
    c.check("exponential mechanism gamma 1.25 x 2: gamma_lb > 2 in 20 trials (min %.3f)" % best,
            best > 2.0)
    wide = [0.0] + [12.0] * 999
    worst = max(em_trial(0.6, 400, wide, wide) for _ in range(20))
    c.check("exponential mechanism, 1 point of loss 0 and 999 of 12, gamma 0.6: gamma_lb "
            "<= 0.6 in 20 trials (max %.3f)" % worst, worst <= 0.6)
    c.check("em_pair_eps: 2-point randomised response at gamma 1 has ln-ratio 1",
            abs(noiselaw.em_pair_eps([0, 1], [1, 0], 1.0) - 1.0) < 1e-12)
