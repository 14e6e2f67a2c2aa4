/*-------------------------------------------------------------------------
 *
 * runsleft.c
 *	  A run's price before it runs, from public state only:
 *	  dpobj.runs_left(rel, mechanism, epsilon, delta, options): how many more
 *	  dpobj.train() runs of that mechanism at (epsilon, delta) the caller's
 *	  budget on the table admits;
 *	  dpobj.cost(rel, mechanism, epsilon, delta, options): what one such run
 *	  would charge and the budget after it;
 *	  dpobj.runs_left(rel, delta): per kind of run (pure, gauss, zcdp, approx), the
 *	  largest epsilon the next such run may ask for (accountnext.c), and the
 *	  entry points whose runs are of that kind (the registry's).
 *	  All apply the accountant's own rule (accountant.c) to the run's cost
 *	  (registry.c) and charge nothing.  They read the caller's budget only, as
 *	  train()'s pre-check does (the table's budget domain's, if it is a
 *	  member, else its own), and depend on the ledger's public charges alone.
 *	  They start no run, so they take no lock on the table: a role without
 *	  any privilege on it must not hold one its owner's ALTER TABLE waits for.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "ledger/accountant.h"
#include "base/dpobj.h"
#include "protected/entryargs.h"
#include "mechanisms/mechanism.h"
#include "families/registry.h"
#include "base/privileged.h"
#include "protected/spiplans.h"
#include "protected/train.h"

#include "catalog/pg_authid.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/fmgrprotos.h"

PG_FUNCTION_INFO_V1(dpobj_runs_left);
PG_FUNCTION_INFO_V1(dpobj_cost);
PG_FUNCTION_INFO_V1(dpobj_runs_left_next);

/*
 * budget_for once whatever the plan (an InitPlan: train.c's pre-check says
 * why); and the delta of the budget's last run that asked for one
 */
static const char budget_sql[] =
"SELECT b, (SELECT r.delta FROM dpobj.ledger r "
"            WHERE r.budget_id OPERATOR(pg_catalog.=) b.id "
"              AND r.delta OPERATOR(pg_catalog.>) 0 "
"            ORDER BY r.id DESC LIMIT 1) "
"  FROM dpobj.protected_tables p "
"  LEFT JOIN dpobj.budgets b "
"         ON b.id OPERATOR(pg_catalog.=) (SELECT dpobj.budget_for($1, $2)) "
" WHERE p.relid OPERATOR(pg_catalog.=) $1";

/*
 * the caller's budget for runs on relid, false when it has none; *last_delta
 * (if asked) the delta of its last run with one, or NULL
 */
static bool
runs_left_budget(Oid relid, const char *relation, AccountBudget *b, Numeric *last_delta)
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
	if (last_delta != NULL)
	{
		v = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull);
		*last_delta = isnull ? NULL : DatumGetNumeric(v);
	}
	v = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	if (isnull)
		return false;
	return account_budget_of_row(DatumGetHeapTupleHeader(v), b);
}

/* a run's price: the arguments train() would get, and the cost it would charge */
typedef struct RunPrice
{
	Oid			relid;
	char	   *relation;
	Numeric		epsilon;
	Numeric		delta;
	LedgerCost	cost;
} RunPrice;

/* fcinfo (rel, mechanism, epsilon, delta, options) validated and priced as train() does */
static void
run_price(FunctionCallInfo fcinfo, const char *fname, RunPrice *p)
{
	const char *mechanism;
	const char *method;
	char	   *eps_text,
			   *delta_text;
	Jsonb	   *options;

	dpobj_verify_schema();
	dp_check_not_null(fcinfo, 5, fname);
	p->relid = PG_GETARG_OID(0);
	p->relation = dp_relation_name(p->relid);
	p->epsilon = PG_GETARG_NUMERIC(2);
	p->delta = PG_GETARG_NUMERIC(3);
	/* delta 0 exactly where train() takes it: an epsilon-DP mechanism's */
	train_check_privacy_of(p->epsilon, p->delta,
						   mechanism_lookup_entry(text_to_cstring(PG_GETARG_TEXT_PP(1)), &method)->delta_zero,
						   &eps_text, &delta_text);
	options = PG_GETARG_JSONB_P(4);
	if (!JB_ROOT_IS_OBJECT(options) || JB_ROOT_IS_SCALAR(options))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("options must be a JSON object"),
				 errhint("For example '{\"method\": \"output\"}' for logistic.")));
	mechanism = train_resolve_mechanism(text_to_cstring(PG_GETARG_TEXT_PP(1)), &options);

	/* the cost train() would charge: the same floats, the same calibration */
	mechanism_run_cost(mechanism, options, dp_numeric_to_float8_down(p->epsilon, "epsilon"),
					   dp_numeric_to_float8_down(p->delta, "delta"), &p->cost);
}

/* the run's rho as the ledger records it; NULL for approximate-DP runs */
static Numeric
run_price_rho(const RunPrice *p)
{
	return p->cost.kind == LEDGER_COST_APPROX ? NULL : dp_numeric_of_text(p->cost.rho);
}

Datum
dpobj_runs_left(PG_FUNCTION_ARGS)
{
	RunPrice	p;
	AccountBudget b;
	int64		n = 0;

	run_price(fcinfo, "dpobj.runs_left", &p);
	SPI_connect();
	if (runs_left_budget(p.relid, p.relation, &b, NULL))
		n = account_runs_left(&b, p.cost.kind, p.epsilon, p.delta, run_price_rho(&p));
	SPI_finish();
	PG_RETURN_INT64(n);
}

/*
 * dpobj.cost(): (kind, epsilon, delta, rho) the ledger would record,
 * admitted, the composition after the run, the epsilon it adds to the
 * composed spend (NULL when refused), spent and remaining epsilon and
 * remaining delta after it (the budget as it is when the run is refused;
 * NULLs without a budget).
 */
Datum
dpobj_cost(PG_FUNCTION_ARGS)
{
	RunPrice	p;
	AccountBudget b,
				after;
	TupleDesc	desc;
	Datum		values[10];
	bool		nulls[10] = {false};
	Numeric		rho;
	MemoryContext caller = CurrentMemoryContext;
	HeapTuple	tuple;

	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "dpobj.cost: return type must be a row type");
	run_price(fcinfo, "dpobj.cost", &p);
	rho = run_price_rho(&p);
	values[0] = CStringGetTextDatum(ledger_cost_kind_name(p.cost.kind));
	values[1] = NumericGetDatum(p.epsilon);
	values[2] = NumericGetDatum(p.delta);
	values[3] = rho != NULL ? NumericGetDatum(rho) : (Datum) 0;
	nulls[3] = rho == NULL;
	for (int i = 5; i < 10; i++)
		nulls[i] = true;
	values[4] = BoolGetDatum(false);
	SPI_connect();
	if (runs_left_budget(p.relid, p.relation, &b, NULL))
	{
		bool		admitted = account_debit(&b, p.cost.kind, p.epsilon, p.delta, rho, 1, &after);
		Numeric		before = account_spent_epsilon(&b);

		if (!admitted)
			after = b;
		values[4] = BoolGetDatum(admitted);
		values[5] = CStringGetTextDatum(account_composition(&after));
		nulls[6] = !admitted;
		values[6] = DirectFunctionCall2(numeric_sub,
										NumericGetDatum(account_spent_epsilon(&after)),
										NumericGetDatum(before));
		values[7] = NumericGetDatum(account_spent_epsilon(&after));
		values[8] = NumericGetDatum(account_remaining_epsilon(&after));
		values[9] = NumericGetDatum(account_remaining_delta(&after));
		nulls[5] = nulls[7] = nulls[8] = nulls[9] = false;
	}
	/* the budget's values live in SPI's context: the tuple copies them out */
	MemoryContextSwitchTo(caller);
	tuple = heap_form_tuple(BlessTupleDesc(desc), values, nulls);
	SPI_finish();
	PG_RETURN_DATUM(HeapTupleGetDatum(tuple));
}

/* one row of runs_left(rel, delta): kind, delta, next_epsilon, mechanisms */
static void
runs_left_next_row(ReturnSetInfo *rsi, LedgerCostKind kind, const AccountBudget *b,
				   Numeric delta)
{
	Datum		v[4];
	bool		n[4] = {false, delta == NULL, delta == NULL, false};

	v[0] = CStringGetTextDatum(ledger_cost_kind_name(kind));
	if (delta != NULL)
	{
		v[1] = NumericGetDatum(delta);
		v[2] = NumericGetDatum(b != NULL ? account_next_epsilon(b, kind, delta)
							   : int64_to_numeric(0));
	}
	v[3] = CStringGetTextDatum(mechanism_kind_entries(kind));
	tuplestore_putvalues(rsi->setResult, rsi->setDesc, v, n);
}

/*
 * dpobj.runs_left(rel, delta DEFAULT NULL): per kind, the largest epsilon the
 * next run of that kind may ask for now (a multiple of 10^-6; 0 without a
 * budget): pure runs at delta 0 (evaluate, aggregate and describe's
 * default), the others at delta, or without one at the delta of the
 * budget's last run that asked for one (none yet: NULL).
 */
Datum
dpobj_runs_left_next(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsi = (ReturnSetInfo *) fcinfo->resultinfo;
	Oid			relid;
	char	   *relation;
	Numeric		delta = NULL;
	AccountBudget b;
	bool		has;
	MemoryContext caller = CurrentMemoryContext;

	dpobj_verify_schema();
	dp_check_not_null(fcinfo, 1, "dpobj.runs_left");
	relid = PG_GETARG_OID(0);
	relation = dp_relation_name(relid);
	if (!PG_ARGISNULL(1))
	{
		delta = PG_GETARG_NUMERIC(1);
		dp_check_amount(delta, "delta", false, true);
	}
	InitMaterializedSRF(fcinfo, 0);
	SPI_connect();
	has = runs_left_budget(relid, relation, &b, delta == NULL ? &delta : NULL);
	/* the rows are formed in the caller's context: the budget's values live in SPI's */
	MemoryContextSwitchTo(caller);
	runs_left_next_row(rsi, LEDGER_COST_PURE, has ? &b : NULL, int64_to_numeric(0));
	runs_left_next_row(rsi, LEDGER_COST_GAUSS, has ? &b : NULL, delta);
	runs_left_next_row(rsi, LEDGER_COST_ZCDP, has ? &b : NULL, delta);
	runs_left_next_row(rsi, LEDGER_COST_APPROX, has ? &b : NULL, delta);
	SPI_finish();
	return (Datum) 0;
}
