/*
 * test_gdp.c -- Gaussian DP's privacy profile and the largest mu an (eps,
 * delta) holds (src/core/gdp.c):
 *   1. delta_mu(eps) within 1e-9 relative of 60-digit references (mpmath);
 *   2. gdp_mu_threshold(eps, delta) is at most the exact mu (60 digits) and
 *      within 1e-5 relative of it;
 *   3. on a grid of (eps, delta): delta_mu at the threshold is within delta
 *      where it is computed, and 1e-4 more mu is not (it is the largest);
 *      GDP holds more than zCDP's bound (mu^2 / 2 zCDP within eps); no
 *      threshold only where delta_mu cannot be computed near zCDP's mu;
 *   4. refusals: NaN outside the domain, NaN where double precision cannot
 *      be trusted (cancellation, subnormal tails); a threshold of 0 where
 *      nothing can be computed.
 * Prints "N passed, M failed".
 */
#include <math.h>
#include <stdio.h>

#include "core/calibrate.h"
#include "core/gdp.h"
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

/* eps, delta, the mu with delta_mu(eps) = delta (mpmath) */
static const double mu_ref[][3] = {
	{1.0, 4.5e-07, 0.22798743518066727722},
	{0.1, 1e-09, 0.019916423412681467272},
	{2.0, 1e-06, 0.44833474039519277438},
	{7.0, 1e-05, 1.4908497381368525753},
	{0.65, 1e-12, 0.1004487245405064889},
	{20.0, 0.001, 4.0531481636469117779},
	{0.3, 1e-06, 0.076968174975578856721},
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
	for (size_t i = 0; i < sizeof(mu_ref) / sizeof(mu_ref[0]); i++)
	{
		double		m = gdp_mu_threshold(mu_ref[i][0], mu_ref[i][1]);

		CHECK(m <= mu_ref[i][2] && m >= mu_ref[i][2] * (1 - 1e-5),
			  "mu at (%g, %g): %.17g, exact %.17g", mu_ref[i][0], mu_ref[i][1], m,
			  mu_ref[i][2]);
	}
}

static void
check_grid(void)
{
	int			tight = 0;

	for (double eps = 0.05; eps < 60; eps *= 1.7)
		for (double delta = 1e-15; delta < 0.5; delta *= 31.0)
		{
			double		m = gdp_mu_threshold(eps, delta),
						d = gdp_delta(m, eps),
						above = gdp_delta(m * (1 + 1e-4), eps);

			if (m == 0)
			{
				/* only where delta_mu cannot be computed near the zCDP's mu */
				double		mz = sqrt(2.0 * zcdp_rho(eps, delta));

				CHECK(isnan(gdp_delta(mz, eps)), "(%g, %g): no threshold, yet delta_mu(%g) = %g",
					  eps, delta, mz, gdp_delta(mz, eps));
				continue;
			}
			CHECK(zcdp_eps(0.5 * m * m, delta) >= eps,
				  "(%g, %g): mu %.17g holds less than the zCDP bound", eps, delta, m);
			if (isnan(d))
				continue;
			CHECK(d <= delta, "(%g, %g): delta_mu at %.17g = %.17g", eps, delta, m, d);
			if (!isnan(above))
			{
				tight++;
				CHECK(above > delta * (1 - 1e-6),
					  "(%g, %g): %.17g is not the largest mu (%.17g at 1e-4 more)",
					  eps, delta, m, above);
			}
		}
	CHECK(tight > 50, "the grid checked the largest mu %d times", tight);
}

static void
check_refusals(void)
{
	CHECK(isnan(gdp_delta(0.0, 1.0)) && isnan(gdp_delta(-1.0, 1.0)) &&
		  isnan(gdp_delta(1.0, -0.5)) && isnan(gdp_delta(NAN, 1.0)) &&
		  isnan(gdp_delta(INFINITY, 1.0)), "gdp_delta outside its domain is NaN");
	CHECK(gdp_mu_threshold(-1.0, 1e-6) == 0 && gdp_mu_threshold(1.0, 0.0) == 0 &&
		  gdp_mu_threshold(1.0, 1.0) == 0 && gdp_mu_threshold(NAN, 1e-6) == 0,
		  "gdp_mu_threshold outside its domain is 0");
	/* the two terms cancel to 10 digits: not trusted */
	CHECK(isnan(gdp_delta(1e-9, 1e-8)), "cancellation is refused");
	/* the second term's tail is subnormal: not trusted */
	CHECK(isnan(gdp_delta(3.0, 112.0)), "a subnormal tail is refused");
	/* where every candidate cancels, no mu */
	CHECK(gdp_mu_threshold(1e-7, 1e-6) == 0, "tiny eps: threshold %.17g",
		  gdp_mu_threshold(1e-7, 1e-6));
}

int
main(void)
{
	check_references();
	check_grid();
	check_refusals();
	return unitcheck_report();
}
