/*-------------------------------------------------------------------------
 *
 * accountsql.c
 *	  The accountant's SQL face: thin wrappers over accountant.h on a
 *	  dpobj.budgets row (budgetrow.c).
 *
 *	  dpobj.zcdp_epsilon(rho, delta)            an upper bound on the epsilon
 *	                                            that rho-zCDP gives at delta
 *	  dpobj.gauss_epsilon(rho, delta)           the same for discrete Gaussian
 *	                                            releases of total rho (GDP)
 *	  dpobj.budget_debit(b, kind, epsilon, delta, rho)
 *	                                            the budget row after one more
 *	                                            run, or NULL (account_debit;
 *	                                            the ledger writer calls it in C)
 *	  dpobj.budget_admits(b, kind, epsilon, delta, rho)
 *	                                            the same rule as a boolean:
 *	                                            train()'s pre-check
 *	  dpobj.budget_runs_left(b, kind, epsilon, delta, rho)
 *	                                            how many such runs fit
 *	  dpobj.budget_spent_epsilon(b), dpobj.budget_remaining_epsilon(b)
 *	                                            for dpobj.my_budgets and revoke
 *	  dpobj.budget_spent_delta(b)               the delta spent_epsilon goes with
 *	  dpobj.budget_next_epsilon(b, kind, delta) the largest epsilon one more
 *	                                            run of kind at delta may ask
 *	                                            for (my_budgets)
 *	  dpobj_budget_part_order(b)                the 0.4.0 update's order for a
 *	                                            zCDP part begun before it
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "ledger/accountant.h"
#include "base/dpnumeric.h"

#include "fmgr.h"
#include "utils/builtins.h"

PG_FUNCTION_INFO_V1(dpobj_zcdp_epsilon);
PG_FUNCTION_INFO_V1(dpobj_gauss_epsilon);
PG_FUNCTION_INFO_V1(dpobj_budget_admits);
PG_FUNCTION_INFO_V1(dpobj_budget_remaining_epsilon);
PG_FUNCTION_INFO_V1(dpobj_budget_debit);
PG_FUNCTION_INFO_V1(dpobj_budget_spent_epsilon);
PG_FUNCTION_INFO_V1(dpobj_budget_spent_delta);
PG_FUNCTION_INFO_V1(dpobj_budget_part_order);
PG_FUNCTION_INFO_V1(dpobj_budget_runs_left);
PG_FUNCTION_INFO_V1(dpobj_budget_next_epsilon);

/* a conversion's SQL face: (rho numeric, delta numeric) RETURNS numeric, STRICT */
static Datum
epsilon_of_args(FunctionCallInfo fcinfo, Numeric (*convert) (Numeric, Numeric))
{
	Numeric		e = convert(PG_GETARG_NUMERIC(0), PG_GETARG_NUMERIC(1));

	if (e == NULL)
		PG_RETURN_NULL();
	PG_RETURN_NUMERIC(e);
}

/* dpobj.zcdp_epsilon(rho, delta) */
Datum
dpobj_zcdp_epsilon(PG_FUNCTION_ARGS)
{
	return epsilon_of_args(fcinfo, account_zcdp_epsilon);
}

/* dpobj.gauss_epsilon(rho, delta) */
Datum
dpobj_gauss_epsilon(PG_FUNCTION_ARGS)
{
	return epsilon_of_args(fcinfo, account_gauss_epsilon);
}

static LedgerCostKind
kind_of_text(text *t)
{
	char	   *s = text_to_cstring(t);

	if (strcmp(s, "gauss") == 0)
		return LEDGER_COST_GAUSS;
	if (strcmp(s, "zcdp") == 0)
		return LEDGER_COST_ZCDP;
	if (strcmp(s, "pure") == 0)
		return LEDGER_COST_PURE;
	if (strcmp(s, "approx") == 0)
		return LEDGER_COST_APPROX;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("unknown cost kind \"%s\"", s),
			 errhint("The kinds are approx, pure, zcdp and gauss.")));
	return LEDGER_COST_APPROX;	/* keep compiler quiet */
}

/*
 * dpobj.budget_debit(b dpobj.budgets, kind, epsilon, delta, rho) RETURNS
 * dpobj.budgets: the budget after one more run, NULL when it does not fit
 * (or an argument but rho is NULL).  The ledger's guarded debit writes it.
 */
Datum
dpobj_budget_debit(PG_FUNCTION_ARGS)
{
	AccountBudget b,
				out;

	for (int i = 0; i < 4; i++)
		if (PG_ARGISNULL(i))
			PG_RETURN_NULL();
	if (!account_budget_of_row(PG_GETARG_HEAPTUPLEHEADER(0), &b) ||
		!account_debit(&b, kind_of_text(PG_GETARG_TEXT_PP(1)), PG_GETARG_NUMERIC(2),
					   PG_GETARG_NUMERIC(3), PG_ARGISNULL(4) ? NULL : PG_GETARG_NUMERIC(4),
					   1, &out))
		PG_RETURN_NULL();
	return account_budget_to_row(PG_GETARG_HEAPTUPLEHEADER(0), &out);
}

/* dpobj.budget_admits(b dpobj.budgets, kind, epsilon, delta, rho): one more run fits */
Datum
dpobj_budget_admits(PG_FUNCTION_ARGS)
{
	AccountBudget b;

	for (int i = 0; i < 4; i++)
		if (PG_ARGISNULL(i))
			PG_RETURN_BOOL(false);
	if (!account_budget_of_row(PG_GETARG_HEAPTUPLEHEADER(0), &b))
		PG_RETURN_BOOL(false);
	PG_RETURN_BOOL(account_admits(&b, kind_of_text(PG_GETARG_TEXT_PP(1)),
								  PG_GETARG_NUMERIC(2), PG_GETARG_NUMERIC(3),
								  PG_ARGISNULL(4) ? NULL : PG_GETARG_NUMERIC(4), 1));
}

/*
 * dpobj.budget_runs_left(b dpobj.budgets, kind, epsilon, delta, rho): how
 * many more runs of this kind and cost the budget admits (runs_left()'s
 * count for a given cost; NULL without a kind or cost, e.g. no last run)
 */
Datum
dpobj_budget_runs_left(PG_FUNCTION_ARGS)
{
	AccountBudget b;

	for (int i = 0; i < 4; i++)
		if (PG_ARGISNULL(i))
			PG_RETURN_NULL();
	if (!account_budget_of_row(PG_GETARG_HEAPTUPLEHEADER(0), &b))
		PG_RETURN_NULL();
	PG_RETURN_INT64(account_runs_left(&b, kind_of_text(PG_GETARG_TEXT_PP(1)),
									  PG_GETARG_NUMERIC(2), PG_GETARG_NUMERIC(3),
									  PG_ARGISNULL(4) ? NULL : PG_GETARG_NUMERIC(4)));
}

/* dpobj.budget_spent_epsilon(b dpobj.budgets), STRICT: composed spend */
Datum
dpobj_budget_spent_epsilon(PG_FUNCTION_ARGS)
{
	AccountBudget b;

	if (!account_budget_of_row(PG_GETARG_HEAPTUPLEHEADER(0), &b))
		PG_RETURN_NULL();
	PG_RETURN_NUMERIC(account_spent_epsilon(&b));
}

/* dpobj.budget_spent_delta(b dpobj.budgets), STRICT: the delta the spend goes with */
Datum
dpobj_budget_spent_delta(PG_FUNCTION_ARGS)
{
	AccountBudget b;

	if (!account_budget_of_row(PG_GETARG_HEAPTUPLEHEADER(0), &b))
		PG_RETURN_NULL();
	PG_RETURN_NUMERIC(account_spent_delta(&b));
}

/* dpobj.budget_remaining_epsilon(b dpobj.budgets), STRICT */
Datum
dpobj_budget_remaining_epsilon(PG_FUNCTION_ARGS)
{
	AccountBudget b;

	if (!account_budget_of_row(PG_GETARG_HEAPTUPLEHEADER(0), &b))
		PG_RETURN_NULL();
	PG_RETURN_NUMERIC(account_remaining_epsilon(&b));
}

/*
 * dpobj_budget_part_order(b dpobj.budgets), STRICT: the order account_debit
 * fixes when a zCDP part begins, from b's grant and linear part (NULL if
 * none).  Only the 0.4.0 update calls it, for budgets whose zCDP part began
 * before it (a function it creates and drops).
 */
Datum
dpobj_budget_part_order(PG_FUNCTION_ARGS)
{
	AccountBudget b;
	double		order;

	if (!account_budget_of_row(PG_GETARG_HEAPTUPLEHEADER(0), &b))
		PG_RETURN_NULL();
	order = account_part_order(&b);
	if (!(order > 1.0))
		PG_RETURN_NULL();
	PG_RETURN_FLOAT8(order);
}

/*
 * dpobj.budget_next_epsilon(b dpobj.budgets, kind, delta), STRICT: the
 * largest epsilon (a multiple of 10^-6) one more run of kind at delta may
 * ask for now, 0 if none (account_next_epsilon)
 */
Datum
dpobj_budget_next_epsilon(PG_FUNCTION_ARGS)
{
	AccountBudget b;
	Numeric		delta = PG_GETARG_NUMERIC(2);

	if (!account_budget_of_row(PG_GETARG_HEAPTUPLEHEADER(0), &b))
		PG_RETURN_NULL();
	if (dp_numeric_cmp(delta, int64_to_numeric(0)) < 0 ||
		dp_numeric_cmp(delta, int64_to_numeric(1)) >= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("delta must be at least 0 and less than 1"),
				 errhint("0 prices a pure run at its default delta.")));
	PG_RETURN_NUMERIC(account_next_epsilon(&b, kind_of_text(PG_GETARG_TEXT_PP(1)), delta));
}
