/*-------------------------------------------------------------------------
 *
 * mechanism.c
 *	  What every mechanism's final function shares (mechanism.h): claiming
 *	  the protected context and charging the run before any noise exists.
 *
 *-------------------------------------------------------------------------
 */
#include "mechanisms/mechanism.h"

#include "ledger/accountant.h"
#include "state/aggstate.h"
#include "base/calibsql.h"
#include "base/distributed.h"
#include "base/privileged.h"
#include "base/random.h"
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
		return dpobj_budget_charge(pctx, mechanism);
	}
	/* the ledger worker writes as a superuser: only into a trusted schema */
	dpobj_verify_schema();
	mechanism_cost(mechanism, epsilon, delta, &cost);
	if (private_r)
		mechanism_cost_private_r(&cost);
	dp_scan_relations(fcinfo, &scan);
	return ledger_charge(mechanism, epsilon, delta, &cost, dp_relation_names(scan.relids));
}

int64
mechanism_charge(FunctionCallInfo fcinfo, const DPProtectedContext *pctx,
				 const char *mechanism, double epsilon, double delta)
{
	return charge_run(fcinfo, pctx, mechanism, epsilon, delta, false);
}

int64
mechanism_charge_private_r(FunctionCallInfo fcinfo, const DPProtectedContext *pctx,
						   const char *mechanism, double epsilon, double delta)
{
	return charge_run(fcinfo, pctx, mechanism, epsilon, delta, true);
}

void
mechanism_cost(const char *mechanism, double epsilon, double delta, LedgerCost *cost)
{
	static const char *const gauss[] = {"noisysgd", "output_gauss", "passglm", "adassp", "ssp",
	"noisysgd_ovr", "output_gauss_ovr"};
	static const char *const pure[] = {"expmech", "cms", "cms_ovr", "evaluate"};

	memset(cost, 0, sizeof(*cost));
	cost->kind = LEDGER_COST_APPROX;
	for (int i = 0; i < lengthof(gauss); i++)
		if (strcmp(mechanism, gauss[i]) == 0)
		{
			/*
			 * the very rho glm.c, noisysgd.c, passglm.c, linear.c and
			 * glmmulticlass.c calibrate to (one-vs-rest: rho / K per class);
			 * every release of these is a snapped discrete Gaussian
			 */
			cost->kind = LEDGER_COST_GAUSS;
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

/* option key as a C string, or NULL when absent (not a string: "") */
static const char *
mechanism_string_option(Jsonb *options, const char *key)
{
	JsonbValue *v = getKeyJsonValueFromContainer(&options->root, key, strlen(key), NULL);

	if (v == NULL)
		return NULL;
	if (v->type != jbvString)
		return "";
	return pnstrdup(v->val.string.val, v->val.string.len);
}

void
mechanism_cost_private_r(LedgerCost *cost)
{
	/* the norm bound's exponential mechanism is bounded range, not Gaussian */
	if (cost->kind == LEDGER_COST_GAUSS)
		cost->kind = LEDGER_COST_ZCDP;
}

bool
mechanism_options_private_r(Jsonb *options)
{
	const char *R = mechanism_string_option(options, "R");

	return R != NULL && strcmp(R, "private") == 0;
}

void
mechanism_run_cost(const char *train_mechanism, Jsonb *options, double epsilon,
				   double delta, LedgerCost *cost)
{
	mechanism_cost(mechanism_ledger_name(train_mechanism, options), epsilon, delta, cost);
	if (mechanism_options_private_r(options))
		mechanism_cost_private_r(cost);
}


/* logistic's method as its ledger name: objective_gauss, output_gauss or cms */
static const char *
mechanism_glm_name(const char *method)
{
	if (method == NULL || strcmp(method, "objective") == 0)
		return "objective_gauss";
	if (strcmp(method, "output") == 0)
		return "output_gauss";
	if (strcmp(method, "cms") == 0)
		return "cms";
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("dp_logistic: option \"method\" must be \"objective\", \"output\" or \"cms\""),
			 errhint("The default is \"objective\".")));
	return NULL;				/* keep compiler quiet */
}

const char *
mechanism_ledger_name(const char *train_mechanism, Jsonb *options)
{
	const char *method = mechanism_string_option(options, "method");

	if (strcmp(train_mechanism, "logistic") == 0)
		return mechanism_glm_name(method);
	if (strcmp(train_mechanism, "logistic_multiclass") == 0)
		return psprintf("%s_ovr", mechanism_glm_name(method));
	if (strcmp(train_mechanism, "noisysgd_multiclass") == 0)
		return "noisysgd_ovr";
	/* tuned noisy GD is approximate DP (noisysgdtune.c) */
	if (strcmp(train_mechanism, "noisysgd") == 0 &&
		getKeyJsonValueFromContainer(&options->root, "tune", 4, NULL) != NULL)
		return "noisysgd_tune";
	if (strcmp(train_mechanism, "linear") == 0)
		return method != NULL && strcmp(method, "ssp") == 0 ? "ssp" : "adassp";
	return train_mechanism;
}
