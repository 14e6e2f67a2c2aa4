/*-------------------------------------------------------------------------
 *
 * privquant.c
 *	  A private quantile of norms over a public grid (privquant.h).
 *
 *-------------------------------------------------------------------------
 */
#include "core/privquant.h"

#include <math.h>

/* 2^(j/4), j = 0 .. 3, correctly rounded */
static const double quarter_powers[4] = {
	1.0, 1.1892071150027210667, 1.4142135623730950488, 1.6817928305074290861
};

double
privquant_candidate(int i)
{
	int			k = PRIVQUANT_KMIN + i;
	int			j = ((k % 4) + 4) % 4;

	/* k = 4 e + j with e = (k - j) / 4 exactly */
	return ldexp(quarter_powers[j], (k - j) / 4);
}

int
privquant_bin(double norm)
{
	int			lo = 0,
				hi = PRIVQUANT_N;

	if (!(norm <= privquant_candidate(PRIVQUANT_N - 1)))
		return PRIVQUANT_N - 1;	/* above every candidate, or NaN: R_max's */
	/* the smallest i with norm <= R_i: R is increasing */
	while (lo < hi)
	{
		int			mid = (lo + hi) / 2;

		if (norm <= privquant_candidate(mid))
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

int64_t
privquant_target(double q, int64_t n)
{
	int			e;
	double		f = frexp(q, &e);	/* q = f 2^e, 1/2 <= f < 1, e <= 0 */
	unsigned __int128 m = (unsigned __int128) ldexp(f, 53);	/* q = m 2^(e - 53) */
	int			s = 53 - e;
	unsigned __int128 prod;

	if (n <= 0)
		return 0;
	/* m n < 2^116: q n < 2^(116 - s) < 1 once s >= 116, and q n > 0 */
	if (s >= 116)
		return 1;
	prod = m * (unsigned __int128) n;
	return (int64_t) ((prod + (((unsigned __int128) 1 << s) - 1)) >> s);
}

static int64_t
sat_add(int64_t a, int64_t b)
{
	return a > INT64_MAX - b ? INT64_MAX : a + b;
}

int64_t
privquant_losses(const int64_t *hist, double q, int64_t *loss)
{
	return privquant_losses_n(hist, PRIVQUANT_N, q, loss);
}

int64_t
privquant_losses_n(const int64_t *hist, int nbins, double q, int64_t *loss)
{
	int64_t		n = 0,
				c = 0,
				prev,
				t,
				minloss = INT64_MAX;

	for (int i = 0; i < nbins; i++)
		n = sat_add(n, hist[i]);
	t = privquant_target(q, n);
	for (int i = 0; i < nbins; i++)
	{
		prev = c;
		c = sat_add(c, hist[i]);
		/* t - c_i: too few rows below R_i; c_(i-1) + 1 - t: R_(i-1) already reaches t */
		loss[i] = t > c ? t - c : 0;
		if (prev >= t && prev - t + 1 > loss[i])
			loss[i] = prev - t + 1;
		if (loss[i] < minloss)
			minloss = loss[i];
	}
	return minloss;
}

ExpSampleResult
privquant_draw(gsl_rng *rng, const int64_t *hist, double q, double epsilon, int k,
			   expsample_poll_fn poll, void *poll_arg, int *chosen)
{
	return privquant_draw_n(rng, hist, PRIVQUANT_N, q, epsilon, k, poll, poll_arg, chosen);
}

ExpSampleResult
privquant_draw_n(gsl_rng *rng, const int64_t *hist, int nbins, double q, double epsilon,
				 int k, expsample_poll_fn poll, void *poll_arg, int *chosen)
{
	int64_t		loss[PRIVQUANT_N];
	int64_t		minloss;
	int64_t		pick = 0;
	uint64_t	num,
				den;
	ExpSampleResult r;

	if (nbins < 1 || nbins > PRIVQUANT_N)
		nbins = PRIVQUANT_N;
	minloss = privquant_losses_n(hist, nbins, q, loss);
	(void) expsample_gamma(epsilon, &num, &den);
	/* widen num / den (reduced: num may be 1) before the floor, so / k keeps gamma */
	while (den < ((uint64_t) 1 << EXPSAMPLE_DEN_BITS) && num < ((uint64_t) 1 << 61))
	{
		num <<= 1;
		den <<= 1;
	}
	num /= (uint64_t) (k >= 1 ? k : 1);
	r = expsample_draw(rng, loss, nbins, minloss, num, den, poll, poll_arg, &pick);
	*chosen = (int) pick;
	return r;
}
