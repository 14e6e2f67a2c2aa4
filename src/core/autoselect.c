/*-------------------------------------------------------------------------
 *
 * autoselect.c
 *	  Random partition and report noisy max for private model selection
 *	  (autoselect.h).
 *
 *-------------------------------------------------------------------------
 */
#include "core/autoselect.h"

#include <math.h>

#include "core/dpnoise.h"

void
autosel_split(gsl_rng *rng, int64_t c, int nparts, int64_t *out)
{
	for (int j = 0; j < nparts; j++)
		out[j] = 0;
	for (int64_t i = 0; i < c; i++)
		out[dpnoise_uniform(rng, (uint64_t) nparts)]++;
}

bool
autosel_laplace_scale(double epsilon, uint64_t *num, uint64_t *den)
{
	double		x,
				scaled;
	int			e,
				s;

	if (!(isfinite(epsilon) && epsilon > 0))
		return false;
	x = 2.0 / epsilon;
	/* rounded up: x epsilon >= 2 exactly (fma: the exact sign) */
	while (isfinite(x) && fma(x, epsilon, -2.0) < 0.0)
		x = nextafter(x, INFINITY);
	if (!(x <= ldexp(1.0, 31)))
		return false;
	/* x < 2^e: the largest s <= 31 with x 2^s <= 2^31 */
	(void) frexp(x, &e);
	s = 31 - e;
	if (s > 31)
		s = 31;
	if (s < 0)
		s = 0;
	scaled = ceil(ldexp(x, s));
	if (scaled < 1)
		scaled = 1;
	if (scaled > ldexp(1.0, 31))
		return false;
	*num = (uint64_t) scaled;
	*den = (uint64_t) 1 << s;
	return true;
}

int
autosel_noisy_max(gsl_rng *rng, const int64_t *scores, int n, uint64_t num, uint64_t den)
{
	int			best = 0;
	int64_t		best_v = 0;

	for (int k = 0; k < n; k++)
	{
		int64_t		v = scores[k] + dpnoise_discrete_laplace(rng, num, den);

		/* strictly greater: a tie keeps the lower index */
		if (k == 0 || v > best_v)
		{
			best = k;
			best_v = v;
		}
	}
	return best;
}

/* a count clamped to [1, 2^40], so that m 2^bits below fits in 64 bits */
static int64_t
autosel_clamp_count(int64_t n)
{
	const int64_t hi = (int64_t) 1 << 40;

	return n < 1 ? 1 : n > hi ? hi : n;
}

/* round(2^bits m / n), clamped below at wmin; m <= n, both in [1, 2^40] */
static int64_t
autosel_ratio_weight(int64_t m, int64_t n, int bits, int64_t wmin)
{
	int64_t		w = ((m << bits) + n / 2) / n;

	return w < wmin ? wmin : w;
}

void
autosel_balance_weights(int64_t npos, int64_t nneg, int bits, int64_t wmin,
						int64_t *wpos, int64_t *wneg)
{
	int64_t		p = autosel_clamp_count(npos),
				q = autosel_clamp_count(nneg),
				m = p < q ? p : q;

	*wpos = autosel_ratio_weight(m, p, bits, wmin);
	*wneg = autosel_ratio_weight(m, q, bits, wmin);
}

void
autosel_noisy_balance_weights(gsl_rng *rng, int64_t npos, int64_t nneg, uint64_t num,
							  uint64_t den, int bits, int64_t wmin, int64_t *wpos, int64_t *wneg)
{
	npos += dpnoise_discrete_laplace(rng, num, den);
	nneg += dpnoise_discrete_laplace(rng, num, den);
	autosel_balance_weights(npos, nneg, bits, wmin, wpos, wneg);
}
