/*-------------------------------------------------------------------------
 *
 * halfspacestate.h
 *	  The state of the halfspace aggregates (dp_halfspace,
 *	  dp_halfspace_rspm, dp_expmech): the type dpobj.halfspace_state, a
 *	  multiset of distinct quantised feature vectors with their positive and
 *	  negative label counts (aggstate.h, rowset.h).
 *
 * Memory grows with the number of distinct quantised rows u, not with n:
 * while aggregating, 8d + 32 bytes per distinct row plus doubling slack
 * (rowset.h); the final function works on a canonical copy (8d + 16
 * bytes per row).  The SQL-callable transition, combine and type I/O
 * functions live in halfspacestate.c; final functions start with
 * hsstate_final_begin().
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_HALFSPACESTATE_H
#define DPOBJ_HALFSPACESTATE_H

#include "base/dpobj.h"
#include "families/halfspace/halfspaceparams.h"
#include "core/opdisc.h"

#include "fmgr.h"
#include "utils/jsonb.h"

/*
 * What a final function sees: the rows in canonical order (ascending
 * lexicographic in the quantised values), so that the mechanism's input
 * depends only on the multiset of rows -- not on the scan order, the
 * parallel workers or the Citus shards that built it.
 */
typedef struct HSState
{
	int			d;				/* dimension */
	HSParams	params;
	Jsonb	   *options;		/* the run's options (NULL if none) */
	int			nrows;			/* distinct quantised rows */
	int64	   *x;				/* x[u*d .. u*d+d-1] = round(Q x) */
	int64	   *pos;			/* label-true count of row u */
	int64	   *neg;			/* label-false count of row u */
} HSState;

/*
 * Start of every final function on this state: refuses a call outside an
 * aggregate or on a Citus worker node (distributed.h), claims the
 * protected-path context when train() set one for this aggregate (*pctx,
 * else NULL), and returns the canonical state -- an empty one on the
 * protected path when no row survived; on the direct path NULL for no rows
 * (no mechanism runs, nothing is charged).
 */
struct DPProtectedContext;
extern HSState *hsstate_final_begin(FunctionCallInfo fcinfo,
									struct DPProtectedContext **pctx);

/*
 * The exact oracle's problem over the state's rows (deduplicated, quantised,
 * canonical order) on the grid |w_j| <= B, ||w||^2 <= D2, and mip_memory the
 * room the cap reserves for the search's tables; every other field (eta,
 * costs, limits) zero for the caller to set.  Points into s.
 */
extern void hsstate_problem(const HSState *s, int B, int D2, OPDiscProblem *problem);

/*
 * A state with no rows, in CurrentMemoryContext: the protected path runs
 * the mechanism even when no row survived (the output must not reveal that
 * the selection was empty).
 */
extern HSState *hsstate_create_empty(int d, double epsilon, double delta,
									 Jsonb *options);

/*
 * On a Citus table (family.h, citus_options): the run's options with
 * "sample_rows" K, the most rows the coordinator's state keeps for the run
 * (its cap, dpobj.oracle_threads, d and the options' "sample_rows").
 */
extern Jsonb *hsstate_citus_options(const struct DPProtectedContext *ctx);

#endif							/* DPOBJ_HALFSPACESTATE_H */
