/*-------------------------------------------------------------------------
 *
 * synthagg.h
 *	  The state of dp_synthesize_cols, the type dpobj.synth_state
 *	  (synthagg.c): the exact counts of every stored marginal of the
 *	  one-scan layout (core/synthstate.h), whose size is public (the
 *	  options' columns, candidates and caps), and the distinct-row hash
 *	  that feeds them (core/synthrows.h).
 *
 *	  In memory an expanded object in the aggregate's context, updated in
 *	  place row after row; it leaves its process (a parallel worker's
 *	  tuple queue, Citus's text) flat: the counts, the hash folded first.
 *	  Flat form (big-endian): uint32 magic "DPS1", float8 epsilon, delta,
 *	  uint32 length of the options' jsonb text, that text, int64 cells,
 *	  cells x int64 counts, then the quantile columns' sub-bins' offset
 *	  sums (synthparams.h, sum_at).  The reader rebuilds the layout from the
 *	  options (as a first row would) and accepts only its number of cells
 *	  and sums, non-negative.  Text form: base64 of it.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_SYNTHAGG_H
#define DPOBJ_SYNTHAGG_H

#include "postgres.h"

#include "fmgr.h"
#include "utils/expandeddatum.h"

#include "context/protected.h"
#include "core/synthrows.h"
#include "families/synth/synthparams.h"

typedef struct SynthAggState
{
	ExpandedObjectHeader hdr;
	SynthParams *p;				/* in the state's context */
	double		epsilon;
	double		delta;
	Jsonb	   *options;
	char	   *options_text;	/* canonical, for the same-run checks */
	int64	   *counts;			/* p->layout.cells */
	int64	   *sums;			/* p->nsums: quantile sub-bins' offset sums */
	SynthRows	hash;			/* malloc'd, when p->hash_slots > 0 */
	bool		hashing;
} SynthAggState;

/*
 * The final function's first step (mechanism_claim): the state with every
 * row in its counts, or on the protected path with no row an empty one of
 * the protected context's run; NULL on the direct path with no row.
 */
extern SynthAggState *synthagg_final_begin(FunctionCallInfo fcinfo, DPProtectedContext **pctx);

#endif							/* DPOBJ_SYNTHAGG_H */
