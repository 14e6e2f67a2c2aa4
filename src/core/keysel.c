/*-------------------------------------------------------------------------
 *
 * keysel.c
 *	  Private key selection by a noisy threshold (keysel.h).
 *
 *-------------------------------------------------------------------------
 */
#include "core/keysel.h"

#include <math.h>

#include "core/auditmutant.h"
#include "core/dpnoise.h"

/* slack on the log scale: far above the rounding of the few operations below */
#define KEYSEL_SLACK 1e-9

/*
 * log of max over j in 1..m of q^-(k - j + 1) + (j - 1) q^-1, over (1 + q),
 * for lq = log q < 0: P(unit's lone keys released) = q^T times this.
 */
static double
keysel_log_worst(double lq, int64_t k, int64_t m)
{
	double		worst = -INFINITY;

	for (int64_t j = 1; j <= m; j++)
	{
		double		a = -(double) (k - j + 1) * lq,
					b = j > 1 ? log((double) (j - 1)) - lq : -INFINITY,
					hi = fmax(a, b),
					s = hi + log1p(exp(fmin(a, b) - hi));

		worst = fmax(worst, s);
	}
	return worst - log1p(exp(lq));
}

int64_t
keysel_threshold_log(uint64_t num, uint64_t den, int64_t k, int64_t m, double log_delta)
{
	double		lq,
				lw,
				t;
	int64_t		T;

#if DPOBJ_MUTANT_IS(keysel)
	log_delta += log(DPOBJ_MUTANT_FACTOR);	/* audit mutant: delta f times */
#endif
	if (num < 1 || den < 1 || num > (1ULL << 31) || den > (1ULL << 31) || k < 1 || m < 1 ||
		!(log_delta < 0) || !isfinite(log_delta))
		return -1;
	if (m > k)
		m = k;
	/* q rounded up (a larger q only raises every tail) */
	lq = -((double) den / (double) num) * (1 - 1e-12);
	lw = keysel_log_worst(lq, k, m);
	/* q^T worst <= delta  <=>  T >= (lw - log delta) / -lq */
	t = ceil((lw - log_delta + KEYSEL_SLACK) / -lq);
	if (!(t < 9007199254740992.0))
		return -1;
	T = (int64_t) fmax(t, (double) (k + 1));
	/* the closed form's rounding: step up until the bound holds with slack */
	while ((double) T * lq + lw > log_delta - KEYSEL_SLACK)
		T++;
	return T;
}

int64_t
keysel_threshold(uint64_t num, uint64_t den, int64_t k, int64_t m, double delta)
{
	if (!(delta > 0 && delta < 1))
		return -1;
	return keysel_threshold_log(num, den, k, m, log(delta));
}

bool
keysel_draw(gsl_rng *rng, int64_t count, uint64_t num, uint64_t den, int64_t T, int64_t *noisy)
{
	*noisy = count + dpnoise_discrete_laplace(rng, num, den);
	return *noisy >= T;
}
