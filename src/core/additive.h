/*-------------------------------------------------------------------------
 *
 * additive.h
 *	  Private additive boosting (Nori, Caruana, Bu, Shen, Kulkarni, ICML
 *	  2021): the term layout of an encoded row, bin lookup, the margin, one
 *	  round's update from noisy per-(term, bin) sums, and the calibration.
 *	  Plain C (additive.c, over dpnoise.c), shared with tests/unit/test_ebm.c.
 *
 * A model is a bias and one score table per term.  A term is either one
 * numeric coordinate cut into B equal-width bins over [lo, hi], or a
 * one-hot group of m coordinates (encode.h: a categorical's k + 1 levels)
 * with one score per level.  Every row falls in exactly one bin of every
 * term, so its residual (clipped to [-1, 1]) moves one term's bin sums by
 * at most 1 in l2; replacing it moves them by at most 2 (sqrt 2 in two bins
 * or 2 in one), 2k for a unit of k rows (docs/PRIVACY.md, "Additive
 * boosting").
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_ADDITIVE_H
#define DPOBJ_ADDITIVE_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include <gsl/gsl_rng.h>

#include "core/ebmbins.h"

#define EBM_MAX_BINS	1024

typedef enum EBMTermType
{
	EBM_TERM_NUMERIC = 0,
	EBM_TERM_CATEGORICAL = 1
} EBMTermType;

typedef struct EBMTerm
{
	EBMTermType type;
	int			index;			/* its first coordinate (0-based) */
	int			size;			/* numeric: bins B; categorical: levels m */
	double		lo;				/* numeric: the binned interval */
	double		hi;
	int			offset;			/* its first score in the concatenated tables */
	int			grid;			/* numeric: equal-width cells of [lo, hi] */
	const uint16_t *map;		/* each cell's bin (private edges, ebmbins.h); NULL:
								 * the cell is the bin (grid = size) */
} EBMTerm;

/*
 * The terms of a row of d coordinates: groups[g] (g < ngroups) is 0 for one
 * numeric coordinate, m >= 2 for a one-hot group of m; groups NULL: every
 * coordinate numeric.  Numeric terms get `bins` bins over [lo, hi].
 * Returns the number of terms (at most d) and *nscores, or -1 when the
 * groups do not cover d coordinates exactly or a size is out of range.
 */
extern int	ebm_layout(const int *groups, int ngroups, int d, int bins, double lo,
					   double hi, EBMTerm *terms, int *nscores);

/*
 * The cell of x among grid equal-width cells of [lo, hi]: clamp(floor((x -
 * lo) / (hi - lo) grid), 0, grid - 1) (NaN: cell 0); predict bins with it
 * too (families/ebm/ebmmodel.c), so a model's bins are its training's.
 */
static inline int
ebm_grid_cell(double x, double lo, double hi, int grid)
{
	double		f = floor((x - lo) / (hi - lo) * grid);

	/* NaN fails both comparisons: cell 0 */
	if (!(f >= 0))
		return 0;
	return f >= grid - 1 ? grid - 1 : (int) f;
}

/*
 * The bin of x (the whole row) in term t: numeric, its cell's (map[cell],
 * or the cell itself); categorical, the first coordinate equal to 1, else
 * the largest (the first of equals).
 */
extern int	ebm_bin(const EBMTerm *t, const double *x);

/* every term's score index offset + bin of x, into idx[nterms] */
extern void ebm_index(const EBMTerm *terms, int nterms, const double *x, int *idx);

/* bias + the sum over terms of scores[offset + bin] */
extern double ebm_margin(const EBMTerm *terms, int nterms, const double *scores,
						 double bias, const double *x);

/*
 * A row's residual, clipped to [-c, c] (0 < c <= 1): logit y -
 * sigmoid(margin) (y 1 or 0); identity y - margin, y scaled to [-1, 1].
 */
extern double ebm_residual(bool logit, double y, double margin, double c);

/*
 * One round's steps of n scores from their noisy residual sums and noisy
 * counts: v[b] = clamp(sums[b] / max(max(counts[b], 0) + shrink,
 * min_count), -c, c), the bin's mean residual shrunk towards 0 by shrink
 * pseudo-rows (post-processing of the releases).
 */
extern void ebm_term_step(double *v, int n, const double *sums, const double *counts,
						  double min_count, double shrink, double c);

/*
 * The rows a release of bin counts saw (weighted): each term's count total,
 * averaged over the terms weighing a total of m bins by 1/m (its noise
 * variance is m times a bin's): post-processing of the counts.
 */
extern double ebm_total_count(const EBMTerm *terms, int nterms, const double *counts);

/*
 * A step's shrinkage on a small table: base sum-noise sds over c give
 * base_rows pseudo-rows; when they exceed the table's n (noisy, weighted)
 * rows the shrinkage grows by base_rows / n, at most EBM_SMALL_SHRINK times.
 */
#define EBM_SHRINKAGE 8.0
#define EBM_SMALL_SHRINK 2.0
extern double ebm_shrinkage(double base, double base_rows, double n);

/*
 * The default residual clip of a yes/no label: EBM_CLIP, or EBM_CLIP_LARGE
 * when the table's n (noisy, weighted) rows are at least EBM_CLIP_ROWS
 * times the base_rows of ebm_shrinkage (there the signal beyond c = 1/4
 * outweighs the noise it adds: bench/ebm/results.md)
 */
#define EBM_CLIP 0.25
#define EBM_CLIP_LARGE 0.3
#define EBM_CLIP_ROWS 4.0
extern double ebm_clip_by_size(double base_rows, double n);

/*
 * A numeric term's steps pooled along its n bins, as a linear model pools:
 * the line a + beta (x_b - xbar) through its noisy sums (x_b the bins'
 * centres in [-1, 1], xbar their noisy-count-weighted mean), each
 * coefficient's pseudo-rows shrink times its sum's noise sd over a bin's
 * (sqrt n; sqrt of sum (x_b - xbar)^2), clamped to [-c, c]; v[b] (the bins'
 * steps) becomes share times the line plus (1 - share) v[b].
 */
extern void ebm_line_step(double *v, int n, const double *sums, const double *counts,
						  double shrink, double c, double share);

/*
 * The line's share on a small table: 0 at the base shrinkage, growing with
 * the shrinkage's multiplier to EBM_LINE_SHARE at EBM_SMALL_SHRINK times.
 */
#define EBM_LINE_SHARE 0.5
extern double ebm_line_share(double base, double shrinkage);

/*
 * Each term's scores centred on their noisy-count-weighted mean (counts
 * below 0 weigh 0; all 0: the plain mean), the means moved into *bias:
 * the same margins, an identifiable model.
 */
extern void ebm_center(const EBMTerm *terms, int nterms, double *scores,
					   const double *counts, double *bias);

/* The calibration of a run: two snapped discrete Gaussian releases. */
typedef struct EBMNoise
{
	double		rho_counts;		/* the counts' share of rho */
	double		rho_sums;		/* the rest, for rounds x terms residual sums */
	double		count_lattice;
	uint64_t	count_sigma2;	/* lattice units */
	double		sum_lattice;
	uint64_t	sum_sigma2;
} EBMNoise;

/*
 * The noise for rho-zCDP in total with privacy units of k rows: the counts
 * (nterms releases of a term's weighted bin counts, l2 sensitivity sqrt 2 k:
 * a row moves from one bin to another with a weight <= 1) at count_share
 * rho, the residual sums (rounds x nterms releases of sensitivity 2ck, the
 * residuals clipped to [-c, c]) at the rest; maxsize the largest term.
 * Returns false when a variance is outside the exact sampler's range.
 */
extern bool ebm_noise(double rho, double count_share, int nterms, int maxsize,
					  int64_t rounds, int k, double c, EBMNoise *nz);

/*
 * The noise of private edges (ebmbins.h) at rho_bins-zCDP in total: nterms
 * releases of a tree over grid cells (every node but the root, l2
 * sensitivity sqrt(2 L) k for L levels: a row is in one node per level).
 * Returns false when the variance is outside the exact sampler's range.
 */
extern bool ebm_bin_noise(double rho_bins, int nterms, int grid, int k, double *lattice,
						  uint64_t *sigma2);

/*
 * acc[j] += v in units of g 2^-DPNOISE_SUM_BITS (per_unit: their number in
 * 1), rounded, clamped to +-2^62 (as noisy GD): the exact sums a release
 * snaps (ebm_release_acc)
 */
static inline void
ebm_acc_add(__int128 *acc, int j, double v, double per_unit)
{
	const double limit = ldexp(1.0, 62);
	double		t = v * per_unit;

	if (fabs(t) > limit)
		t = copysign(limit, t);
	acc[j] += lrint(t);
}

/*
 * The snapped release of n exact sums acc in units of lattice 2^-bits:
 * each rounded half away from zero to the lattice, clamped to +-2^62
 * lattice units, plus N_Z(0, sigma2), into out; acc zeroed
 */
extern void ebm_release_acc(gsl_rng *rng, __int128 *acc, int n, int bits, double lattice,
							uint64_t sigma2, double *out);

#endif							/* DPOBJ_ADDITIVE_H */
