/*-------------------------------------------------------------------------
 *
 * claim.h
 *	  mechanism_claim(), the first step of every final function (claim.c):
 *	  the states' final_begin functions and the driver's admit step call
 *	  it, from the floor of the states.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_CLAIM_H
#define DPOBJ_CLAIM_H

#include "postgres.h"

#include "fmgr.h"

#include "context/protected.h"

/*
 * First refuses outside an aggregate (a final function called as a plain
 * function: aggstate_final_check) and on a Citus worker (distributed.h),
 * for every mechanism (the driver's charge refuses outside an aggregate too).
 * Then enters the run (runlimit.h: refused beyond dpobj.max_runs_per_role).
 * On the protected path (inside dpobj.train()): consumes the protected
 * context after checking it against the relations scanned below this
 * aggregate and the privacy parameters of the state (has_state false: no
 * row reached the transition function), and returns it.  Off the
 * protected path returns NULL.
 */
extern DPProtectedContext *mechanism_claim(FunctionCallInfo fcinfo, bool has_state,
										   double epsilon, double delta, int d);

#endif							/* DPOBJ_CLAIM_H */
