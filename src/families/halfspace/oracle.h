/*-------------------------------------------------------------------------
 *
 * oracle.h
 *	  Server-side glue between the SQL aggregates and the plain-C exact
 *	  oracles: interrupt polling, solver log routing, oracle choice, and the
 *	  release-or-fail decision with its ledger outcome.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_ORACLE_H
#define DPOBJ_ORACLE_H

#include "base/dpobj.h"
#include "core/opdisc.h"
#include "mechanisms/mechanism.h"

/*
 * Solves an OPDisc problem with the chosen oracle (AUTO picks the exact
 * search).  Fills in problem's control fields (stop callback, log sink,
 * time limit in seconds, 0 = none).  Solver output goes to the server log
 * at DEBUG1 after the solve; nothing data-dependent reaches the client.
 * Returns the oracle used.
 */
extern DPObjOracle oracle_solve_opdisc(OPDiscProblem *problem, OPDiscResult *result,
									   DPObjOracle oracle, double time_limit);

/* a run of an exact-oracle mechanism (halfspace.c, rspm.c): DPRun.work */
typedef struct OracleRun
{
	DPObjOracle oracle;			/* chosen, then the one used */
	double		time_limit;		/* seconds, 0 = none */
	int			B;				/* the grid */
	int			D2;
	double		sigma;			/* the calibrated noise scale */
	OPDiscResult result;
} OracleRun;

/* the driver's admit on the halfspace kinds' state (hsstate_final_begin) */
extern void *oracle_admit(FunctionCallInfo fcinfo, int kind, DPProtectedContext **pctx);

/* calibrate: the oracle, its time limit, the grid, sigma, the charge's fields */
extern void oracle_prepare(DPRun *run, const char *mechanism, int B, int D2, double sigma);

/* after the charge and the noise: the exact solve into the run's result */
extern void oracle_solve(DPRun *run, OPDiscProblem *problem);

/*
 * Decides the fate of the charged run: sets its release detail only if
 * the result is certified optimal; otherwise mechanism_fail() with the
 * matching outcome and error (query cancel, DP001 not certified, DP003
 * oracle failure).  The budget stays charged either way.
 */
extern void oracle_outcome(DPRun *run, const char *mechanism);

/* release: the certified argmin as the model named mechanism */
extern Datum oracle_release(DPRun *run, const char *mechanism, StringInfo params);

extern const char *oracle_used_name(DPObjOracle oracle);

#endif							/* DPOBJ_ORACLE_H */
