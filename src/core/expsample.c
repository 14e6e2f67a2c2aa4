/*-------------------------------------------------------------------------
 *
 * expsample.c
 *	  Exact sampling of the exponential mechanism (expsample.h): propose a
 *	  uniform index, accept it with probability exp(-gamma Delta), Delta =
 *	  loss - minloss, computed as a product of exact Bernoulli(exp(-x))
 *	  draws (Canonne, Kamath, Steinke 2020, Algorithm 1; dpnoise.c).
 *
 *-------------------------------------------------------------------------
 */
#include "core/expsample.h"

#include <math.h>

#include "core/dpnoise.h"

bool
expsample_gamma(double epsilon, uint64_t *num, uint64_t *den)
{
	int			e;
	int			s;
	double		scaled;
	uint64_t	n;

	/* gamma = epsilon/2 < 2^e; the cap 2^61 keeps num below 2^63 */
	if (epsilon >= ldexp(1.0, 62))
	{
		*num = (uint64_t) 1 << 61;
		*den = 1;
		return false;
	}
	(void) frexp(epsilon / 2.0, &e);
	/* num = floor(gamma 2^s) < 2^(e+s) <= 2^63; ldexp by a power of two is exact */
	s = 63 - e;
	if (s > EXPSAMPLE_DEN_BITS)
		s = EXPSAMPLE_DEN_BITS;
	scaled = ldexp(epsilon, s - 1);
	n = (uint64_t) floor(scaled);
	while (s > 0 && n % 2 == 0 && n > 0)
	{
		n /= 2;
		s--;
	}
	*num = n;
	*den = (uint64_t) 1 << s;
	return floor(scaled) == scaled;
}

/* Bernoulli(exp(-(num/den) delta)): chunks of delta whose num * chunk fits in 64 bits */
static bool
accept(gsl_rng *rng, uint64_t num, uint64_t den, uint64_t delta)
{
	uint64_t	chunk;

	if (num == 0 || delta == 0)
		return true;
	chunk = UINT64_MAX / num;	/* >= 2 as num < 2^63 */
	while (delta > chunk)
	{
		/* each full chunk has gamma >= 1 (num chunk > 2^63 >= den): ends soon */
		if (!dpnoise_bernoulli_exp(rng, num * chunk, den))
			return false;
		delta -= chunk;
	}
	return dpnoise_bernoulli_exp(rng, num * delta, den);
}

ExpSampleResult
expsample_draw(gsl_rng *rng, const int64_t *loss, int64_t n, int64_t minloss,
			   uint64_t num, uint64_t den, expsample_poll_fn poll, void *poll_arg,
			   int64_t *chosen)
{
	for (uint64_t iter = 1;; iter++)
	{
		uint64_t	k = dpnoise_uniform(rng, (uint64_t) n);

		if (accept(rng, num, den, (uint64_t) (loss[k] - minloss)))
		{
			*chosen = (int64_t) k;
			return EXPSAMPLE_OK;
		}
		if (poll != NULL && iter % EXPSAMPLE_POLL_EVERY == 0 && poll(poll_arg))
			return EXPSAMPLE_STOPPED;
	}
}
