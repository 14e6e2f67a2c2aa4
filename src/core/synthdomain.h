/*-------------------------------------------------------------------------
 *
 * synthdomain.h
 *	  A synthesized column's public domain: its levels as the scan counts
 *	  them ("scan levels"), its levels in the model ("model levels") and the
 *	  way back from a model level to a value.  Plain C.
 *
 *	  - levels: the declared levels, codes 0..n-1; scan = model levels.
 *	  - declared bins: [lo, hi] cut into B equal-width bins, a value
 *	    outside clamped to the end bin (a public rule: it never depends on
 *	    the rows); scan = model levels.
 *	  - private quantile bins: the scan counts S equal-width sub-bins of
 *	    [lo, hi]; the column's single-column measurement is made on them
 *	    (its share of the charge), and the model's at most B bins are runs
 *	    of sub-bins cut where the noisy cumulative count crosses j/B of the
 *	    noisy total (post-processing; the edges are released).
 *	  A nullable column has one more level, last: NULL.
 *
 *	  A synthetic value of a binned column is drawn within its model bin:
 *	  a sub-bin with probability proportional to its noisy count clamped at
 *	  0 (quantile bins; all 0: uniform), then uniformly within it (a
 *	  continuous column: lo + (i + U) (hi - lo) / S; an integer column: a
 *	  uniform integer of the sub-bin's integers, else its nearest).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_SYNTHDOMAIN_H
#define DPOBJ_SYNTHDOMAIN_H

#include <stdbool.h>
#include <stdint.h>

#include <gsl/gsl_rng.h>

#define SYNTH_MAX_LEVELS 65536

typedef enum SynthColumnKind
{
	SYNTH_COL_LEVELS = 0,
	SYNTH_COL_BINS,
	SYNTH_COL_QUANTILE
} SynthColumnKind;

typedef struct SynthColumn
{
	SynthColumnKind kind;
	int			nlevels;		/* levels: the declared levels (NULL excluded) */
	double		lo,
				hi;				/* bins: the declared interval, lo < hi */
	int			nbins;			/* bins: B; quantile: at most B model bins */
	int			nsub;			/* quantile: S sub-bins, S >= B */
	bool		integer;		/* draws are integers */
	bool		nullable;		/* one more level: NULL */

	/* quantile bins once chosen (synth_quantile_bins): */
	int		   *map;			/* sub-bin (and NULL) -> model bin, malloc'd */
	int			nmodel;			/* model bins chosen (NULL excluded) */
	double	   *edges;			/* nmodel + 1 edges, malloc'd */
	double	   *weight;			/* the sub-bins' noisy counts, clamped at 0 */
} SynthColumn;

/* false when the declaration is out of range (a public refusal) */
extern bool synth_column_valid(const SynthColumn *c);

/*
 * Whether a binned column's width times its (sub-)bins is finite, so that
 * every bin edge lo + (hi - lo) i / n and draw within it is (part of
 * synth_column_valid)
 */
extern bool synth_column_fine(const SynthColumn *c);

/* the scan's levels: levels, bins or sub-bins, plus NULL */
extern int	synth_column_scan_levels(const SynthColumn *c);

/* the model's levels: as the scan's, or the chosen quantile bins plus NULL */
extern int	synth_column_model_levels(const SynthColumn *c);

/* a numeric value's scan level (NaN: NULL's when nullable, else the first) */
extern int	synth_column_code(const SynthColumn *c, double x, bool isnull);

/*
 * Quantile bins from the noisy sub-bin counts noisy[0..S-1] (NULL's count,
 * if any, at S): fills c->map, c->nmodel, c->edges, c->weight.  false when
 * out of memory.
 */
extern bool synth_quantile_bins(SynthColumn *c, const double *noisy);
extern void synth_column_free(SynthColumn *c);

/*
 * A value within model level `level` (not NULL's) of a binned column; the
 * caller knows NULL's level (the last when nullable).
 */
extern double synth_column_draw(const SynthColumn *c, int level, gsl_rng *rng);

#endif							/* DPOBJ_SYNTHDOMAIN_H */
