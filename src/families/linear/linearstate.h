/*-------------------------------------------------------------------------
 *
 * linearstate.h
 *	  The state of dp_linear_regression and dp_passglm, the type
 *	  dpobj.linreg_state: the
 *	  exact sufficient statistics sum u u^T, sum u v, sum v^2 and the row
 *	  count n of the clipped, normalised rows (linreg.h), with the run's
 *	  public parameters.  Memory is O(d^2), whatever n.
 *
 *	  In memory the state is one varlena in native byte order, updated in
 *	  place by the transition and combine functions in the aggregate's
 *	  context (parallel workers hand it to the leader byte for byte); its
 *	  text (base64) and binary forms are portable (big-endian), for Citus.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_LINEARSTATE_H
#define DPOBJ_LINEARSTATE_H

#include "postgres.h"

#include "fmgr.h"

#include "families/linear/linearparams.h"
#include "core/linreg.h"

typedef struct LinStateData
{
	int32		vl_len_;		/* varlena header */
	uint32		magic;
	int32		d;
	int32		options_len;	/* VARSIZE of the options' jsonb */
	int32		staged;			/* rows in the stage (linreg.h, "Staging") */
	float8		epsilon;
	float8		delta;
	int64		n;
	LinParams	params;
	/*
	 * then linreg_nsums(params.p) LinRegSum, as many int64 of the stage, then
	 * the options' jsonb; a sum's value is the two together
	 */
} LinStateData;

#define LINSTATE_SUMS(s) \
	((LinRegSum *) ((char *) (s) + MAXALIGN(sizeof(LinStateData))))
#define LINSTATE_STAGE(s) \
	((int64_t *) (LINSTATE_SUMS(s) + linreg_nsums((s)->params.p)))
#define LINSTATE_OPTIONS(s) \
	((Jsonb *) (LINSTATE_STAGE(s) + linreg_nsums((s)->params.p)))

/*
 * The final function's first step (aggstate_final_check, mechanism_claim):
 * the state with its stage carried into its sums (in a copy), or on the
 * protected path with no row an empty one made from the protected context;
 * NULL on the direct path with no row.  passglm:
 * dp_passglm's final function (the state must be that aggregate's).
 */
struct DPProtectedContext;
extern LinStateData *linstate_final_begin(FunctionCallInfo fcinfo,
										  struct DPProtectedContext **pctx, bool passglm);

#endif							/* DPOBJ_LINEARSTATE_H */
