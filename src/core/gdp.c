/*-------------------------------------------------------------------------
 *
 * gdp.c
 *	  The privacy profile of mu-GDP and the largest mu an (eps, delta)
 *	  holds (gdp.h).
 *
 *-------------------------------------------------------------------------
 */
#include "core/gdp.h"

#include <math.h>
#include <stdbool.h>

/* Phi(-x) = erfc(x / sqrt 2) / 2: accurate to a few ulps for every x */
static double
phi_lower(double x)
{
	return 0.5 * erfc(x / sqrt(2.0));
}

double
gdp_delta(double mu, double eps)
{
	double		t1,
				t2,
				tail;

	if (!(mu > 0.0) || !(eps >= 0.0) || !isfinite(mu) || !isfinite(eps))
		return NAN;
	t1 = phi_lower(eps / mu - mu / 2.0);
	tail = phi_lower(eps / mu + mu / 2.0);
	t2 = exp(eps) * tail;
	/* three digits lost at most; no term near the subnormals */
	if (!isfinite(t2) || !(tail >= 1e-290) || !(t1 - t2 >= 1e-3 * t1))
		return NAN;
	return t1 - t2;
}

/* mu qualifies: delta_mu(eps) is computed and at most target */
static bool
mu_holds(double mu, double eps, double target)
{
	double		d = gdp_delta(mu, eps);

	return !isnan(d) && d <= target;
}

double
gdp_mu_of_rho(double rho)
{
	if (!isfinite(rho) || !(rho * ldexp(1.0, -19) < 0.5))
		return NAN;
	return sqrt(2.0 * rho / (1.0 - rho * ldexp(1.0, -19)) * (1.0 + 1e-14)) * (1.0 + 1e-15);
}

double
gdp_epsilon_below(double mu, double delta, double hi)
{
	double		lo = 0.0;
	int			i;

	if (isnan(mu))
		return hi;
	for (i = 0; i < 60; i++)
	{
		double		mid = lo + (hi - lo) / 2.0;

		if (mu <= gdp_mu_threshold(mid, delta))
			hi = mid;
		else
			lo = mid;
	}
	return hi;
}

double
gdp_mu_threshold(double eps, double delta)
{
	double		target = delta * (1.0 - 1e-6),
				lo,
				hi;
	int			i;

	if (!(eps > 0.0) || !isfinite(eps) || !(delta > 0.0 && delta < 1.0))
		return 0.0;
	/*
	 * Start at the classical Gaussian mechanism's mu (Dwork-Roth Thm A.1),
	 * near the answer; step up by 5 % (at most 7 times it), then halve, until
	 * one qualifies; double until one does not; bisect.  Invariant: once
	 * found, lo qualifies, so [0, lo] is valid.
	 */
	hi = eps / sqrt(2.0 * log(1.25 / delta));
	/* where small mu cancel, the qualifying ones lie just above it */
	for (i = 0, lo = hi; i < 40 && !mu_holds(lo, eps, target); i++)
		lo *= 1.05;
	for (i = 0; i < 64 && !mu_holds(lo, eps, target); i++)
		lo = ldexp(hi, -i - 1);
	if (!mu_holds(lo, eps, target))
		return 0.0;
	hi = 2.0 * lo;
	for (i = 0; i < 64 && mu_holds(hi, eps, target); i++)
	{
		lo = hi;
		hi *= 2.0;
	}
	if (mu_holds(hi, eps, target))
		return lo;
	for (i = 0; i < 100 && hi - lo > 1e-16 * hi; i++)
	{
		double		mid = lo + (hi - lo) / 2.0;

		if (mu_holds(mid, eps, target))
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}
