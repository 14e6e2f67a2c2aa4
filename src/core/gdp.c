/*-------------------------------------------------------------------------
 *
 * gdp.c
 *	  The privacy profile of mu-GDP and its epsilon at a delta (gdp.h).
 *
 *-------------------------------------------------------------------------
 */
#include "gdp.h"

#include <math.h>

#include "calibrate.h"

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

double
gdp_eps(double mu, double delta)
{
	double		target = delta * (1.0 - 1e-6),
				lo = 0.0,
				hi;

	if (!(mu > 0.0) || !isfinite(mu) || !(delta > 0.0 && delta < 1.0))
		return NAN;
	hi = zcdp_eps(0.5 * mu * mu, delta);
	if (!isfinite(hi))
		return NAN;
	if (gdp_delta(mu, 0.0) <= target)
		return 0.0;
	/*
	 * Invariant: hi is a valid eps (the zCDP bound, or a point whose
	 * computed delta, within 1e-9 relative of the true one, is at most
	 * delta (1 - 1e-6)).  delta_mu decreases in eps, so bisecting keeps
	 * hi valid and closes in on the least valid eps.
	 */
	for (int i = 0; i < 100 && hi - lo > 1e-15 * hi; i++)
	{
		double		mid = lo + (hi - lo) / 2.0,
					d = gdp_delta(mu, mid);

		if (!isnan(d) && d <= target)
			hi = mid;
		else
			lo = mid;
	}
	return hi;
}
