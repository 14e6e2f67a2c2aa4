/*-------------------------------------------------------------------------
 *
 * privedges.h
 *	  Private edges of an additive layout's numeric terms (core/ebmbins.h),
 *	  shared by dp_ebm and dp_gbdt: a fit's first pass counts each numeric
 *	  term in grid equal-width cells of [lo, hi] (the fine layout); then
 *	  each term's hierarchical histogram is released (snapped discrete
 *	  Gaussian at the edges' share of rho), its cuts placed at equal-mass
 *	  quantiles of the consistent leaf estimates, and the exact fine counts
 *	  moved to the bins the cuts make.  The grid, the noise and every buffer
 *	  come from public inputs, before any row (docs/PRIVACY.md, "Additive
 *	  boosting").  Implemented in privedges.c.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_PRIVEDGES_H
#define DPOBJ_PRIVEDGES_H

#include "postgres.h"

#include "lib/stringinfo.h"
#include "utils/jsonb.h"

#include "core/additive.h"

typedef struct PrivEdges
{
	EBMTerm    *fine;			/* the fine layout, nterms terms */
	int			nterms;
	int			fine_scores;	/* its scores */
	int			nnum;			/* numeric terms */
	int			bins;			/* a numeric term's most bins */
	int			grid;			/* their cells (ebmbins_fit_grid of the wanted grid) */
	double		rho;			/* the edges' share of rho */
	double		lattice;
	uint64		sigma2;
	uint16	   *maps;			/* numeric term i's map at maps + i grid */
	int		   *cuts;			/* its cuts at cuts + i bins, ncuts[i] of them */
	int		   *ncuts;
	__int128   *tree;			/* a term's exact node counts */
	double	   *noisy;			/* ... released */
	double	   *leaf;			/* its leaves' estimates */
	double	   *work;			/* ebmbins_leaves' */
	__int128   *coarse;			/* the exact counts moved to the bins (max_scores) */
} PrivEdges;

/*
 * The option "binning": true for "private", false for "uniform"; refuses
 * anything else (aggname's error)
 */
extern bool privedges_binning_option(JsonbValue *v, const char *aggname);

/* whether a layout has a numeric term (none: no edges to place) */
extern bool privedges_any_numeric(const EBMTerm *terms, int nterms);

/*
 * The noise (e->rho set by the caller) and buffers for the numeric terms of
 * terms (each of at most bins bins), rows_per_unit k: public inputs only;
 * refused (aggname, hint) outside the exact sampler's range
 */
extern void privedges_init(PrivEdges *e, const EBMTerm *terms, int nterms, int bins,
						   int want_grid, int k, int max_scores, const char *aggname,
						   const char *hint);

/* the fine layout into terms (a fit's first pass counts in it) and its scores */
extern int	privedges_begin(const PrivEdges *e, EBMTerm *terms);

/*
 * After the first pass (exact fine counts in acc, in units of lattice unit
 * 2^-DPNOISE_SUM_BITS): each numeric term's tree released, its cuts, the
 * layout's numeric terms cut into their bins, acc's counts moved to it;
 * returns its scores
 */
extern int	privedges_release(PrivEdges *e, gsl_rng *rng, EBMTerm *terms, __int128 *acc,
							  double unit);

/* numeric term t's cell where its bin `bin` starts (grid past its last bin) */
extern int	privedges_cell(const PrivEdges *e, const EBMTerm *terms, int t, int bin);

/* a numeric term's "grid" and "cuts", as predict reads them */
extern void privedges_term_params(StringInfo buf, const PrivEdges *e, const EBMTerm *terms,
								  int t);

#endif							/* DPOBJ_PRIVEDGES_H */
