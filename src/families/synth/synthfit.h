/*-------------------------------------------------------------------------
 *
 * synthfit.h
 *	  A run that fits dpobj.max_state_memory (synthfit.c): the state's
 *	  layout and the public bound on a run's memory, the column sets that
 *	  would not fit left out on public grounds only (the columns' levels,
 *	  the workload, the caps), as AIM keeps its model under a size limit.
 *
 *	  The bound (bytes): the state's counts and the quantile sub-bins'
 *	  offset sums twice (a parallel worker's flat copy arrives beside the
 *	  leader's), the distinct-row hash, every
 *	  candidate's counts and model marginal (24 a cell, at the rounds'
 *	  levels: a quantile column's bins), the measurements
 *	  (at most d + R of the largest candidate's cells, 16 a cell; R the
 *	  rounds' public bound) and the junction tree (96 a cell of
 *	  max_model_cells).
 *
 *	  The fit: the workload's sets of more than "max_set_cells" cells are
 *	  replaced by their subsets one column smaller (down to the pairs and
 *	  single columns), and the state holds at most "max_state_cells"
 *	  counts (the layout keeps the sets that fit, core/synthstate.h).  While
 *	  the bound exceeds the cap, the larger of its two shares shrinks by a
 *	  quarter: the largest kept set (max_set_cells) or the state
 *	  (max_state_cells).  Refused only when the single columns alone do
 *	  not fit.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_SYNTHFIT_H
#define DPOBJ_SYNTHFIT_H

#include "postgres.h"

#include "core/synthstate.h"

typedef struct SynthFit
{
	/* in, public */
	int			d;
	const int  *levels;			/* the scan's levels per column */
	const int  *model_levels;	/* the rounds' (a quantile column's: its bins) */
	const char *const *names;	/* the columns' names (the NOTICE) */
	const SynthSet *workload;	/* the analyst's sets, or NULL: the default (core/synthwork.h) */
	int			nworkload;
	int			label;			/* a column, or -1 */
	int64		max_model_cells;
	double		rounds;			/* the rounds' public bound R */
	int64		sums;			/* the quantile sub-bins' offset sums (8 bytes each) */
	/* in: the caps to start from (max_set_cells 0: none); out: fitted */
	int64		max_state_cells;
	int64		max_set_cells;
	/* out */
	SynthLayout *layout;		/* built here (synth_layout_free frees it) */
	int64		hash_slots;		/* the distinct-row hash (core/synthrows.h), 0: none */
	int64		run_bytes;		/* the bound */
} SynthFit;

/* the bytes dpobj.max_state_memory allows a run */
extern int64 synthfit_cap_bytes(void);

/*
 * The layout, max_state_cells and max_set_cells fitted to the cap,
 * hash_slots and run_bytes set; refuses (22023) when the single columns
 * alone do not fit.  The layout is freed with cxt.
 */
extern void synthfit_fit(SynthFit *f, MemoryContext cxt);

/*
 * A NOTICE (before the charge) naming the workload sets the fit left out,
 * the caps and the bound; none when nothing was left out.
 */
extern void synthfit_notice(const SynthFit *f);

#endif							/* DPOBJ_SYNTHFIT_H */
