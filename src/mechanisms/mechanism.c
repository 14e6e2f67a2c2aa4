/*-------------------------------------------------------------------------
 *
 * mechanism.c
 *	  What every mechanism's final function shares (mechanism.h): claiming
 *	  the protected context and charging the run before any noise exists.
 *
 *-------------------------------------------------------------------------
 */
#include "mechanism.h"

#include "aggstate.h"
#include "distributed.h"
#include "privileged.h"
#include "random.h"
#include "runlimit.h"
#include "scanrels.h"

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

int64
mechanism_charge(FunctionCallInfo fcinfo, const DPProtectedContext *pctx,
				 const char *mechanism, double epsilon, double delta)
{
	DPScanRelations scan;

	aggstate_final_check(fcinfo);
	if (pctx != NULL)
	{
		/* train() refused already; a seed set since then is refused here */
		dpobj_refuse_seeded(mechanism);
		return dpobj_budget_charge(pctx, mechanism);
	}
	/* the ledger worker writes as a superuser: only into a trusted schema */
	dpobj_verify_schema();
	dp_scan_relations(fcinfo, &scan);
	return ledger_charge(mechanism, epsilon, delta, dp_relation_names(scan.relids));
}
