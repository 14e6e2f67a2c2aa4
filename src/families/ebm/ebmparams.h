/*-------------------------------------------------------------------------
 *
 * ebmparams.h
 *	  dp_ebm's own options (ebmparams.c): bins, rounds, learning_rate,
 *	  shrinkage, count_share, binning, bin_share, bin_grid, lo, hi and groups (the one-hot groups of the
 *	  row, set by dpobj.train() from the run's encoding); and those it shares
 *	  with the binary classifiers (class_weight, metric, rows_per_unit,
 *	  sample_rows; ebmparams_run).  All public.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_EBMPARAMS_H
#define DPOBJ_EBMPARAMS_H

#include "base/options.h"
#include "core/additive.h"
#include "mechanisms/operating.h"

#include "utils/jsonb.h"

typedef struct EBMParams
{
	int			bins;			/* a numeric coordinate's equal-width bins */
	int			rounds;			/* boosting rounds T: one pass each */
	double		learning_rate;
	double		count_share;	/* the share of rho spent on the bin counts */
	double		residual_clip;	/* a row's residual clipped to [-c, c], (0, 1];
								 * -1: by the table's noisy size (yes/no label) */
	double		shrinkage;		/* a bin's step: sum-noise sds / c added to its count;
								 * -1: by the table's noisy size (ebm_shrinkage) */
	bool		cyclic;			/* a round: one pass per term (true) or one in all */
	double		lo;				/* numeric coordinates binned over [lo, hi] */
	double		hi;
	bool		private_bins;	/* "binning": "private" (edges at private quantiles)
								 * or "uniform" (bins equal-width cells) */
	double		bin_share;		/* private edges: their share of rho */
	int			bin_grid;		/* private edges: the fine grid's cells */
	double		y_min;			/* a float8 label: its public bounds (required) */
	double		y_max;
	bool		have_y;
	int			ngroups;		/* "groups": 0 numeric, m a one-hot group */
	int		   *groups;			/* NULL: every coordinate numeric */
} EBMParams;

/* the defaults (docs/BENCHMARKS.md; bench/ebm) */
extern const DPOptionSpec ebmparams_options[];

/* whether key is one of dp_ebm's own options (ebmparams_run leaves them to ebmparams_init) */
extern bool ebmparams_key(const char *key);

/*
 * The run's parameters (operating.h) from epsilon, delta and the shared
 * options, refusing keys that are neither (regression: a float8 label, no
 * class_weight nor metric); fixed by the first row, or by train() before any
 */
extern void ebmparams_run(bool regression, OpParams *p, double epsilon, double delta,
						  Jsonb *options);

/*
 * The options parsed, and the layout they give for d coordinates (terms
 * palloc'd, *nterms, *nscores); regression: a float8 label, whose y_min and
 * y_max are required (and refused otherwise).  Every error on public grounds.
 */
extern void ebmparams_init(Jsonb *options, int d, bool regression, EBMParams *p,
						   EBMTerm **terms, int *nterms, int *nscores);

#endif							/* DPOBJ_EBMPARAMS_H */
