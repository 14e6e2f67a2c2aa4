/*-------------------------------------------------------------------------
 *
 * mechanism.c
 *	  The protected driver (mechanism.h): the one copy of the sequence
 *	  admit -> calibrate -> charge -> compute -> record -> release that
 *	  every mechanism's final function runs, and its failure path.  On the
 *	  protected path the charge was made before the scan (seal.c): the
 *	  driver takes its ledger row; a direct run is recorded here.
 *
 *-------------------------------------------------------------------------
 */
#include "mechanisms/mechanism.h"
#include "mechanisms/family.h"

#include "state/aggstate.h"
#include "base/calibsql.h"
#include "base/privileged.h"
#include "base/random.h"
#include "context/scanrels.h"

static int64
charge_run(FunctionCallInfo fcinfo, const DPProtectedContext *pctx,
		   const char *mechanism, double epsilon, double delta, bool private_r)
{
	DPScanRelations scan;
	LedgerCost	cost;

	aggstate_final_check(fcinfo);
	if (pctx != NULL)
	{
		/* train() refused already; a seed set since then is refused here */
		dpobj_refuse_seeded(mechanism);
		/* charged before the first row was read (seal.c; mechanism_claim checked it) */
		return pctx->ledger_id;
	}
	/* the ledger worker writes as a superuser: only into a trusted schema */
	dpobj_verify_schema();
	mechanism_cost(mechanism, epsilon, delta, &cost);
	if (private_r)
		mechanism_cost_private_r(&cost);
	dp_scan_relations(fcinfo, &scan);
	return ledger_charge(mechanism, epsilon, delta, &cost, dp_relation_names(scan.relids));
}

Datum
mechanism_drive(FunctionCallInfo fcinfo, const DPRunOps *ops)
{
	DPRun		run;

	memset(&run, 0, sizeof(run));
	run.fcinfo = fcinfo;
	/* 1. admit: the protected context claimed, before anything is computed */
	run.state = ops->admit(fcinfo, ops->kind, &run.pctx);
	if (run.state == NULL)
		PG_RETURN_NULL();		/* no rows, direct path: nothing runs */
	/* 2. the calibration and every buffer, from public inputs only */
	ops->calibrate(&run);
	/* 3. the charge, durable before any noise exists (protected: before the scan) */
	run.ledger_id = charge_run(fcinfo, run.pctx, run.ledger_name, run.epsilon, run.delta,
							   run.private_r);
	/* 4. noise and computation (a failure: mechanism_fail); the generator wiped */
	run.rng = dpobj_rng_new();
	PG_TRY();
	{
		ops->compute(&run);
	}
	PG_FINALLY();
	{
		dpobj_rng_free(run.rng);
	}
	PG_END_TRY();
	/* 5. the ledger records the release */
	ledger_finish(run.ledger_id, LEDGER_OUTCOME_RELEASED, run.detail);
	/* 6. the model */
	return ops->release(&run);
}

void
mechanism_fail(const DPRun *run, const char *outcome, const char *detail, int sqlerrcode,
			   const char *msg, const char *errdetail_text, const char *hint)
{
	ledger_finish(run->ledger_id, outcome, detail);
	if (strcmp(outcome, LEDGER_OUTCOME_CANCELLED) == 0)
		CHECK_FOR_INTERRUPTS();
	ereport(ERROR,
			(errcode(sqlerrcode),
			 errmsg("%s", msg),
			 errdetail_text ? errdetail("%s", errdetail_text) : 0,
			 hint ? errhint("%s", hint) : 0));
	pg_unreachable();
}

bool
mechanism_stop_pending(void *arg)
{
	(void) arg;
	dpobj_absorb_barrier();
	return QueryCancelPending || ProcDiePending;
}
