/*-------------------------------------------------------------------------
 *
 * accountnext.c
 *	  What a budget's state means for the analyst's next run (accountant.h):
 *	  the largest epsilon a run of each kind may ask for now, and the one
 *	  line a charge says about what it adds to the spent epsilon and why.
 *	  Both decide by the accountant's own rule (accountant.c) on the run's
 *	  cost as the run computes it; neither changes the accounting, and both
 *	  depend on the ledger's public charges and the request alone.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "ledger/accountant.h"
#include "base/calibsql.h"
#include "base/dpnumeric.h"
#include "core/calibrate.h"

#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"

/* 10^-6: the finest epsilon a protected run takes (DPOBJ_MIN_EPSILON_TEXT) */
#define NEXT_SCALE		6
/* epsilon at most 2^52 x 10^-6 (4.5e9): far above any budget's */
#define NEXT_MAX_UNITS	(INT64CONST(1) << 52)

bool
account_run_rho(LedgerCostKind kind, double epsilon, double delta, char *rho, size_t len)
{
	double		r;

	rho[0] = '\0';
	if (kind == LEDGER_COST_APPROX)
		return true;
	if (kind == LEDGER_COST_PURE)
	{
		account_decimal_up(0.5 * epsilon * epsilon, rho, len);
		return true;
	}
	/* gauss, zcdp: the very rho the mechanism calibrates to */
	if (!dpobj_zcdp_rho_try(epsilon, delta, &r))
		return false;
	account_decimal_up(r, rho, len);
	return true;
}

/* the request n x 10^-6 */
static Numeric
next_units(int64 n)
{
	return int64_div_fast_to_numeric(n, NEXT_SCALE);
}

/* the run of kind at (n x 10^-6, delta) has a cost (gauss: above the conversion's floor) */
static bool
next_cost(LedgerCostKind kind, int64 n, Numeric delta, Numeric *rho)
{
	char		buf[64];

	*rho = NULL;
	if (!account_run_rho(kind, dp_numeric_to_float8_down(next_units(n), "epsilon"),
						 dp_numeric_to_float8_down(delta, "delta"), buf, sizeof(buf)))
		return false;
	if (kind != LEDGER_COST_APPROX)
		*rho = dp_numeric_of_text(buf);
	return true;
}

/* the budget admits one run of kind at (n x 10^-6, delta), costed as the run is */
static bool
next_admits(const AccountBudget *b, LedgerCostKind kind, int64 n, Numeric delta)
{
	Numeric		rho;

	CHECK_FOR_INTERRUPTS();
	return next_cost(kind, n, delta, &rho) &&
		account_admits(b, kind, next_units(n), delta, rho, 1);
}

/*
 * The least n with a cost: 1, or for a Gaussian run the first above the
 * conversion's floor at delta (having a cost is monotone in n), found from
 * the floor itself; 0 if none up to NEXT_MAX_UNITS
 */
static int64
next_least_costed(LedgerCostKind kind, Numeric delta)
{
	int64		lo,
				hi = 1;
	Numeric		rho;
	double		floor_e;

	if (kind == LEDGER_COST_PURE || kind == LEDGER_COST_APPROX)
		return 1;
	floor_e = zcdp_eps(0.0, dp_numeric_to_float8_down(delta, "delta"));
	if (isfinite(floor_e) && floor_e > 0 && floor_e * 1e6 < (double) NEXT_MAX_UNITS)
		hi = Max((int64) floor(floor_e * 1e6), 1);
	/* hi: a guess; then exactly: lo has no cost (or is 0), hi has one */
	while (!next_cost(kind, hi, delta, &rho))
	{
		hi *= 2;
		if (hi > NEXT_MAX_UNITS)
			return 0;
	}
	lo = hi / 2;
	while (lo > 0 && next_cost(kind, lo, delta, &rho))
	{
		hi = lo;
		lo /= 2;
	}
	while (hi - lo > 1)
	{
		int64		mid = lo + (hi - lo) / 2;

		if (next_cost(kind, mid, delta, &rho))
			hi = mid;
		else
			lo = mid;
	}
	return hi;
}

/* lo admitted, hi not: the largest admitted n between */
static int64
next_bisect(const AccountBudget *b, LedgerCostKind kind, Numeric delta, int64 lo, int64 hi)
{
	while (hi - lo > 1)
	{
		int64		mid = lo + (hi - lo) / 2;

		if (next_admits(b, kind, mid, delta))
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The largest admitted n, exactly, from a guess: gallop from the guess up
 * while admitted or down while refused, then bisect.  Admission is monotone
 * in n once a run has a cost (a larger epsilon adds more to every sum, more
 * rho or Renyi divergence), so the admitted n are the costed ones up to the
 * answer; a request below the least costed n (a Gaussian run's conversion
 * floor, next_least_costed, found only when the search reaches it) is
 * refused too.  A good guess costs a few checks, a bad one only more.  0
 * when none is admitted.
 */
static int64
next_search(const AccountBudget *b, LedgerCostKind kind, Numeric delta, int64 guess)
{
	int64		step = 1,
				n = Max(guess, 1),
				least;
	Numeric		rho;

	/* a guess below the least costed n: from that n */
	if (!next_cost(kind, n, delta, &rho))
	{
		n = next_least_costed(kind, delta);
		if (n == 0)
			return 0;
	}
	if (next_admits(b, kind, n, delta))
	{
		while (next_admits(b, kind, n + step, delta))
		{
			n += step;
			step *= 2;
			if (n + step > NEXT_MAX_UNITS)
				return n;
		}
		return next_bisect(b, kind, delta, n, n + step);
	}
	/* n refused: above the answer, or below the least costed n */
	while (n - step >= 1 && next_cost(kind, n - step, delta, &rho))
	{
		if (next_admits(b, kind, n - step, delta))
			return next_bisect(b, kind, delta, n - step, n);
		n -= step;
		step *= 2;
	}
	least = next_least_costed(kind, delta);
	if (least == 0 || least >= n || !next_admits(b, kind, least, delta))
		return 0;
	return next_bisect(b, kind, delta, least, n);
}

/*
 * A Gaussian run's guess without its costly conversion: it is admitted when
 * the basic filter admits its epsilon or the current filter its rho
 * (accountant.c), each alone found by bisection with the other's amount
 * out of reach; the rho's epsilon is zcdp_eps(rho, delta), the inverse of
 * the run's zcdp_rho.  Only a guess: next_search checks it exactly.
 */
static int64
next_gauss_guess(const AccountBudget *b, LedgerCostKind kind, Numeric delta)
{
	Numeric		far = dp_numeric_of_text("1e30");
	char		buf[64];
	double		lo = 0.0,
				hi = 1.0,
				e;
	int64		n_lo = 0,
				n_hi = NEXT_MAX_UNITS;

	/* the basic filter: epsilon with a rho no filter admits */
	while (n_hi - n_lo > 1)
	{
		int64		mid = n_lo + (n_hi - n_lo) / 2;

		if (account_admits(b, kind, next_units(mid), delta, far, 1))
			n_lo = mid;
		else
			n_hi = mid;
	}
	/* the current filter: rho with an epsilon no basic sum admits */
	for (int i = 0; i < 40; i++)
	{
		account_decimal_up(hi, buf, sizeof(buf));
		if (!account_admits(b, kind, far, delta, dp_numeric_of_text(buf), 1))
			break;
		lo = hi;
		hi *= 4;
	}
	for (int i = 0; i < 80 && hi - lo > 1e-15 * hi; i++)
	{
		double		mid = 0.5 * (lo + hi);

		account_decimal_up(mid, buf, sizeof(buf));
		if (account_admits(b, kind, far, delta, dp_numeric_of_text(buf), 1))
			lo = mid;
		else
			hi = mid;
	}
	e = lo > 0 ? zcdp_eps(lo, dp_numeric_to_float8_down(delta, "delta")) : 0.0;
	if (isfinite(e) && e * 1e6 > (double) n_lo && e * 1e6 < (double) NEXT_MAX_UNITS)
		return (int64) floor(e * 1e6);
	return n_lo;
}

Numeric
account_next_epsilon(const AccountBudget *b, LedgerCostKind kind, Numeric delta)
{
	int64		n;

	if (kind == LEDGER_COST_GAUSS || kind == LEDGER_COST_ZCDP)
		n = next_search(b, kind, delta, next_gauss_guess(b, kind, delta));
	else
		n = next_search(b, kind, delta, 1);
	return DatumGetNumeric(DirectFunctionCall1(numeric_trim_scale,
											   NumericGetDatum(next_units(n))));
}

/* an amount for the note: 4 significant digits, no exponent, no trailing zeros */
static char *
note_amount(Numeric x)
{
	double		v = DatumGetFloat8(DirectFunctionCall1(numeric_float8, NumericGetDatum(x)));
	int			decimals = v == 0 ? 0 : 3 - (int) floor(log10(fabs(v)));
	char	   *s = psprintf("%.*f", Max(decimals, 0), v);
	char	   *end = s + strlen(s) - 1;

	if (strchr(s, '.') != NULL)
	{
		while (*end == '0')
			*end-- = '\0';
		if (*end == '.')
			*end = '\0';
	}
	return s;
}

/* where a run of kind adds to the composed account */
static const char *
note_composed(LedgerCostKind kind)
{
	if (kind == LEDGER_COST_GAUSS || kind == LEDGER_COST_ZCDP)
		return "a Gaussian or zCDP run adds its rho there, converted to epsilon once at the budget's delta";
	return "a pure or (epsilon, delta) run adds its Renyi divergence there at the budget's fixed order, which may exceed its epsilon";
}

/* why the run adds what it adds: the accounts before it and after it */
static char *
note_reason(const AccountBudget *before, const AccountBudget *after, LedgerCostKind kind)
{
	Numeric		sum,
				composed,
				sum0,
				composed0;

	account_spent_accounts(before, &sum0, &composed0);
	account_spent_accounts(after, &sum, &composed);
	if (dp_numeric_cmp(after->spent_rho, int64_to_numeric(0)) == 0 && !after->cur_refused)
		return pstrdup("runs add up their epsilon until the budget's first Gaussian or zCDP run");
	if (sum != NULL && composed != NULL)
		return psprintf("the spent epsilon is the smaller of the runs' summed epsilon (%s) and their "
						"composition by rho and Renyi divergence (%s)%s%s",
						note_amount(sum), note_amount(composed),
						dp_numeric_cmp(composed, sum) < 0 ? "; " : "",
						dp_numeric_cmp(composed, sum) < 0 ? note_composed(kind) : "");
	if (sum != NULL)
		return pstrdup(composed0 != NULL ?
					   "only the runs' summed epsilon admits it, so the budget adds up their epsilon from now on" :
					   "the budget adds up the runs' epsilon since a run only that account admitted");
	if (sum0 != NULL)
		return psprintf("the runs' summed epsilon and delta no longer admit it, so the spent epsilon is "
						"now their composition by rho and Renyi divergence: %s", note_composed(kind));
	return psprintf("the budget composes by rho and Renyi divergence: %s", note_composed(kind));
}

char *
account_charge_note(const AccountBudget *b, LedgerCostKind kind, Numeric epsilon,
					Numeric delta, Numeric rho)
{
	AccountBudget after;
	Numeric		spent;
	Numeric		adds;

	if (!account_debit(b, kind, epsilon, delta, rho, 1, &after))
		return NULL;
	spent = account_spent_epsilon(&after);
	adds = DatumGetNumeric(DirectFunctionCall2(numeric_sub, NumericGetDatum(spent),
											   NumericGetDatum(account_spent_epsilon(b))));
	/* spent as asked: nothing to explain */
	if (dp_numeric_cmp(adds, epsilon) == 0)
		return NULL;
	return psprintf("dpobj: this run spends epsilon %s (asked %s; spent %s of %s after it): %s",
					note_amount(adds), note_amount(epsilon), note_amount(spent),
					note_amount(b->granted_e), note_reason(b, &after, kind));
}
