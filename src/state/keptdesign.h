/*-------------------------------------------------------------------------
 *
 * keptdesign.h
 *	  The dense design over the kept rows (keptrows.h), a floor of the
 *	  families that keep rows (GLM's noisy GD, OPSamp and 'auto'; ebm): the
 *	  observations (distinct row, label +-1, count times its label's class
 *	  weight) in the rows' canonical order, whole when they fit in a share
 *	  of dpobj.max_state_memory, else built block by block on every pass.
 *	  Each pass lists the same observations in the same order either way.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_KEPTDESIGN_H
#define DPOBJ_KEPTDESIGN_H

#include "state/keptrows.h"

typedef struct DPKeptDesign
{
	int			pp;
	/* the whole design (rows == NULL) or the current block's */
	const double *X;
	const double *cnt;
	const double *y;
	int64		nobs;
	DPKeptBlocks *rows;			/* in blocks: the kept rows' blocks */
	bool		intercept;
	double		w[2];			/* the class weights the counts carry (positive, negative) */
	MemoryContext cxt;			/* in blocks: the current block's design */
	double		clip;			/* > 0: rows clipped to this l2 norm (keptdesign_clip) */
	double		weigh[2];		/* > 0: counts scaled by these (positive, negative;
								 * keptdesign_weigh) */
} DPKeptDesign;

/*
 * Observation k's label in D: 1 or 0, or (regression) the float8 label
 * after the d features scaled from its public [y_min, y_max] to [-1, 1] and
 * clipped there
 */
static inline double
keptdesign_label(const DPKeptDesign *D, int64 k, int d, bool regression,
				 double y_min, double y_max)
{
	double		y;

	if (!regression)
		return D->y[k] > 0 ? 1.0 : 0.0;
	y = 2.0 * (D->X[(Size) k * D->pp + d] - y_min) / (y_max - y_min) - 1.0;
	return y > 1.0 ? 1.0 : y < -1.0 ? -1.0 : y;
}

/*
 * The observations of r: one per (distinct row, label) with a nonzero
 * count, in row order, positives first; row[k] its distinct row, cnt[k] its
 * count times its label's weight w (positive, negative), y[k] its label
 * +-1.  Each array holds at least max(2 nrows, 1) entries (palloc'd by
 * keptrows_observations: huge allocations, bounded by memory only).
 * Returns their number.
 */
extern int64 keptrows_observations(const DPKeptRows *r, const double w[2], int **row,
								   double **cnt, double **y);
extern int64 keptrows_observations_into(const DPKeptRows *r, const double w[2], int *row,
										double *cnt, double *y);

/* the dense design of r's observations, x augmented with 1 if intercept */
extern void keptrows_design(const DPKeptRows *r, const double w[2], bool intercept,
							double **X, double **cnt, double **y, int64 *nobs, int *p);

/*
 * The rows a block of the design of d-word rows holds (its rows and dense
 * design within KEPTROWS_DESIGN_EIGHTHS of the cap); a design of at most
 * that many rows in memory is built whole
 */
extern int	keptdesign_block_rows(int d, bool intercept);

/* the design of r at class weights w: whole (built now) or in blocks, as above */
extern void keptdesign_begin(DPKeptDesign *D, const DPKeptRows *r, bool intercept,
							 const double w[2]);

/*
 * The first (first = true, starting over) or next block of D's observations
 * into D->X, cnt, y, nobs; false after the last (a whole design is one block).
 */
extern bool keptdesign_next(DPKeptDesign *D, bool first);

/*
 * Clips every observation of D to l2 norm R (the intercept's 1 untouched):
 * at once for a whole design, else as each block is built ("R": "private"
 * clips to R-hat, drawn after the design was built).
 */
extern void keptdesign_clip(DPKeptDesign *D, double R);

/*
 * Scales every observation's count of D by its label's factor (positive,
 * negative; each in (0, 1]): at once for a whole design, else as each block
 * is built (weights estimated after the design was built).
 */
extern void keptdesign_weigh(DPKeptDesign *D, double wpos, double wneg);

/*
 * D's positive and negative rows, each observation's row count recovered
 * from its count carrying class weight w (tune_row_count), saturating at
 * 2^62: one row replaced moves each by at most 1.
 */
extern void keptdesign_label_counts(DPKeptDesign *D, const double w[2], int64 out[2]);

#endif							/* DPOBJ_KEPTDESIGN_H */
