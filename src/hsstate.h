/*-------------------------------------------------------------------------
 *
 * hsstate.h
 *	  Transition state of the halfspace aggregates: distinct quantised
 *	  feature vectors with their positive and negative label counts.
 *
 * Memory grows with the number of distinct quantised rows, not with n:
 * each distinct row costs d * 8 bytes of features + 16 bytes of counts +
 * a few bytes of hash index.  Everything lives in the aggregate's memory
 * context.  The layout is flat arrays so that the state can later be
 * serialised and combined (parallel aggregation) without pointer chasing.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_HSSTATE_H
#define DPOBJ_HSSTATE_H

#include "dpobj.h"
#include "hsparams.h"

#include "fmgr.h"
#include "utils/jsonb.h"

typedef struct HSState
{
	MemoryContext mcxt;			/* aggregate context owning all arrays */
	int			d;				/* dimension, fixed by the first row */
	HSParams	params;
	Jsonb	   *options;		/* first row's options (NULL if none) */

	/* distinct rows: x[u*d .. u*d+d-1], pos[u], neg[u] */
	int			nrows;
	int			maxrows;
	int64	   *x;
	int64	   *pos;
	int64	   *neg;

	/* open-addressing hash index: slot -> row + 1 (0 = empty) */
	int32	   *slots;
	uint32		nslots;			/* power of two */
	uint32	   *hashes;			/* hash of each distinct row */
	int64	   *scratch;		/* d quantised values of the current row */
} HSState;

/*
 * Adds one (features, label) row: validates the arguments (same ones on
 * every row), quantises the features, and counts the row.  Errors never
 * quote row values.
 */
extern HSState *hsstate_accum(FunctionCallInfo fcinfo, HSState *state,
							  const char *aggname, bool has_options);

/*
 * Start of every final function on this state: claims the protected-path
 * context when train() set one for this aggregate (*pctx, else NULL) and
 * then returns a state even for no rows; on the direct path returns NULL
 * for no rows (no mechanism runs, nothing is charged).
 */
struct DPProtectedContext;
extern HSState *hsstate_final_begin(FunctionCallInfo fcinfo,
									struct DPProtectedContext **pctx);

/*
 * A state with no rows, in CurrentMemoryContext: the protected path runs
 * the mechanism even when no row survived (the output must not reveal that
 * the selection was empty).
 */
extern HSState *hsstate_create_empty(int d, double epsilon, double delta,
									 Jsonb *options);

#endif							/* DPOBJ_HSSTATE_H */
