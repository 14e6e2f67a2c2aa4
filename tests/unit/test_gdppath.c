/*
 * test_gdppath.c -- the float8 steps of the accountant's Gaussian path
 * (src/core/gdp.c; ledger/accountant.c composes a budget's Gaussian runs by
 * them, the sums and comparisons in numeric around them):
 *   1. gdp_mu_of_rho(rho): 0 at 0, NaN off its domain, above sqrt(2 rho)
 *      and within 1e-13 relative of sqrt(2 rho / (1 - rho 2^-19)),
 *      increasing;
 *   2. gdp_epsilon_below(mu, delta, hi) on a grid of (rho, delta) with hi
 *      zCDP's bound: at most hi, mu-GDP holds there (gdp_delta within
 *      delta), and 0.1 % less epsilon does not hold (it is the least);
 *      below zCDP's bound where GDP is tighter; hi for a NaN mu.
 * Prints "N passed, M failed".
 */
#include <math.h>
#include <stdio.h>

#include "core/calibrate.h"
#include "core/gdp.h"
#include "unitcheck.h"

static void
check_mu(void)
{
	double		prev = 0.0;

	CHECK(gdp_mu_of_rho(0.0) == 0.0, "mu(0) = 0");
	CHECK(isnan(gdp_mu_of_rho(INFINITY)), "mu(inf) is NaN");
	CHECK(isnan(gdp_mu_of_rho(NAN)), "mu(NaN) is NaN");
	CHECK(isnan(gdp_mu_of_rho(ldexp(1.0, 18))), "mu(2^18) is NaN (rho 2^-19 = 1/2)");
	CHECK(!isnan(gdp_mu_of_rho(ldexp(1.0, 17))), "mu(2^17) is a number");
	for (double rho = 1e-9; rho < 1e4; rho *= 3.7)
	{
		double		mu = gdp_mu_of_rho(rho),
					ref = sqrt(2.0 * rho / (1.0 - rho * ldexp(1.0, -19)));

		CHECK(mu >= sqrt(2.0 * rho), "mu(%g) = %.17g >= sqrt(2 rho)", rho, mu);
		CHECK(mu >= ref && mu <= ref * (1.0 + 1e-13), "mu(%g) = %.17g within 1e-13 above %.17g",
			  rho, mu, ref);
		CHECK(mu > prev, "mu increases at %g", rho);
		prev = mu;
	}
}

static void
check_epsilon(void)
{
	static const double rhos[] = {1e-6, 1e-4, 0.001, 0.01, 0.05, 0.2, 1.0, 5.0};
	static const double deltas[] = {1e-10, 1e-7, 1e-6, 1e-5, 1e-3};
	int			tighter = 0;

	for (int i = 0; i < (int) (sizeof(rhos) / sizeof(rhos[0])); i++)
		for (int j = 0; j < (int) (sizeof(deltas) / sizeof(deltas[0])); j++)
		{
			double		rho = rhos[i],
						delta = deltas[j],
						mu = gdp_mu_of_rho(rho),
						hi = zcdp_eps(rho, delta),
						e = gdp_epsilon_below(mu, delta, hi),
						dl = gdp_delta(mu, e * (1.0 - 1e-3));

			CHECK(e <= hi, "rho %g delta %g: eps %.17g <= zCDP's %.17g", rho, delta, e, hi);
			if (e < hi)
			{
				double		d = gdp_delta(mu, e);

				tighter++;
				CHECK(mu <= gdp_mu_threshold(e, delta), "rho %g delta %g: mu holds at eps %.17g",
					  rho, delta, e);
				CHECK(isnan(d) || d <= delta, "rho %g delta %g: delta_mu(%.17g) = %g <= delta",
					  rho, delta, e, d);
				CHECK(isnan(dl) || dl > delta,
					  "rho %g delta %g: 0.1%% less eps does not hold (delta_mu = %g)",
					  rho, delta, dl);
			}
		}
	CHECK(tighter >= 30, "GDP below zCDP's bound on %d of 40 points", tighter);
	CHECK(gdp_epsilon_below(NAN, 1e-6, 3.5) == 3.5, "NaN mu: hi");
}

int
main(void)
{
	check_mu();
	check_epsilon();
	return unitcheck_report();
}
