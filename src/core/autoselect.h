/*-------------------------------------------------------------------------
 *
 * autoselect.h
 *	  The selection core of private model selection (dpobj.dp_auto,
 *	  src/families/glm/glmauto.c): a data-independent random partition of the
 *	  rows and report noisy max with exact discrete Laplace noise.  Plain C
 *	  + GSL over dpnoise.c, unit-tested in tests/unit/test_autoselect.c;
 *	  docs/PRIVACY.md "Private model selection (auto)" has the proof.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_AUTOSELECT_H
#define DPOBJ_AUTOSELECT_H

#include <stdbool.h>
#include <stdint.h>

#include <gsl/gsl_rng.h>

/*
 * Splits a count c >= 0 of equal rows into nparts parts (1 <= nparts <=
 * 2^31): each of the c rows goes to a part independently and uniformly at
 * random (dpnoise_uniform, no modulo bias), so out[0..nparts-1] is
 * multinomial(c; 1/nparts, ...) and sums to c.  The assignment never looks
 * at a row's value: the partition is independent of the data.
 */
extern void autosel_split(gsl_rng *rng, int64_t c, int nparts, int64_t *out);

/*
 * The discrete Laplace scale num/den >= 2/epsilon of report noisy max at
 * epsilon (scores of sensitivity 1 that may move in opposite directions),
 * den = 2^s, 1 <= num, den <= 2^31 (dpnoise_discrete_laplace's range);
 * rounded up, so the noise is never below 2/epsilon.  false when 2 /
 * epsilon exceeds 2^31 or epsilon is not finite and positive.
 */
extern bool autosel_laplace_scale(double epsilon, uint64_t *num, uint64_t *den);

/*
 * Report noisy max: the index k in [0, n) maximising scores[k] + Z_k, Z_k
 * iid discrete Laplace of scale num/den, ties to the lowest index; n >= 1.
 * Only the index is the output; the noisy scores are not returned.
 */
extern int	autosel_noisy_max(gsl_rng *rng, const int64_t *scores, int n,
							  uint64_t num, uint64_t den);

/*
 * Balanced-accuracy weights from (noisy) class counts npos, nneg: the
 * integer weights W_y = round(2^bits m / n_y) in [wmin, 2^bits], n_y the
 * count clamped to [1, 2^40] and m the smaller of the two, so the
 * minority's is 2^bits and the sum of W_y over rows right is proportional to
 * balanced accuracy at those counts.  Deterministic post-processing (the
 * counts are a DP output); 0 <= bits <= 20, 1 <= wmin <= 2^bits.
 */
extern void autosel_balance_weights(int64_t npos, int64_t nneg, int bits, int64_t wmin,
									int64_t *wpos, int64_t *wneg);

/*
 * The balance estimate's release and its weights: npos and nneg each plus
 * iid discrete Laplace of scale num/den (the positives' drawn first), then
 * autosel_balance_weights() of the noisy counts.  Each count moves by at most
 * one per row, so the pair is eps-DP at num/den >= 2 / eps (k rows: 2k / eps).
 */
extern void autosel_noisy_balance_weights(gsl_rng *rng, int64_t npos, int64_t nneg,
										  uint64_t num, uint64_t den, int bits, int64_t wmin,
										  int64_t *wpos, int64_t *wneg);

#endif							/* DPOBJ_AUTOSELECT_H */
