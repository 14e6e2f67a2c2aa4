/*-------------------------------------------------------------------------
 *
 * rocauc.h
 *	  ROC AUC from per-label score histograms (docs/PRIVACY.md, "Private
 *	  evaluation"): a score's bin on a public grid, and from the two noisy
 *	  histograms the AUC with an approximate 95 % interval that adds the
 *	  noise's variance (delta method) to the sampling variance (Hanley and
 *	  McNeil 1982) and widens by half the pairs a bin leaves tied.  Plain C,
 *	  unit-tested in tests/unit/test_rocauc.c.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_ROCAUC_H
#define DPOBJ_ROCAUC_H

#include <stdbool.h>

/* the largest number of bins (an even number >= 2) */
#define ROCAUC_MAX_BINS 1024

/*
 * The bin in [0, bins) of a score: v = score - centre mapped to v / (scale +
 * |v|) in (-1, 1), cut into bins equal parts, the scores above centre in
 * the upper half and centre itself in the lower, so that the cut-off
 * "score > centre" is a bin edge; +-infinity in the end bins.  bins even,
 * scale > 0, score not NaN.
 */
extern int	rocauc_bin(double score, double centre, double scale, int bins);

typedef struct RocAUC
{
	double		auc;			/* clamped to [0, 1] */
	double		ci_low;
	double		ci_high;
	double		tied;			/* the share of (positive, negative) pairs in one bin */
	double		sd;				/* sampling and noise together */
} RocAUC;

/*
 * The AUC of the histograms pos[], neg[] (noisy counts, any sign) of bins
 * cells: U / (N1 N0), U = sum_b pos[b] (neg below b + neg[b] / 2), N the
 * sums; each cell's noise variance is noise_var.  The interval is auc -+
 * (1.959964 sd + tied / 2), clamped to [0, 1]: the pairs within a bin count
 * a half each, the true order of any of them is unknown.  false when a noisy
 * class total is below 1 (no estimate).
 */
extern bool rocauc_estimate(const double *pos, const double *neg, int bins,
							double noise_var, RocAUC *out);

#endif							/* DPOBJ_ROCAUC_H */
