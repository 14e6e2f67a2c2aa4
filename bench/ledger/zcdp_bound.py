#!/usr/bin/env python3
"""bench/ledger/zcdp_bound.py -- how many noisy-GD runs any rho-only accountant can admit.

A (1, 1e-6) budget, noisy-GD runs at (0.1, 1e-7), calibrated as dpobj calibrates them
(src/core/calibrate.c: Balle et al. 2020 Thm 21 on the grid alpha - 1 = 10^(k/64)).  The
filter keeps a reserve delta_R = 0.1 * 1e-6 for approximate-DP runs after a zCDP run
(docs/PRIVACY.md, "Composition"), so the zCDP part converts at delta_c = 9e-7.

Prints (1) the runs the grid conversion admits with and without the reserve, and (2) a
certificate that no accountant which sees only the composed rho can admit the 96th run with
the reserve: a pair of two-point distributions P = (p, 1 - p), Q = (q, 1 - q) whose Renyi
divergences both ways are at most alpha * rho for every alpha > 1 (checked on a log grid of
alpha - 1 from 1e-4 to 1e6 with a margin for the gaps; below it the divergence tends to KL,
above it to D_inf, both far below alpha rho), i.e. a rho-zCDP "mechanism", with
P(S) - e^1 Q(S) > 9e-7 for S = {first outcome}.  Plain Python, no packages:

    python3 bench/ledger/zcdp_bound.py
"""
import math

GRID = [10 ** (k / 64) for k in range(-192, 385)]


def conversion(am1, delta):
    a = 1 + am1
    return (-math.log(delta) + am1 * math.log(am1 / a) - math.log(a)) / am1


def zcdp_eps(rho, delta):
    return min((1 + am1) * rho + conversion(am1, delta) for am1 in GRID)


def zcdp_rho(eps, delta):
    lo, hi = 0.0, 1.0
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if zcdp_eps(mid, delta) <= eps else (lo, mid)
    return lo


def renyi_two_point(p, q, a):
    t = a * math.log(p) + (1 - a) * math.log(q)
    u = a * math.log1p(-p) + (1 - a) * math.log1p(-q)
    m = max(t, u)
    return (m + math.log(math.exp(t - m) + math.exp(u - m))) / (a - 1)


def worst_ratio(p, q, rho, points=200000):
    worst = 0.0
    for i in range(points + 1):
        a = 1 + 10 ** (-4 + i * 10 / points)
        for x, y in ((p, q), (q, p)):
            worst = max(worst, renyi_two_point(x, y, a) / (a * rho))
    return worst


def main():
    rho_run = zcdp_rho(0.1, 1e-7)
    print(f"rho of one run at (0.1, 1e-7): {rho_run:.6e}")
    for share in (0.0, 0.1):
        dc = 1e-6 * (1 - share)
        cap = zcdp_rho(1.0, dc) / rho_run
        print(f"reserve {share:.1f}: delta_c = {dc:.1e}, runs admitted {math.floor(cap)} "
              f"({cap:.3f}); eps of 96 runs {zcdp_eps(96 * rho_run, dc):.5f}")
    rho = 96 * rho_run
    # the worst pair found by maximising p - e q under the constraints (a search over q,
    # bisection on p), scaled down until every constraint holds with a margin of 2e-4:
    # consecutive grid orders differ by a factor below 1.000116
    q, p = 7.810824733562767e-06, 2.2227300578652547e-05 * 0.99979
    ratio = worst_ratio(p, q, rho)
    assert ratio <= 1 / 1.0002, ratio
    print(f"two-point pair: max over alpha of D_alpha / (alpha rho) = {ratio:.6f} (both ways)")
    print(f"  P(S) - e Q(S) = {p - math.e * q:.4e} > 9e-7; the smallest eps at delta 9e-7 "
          f"is {math.log((p - 9e-7) / q):.5f}: 96 runs cannot fit a (1, 9e-7) conversion")


if __name__ == "__main__":
    main()
