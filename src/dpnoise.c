/*-------------------------------------------------------------------------
 *
 * dpnoise.c
 *	  Exact discrete noise (dpnoise.h).  Canonne, Kamath, Steinke 2020:
 *	  Algorithm 1 (Bernoulli(exp(-gamma)) for rational gamma) and Algorithm 2
 *	  (discrete Laplace with rational scale), with integers only.
 *
 *-------------------------------------------------------------------------
 */
#include "dpnoise.h"

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

/* Bernoulli(exp(-num/den)) for 0 <= num <= den: CKS20 Algorithm 1, gamma <= 1 */
static bool
bernoulli_exp_le1(gsl_rng *rng, uint64_t num, uint64_t den)
{
	uint64_t	k = 1;

	/* A_k ~ Bernoulli(gamma / k) until the first 0; the answer: k odd */
	while (dpnoise_bernoulli(rng, num, den * k))
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

int64_t
dpnoise_discrete_laplace(gsl_rng *rng, uint64_t num, uint64_t den)
{
	uint64_t	t = num;		/* CKS20's Lap_Z(t/s) */
	uint64_t	s = den;

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
