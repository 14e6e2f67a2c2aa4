/*-------------------------------------------------------------------------
 *
 * claim.c
 *	  mechanism_claim() (claim.h), the first step of every final function:
 *	  below the states whose final_begin calls it and the driver
 *	  (mechanisms/mechanism.c) that runs them.
 *
 *-------------------------------------------------------------------------
 */
#include "state/claim.h"

#include "state/aggstate.h"
#include "base/distributed.h"
#include "context/runlimit.h"
#include "context/scanrels.h"

DPProtectedContext *
mechanism_claim(FunctionCallInfo fcinfo, bool has_state, double epsilon,
				double delta, int d)
{
	DPScanRelations scan;

	/*
	 * Only as the final step of an aggregate: a final function called as a
	 * plain function, with a state typed in by hand, would otherwise write a
	 * ledger row without running the mechanism over any rows.
	 */
	aggstate_final_check(fcinfo);
	/* one ledger per cluster: never on a Citus worker (distributed.h) */
	dp_citus_refuse_worker(fcinfo);
	/* before any charge: the caller's role holds at most max_runs_per_role */
	dpobj_run_enter();
	if (dpobj_protected_peek() == NULL)
		return NULL;
	dp_scan_relations(fcinfo, &scan);
	return dpobj_protected_take(&scan, has_state,
								has_state ? epsilon : 0,
								has_state ? delta : 0,
								has_state ? d : 0);
}
