/*-------------------------------------------------------------------------
 *
 * ebmstate.h
 *	  dp_ebm's state, the type dpobj.ebm_state (aggstate.h): a kept-row
 *	  state (mechanisms/keptstate.h) with dp_ebm's options.  Its SQL
 *	  entries in ebmstate.c; the final function starts with ebm_admit().
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_EBMSTATE_H
#define DPOBJ_EBMSTATE_H

#include "postgres.h"

#include "fmgr.h"

#include "mechanisms/keptstate.h"

/* a yes/no label, or a float8 label (the last word of a row) */
#define EBM_KIND_CLASS	KEPT_KIND_CLASS
#define EBM_KIND_REG	KEPT_KIND_REG

/* what the final function sees: the run's parameters over the kept rows */
typedef DPKeptState EBMState;

/* the driver's admit (mechanism.h) on an ebm state of kind */
struct DPProtectedContext;
extern void *ebm_admit(FunctionCallInfo fcinfo, int kind, struct DPProtectedContext **pctx);

#endif							/* DPOBJ_EBMSTATE_H */
