/*-------------------------------------------------------------------------
 *
 * opoint.h
 *	  A binary classifier's operating point from a private estimate of the
 *	  label balance (docs/PRIVACY.md, "Operating point"): the positive and
 *	  negative row counts released with exact discrete noise -- snapped
 *	  discrete Gaussian in zCDP, or discrete Laplace in pure DP -- and, by
 *	  post-processing, the balanced-accuracy weights and cut-off.  Plain C
 *	  over dpnoise.c and autoselect.c, unit-tested in tests/unit/test_opoint.c.
 *
 * Replacing a row moves each count by at most 1 (l1 2, l2 sqrt 2); a unit of
 * k rows by k each (l1 2k, l2 sqrt 2 k).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_OPOINT_H
#define DPOBJ_OPOINT_H

#include <stdbool.h>
#include <stdint.h>

#include <gsl/gsl_rng.h>

/* the balance estimate's noise: one of the two forms, public */
typedef struct OpNoise
{
	bool		gauss;			/* snapped discrete Gaussian, else discrete Laplace */
	double		lattice;		/* gauss: the counts' lattice (a power of two) */
	uint64_t	sigma2;			/* gauss: the variance in lattice units */
	uint64_t	num;			/* laplace: the scale num / den */
	uint64_t	den;
} OpNoise;

/*
 * The noise for rho-zCDP (the pair's l2 sensitivity sqrt 2 k: a snapped
 * Gaussian release, T = 1, p = 2, dpnoise_gaussian_lattice_composed) or for
 * eps-DP (scale >= 2k / eps, autosel_laplace_scale(eps / k)).  false when
 * the noise is outside the exact samplers' ranges.
 */
extern bool opoint_noise_gauss(double rho, int k, OpNoise *z);
extern bool opoint_noise_laplace(double eps, int k, OpNoise *z);

/* the noise's standard deviation, in rows */
extern double opoint_noise_sd(const OpNoise *z);

/*
 * The release: npos and nneg (each >= 0) plus independent noise, the
 * positives' drawn first, into noisy[0], noisy[1] (rows; multiples of the
 * lattice, or integers).  Gaussian: each count rounded to the lattice and
 * clamped to +-2^62 lattice units (1-Lipschitz), plus N_Z(0, sigma2).
 */
extern void opoint_noisy_counts(gsl_rng *rng, const OpNoise *z, int64_t npos, int64_t nneg,
								double noisy[2]);

/*
 * Post-processing of the noisy counts: the balanced-accuracy weights of
 * autosel_balance_weights (each count rounded to an integer; the
 * minority's weight 2^bits, the other's round(2^bits m / n) at least
 * wmin), into w[0] (positive), w[1] (negative).
 */
extern void opoint_weights(const double noisy[2], int bits, int64_t wmin, int64_t w[2]);

/*
 * The cut-off on a calibrated log-odds score that balances the classes at
 * these weights: ln(wneg / wpos), predicting positive where p / (1 - p) >
 * wneg / wpos.  With the weights of opoint_weights that is p above the
 * estimated base rate npos / (npos + nneg), within the ratio wmin bounds.
 */
extern double opoint_cut(double wpos, double wneg);

#endif							/* DPOBJ_OPOINT_H */
