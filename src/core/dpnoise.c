/*-------------------------------------------------------------------------
 *
 * dpnoise.c
 *	  Exact discrete noise (dpnoise.h).  Canonne, Kamath, Steinke 2020:
 *	  Algorithm 1 (Bernoulli(exp(-gamma)) for rational gamma) and Algorithm 2
 *	  (discrete Laplace with rational scale), with integers only.
 *
 *-------------------------------------------------------------------------
 */
#include "core/dpnoise.h"

#include "core/auditmutant.h"

#include <float.h>
#include <math.h>

/* 64 random bits from two 32-bit words */
static uint64_t
dpnoise_bits64(gsl_rng *rng)
{
	uint64_t	hi = (uint64_t) gsl_rng_get(rng) & 0xffffffffu;
	uint64_t	lo = (uint64_t) gsl_rng_get(rng) & 0xffffffffu;

	return (hi << 32) | lo;
}

uint64_t
dpnoise_uniform(gsl_rng *rng, uint64_t n)
{
	/* reject the top partial copy of [0, n) so every value is equally likely */
	uint64_t	limit = UINT64_MAX - (UINT64_MAX % n + 1) % n;
	uint64_t	r;

	do
		r = dpnoise_bits64(rng);
	while (r > limit);
	return r % n;
}

bool
dpnoise_bernoulli(gsl_rng *rng, uint64_t num, uint64_t den)
{
	return dpnoise_uniform(rng, den) < num;
}

typedef unsigned __int128 u128;

/* a uniform integer in [0, n), 1 <= n <= 2^127: masked bits, rejection */
static u128
uniform128(gsl_rng *rng, u128 n)
{
	int			bits = 0;
	u128		mask,
				r;

	while (bits < 127 && ((u128) 1 << bits) < n)
		bits++;
	mask = bits == 0 ? 0 : (((u128) 1 << bits) - 1);
	do
		r = (((u128) dpnoise_bits64(rng) << 64) | dpnoise_bits64(rng)) & mask;
	while (r >= n);
	return r;
}

/* Bernoulli(num / (den k)): in 128 bits once den k exceeds 64 (large den) */
static bool
bernoulli_over_k(gsl_rng *rng, uint64_t num, uint64_t den, uint64_t k)
{
	if (k <= UINT64_MAX / den)
		return dpnoise_bernoulli(rng, num, den * k);
	return uniform128(rng, (u128) den * k) < num;
}

/* Bernoulli(exp(-num/den)) for 0 <= num <= den: CKS20 Algorithm 1, gamma <= 1 */
static bool
bernoulli_exp_le1(gsl_rng *rng, uint64_t num, uint64_t den)
{
	uint64_t	k = 1;

	/* A_k ~ Bernoulli(gamma / k) until the first 0; the answer: k odd */
	while (bernoulli_over_k(rng, num, den, k))
		k++;
	return (k % 2) == 1;
}

bool
dpnoise_bernoulli_exp(gsl_rng *rng, uint64_t num, uint64_t den)
{
	/* exp(-gamma) = exp(-1)^floor(gamma) * exp(-(gamma - floor(gamma))) */
	for (uint64_t i = 0; i < num / den; i++)
		if (!bernoulli_exp_le1(rng, 1, 1))
			return false;
	return bernoulli_exp_le1(rng, num % den, den);
}

/* CKS20's Lap_Z(t/s); also the discrete Gaussian's proposal */
static int64_t
discrete_laplace(gsl_rng *rng, uint64_t t, uint64_t s)
{

	for (;;)
	{
		uint64_t	u = dpnoise_uniform(rng, t);
		uint64_t	v = 0;
		uint64_t	y;
		bool		negative;

		if (!dpnoise_bernoulli_exp(rng, u, t))
			continue;
		while (dpnoise_bernoulli_exp(rng, 1, 1))
			v++;
		y = (u + t * v) / s;	/* X = U + t V ~ Geometric(1 - exp(-1/t)) */
		negative = dpnoise_bernoulli(rng, 1, 2);
		if (negative && y == 0)
			continue;
		return negative ? -(int64_t) y : (int64_t) y;
	}
}

int64_t
dpnoise_discrete_laplace(gsl_rng *rng, uint64_t num, uint64_t den)
{
#if DPOBJ_MUTANT_IS(laplace)
	num = (uint64_t) ceil((double) num / DPOBJ_MUTANT_FACTOR);	/* audit mutant */
#endif
	return discrete_laplace(rng, num, den);
}

double
dpnoise_lattice(double b)
{
	int			e;

	(void) frexp(b, &e);		/* b = f 2^e, 1/2 <= f < 1: floor(log2 b) = e - 1 */
	return ldexp(1.0, e - 1 - DPNOISE_LATTICE_BITS);
}

/* ---- the discrete Gaussian (CKS20 Algorithm 3), with 128-bit integers ---- */

/* Bernoulli(exp(-num/den)), den <= 2^113: CKS20 Algorithm 1 */
static bool
bernoulli_exp128(gsl_rng *rng, u128 num, u128 den)
{
	u128		q = num / den,
				r = num % den;
	u128		k = 1;

	for (u128 i = 0; i < q; i++)	/* ends early: each step stops w.p. 1 - 1/e */
		if (!bernoulli_exp_le1(rng, 1, 1))
			return false;
	/* gamma = r/den <= 1: A_k ~ Bernoulli(gamma / k) until the first 0 */
	while (k < ((u128) 1 << 14) && uniform128(rng, den * k) < r)
		k++;
	return (k % 2) == 1;
}

int64_t
dpnoise_discrete_gaussian(gsl_rng *rng, uint64_t sigma2)
{
	uint64_t	t;

#if DPOBJ_MUTANT_IS(sigma)
	sigma2 = (uint64_t) ceil((double) sigma2 / (DPOBJ_MUTANT_FACTOR * DPOBJ_MUTANT_FACTOR));	/* audit mutant */
#endif
	/* t = floor(sigma) + 1, sigma = sqrt(sigma2) */
	t = (uint64_t) sqrt((double) sigma2);

	while (t * t > sigma2)
		t--;
	while ((t + 1) * (t + 1) <= sigma2)
		t++;
	t++;
	for (;;)
	{
		int64_t		y = discrete_laplace(rng, t, 1);
		uint64_t	ay = (uint64_t) (y < 0 ? -y : y);
		u128		diff,
					num,
					den = (u128) 2 * sigma2 * t * t;

		/*
		 * gamma = (|Y| - sigma^2/t)^2 / (2 sigma^2) = (|Y| t - sigma^2)^2 /
		 * (2 sigma^2 t^2).  |Y| t beyond 2^63 means gamma > 2^13: accepted
		 * with probability below e^-8192, here never (a deviation the
		 * privacy analysis cannot see).
		 */
		if (ay > (((uint64_t) 1 << 63) / t))
			continue;
		diff = (u128) ay * t >= sigma2 ? (u128) ay * t - sigma2 : sigma2 - (u128) ay * t;
		num = diff * diff;
		if (bernoulli_exp128(rng, num, den))
			return y;
	}
}

/*
 * ceil(T (S/g + sqrt p)^2 / (2 rho)) lattice units, or 0 outside [1, 2^56];
 * the quotient is raised by 2^-50 relative first, so that its rounding
 * (above 2^53 doubles are not every integer) never gives a variance below
 * the exact one.
 */
static uint64_t
lattice_variance_of(double D2, int64_t T, double rho)
{
	double		s2 = ceil((double) T * D2 * D2 / (2.0 * rho) * (1.0 + ldexp(1.0, -50)));

	return (s2 >= 1 && s2 <= ldexp(1.0, 56)) ? (uint64_t) s2 : 0;
}

static uint64_t
lattice_variance(double S, double g, int p, int64_t T, double rho)
{
	return lattice_variance_of(S / g + sqrt((double) p), T, rho);
}

void
dpnoise_gaussian_lattice(double S, double rho, int p, double *lattice, uint64_t *sigma2)
{
	*lattice = dpnoise_lattice(S) * ldexp(1.0, DPNOISE_LATTICE_BITS - DPNOISE_GAUSS_BITS);
	*sigma2 = lattice_variance(S, *lattice, p, 1, rho);
}

/* the lattice of T composed releases: 2^-DPNOISE_GD_BITS of the continuous noise */
static double
composed_lattice(double S, double rho, int64_t T)
{
	return dpnoise_lattice(S * sqrt((double) T / (2.0 * rho))) *
		ldexp(1.0, DPNOISE_LATTICE_BITS - DPNOISE_GD_BITS);
}

void
dpnoise_gaussian_lattice_composed(double S, double rho, int p, int64_t T,
								  double *lattice, uint64_t *sigma2)
{
	*lattice = composed_lattice(S, rho, T);
	*sigma2 = lattice_variance(S, *lattice, p, T, rho);
}

void
dpnoise_gaussian_lattice_summed(double S, double rho, int p, int64_t T, int64_t rows,
								double *lattice, uint64_t *sigma2)
{
	*lattice = composed_lattice(S, rho, T);
	*sigma2 = lattice_variance_of(S / *lattice * (1.0 + ldexp(1.0, -30)) +
								  sqrt((double) p) * (1.0 + (double) rows * ldexp(1.0, -5)),
								  T, rho);
}

void
dpnoise_objective_lattice(double sigma, double *lattice, uint64_t *sigma2)
{
	double		g,
				s2;

	*lattice = 0.0;
	*sigma2 = 0;
	if (!(isfinite(sigma) && sigma >= DBL_MIN))
		return;
	g = dpnoise_lattice(sigma) * ldexp(1.0, DPNOISE_LATTICE_BITS - DPNOISE_OBJ_BITS);
	if (!(g >= DBL_MIN))
		return;
	/* sigma / g is exact (g a power of two); raised 2^-50 so the rounding never lowers it */
	s2 = ceil((sigma / g) * (sigma / g) * (1.0 + ldexp(1.0, -50)));
	if (s2 > ldexp(1.0, 56))
		s2 = ldexp(1.0, 56);	/* the exact square is below 2^56: still above it */
	*lattice = g;
	*sigma2 = (uint64_t) s2;
}

void
dpnoise_objective_draw(gsl_rng *rng, double lattice, uint64_t sigma2, int n, double *out)
{
	for (int j = 0; j < n; j++)
		out[j] = (double) dpnoise_discrete_gaussian(rng, sigma2) * lattice;
}
