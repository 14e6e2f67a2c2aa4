/*-------------------------------------------------------------------------
 *
 * opoint.c
 *	  The private balance estimate and the operating point it gives
 *	  (opoint.h).
 *
 *-------------------------------------------------------------------------
 */
#include "core/opoint.h"

#include <math.h>

#include "core/autoselect.h"
#include "core/dpnoise.h"

bool
opoint_noise_gauss(double rho, int k, OpNoise *z)
{
	z->gauss = true;
	z->num = z->den = 0;
	if (!(isfinite(rho) && rho > 0) || k < 1)
		return false;
	dpnoise_gaussian_lattice_composed(sqrt(2.0) * k, rho, 2, 1, &z->lattice, &z->sigma2);
	return z->sigma2 > 0 && isfinite(z->lattice) && z->lattice > 0;
}

bool
opoint_noise_laplace(double eps, int k, OpNoise *z)
{
	z->gauss = false;
	z->lattice = 1.0;
	z->sigma2 = 0;
	if (k < 1)
		return false;
	/* rounded down: the scale is for at least k rows at eps */
	return autosel_laplace_scale(k > 1 ? nextafter(eps / k, 0.0) : eps, &z->num, &z->den);
}

double
opoint_noise_sd(const OpNoise *z)
{
	double		q;

	if (z->gauss)
		return sqrt((double) z->sigma2) * z->lattice;
	/* discrete Laplace of scale t: variance 2q / (1 - q)^2, q = exp(-1/t) */
	q = exp(-(double) z->den / (double) z->num);
	return sqrt(2.0 * q) / (1.0 - q);
}

/* count / lattice, rounded half away from zero, clamped to 2^62 lattice units */
static int64_t
opoint_on_lattice(int64_t count, double lattice)
{
	const double cap = ldexp(1.0, 62);
	double		u = round((double) count / lattice);

	return (int64_t) (u > cap ? cap : u);
}

void
opoint_noisy_counts(gsl_rng *rng, const OpNoise *z, int64_t npos, int64_t nneg,
					double noisy[2])
{
	int64_t		c[2] = {npos, nneg};

	for (int i = 0; i < 2; i++)
	{
		if (z->gauss)
			noisy[i] = (double) (opoint_on_lattice(c[i], z->lattice) +
								 dpnoise_discrete_gaussian(rng, z->sigma2)) * z->lattice;
		else
			noisy[i] = (double) (c[i] + dpnoise_discrete_laplace(rng, z->num, z->den));
	}
}

/* a noisy count as an integer within int64 (autosel_balance_weights clamps it further) */
static int64_t
opoint_round(double x)
{
	const double cap = ldexp(1.0, 62);

	/* a comparison, exact: NaN (never from finite inputs) becomes 0 */
	return x > cap ? (int64_t) cap : x < -cap ? -(int64_t) cap : x == x ? (int64_t) llround(x) : 0;
}

void
opoint_weights(const double noisy[2], int bits, int64_t wmin, int64_t w[2])
{
	autosel_balance_weights(opoint_round(noisy[0]), opoint_round(noisy[1]), bits, wmin,
							&w[0], &w[1]);
}

double
opoint_cut(double wpos, double wneg)
{
	return log(wneg / wpos);
}
