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

/*
 * Solves an OPDisc problem with the chosen oracle (AUTO picks the exact
 * search).  Fills in problem's control fields (stop callback, log sink,
 * time limit in seconds, 0 = none).  Solver output goes to the server log
 * at DEBUG1 after the solve; nothing data-dependent reaches the client.
 * Returns the oracle used.
 */
extern DPObjOracle oracle_solve_opdisc(OPDiscProblem *problem, OPDiscResult *result,
									   DPObjOracle oracle, double time_limit);

/*
 * Decides the fate of a charged run: records the outcome in the ledger
 * (entry ledger_id) and returns normally only if result is certified
 * optimal; otherwise raises the matching error (query cancel, DP001 not
 * certified, DP003 oracle failure).  The budget stays charged either way.
 */
extern void oracle_release_or_fail(const OPDiscResult *result, int64 ledger_id,
								   const char *mechanism, DPObjOracle oracle,
								   double time_limit);

extern const char *oracle_used_name(DPObjOracle oracle);

#endif							/* DPOBJ_ORACLE_H */
