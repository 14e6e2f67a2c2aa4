/*-------------------------------------------------------------------------
 *
 * dpnoise.h
 *	  Exact discrete noise on integers (Canonne, Kamath, Steinke, "The
 *	  Discrete Gaussian for Differential Privacy", NeurIPS 2020, Algorithms
 *	  1 and 2): only integer arithmetic on uniformly random 32-bit words from
 *	  a gsl_rng whose range is [0, 2^32 - 1] (random.h: pg_strong_random(),
 *	  or the seeded Mersenne Twister of the tests), so no floating-point
 *	  rounding can leak through the noise (Mironov 2012).  Plain C + GSL,
 *	  shared with the unit tests (tests/unit/test_dpnoise.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_DPNOISE_H
#define DPOBJ_DPNOISE_H

#include <stdbool.h>
#include <stdint.h>

#include <gsl/gsl_rng.h>

/* a uniform integer in [0, n), n >= 1, by rejection (no modulo bias) */
extern uint64_t dpnoise_uniform(gsl_rng *rng, uint64_t n);

/* Bernoulli(num / den), 0 <= num <= den, den >= 1 */
extern bool dpnoise_bernoulli(gsl_rng *rng, uint64_t num, uint64_t den);

/* Bernoulli(exp(-num / den)), num >= 0, den >= 1 (CKS20 Algorithm 1) */
extern bool dpnoise_bernoulli_exp(gsl_rng *rng, uint64_t num, uint64_t den);

/*
 * Discrete Laplace with scale num/den: P[Y = y] proportional to
 * exp(-|y| den / num) for every integer y (CKS20 Algorithm 2 with t = num,
 * s = den).  1 <= num, den <= 2^31, so every intermediate product fits in
 * 64 bits.
 */
extern int64_t dpnoise_discrete_laplace(gsl_rng *rng, uint64_t num, uint64_t den);

#endif							/* DPOBJ_DPNOISE_H */
