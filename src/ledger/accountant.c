/*-------------------------------------------------------------------------
 *
 * accountant.c
 *	  The ledger's budget arithmetic (accountant.h): the filter that composes
 *	  every run's charge, on a budget's state (AccountBudget).  The ledger
 *	  writer's guarded debit, train()'s pre-check, dpobj.runs_left and the
 *	  SQL functions over a budgets row (accountsql.c) all decide by it.
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

#include "ledger/accountant.h"
#include "base/dpnumeric.h"
#include "core/calibrate.h"
#include "core/gdp.h"

#include "miscadmin.h"
#include "utils/fmgrprotos.h"

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

static Numeric
num_mul(Numeric a, Numeric b)
{
	return DatumGetNumeric(DirectFunctionCall2(numeric_mul, NumericGetDatum(a),
											   NumericGetDatum(b)));
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

/*
 * A conversion's epsilon, never below 0: at a large delta the bound can come
 * out negative, and since a conversion's delta only falls as epsilon grows,
 * (0, delta) then holds already (NaN stays NaN: "no value")
 */
static double
eps_at_least_zero(double e)
{
	return e < 0.0 ? 0.0 : e;
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
	e = eps_at_least_zero(zcdp_eps(r, d));
	if (!isfinite(e) || !isfinite(r))
		return NULL;
	account_decimal_up(e * (1.0 + ACCOUNT_MARGIN_REL) + ACCOUNT_MARGIN_ABS, buf, sizeof(buf));
	return dp_numeric_of_text(buf);
}

static Numeric
num_of_double_up(double x)
{
	char		buf[64];

	account_decimal_up(x * (1.0 + ACCOUNT_MARGIN_REL) + ACCOUNT_MARGIN_ABS, buf, sizeof(buf));
	return dp_numeric_of_text(buf);
}

/* delta_c: the zCDP part's conversion delta, granted - linear - reserve */
static Numeric
account_delta_c(const AccountBudget *b)
{
	return num_sub(num_sub(b->granted_d, b->spent_d), b->reserve_d);
}

/* the zCDP part is on the Gaussian path */
static bool
account_gaussian_path(const AccountBudget *b)
{
	return b->split && b->gaussian_only;
}

/*
 * The delta each path of the zCDP part converts at.  A zCDP part that begins
 * with a Gaussian run on a budget with a reserve (reserve_share > 0, from
 * 0.4.0 on) is split (b->split): delta_c in halves, one for the Gaussian path
 * (while every run of the part is Gaussian, composed in GDP), one for the
 * Renyi path it moves to at its first other run.  Which of the two a part
 * is, is fixed by its first run, before any of its outputs.  Any other part
 * (and every part of a budget without a reserve) converts at delta_c on the
 * Renyi path alone.
 */
static Numeric
account_delta_path(const AccountBudget *b)
{
	Numeric		dc = account_delta_c(b);

	return b->split ? num_mul(dc, dp_numeric_of_text("0.5")) : dc;
}

/*
 * The Gaussian path: rho of discrete Gaussian releases only.  Each release
 * is within a factor e^(1e-130) of the continuous Gaussian of variance
 * s^2 - 16 (lattice units) post-processed, and s^2 >= min(2^52, 2^23 /
 * rho_run), so the whole part is mu-GDP with mu^2 = 2 rho / (1 - rho 2^-19)
 * (1 + 1e-14) (Smith and Thakurta 2022: adaptively chosen mu_i compose to
 * sqrt(sum mu_i^2)); NaN when the coupling's factor is not small (rho 2^-19
 * >= 1/2).  Rounded up.
 */
static double
account_gauss_mu(Numeric rho)
{
	return gdp_mu_of_rho(num_float_bound(rho, true));
}

/* a float8 epsilon a numeric one is at least, less the comparison's margins */
static double
account_eps_down(Numeric eps)
{
	return (num_float_bound(eps, false) - ACCOUNT_MARGIN_ABS) / (1.0 + ACCOUNT_MARGIN_REL);
}

/*
 * The Gaussian path's rule: rho fits eps at delta when the zCDP bound does
 * (as on the Renyi path) or mu(rho) is within gdp_mu_threshold(eps, delta).
 * Each is a threshold on rho for a given (eps, delta), so their union is
 * one: whether a run fits never depends on how rho got there.
 */
static bool
account_gauss_fits(Numeric rho, Numeric eps, Numeric delta)
{
	Numeric		z = account_zcdp_epsilon(rho, delta);
	double		d,
				e,
				mu;

	if (z != NULL && dp_numeric_cmp(z, eps) <= 0)
		return true;
	d = num_float_bound(delta, false);
	e = account_eps_down(eps);
	if (!(d > 0.0 && d < 1.0) || !(e >= 0.0))
		return false;
	mu = account_gauss_mu(rho);
	return !isnan(mu) && mu <= gdp_mu_threshold(e, d);
}

/*
 * The epsilon the Gaussian path has spent (my_budgets, revoke,
 * dpobj.gauss_epsilon): the least eps of a bisection below the zCDP bound
 * at which account_gauss_fits holds, rounded up; the zCDP bound where none
 * does.  An upper bound on the part's epsilon either way.
 */
Numeric
account_gauss_epsilon(Numeric rho, Numeric delta)
{
	double		r = num_float_bound(rho, true),
				d = num_float_bound(delta, false),
				mu = account_gauss_mu(rho),
				hi;

	if (num_sign(rho) <= 0)
		return int64_to_numeric(0);
	if (!(d > 0.0 && d < 1.0) || !isfinite(r))
		return NULL;
	hi = eps_at_least_zero(zcdp_eps(r, d));
	if (!isfinite(hi))
		return NULL;
	return num_of_double_up(gdp_epsilon_below(mu, d, hi));
}

/*
 * An upper bound on the epsilon the zCDP part (rho, and rdp at the part's
 * order) spends at its path's delta; NULL if delta_c <= 0 or the part has no
 * order.  The Gaussian path: GDP (account_gauss_epsilon).  The Renyi path:
 * alpha rho + rdp + c(alpha, delta_p) at the order fixed when the part
 * began, whatever the grant since (docs/PRIVACY.md, "Composition: one filter for every mechanism").
 */
static Numeric
account_part2_epsilon(const AccountBudget *b, Numeric rho, Numeric rdp, double order)
{
	double		d = num_float_bound(account_delta_path(b), false),
				e;

	if (num_sign(rho) == 0 && num_sign(rdp) == 0)
		return int64_to_numeric(0);
	if (account_gaussian_path(b))
		return num_sign(account_delta_c(b)) > 0 ?
			account_gauss_epsilon(rho, account_delta_path(b)) : NULL;
	if (!(order > 1.0) || !(d > 0.0 && d < 1.0))
		return NULL;
	e = eps_at_least_zero(order * num_float_bound(rho, true) + num_float_bound(rdp, true) +
						  rdp_conversion(order, d));
	if (!isfinite(e))
		return NULL;
	return num_of_double_up(e);
}

/* the state (lin_e, lin_d; rho, rdp at order) is within the budget */
static bool
account_fits(const AccountBudget *b, Numeric lin_e, Numeric lin_d, Numeric rho,
			 Numeric rdp, double order)
{
	AccountBudget s = *b;
	Numeric		ez;

	s.spent_e = lin_e;
	s.spent_d = lin_d;
	if (dp_numeric_cmp(lin_e, b->granted_e) > 0 || dp_numeric_cmp(lin_d, b->granted_d) > 0)
		return false;
	/* the Gaussian path holds no rdp (any run that adds some leaves it) */
	if (num_sign(rho) > 0 && account_gaussian_path(&s))
		return num_sign(account_delta_c(&s)) > 0 &&
			account_gauss_fits(rho, num_sub(b->granted_e, lin_e), account_delta_path(&s));
	ez = account_part2_epsilon(&s, rho, rdp, order);
	return ez != NULL && dp_numeric_cmp(num_add(lin_e, ez), b->granted_e) <= 0;
}

/*
 * The delta kept for approximate-DP runs after the first run counted by
 * rho: the budget's reserve share of the granted delta (all of it, also
 * in a view), at most half of what the linear part left.  Fixed when
 * that run is charged.
 */
static Numeric
account_reserve(const AccountBudget *b)
{
	Numeric		share = num_mul(b->full_d != NULL ? b->full_d : b->granted_d, b->reserve_share);
	Numeric		half = num_mul(num_sub(b->granted_d, b->spent_d), dp_numeric_of_text("0.5"));

	return dp_numeric_cmp(share, half) <= 0 ? share : half;
}

/*
 * The Renyi path's one order, fixed when the zCDP part begins (E, delta_R and
 * the split are fixed by then; the grant is the one in force), never moved by
 * a later grant: the grid order under which the most rho fits epsilon_g - E
 * at delta_p.  A rho fits some grid order iff it fits this one, so under that
 * grant a part of zCDP runs admits what the best order would.  0 when delta_p
 * is not in (0, 1).
 */
static double
cur_part_order(const AccountBudget *b)
{
	double		d = num_float_bound(account_delta_path(b), false);

	if (!(d > 0.0 && d < 1.0))
		return 0.0;
	return rdp_best_order(num_float_bound(num_sub(b->granted_e, b->spent_e), false), d);
}

/* an approximate-DP or pure run after the zCDP part began: Renyi cost k min(eps, order eps^2/2) */
static bool
account_debit_reserve(const AccountBudget *b, Numeric epsilon, Numeric delta, int64 k,
					  AccountBudget *out)
{
	double		order = b->order,
				e = num_float_bound(epsilon, true),
				c;

	out->spent_reserve_d = num_add(b->spent_reserve_d, num_mul_int(delta, k));
	if (dp_numeric_cmp(out->spent_reserve_d, b->reserve_d) > 0 || !(order > 1.0))
		return false;
	c = Min(e, 0.5 * order * e * e);
	out->gaussian_only = false;
	out->spent_rdp = num_add(b->spent_rdp, num_mul_int(num_of_double_up(c), k));
	return account_fits(out, b->spent_e, b->spent_d, b->spent_rho, out->spent_rdp, order);
}

/* the current filter's debit, on its budget (account_cur_of) */
static bool
cur_debit(const AccountBudget *b, LedgerCostKind kind, Numeric epsilon,
		  Numeric delta, Numeric rho, int64 k, AccountBudget *out)
{
	bool		part2 = num_sign(b->spent_rho) > 0;

	*out = *b;
	if (k <= 0)
		return true;
	/* pure runs in the zCDP part: Renyi cost min(eps, alpha eps^2/2), no delta */
	if (kind == LEDGER_COST_APPROX && part2)
		return account_debit_reserve(b, epsilon, delta, k, out);
	if (kind == LEDGER_COST_PURE && part2)
		return account_debit_reserve(b, epsilon, int64_to_numeric(0), k, out);
	if (kind == LEDGER_COST_ZCDP || kind == LEDGER_COST_GAUSS)
	{
		if (rho == NULL || num_sign(rho) <= 0)
			return false;
		if (!part2)
		{
			out->reserve_d = account_reserve(b);
			out->split = kind == LEDGER_COST_GAUSS && num_sign(b->reserve_share) > 0;
			out->order = cur_part_order(out);
		}
		/* the Gaussian path while every run of a split part is Gaussian */
		out->gaussian_only = kind == LEDGER_COST_GAUSS && out->split &&
			(!part2 || b->gaussian_only);
		out->spent_rho = num_add(b->spent_rho, num_mul_int(rho, k));
		return account_fits(out, b->spent_e, b->spent_d, out->spent_rho, b->spent_rdp, out->order);
	}
	out->spent_e = num_add(b->spent_e, num_mul_int(epsilon, k));
	out->spent_d = num_add(b->spent_d, num_mul_int(delta, k));
	return account_fits(b, out->spent_e, out->spent_d, b->spent_rho, b->spent_rdp, b->order);
}

/*
 * The basic filter and the current one share the rest of the budget once
 * its zCDP part begins (docs/PRIVACY.md, "Composition: one filter for every
 * mechanism"): of delta_g - lin_d, basic_share for the basic filter, the
 * rest for the current one.  Before that both are the linear part itself.
 */
static bool
account_part2(const AccountBudget *b)
{
	return num_sign(b->spent_rho) > 0 || b->cur_refused;
}

/* the basic filter's share of the delta the linear part left */
static Numeric
account_basic_delta(const AccountBudget *b)
{
	return num_mul(num_sub(b->granted_d, b->spent_d), b->basic_share);
}

/* the budget as the current filter sees it from its zCDP part on: granted delta less that share */
static AccountBudget
account_cur_view(const AccountBudget *b)
{
	AccountBudget v = *b;

	if (num_sign(b->basic_share) > 0)
	{
		v.full_d = b->granted_d;
		v.granted_d = num_sub(b->granted_d, account_basic_delta(b));
	}
	return v;
}

/* the current filter's budget: the view once the zCDP part began */
static AccountBudget
account_cur_of(const AccountBudget *b)
{
	return account_part2(b) ? account_cur_view(b) : *b;
}

/* the basic filter still decides (beside the current one) */
static bool
account_basic_on(const AccountBudget *b)
{
	return num_sign(b->basic_share) > 0 && !b->basic_retired;
}

/*
 * The basic filter in the zCDP part: every run (eps_i, delta_i)-DP as
 * requested, a pure one with delta 0, summed (with the linear part's) within
 * granted epsilon, and lin_d plus its share of delta; the sums in *out
 */
static bool
basic_debit(const AccountBudget *b, LedgerCostKind kind, Numeric epsilon,
			 Numeric delta, int64 k, AccountBudget *out)
{
	Numeric		d = kind == LEDGER_COST_PURE ? int64_to_numeric(0) : delta;

	out->basic_e = num_add(b->basic_e, num_mul_int(epsilon, k));
	out->basic_d = num_add(b->basic_d, num_mul_int(d, k));
	return dp_numeric_cmp(out->basic_e, b->granted_e) <= 0 &&
		dp_numeric_cmp(num_sub(out->basic_d, b->spent_d), account_basic_delta(b)) <= 0;
}

/* the current filter's debit on its budget, the granted delta kept in *out */
static bool
cur_debit_of(const AccountBudget *b, bool view, LedgerCostKind kind, Numeric epsilon,
			 Numeric delta, Numeric rho, int64 k, AccountBudget *out)
{
	AccountBudget v = view ? account_cur_view(b) : *b;
	bool		ok = cur_debit(&v, kind, epsilon, delta, rho, k, out);

	out->granted_d = b->granted_d;
	out->full_d = b->full_d;
	return ok;
}

/*
 * The rule.  Before the zCDP part, the linear part's (the basic filter's
 * sums follow it).  From its first run on, while the basic filter is on,
 * a run is admitted iff the basic filter admits it or the current filter
 * admits the whole history with it; the first run only the current filter
 * admits retires the basic filter for good, the first only the basic one
 * admits ends the current one for good (its state stays).  k runs in a
 * row: admitted iff either filter admits all k (each is monotone in k).
 */
bool
account_debit(const AccountBudget *b, LedgerCostKind kind, Numeric epsilon,
			  Numeric delta, Numeric rho, int64 k, AccountBudget *out)
{
	AccountBudget cur,
				lin = *b;
	bool		cur_ok,
				lin_ok,
				zcdp = kind == LEDGER_COST_ZCDP || kind == LEDGER_COST_GAUSS;

	*out = *b;
	if (k <= 0)
		return true;
	if (!account_basic_on(b) || (!account_part2(b) && !zcdp))
	{
		cur_ok = cur_debit_of(b, account_part2(b) || zcdp, kind, epsilon, delta, rho, k, out);
		if (cur_ok && account_basic_on(b))
		{
			out->basic_e = out->spent_e;
			out->basic_d = out->spent_d;
		}
		return cur_ok;
	}
	lin_ok = basic_debit(b, kind, epsilon, delta, k, &lin);
	cur_ok = !b->cur_refused && cur_debit_of(b, true, kind, epsilon, delta, rho, k, &cur);
	if (!lin_ok && !cur_ok)
		return false;
	if (cur_ok)
		*out = cur;
	else
		out->cur_refused = true;
	if (lin_ok)
	{
		out->basic_e = lin.basic_e;
		out->basic_d = lin.basic_d;
	}
	else
		out->basic_retired = true;
	return true;
}

bool
account_admits(const AccountBudget *b, LedgerCostKind kind, Numeric epsilon,
			   Numeric delta, Numeric rho, int64 k)
{
	AccountBudget out;

	return account_debit(b, kind, epsilon, delta, rho, k, &out);
}

/*
 * The two accounts the spent epsilon is the least of: the basic filter's
 * sum while it is on from the zCDP part on (else NULL), and the current
 * filter's spend (NULL once it refused a run)
 */
void
account_spent_accounts(const AccountBudget *b, Numeric *sum, Numeric *composed)
{
	AccountBudget v = account_cur_of(b);
	Numeric		ez = account_part2_epsilon(&v, v.spent_rho, v.spent_rdp, v.order);

	*composed = ez == NULL ? b->granted_e : num_add(b->spent_e, ez);
	*sum = NULL;
	if (!account_basic_on(b))
		return;
	if (b->cur_refused)
		*composed = NULL;
	if (account_part2(b))
		*sum = b->basic_e;
}

/*
 * The epsilon spent, composed: while the basic filter is on, the least of
 * its sum and the current filter's spend (the sum alone once the current
 * filter refused a run), else the current filter's
 */
Numeric
account_spent_epsilon(const AccountBudget *b)
{
	Numeric		sum,
				cur;

	account_spent_accounts(b, &sum, &cur);
	if (cur == NULL || (sum != NULL && dp_numeric_cmp(sum, cur) < 0))
		return sum != NULL ? sum : b->basic_e;
	return cur;
}

Numeric
account_remaining_epsilon(const AccountBudget *b)
{
	Numeric		rest = num_sub(b->granted_e, account_spent_epsilon(b));

	return num_sign(rest) < 0 ? int64_to_numeric(0) : rest;
}

/*
 * The delta the composed epsilon goes with (my_budgets.spent_delta): the
 * basic filter's sum while the spent epsilon is its sum (from the zCDP part
 * on), else the linear part's
 */
Numeric
account_spent_delta(const AccountBudget *b)
{
	if (account_basic_on(b) && account_part2(b) &&
		dp_numeric_cmp(account_spent_epsilon(b), b->basic_e) == 0)
		return b->basic_d;
	return b->spent_d;
}

/* granted delta less the spent delta shown beside the spent epsilon */
Numeric
account_remaining_delta(const AccountBudget *b)
{
	return num_sub(b->granted_d, account_spent_delta(b));
}

double
account_part_order(const AccountBudget *b)
{
	AccountBudget v = account_cur_view(b);

	return cur_part_order(&v);
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

const char *
account_composition(const AccountBudget *b)
{
	if (account_basic_on(b) || num_sign(b->spent_rho) == 0)
		return "linear";
	return account_gaussian_path(b) ? "gaussian" : "renyi";
}

const char *
account_accounted(const AccountBudget *after, LedgerCostKind kind)
{
	if (after->cur_refused || num_sign(after->spent_rho) == 0)
		return "linear";
	if (kind == LEDGER_COST_ZCDP || kind == LEDGER_COST_GAUSS)
		return "rho";
	return "reserve";
}
