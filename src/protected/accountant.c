/*-------------------------------------------------------------------------
 *
 * accountant.c
 *	  The budget's accountant (accountant.h) and its SQL face:
 *
 *	  dpobj.zcdp_epsilon(rho, delta)            an upper bound on the epsilon
 *	                                            that rho-zCDP gives at delta
 *	  dpobj.budget_admits(granted..., spent..., kind, epsilon, delta, rho)
 *	                                            the admission rule: the ledger
 *	                                            writer's guarded debit, train()'s
 *	                                            pre-check and runs_left() use it
 *	  dpobj.budget_remaining_epsilon(...)       for dpobj.my_budgets
 *
 * Arithmetic against the analyst: the conversion uses logarithms, so it is
 * evaluated in float8 with rho rounded up and delta rounded down, the
 * result raised by a relative margin of 1e-9 plus 1e-12 (far above the
 * float error of zcdp_eps, about 1e-15 relative), written as a decimal no
 * smaller than it, and every comparison with the budget is made in numeric.
 * Everything here depends on the ledger's public charges only.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "accountant.h"
#include "calibrate.h"
#include "entryargs.h"

#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"

PG_FUNCTION_INFO_V1(dpobj_zcdp_epsilon);
PG_FUNCTION_INFO_V1(dpobj_budget_admits);
PG_FUNCTION_INFO_V1(dpobj_budget_remaining_epsilon);

#define ACCOUNT_MARGIN_REL	1e-9
#define ACCOUNT_MARGIN_ABS	1e-12

void
account_decimal_up(double x, char *buf, size_t len)
{
	/*
	 * 15 significant digits are within 5e-15 relative of v, and v is above x
	 * by 1e-13 relative (less the product's rounding, 1.2e-16): the decimal
	 * is above x.
	 */
	double		v = x * (1.0 + 1e-13);

	if (x == 0.0)
		v = 0.0;
	snprintf(buf, len, "%.15g", v);
}

static Numeric
num_add(Numeric a, Numeric b)
{
	return DatumGetNumeric(DirectFunctionCall2(numeric_add, NumericGetDatum(a),
											   NumericGetDatum(b)));
}

static Numeric
num_sub(Numeric a, Numeric b)
{
	return DatumGetNumeric(DirectFunctionCall2(numeric_sub, NumericGetDatum(a),
											   NumericGetDatum(b)));
}

static Numeric
num_mul_int(Numeric a, int64 k)
{
	return DatumGetNumeric(DirectFunctionCall2(numeric_mul, NumericGetDatum(a),
											   NumericGetDatum(int64_to_numeric(k))));
}

static int
num_sign(Numeric a)
{
	return dp_numeric_cmp(a, int64_to_numeric(0));
}

/* numeric to float8, then one step up or down: a bound on the exact value */
static double
num_float_bound(Numeric a, bool up)
{
	double		f = DatumGetFloat8(DirectFunctionCall1(numeric_float8, NumericGetDatum(a)));

	return nextafter(f, up ? INFINITY : -INFINITY);
}

Numeric
account_zcdp_epsilon(Numeric rho, Numeric delta)
{
	double		r,
				d,
				e;
	char		buf[64];

	if (num_sign(rho) <= 0)
		return int64_to_numeric(0);
	d = num_float_bound(delta, false);
	if (!(d > 0.0 && d < 1.0))
		return NULL;
	r = num_float_bound(rho, true);
	e = zcdp_eps(r, d);
	if (!isfinite(e) || !isfinite(r))
		return NULL;
	account_decimal_up(e * (1.0 + ACCOUNT_MARGIN_REL) + ACCOUNT_MARGIN_ABS, buf, sizeof(buf));
	return dp_numeric_of_text(buf);
}

/* the state (lin_e, lin_d, rho) is within the budget */
static bool
account_fits(const AccountBudget *b, Numeric lin_e, Numeric lin_d, Numeric rho)
{
	Numeric		ez;

	if (dp_numeric_cmp(lin_e, b->granted_e) > 0 || dp_numeric_cmp(lin_d, b->granted_d) > 0)
		return false;
	if (num_sign(rho) == 0)
		return true;
	ez = account_zcdp_epsilon(rho, num_sub(b->granted_d, lin_d));
	return ez != NULL && dp_numeric_cmp(num_add(lin_e, ez), b->granted_e) <= 0;
}

bool
account_admits(const AccountBudget *b, LedgerCostKind kind, Numeric epsilon,
			   Numeric delta, Numeric rho, int64 k)
{
	bool		zcdp_phase = num_sign(b->spent_rho) > 0;

	if (k <= 0)
		return true;
	/* the approximate-DP part is closed once a run was counted by rho */
	if (kind == LEDGER_COST_APPROX && zcdp_phase)
		return false;
	if (kind == LEDGER_COST_ZCDP || (kind == LEDGER_COST_PURE && zcdp_phase))
	{
		if (rho == NULL || num_sign(rho) <= 0)
			return false;
		return account_fits(b, b->spent_e, b->spent_d, num_add(b->spent_rho, num_mul_int(rho, k)));
	}
	return account_fits(b, num_add(b->spent_e, num_mul_int(epsilon, k)),
						num_add(b->spent_d, num_mul_int(delta, k)), b->spent_rho);
}

Numeric
account_remaining_epsilon(const AccountBudget *b)
{
	Numeric		ez = account_zcdp_epsilon(b->spent_rho, num_sub(b->granted_d, b->spent_d));
	Numeric		rest;

	if (ez == NULL)
		return int64_to_numeric(0);
	rest = num_sub(num_sub(b->granted_e, b->spent_e), ez);
	return num_sign(rest) < 0 ? int64_to_numeric(0) : rest;
}

int64
account_runs_left(const AccountBudget *b, LedgerCostKind kind, Numeric epsilon,
				  Numeric delta, Numeric rho)
{
	int64		lo = 0,
				hi = 1;

	/* admits(k) is monotone in k: double, then bisect */
	while (account_admits(b, kind, epsilon, delta, rho, hi))
	{
		lo = hi;
		if (hi >= PG_INT64_MAX / 4)
			return lo;
		hi *= 2;
		CHECK_FOR_INTERRUPTS();
	}
	while (hi - lo > 1)
	{
		int64		mid = lo + (hi - lo) / 2;

		if (account_admits(b, kind, epsilon, delta, rho, mid))
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* ---------------------------------------------------------------------
 * SQL
 * ---------------------------------------------------------------------
 */

static void
budget_args(FunctionCallInfo fcinfo, AccountBudget *b)
{
	b->granted_e = PG_GETARG_NUMERIC(0);
	b->granted_d = PG_GETARG_NUMERIC(1);
	b->spent_e = PG_GETARG_NUMERIC(2);
	b->spent_d = PG_GETARG_NUMERIC(3);
	b->spent_rho = PG_GETARG_NUMERIC(4);
}

/* dpobj.zcdp_epsilon(rho numeric, delta numeric) RETURNS numeric, STRICT */
Datum
dpobj_zcdp_epsilon(PG_FUNCTION_ARGS)
{
	Numeric		e = account_zcdp_epsilon(PG_GETARG_NUMERIC(0), PG_GETARG_NUMERIC(1));

	if (e == NULL)
		PG_RETURN_NULL();
	PG_RETURN_NUMERIC(e);
}

static LedgerCostKind
kind_of_text(text *t)
{
	char	   *s = text_to_cstring(t);

	if (strcmp(s, "zcdp") == 0)
		return LEDGER_COST_ZCDP;
	if (strcmp(s, "pure") == 0)
		return LEDGER_COST_PURE;
	if (strcmp(s, "approx") == 0)
		return LEDGER_COST_APPROX;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("unknown cost kind \"%s\"", s),
			 errhint("The kinds are approx, pure and zcdp.")));
	return LEDGER_COST_APPROX;	/* keep compiler quiet */
}

/*
 * dpobj.budget_admits(granted_epsilon, granted_delta, spent_epsilon,
 * spent_delta, spent_rho, kind, epsilon, delta, rho) RETURNS boolean: one
 * more run fits.  NULL arguments (but rho) refuse.
 */
Datum
dpobj_budget_admits(PG_FUNCTION_ARGS)
{
	AccountBudget b;

	for (int i = 0; i < 8; i++)
		if (PG_ARGISNULL(i))
			PG_RETURN_BOOL(false);
	budget_args(fcinfo, &b);
	PG_RETURN_BOOL(account_admits(&b, kind_of_text(PG_GETARG_TEXT_PP(5)),
								  PG_GETARG_NUMERIC(6), PG_GETARG_NUMERIC(7),
								  PG_ARGISNULL(8) ? NULL : PG_GETARG_NUMERIC(8), 1));
}

/* dpobj.budget_remaining_epsilon(granted_e, granted_d, spent_e, spent_d, spent_rho), STRICT */
Datum
dpobj_budget_remaining_epsilon(PG_FUNCTION_ARGS)
{
	AccountBudget b;

	budget_args(fcinfo, &b);
	PG_RETURN_NUMERIC(account_remaining_epsilon(&b));
}
