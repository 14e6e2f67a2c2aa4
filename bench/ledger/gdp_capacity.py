#!/usr/bin/env python3
"""How much rho a budget's Gaussian path holds against zCDP (docs/PRIVACY.md,
"Composition"): for epsilon_g in {0.1 .. 10} and a conversion delta in
{1e-12 .. 1e-3}, the largest rho whose GDP epsilon at f * delta is within
epsilon_g (mu^2 = 2 rho; the accountant's inflation, 1 + rho 2^-19, is below
1e-5 here), divided by the largest rho zCDP admits at the whole delta
(zcdp_eps over dpobj's grid of orders).  f is the share of delta_g - D the
Gaussian path converts at: 0.45 with the default reserve and no linear part,
0.4 when the linear part took half of delta_g, 0.25 at the reserve's cap (half
of what is left).  Then the issue's case: noisy-GD runs at (0.1, 1e-7) in
(1, 1e-6) on each path.  Plain Python (math.erfc), no dependencies."""
import math


def phi_lower(x):
    return 0.5 * math.erfc(x / math.sqrt(2.0))


def gdp_delta(mu, eps):
    return phi_lower(eps / mu - mu / 2) - math.exp(eps) * phi_lower(eps / mu + mu / 2)


def zcdp_eps(rho, delta):
    best = math.inf
    for k in range(-192, 385):
        am1 = 10 ** (k / 64)
        a = 1 + am1
        best = min(best, a * rho + (-math.log(delta) + am1 * math.log(am1 / a) - math.log(a)) / am1)
    return best


def largest(ok):
    lo, hi = 0.0, 100.0
    for _ in range(80):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if ok(mid) else (lo, mid)
    return lo


def gdp_rho(eps, delta):
    return largest(lambda r: gdp_delta(math.sqrt(2 * r), eps) <= delta)


def zcdp_rho(eps, delta):
    return largest(lambda r: zcdp_eps(r, delta) <= eps)


def main():
    for f in (0.45, 0.4, 0.25):
        ratios = []
        for eg in (0.1, 0.3, 1, 3, 10):
            for d in (1e-12, 1e-9, 1e-6, 1e-3):
                ratios.append(gdp_rho(eg, f * d) / zcdp_rho(eg, d))
        print(f"Gaussian path at {f} of the delta: rho held / zCDP's at the whole delta: "
              f"{min(ratios):.3f} to {max(ratios):.3f}")
    rho = 2.5355e-4
    runs = lambda ok: next(n for n in range(1, 10000) if not ok(n + 1))
    print("noisy GD at (0.1, 1e-7) in (1, 1e-6):",
          "Gaussian path (GDP at 4.5e-7):", runs(lambda n: gdp_delta(math.sqrt(2 * rho * n), 1) <= 4.5e-7),
          "| Renyi path (zCDP at 4.5e-7):", runs(lambda n: zcdp_eps(rho * n, 4.5e-7) <= 1),
          "| zCDP at 9e-7:", runs(lambda n: zcdp_eps(rho * n, 9e-7) <= 1),
          "| zCDP at 1e-6:", runs(lambda n: zcdp_eps(rho * n, 1e-6) <= 1))
    print("mu at 102 runs:", round(math.sqrt(2 * rho * 102), 4))


if __name__ == "__main__":
    main()
