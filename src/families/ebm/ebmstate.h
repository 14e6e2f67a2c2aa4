/*-------------------------------------------------------------------------
 *
 * ebmstate.h
 *	  dp_ebm's state, the type dpobj.ebm_state (aggstate.h): its rows kept
 *	  (keptrows.h: distinct rows with their label counts, spilled past
 *	  dpobj.max_state_memory, replayed in blocks), never clipped; a float8
 *	  label is a row's last word.  Transition, combine and type I/O in
 *	  ebmstate.c; the final function starts with ebmstate_final_begin().
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_EBMSTATE_H
#define DPOBJ_EBMSTATE_H

#include "postgres.h"

#include "fmgr.h"
#include "utils/jsonb.h"

#include "mechanisms/operating.h"
#include "state/keptrows.h"

/* a yes/no label, or a float8 label (the last word of a row) */
#define EBM_KIND_CLASS	1
#define EBM_KIND_REG	2

/* what the final function sees: the run's parameters over the kept rows */
typedef struct EBMState
{
	int			kind;
	OpParams	params;
	Jsonb	   *options;
	DPKeptRows	rows;			/* rows.d counts a float8 label */
} EBMState;

/* As glmstate_final_begin() (families/glm/glmstate.h): the rows in canonical order */
struct DPProtectedContext;
extern EBMState *ebmstate_final_begin(FunctionCallInfo fcinfo, int kind,
									  struct DPProtectedContext **pctx);

/* the driver's admit (mechanism.h) on an ebm state of kind */
extern void *ebm_admit(FunctionCallInfo fcinfo, int kind, struct DPProtectedContext **pctx);

#endif							/* DPOBJ_EBMSTATE_H */
