/*-------------------------------------------------------------------------
 *
 * privquant.h
 *	  A private quantile of the rows' norms over a public geometric grid of
 *	  candidates ("R": "private" of dp_logistic and dp_noisysgd): the
 *	  exponential mechanism with loss max(0, t - c_i, c_(i-1) + 1 - t), c_i = #{rows: norm <= R_i}
 *	  (c_(-1) = 0, and the largest candidate counts every row), t = ceil(q n):
 *	  0 exactly for the candidate whose bracket (R_(i-1), R_i] holds the t-th
 *	  smallest norm, growing with the rows between; sampled exactly
 *	  (expsample.h).  The loss moves by at most k when k rows are
 *	  replaced, added or removed (docs/PRIVACY.md, "Private norm bound"), so
 *	  gamma = epsilon / (2 k) makes the choice epsilon-DP (and epsilon-
 *	  bounded-range, hence epsilon^2/8-zCDP).  Plain C + GSL, unit-tested in
 *	  tests/unit/test_privquant.c.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_PRIVQUANT_H
#define DPOBJ_PRIVQUANT_H

#include <stdbool.h>
#include <stdint.h>

#include <gsl/gsl_rng.h>

#include "core/expsample.h"

/*
 * The candidates R_i = 2^((PRIVQUANT_KMIN + i) / 4), i = 0 .. PRIVQUANT_N - 1:
 * 2^-16 (about 1.5e-5) to 2^20 (about 1.05e6, the largest declared "R"),
 * ratio 2^(1/4) (about 1.19).
 */
#define PRIVQUANT_KMIN	(-64)
#define PRIVQUANT_KMAX	80
#define PRIVQUANT_N		(PRIVQUANT_KMAX - PRIVQUANT_KMIN + 1)

/* R_i, 0 <= i < PRIVQUANT_N (exact constants scaled by powers of two) */
extern double privquant_candidate(int i);

/*
 * The bin of a norm: the smallest i with norm <= R_i; the largest candidate's
 * (PRIVQUANT_N - 1) when the norm is above every candidate (or NaN): R-hat =
 * R_max clips them all.  A histogram has PRIVQUANT_N bins.
 */
extern int	privquant_bin(double norm);

/* ceil(q n) exactly, 0 < q < 1, n >= 0 */
extern int64_t privquant_target(double q, int64_t n);

/*
 * loss[i] = max(0, t - c_i, c_(i-1) + 1 - t), c_i = rows in bins 0 .. i,
 * c_(-1) = 0, t = ceil(q n), n = c_(N-1) (hist: PRIVQUANT_N nonnegative
 * counts; sums saturate at INT64_MAX); returns the smallest loss.
 */
extern int64_t privquant_losses(const int64_t *hist, double q, int64_t *loss);

/* the same over the first nbins (1..PRIVQUANT_N) bins of any grid */
extern int64_t privquant_losses_n(const int64_t *hist, int nbins, double q, int64_t *loss);

/*
 * Draws the index of R-hat: P(i) proportional to exp(-gamma loss[i]),
 * gamma = floor(num / k) / den for expsample_gamma(epsilon) = num / den,
 * widened to den = 2^62 or num >= 2^61 first (k >= 1: the rows a neighbour
 * may change; floor only lowers gamma, by less than 2^-61 relative).  As
 * expsample_draw: EXPSAMPLE_STOPPED when poll asks to stop.
 */
extern ExpSampleResult privquant_draw(gsl_rng *rng, const int64_t *hist, double q,
									  double epsilon, int k, expsample_poll_fn poll,
									  void *poll_arg, int *chosen);

/*
 * The same over a grid of nbins (1..PRIVQUANT_N) candidates of the caller's
 * (hist: nbins counts, the last one counting every value above the others):
 * rows_per_unit "private" draws k' over 1, 2, 4, ..., k (protected/unitbound.c)
 */
extern ExpSampleResult privquant_draw_n(gsl_rng *rng, const int64_t *hist, int nbins,
										double q, double epsilon, int k,
										expsample_poll_fn poll, void *poll_arg, int *chosen);

#endif							/* DPOBJ_PRIVQUANT_H */
