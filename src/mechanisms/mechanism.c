/*-------------------------------------------------------------------------
 *
 * mechanism.c
 *	  What every mechanism's final function shares (mechanism.h): claiming
 *	  the protected context and charging the run before any noise exists.
 *
 *-------------------------------------------------------------------------
 */
#include "mechanism.h"

#include "accountant.h"
#include "aggstate.h"
#include "calibsql.h"
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
	LedgerCost	cost;

	aggstate_final_check(fcinfo);
	if (pctx != NULL)
	{
		/* train() refused already; a seed set since then is refused here */
		dpobj_refuse_seeded(mechanism);
		return dpobj_budget_charge(pctx, mechanism);
	}
	/* the ledger worker writes as a superuser: only into a trusted schema */
	dpobj_verify_schema();
	mechanism_cost(mechanism, epsilon, delta, &cost);
	dp_scan_relations(fcinfo, &scan);
	return ledger_charge(mechanism, epsilon, delta, &cost, dp_relation_names(scan.relids));
}

void
mechanism_cost(const char *mechanism, double epsilon, double delta, LedgerCost *cost)
{
	static const char *const zcdp[] = {"noisysgd", "output_gauss", "passglm"};
	static const char *const pure[] = {"expmech", "cms", "evaluate"};

	memset(cost, 0, sizeof(*cost));
	cost->kind = LEDGER_COST_APPROX;
	for (int i = 0; i < lengthof(zcdp); i++)
		if (strcmp(mechanism, zcdp[i]) == 0)
		{
			/* the very rho glm.c, noisysgd.c and passglm.c calibrate to */
			cost->kind = LEDGER_COST_ZCDP;
			account_decimal_up(dpobj_zcdp_rho_checked(mechanism, epsilon, delta),
							   cost->rho, sizeof(cost->rho));
		}
	for (int i = 0; i < lengthof(pure); i++)
		if (strcmp(mechanism, pure[i]) == 0)
		{
			cost->kind = LEDGER_COST_PURE;
			account_decimal_up(0.5 * epsilon * epsilon, cost->rho, sizeof(cost->rho));
		}
}

const char *
mechanism_ledger_name(const char *train_mechanism, Jsonb *options)
{
	JsonbValue *v;

	if (strcmp(train_mechanism, "logistic") != 0)
		return train_mechanism;
	v = getKeyJsonValueFromContainer(&options->root, "method", 6, NULL);
	if (v == NULL)
		return "objective_gauss";
	if (v->type == jbvString && v->val.string.len == 6 &&
		strncmp(v->val.string.val, "output", 6) == 0)
		return "output_gauss";
	if (v->type == jbvString && v->val.string.len == 3 &&
		strncmp(v->val.string.val, "cms", 3) == 0)
		return "cms";
	if (v->type == jbvString && v->val.string.len == 9 &&
		strncmp(v->val.string.val, "objective", 9) == 0)
		return "objective_gauss";
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("dp_logistic: option \"method\" must be \"objective\", \"output\" or \"cms\""),
			 errhint("The default is \"objective\".")));
	return NULL;				/* keep compiler quiet */
}
