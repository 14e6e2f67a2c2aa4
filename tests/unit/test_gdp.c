/*
 * test_gdp.c -- Gaussian DP's privacy profile and its epsilon (src/core/gdp.c):
 *   1. delta_mu(eps) within 1e-9 relative of 60-digit references (mpmath);
 *   2. gdp_eps(mu, delta) is at least the exact eps (60 digits) and within
 *      1e-5 relative of it;
 *   3. on a grid of (mu, delta): the eps returned is valid where it is
 *      computed (delta_mu at it within delta), a little less is not (it is
 *      the least such eps), and it is never above the zCDP bound;
 *   4. refusals: NaN outside the domain, NaN where double precision cannot
 *      be trusted (cancellation, subnormal tails).
 * Prints "N passed, M failed".
 */
#include <math.h>
#include <stdio.h>

#include "calibrate.h"
#include "gdp.h"
#include "unitcheck.h"

/* mu, eps, delta_mu(eps) (mpmath, 60 digits) */
static const double delta_ref[][3] = {
	{0.2206, 1.0, 2.1342253531059015769e-7},
	{0.01, 0.05, 5.4814402007468725614e-10},
	{0.5, 2.0, 9.4391686349472337585e-6},
	{1.0, 3.5, 0.0003010905442332854849},
	{3.0, 10.0, 0.018589514315857806058},
	{0.05, 0.3, 9.0803399664009203944e-12},
	{0.1, 0.9, 1.9184912068899596249e-21},
	{2.0, 1.0, 0.50986166005467015308},
};

/* mu, delta, the least eps with delta_mu(eps) <= delta (mpmath) */
static const double eps_ref[][3] = {
	{0.2206, 4.5e-07, 0.9652957278991222783},
	{0.02, 1e-09, 0.10043600685694160936},
	{0.5, 1e-06, 2.2540846502197409399},
	{1.5, 1e-05, 7.0514132237939578913},
	{0.1, 1e-12, 0.64700812592498234765},
	{4.0, 0.001, 19.624120567422724595},
};

static void
check_references(void)
{
	for (size_t i = 0; i < sizeof(delta_ref) / sizeof(delta_ref[0]); i++)
	{
		double		d = gdp_delta(delta_ref[i][0], delta_ref[i][1]);

		CHECK(fabs(d - delta_ref[i][2]) <= 1e-9 * delta_ref[i][2],
			  "delta_mu(%g) at mu %g: %.17g, reference %.17g", delta_ref[i][1],
			  delta_ref[i][0], d, delta_ref[i][2]);
	}
	for (size_t i = 0; i < sizeof(eps_ref) / sizeof(eps_ref[0]); i++)
	{
		double		e = gdp_eps(eps_ref[i][0], eps_ref[i][1]);

		CHECK(e >= eps_ref[i][2] && e <= eps_ref[i][2] * (1 + 1e-5),
			  "eps of %g-GDP at delta %g: %.17g, exact %.17g", eps_ref[i][0],
			  eps_ref[i][1], e, eps_ref[i][2]);
	}
}

static void
check_grid(void)
{
	int			tight = 0;

	for (double mu = 1e-3; mu < 20; mu *= 1.7)
		for (double delta = 1e-15; delta < 0.5; delta *= 31.0)
		{
			double		e = gdp_eps(mu, delta),
						d = gdp_delta(mu, e),
						below = gdp_delta(mu, e * (1 - 1e-4));

			CHECK(e <= fmax(0.0, zcdp_eps(0.5 * mu * mu, delta)),
				  "mu %g, delta %g: eps %.17g above the zCDP bound", mu, delta, e);
			if (isnan(d))
				continue;
			CHECK(d <= delta, "mu %g, delta %g: delta_mu(%.17g) = %.17g", mu, delta, e, d);
			if (!isnan(below) && e > 0)
			{
				tight++;
				CHECK(below > delta * (1 - 1e-6),
					  "mu %g, delta %g: %.17g is not the least eps (%.17g at 1e-4 less)",
					  mu, delta, e, below);
			}
		}
	CHECK(tight > 50, "the grid checked the least eps %d times", tight);
}

static void
check_refusals(void)
{
	CHECK(isnan(gdp_delta(0.0, 1.0)) && isnan(gdp_delta(-1.0, 1.0)) &&
		  isnan(gdp_delta(1.0, -0.5)) && isnan(gdp_delta(NAN, 1.0)) &&
		  isnan(gdp_delta(INFINITY, 1.0)), "gdp_delta outside its domain is NaN");
	CHECK(isnan(gdp_eps(0.0, 1e-6)) && isnan(gdp_eps(1.0, 0.0)) &&
		  isnan(gdp_eps(1.0, 1.0)) && isnan(gdp_eps(NAN, 1e-6)),
		  "gdp_eps outside its domain is NaN");
	/* the two terms cancel to 10 digits: not trusted */
	CHECK(isnan(gdp_delta(1e-9, 1e-8)), "cancellation is refused");
	/* the second term's tail is subnormal: not trusted */
	CHECK(isnan(gdp_delta(3.0, 112.0)), "a subnormal tail is refused");
	/* where nothing can be trusted the zCDP bound is the answer */
	CHECK(gdp_eps(1e-9, 1e-6) == zcdp_eps(0.5e-18, 1e-6),
		  "tiny mu: the zCDP bound %.17g vs %.17g", gdp_eps(1e-9, 1e-6),
		  zcdp_eps(0.5e-18, 1e-6));
}

int
main(void)
{
	check_references();
	check_grid();
	check_refusals();
	return unitcheck_report();
}
