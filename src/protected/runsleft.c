/*-------------------------------------------------------------------------
 *
 * runsleft.c
 *	  dpobj.runs_left(rel, mechanism, epsilon, delta, options): how many more
 *	  dpobj.train() runs of that mechanism at (epsilon, delta) the caller's
 *	  budget on the table admits -- the accountant's own rule
 *	  (accountant.c) applied to the run's cost (registry.c), before
 *	  anything is spent.  It reads the caller's budget only, as train()'s
 *	  pre-check does (the table's budget domain's, if it is a member, else
 *	  its own), and depends on the ledger's public charges alone.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "ledger/accountant.h"
#include "base/dpobj.h"
#include "protected/entryargs.h"
#include "mechanisms/mechanism.h"
#include "base/privileged.h"
#include "protected/spiplans.h"
#include "protected/train.h"

#include "catalog/pg_authid.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/datum.h"

PG_FUNCTION_INFO_V1(dpobj_runs_left);

/* budget_for once whatever the plan (an InitPlan: train.c's pre-check says why) */
static const char budget_sql[] =
"SELECT b "
"  FROM dpobj.protected_tables p "
"  LEFT JOIN dpobj.budgets b "
"         ON b.id OPERATOR(pg_catalog.=) (SELECT dpobj.budget_for($1, $2)) "
" WHERE p.relid OPERATOR(pg_catalog.=) $1";

/* the caller's budget for runs on relid; false when it has none */
static bool
runs_left_budget(Oid relid, const char *relation, AccountBudget *b)
{
	RoleSwitch	rs;
	Oid			types[2] = {REGCLASSOID, REGROLEOID};
	Datum		values[2];
	bool		isnull;
	Datum		v;

	values[0] = ObjectIdGetDatum(relid);
	values[1] = ObjectIdGetDatum(GetUserId());
	role_switch_begin(&rs, BOOTSTRAP_SUPERUSERID, false);
	if (dp_spi_run(budget_sql, 2, types, values, NULL, true, 1) != SPI_OK_SELECT)
		elog(ERROR, "dpobj.runs_left: budget lookup failed");
	role_switch_end(&rs);
	if (SPI_processed == 0)
		ereport(ERROR,
				(errcode(ERRCODE_DPOBJ_NOT_PROTECTED),
				 errmsg("table %s is not protected by dpobj", relation),
				 errhint("Its owner must call dpobj.protect() and grant you a budget.")));
	v = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	if (isnull)
		return false;
	return account_budget_of_row(DatumGetHeapTupleHeader(v), b);
}

Datum
dpobj_runs_left(PG_FUNCTION_ARGS)
{
	Oid			relid;
	char		relkind;
	char	   *relation;
	const char *mechanism;
	char	   *eps_text,
			   *delta_text;
	Numeric		epsilon,
				delta;
	Jsonb	   *options;
	LedgerCost	cost;
	AccountBudget b;
	int64		n = 0;

	dpobj_verify_schema();
	dp_check_not_null(fcinfo, 5, "dpobj.runs_left");
	relid = PG_GETARG_OID(0);
	relation = dp_lock_relation(relid, &relkind);
	epsilon = PG_GETARG_NUMERIC(2);
	delta = PG_GETARG_NUMERIC(3);
	train_check_privacy(epsilon, delta, &eps_text, &delta_text);
	options = PG_GETARG_JSONB_P(4);
	if (!JB_ROOT_IS_OBJECT(options) || JB_ROOT_IS_SCALAR(options))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("options must be a JSON object"),
				 errhint("For example '{\"method\": \"output\"}' for logistic.")));
	mechanism = train_resolve_mechanism(text_to_cstring(PG_GETARG_TEXT_PP(1)), &options);

	/* the cost train() would charge: the same floats, the same calibration */
	mechanism_run_cost(mechanism, options, dp_numeric_to_float8_down(epsilon, "epsilon"),
					   dp_numeric_to_float8_down(delta, "delta"), &cost);

	SPI_connect();
	if (runs_left_budget(relid, relation, &b))
		n = account_runs_left(&b, cost.kind, epsilon, delta,
							  cost.kind == LEDGER_COST_APPROX ? NULL : dp_numeric_of_text(cost.rho));
	SPI_finish();
	PG_RETURN_INT64(n);
}
