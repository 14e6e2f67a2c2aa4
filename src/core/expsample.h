/*-------------------------------------------------------------------------
 *
 * expsample.h
 *	  Exact sampling of the exponential mechanism over a finite list of
 *	  integer losses: index k with probability proportional to
 *	  exp(-gamma (L_k - Lmin)), gamma = num/den a binary rational, by
 *	  rejection from the uniform proposal with Bernoulli(exp(-gamma Delta))
 *	  acceptance (the exact samplers of dpnoise.h), so no floating-point
 *	  rounding decides an outcome and every index has positive probability.
 *	  Plain C + GSL, unit-tested in tests/unit/test_expsample.c.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_EXPSAMPLE_H
#define DPOBJ_EXPSAMPLE_H

#include <stdbool.h>
#include <stdint.h>

#include <gsl/gsl_rng.h>

/* the largest power of two used as the denominator of gamma */
#define EXPSAMPLE_DEN_BITS 62

/*
 * gamma = epsilon / 2 as num / den, den = 2^s with s <= EXPSAMPLE_DEN_BITS
 * and num < 2^63, for a finite epsilon > 0.  Exact (returns true) when
 * epsilon / 2 has at most EXPSAMPLE_DEN_BITS fractional bits and is below
 * 2^61; otherwise num / den is the largest such rational below epsilon / 2
 * (returns false) -- a smaller gamma, hence still epsilon-DP.  num may be 0
 * (epsilon < 2^-61: the uniform distribution).
 */
extern bool expsample_gamma(double epsilon, uint64_t *num, uint64_t *den);

/* the caller's interrupt check: true to stop; must not longjmp */
typedef bool (*expsample_poll_fn) (void *arg);

typedef enum ExpSampleResult
{
	EXPSAMPLE_OK,
	EXPSAMPLE_STOPPED			/* the poll callback asked to stop */
} ExpSampleResult;

/*
 * Sets *chosen to an index k in [0, n) drawn with probability proportional
 * to exp(-(num/den) (loss[k] - minloss)); n >= 1, minloss <= every loss[k],
 * den >= 1 and num < 2^63.  poll (may be NULL) is called every
 * EXPSAMPLE_POLL_EVERY proposals.  Expected proposals: n / sum_k
 * exp(-gamma (loss[k] - minloss)) <= n, so the running time depends on the
 * losses (docs/PRIVACY.md).
 */
#define EXPSAMPLE_POLL_EVERY 1024
extern ExpSampleResult expsample_draw(gsl_rng *rng, const int64_t *loss, int64_t n,
									  int64_t minloss, uint64_t num, uint64_t den,
									  expsample_poll_fn poll, void *poll_arg,
									  int64_t *chosen);

#endif							/* DPOBJ_EXPSAMPLE_H */
