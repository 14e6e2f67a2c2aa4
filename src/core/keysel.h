/*-------------------------------------------------------------------------
 *
 * keysel.h
 *	  Private key selection by a noisy threshold (Korolova et al., WWW
 *	  2009; Wilson et al., PETS 2020): each key's count gets discrete
 *	  Laplace noise Y of scale num / den (dpnoise.h), and the key is
 *	  released iff count + Y >= T, all in integers.  T is the least
 *	  integer > k such that the keys one neighbour has and the other lacks
 *	  (at most m of them, their counts summing to at most k: one unit's
 *	  rows) are released with probability <= delta in all:
 *	    max over j in 1..m of  P(Y >= T - (k - j + 1)) + (j - 1) P(Y >= T - 1)
 *	  with P(Y >= t) = q^t / (1 + q), q = exp(-den / num), t >= 1
 *	  (docs/PRIVACY.md, "Private key selection").  Plain C, unit-tested in
 *	  tests/unit/test_keysel.c.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_KEYSEL_H
#define DPOBJ_KEYSEL_H

#include <stdbool.h>
#include <stdint.h>

#include <gsl/gsl_rng.h>

/*
 * The threshold T for noise num / den (1 <= num, den <= 2^31), a unit of at
 * most k >= 1 rows touching at most m keys (1 <= m; m > k counts as k) and
 * delta in (0, 1); -1 when no T below 2^53 meets delta or an argument is
 * out of range.  Rounded up: a float rounding never lowers T.
 */
extern int64_t keysel_threshold(uint64_t num, uint64_t den, int64_t k, int64_t m, double delta);

/* the same for delta = e^log_delta (log_delta < 0, finite): no underflow for tiny delta */
extern int64_t keysel_threshold_log(uint64_t num, uint64_t den, int64_t k, int64_t m,
									double log_delta);

/*
 * One key's draw: *noisy = count + Y (Y exact discrete Laplace num / den);
 * true iff *noisy >= T, the key is released (with *noisy as its count).
 */
extern bool keysel_draw(gsl_rng *rng, int64_t count, uint64_t num, uint64_t den, int64_t T,
						int64_t *noisy);

#endif							/* DPOBJ_KEYSEL_H */
