/*-------------------------------------------------------------------------
 *
 * synthfit.h
 *	  A run that fits dpobj.max_state_memory (synthfit.c): the state's
 *	  layout and the public bound on a run's memory, the column sets that
 *	  would not fit left out on public grounds only (the columns' levels,
 *	  the workload, the caps), as AIM keeps its model under a size limit.
 *
 *	  The bound (bytes): the state's counts twice (a parallel worker's flat
 *	  copy arrives beside the leader's), the distinct-row hash, every
 *	  candidate's counts and model marginal (24 a cell), the measurements
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

#include "families/synth/synthparams.h"

/* the bytes dpobj.max_state_memory allows a run */
extern int64 synthfit_cap_bytes(void);

/*
 * p's layout (freed with cxt), max_state_cells and max_set_cells fitted
 * to the cap, p->run_bytes and p->hash_slots set; refuses (22023) when
 * the single columns alone do not fit.
 */
extern void synthfit_fit(SynthParams *p, MemoryContext cxt);

/*
 * A NOTICE (before the charge) naming the workload sets the fit left out,
 * and the cells it kept at most; none when nothing was left out.
 */
extern void synthfit_notice(const SynthParams *p);

#endif							/* DPOBJ_SYNTHFIT_H */
