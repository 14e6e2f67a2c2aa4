/*-------------------------------------------------------------------------
 *
 * aggplan.c
 *	  Accuracy before any run, from public quantities only (the declared
 *	  domains, group_by, what, the table's privacy unit k and the noise
 *	  law of state/agglayout.c and aggrun.c's intervals): no row read,
 *	  nothing charged.
 *
 *	  dpobj.aggregate_accuracy(rel, what, epsilon, group_by, options):
 *	      per statistic, the 95 % half-width dpobj.aggregate() gives at
 *	      epsilon
 *	  dpobj.aggregate_epsilon(rel, what, half_width, group_by, options):
 *	      per statistic, the least epsilon of the call (6 significant
 *	      digits, rounded up) whose half-width is at most half_width
 *
 *	  A mean's or variance's half-width needs options {"count": n}, the
 *	  true count it assumes (of its non-NULL values; NULL without one); a
 *	  quantile's is in ranks
 *	  (its interval's reach beyond rank t, core/aggquant.h), as no value
 *	  bound follows without the rows.  With "rows_per_unit": "private"
 *	  both take the worst case: the declared k at the statistics' share.
 *	  Both refuse what dpobj.aggregate() refuses on the same public
 *	  grounds, with its errors.
 *
 *	  The half-widths follow the table's privacy unit's k and its declared
 *	  bounds, and the errors tell which columns are declared: both answer
 *	  only the table's readers, administrators and budget holders (its
 *	  domain's), refusing anyone else before any lock.  Neither starts a
 *	  run, so every lock either takes (the table's, pg_cast's for a key) is
 *	  released when it returns: it plans in a subtransaction rolled back.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/xact.h"
#include "catalog/pg_authid.h"
#include "catalog/pg_type.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "funcapi.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"
#include "utils/resowner.h"

#include "base/dpobj.h"
#include "base/options.h"
#include "base/pg_compat.h"
#include "base/privileged.h"
#include "context/trainquery.h"
#include "core/aggci.h"
#include "core/aggquant.h"
#include "core/calibrate.h"
#include "families/registry.h"
#include "protected/lookups.h"
#include "protected/aggrun.h"
#include "protected/budgetdomains.h"
#include "protected/domains.h"
#include "protected/entryargs.h"
#include "protected/protectable.h"
#include "protected/train.h"
#include "protected/unitbound.h"
#include "protected/units.h"
#include "state/agglayout.h"

PG_FUNCTION_INFO_V1(dpobj_aggregate_accuracy);
PG_FUNCTION_INFO_V1(dpobj_aggregate_epsilon);

typedef struct AggPlan
{
	AggLayout  *l;
	int			k;				/* rows per privacy unit (1: row level) */
	double		count;			/* options "count", or NaN */
	const char *fname;			/* the SQL function, for errors */
	bool		keyed;			/* grouped by a key without levels (aggkeys.c) */
	bool		unit_private;	/* "rows_per_unit": "private": the worst case, k at its share */
} AggPlan;

/*
 * options: "count", a number > 0, a private query's "lookups" (lookups.h)
 * and "rows_per_unit" (unitbound.h; checked by aggrun_unit_private)
 */
static double
aggplan_count(Jsonb *options, const char *fname)
{
	JsonbIterator *it;
	JsonbValue	v;
	JsonbIteratorToken tok;
	JsonbValue *c;

	if (!JB_ROOT_IS_OBJECT(options) || JB_ROOT_IS_SCALAR(options))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: options must be a JSON object", fname),
				 errhint("For example '{\"count\": 1000}'.")));
	it = JsonbIteratorInit(&options->root);
	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
		if (tok == WJB_KEY && !(v.val.string.len == 5 && strncmp(v.val.string.val, "count", 5) == 0) &&
			!(v.val.string.len == 7 && strncmp(v.val.string.val, "lookups", 7) == 0) &&
			!(v.val.string.len == 13 && strncmp(v.val.string.val, "rows_per_unit", 13) == 0))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("unknown option \"%.*s\" for %s", v.val.string.len, v.val.string.val, fname),
					 errhint("%s takes the options \"count\" (the true count a mean's or variance's accuracy assumes) and \"rows_per_unit\".", fname)));
	c = getKeyJsonValueFromContainer(&options->root, "count", 5, NULL);
	return c ? dp_option_number(c, "count", 0, 1e15, true) : NAN;
}

/* the float8 a run's float8 epsilon argument becomes (numeric, then rounded down) */
static double
aggplan_charged(double eps)
{
	return dp_numeric_to_float8_down(DatumGetNumeric(DirectFunctionCall1(float8_numeric,
																		 Float8GetDatum(eps))),
									 "epsilon");
}

/*
 * The plan of a call on public grounds, in dpobj.aggregate()'s order: the
 * relation, the columns, the options, the declared domains, the layout,
 * the table, the epsilon (eps > 0 only: aggregate_epsilon has none), k,
 * Citus and a private k'.
 */
static void
aggplan_prepare(FunctionCallInfo fcinfo, const char *fname, double eps, AggPlan *p)
{
	char		relkind;
	Oid			relid = PG_GETARG_OID(0);
	char	   *relation;
	AggCall		c;
	Jsonb	   *enc;
	Jsonb	   *layout;
	TableUnit	unit;
	char	   *eps_text,
			   *delta_text;

	p->fname = fname;
	relation = dp_lock_relation(relid, &relkind);
	/* the public lookup tables whose columns it may name, checked (lookups.h) */
	lookups_prepare(relid, PG_GETARG_JSONB_P(4), true);
	/* by a key without levels: a key's statistics are a cell's, its count added */
	aggrun_prepare(relid, relation, PG_GETARG_JSONB_P(1), PG_GETARG_ARRAYTYPE_P(3), &c);
	p->keyed = c.key != NULL;
	p->count = aggplan_count(PG_GETARG_JSONB_P(4), fname);
	p->unit_private = aggrun_unit_private(PG_GETARG_JSONB_P(4), c.key, fname);
	enc = aggrun_expr_encoding(relid, relation, c.enc, c.what, &c.cols, &c.ncols);
	layout = aggrun_layout(enc, c.group_by, c.what);
	p->l = agg_layout_parse(layout);
	dpobj_check_protectable(relid, relation);
	/* delta plays no part in aggregate's noise: any valid one */
	if (eps > 0)
		train_check_privacy(DatumGetNumeric(DirectFunctionCall1(float8_numeric, Float8GetDatum(eps))),
							DatumGetNumeric(DirectFunctionCall1(float8_numeric, Float8GetDatum(0.5))),
							&eps_text, &delta_text);
	units_for_run(relid, relation, &unit);
	p->k = Max(unit.rows_per_unit, 1);
	(void) dpobj_check_citus_run(relid, relation, &unit);
	if (p->unit_private)
		unit_bound_check_table(&unit);
	if (eps > 0)
	{
		Jsonb	   *opts = DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(
			psprintf("{\"layout\": %s, \"rows_per_unit\": %d}",
					 JsonbToCString(NULL, &layout->root, VARSIZE(layout)), p->k))));
		const char *method;
		const DPMechanism *mech = mechanism_lookup_entry(p->keyed ? "aggregate_keys" : "aggregate",
														 &method);

		/* the run's argument check, its registry entry's */
		mech->check_args(mech->aggname, aggplan_charged(eps), 0.5, p->l->enc->d, opts);
	}
}

/* slot's noise scale num / den at epsilon eps for units of k rows (agg_slot_eps) */
static void
aggplan_noise(const AggLayout *l, int slot, double eps, int k, uint64 *num, uint64 *den)
{
	double		share;
	AggSlotKind kind = agg_slot_kind(l, slot, &share);

	agg_slot_noise(kind == AGG_SLOT_SUM, agg_slot_eps(kind, eps, k, l->ncells) * share, num, den);
}

/* every slot's noise has den >= 1 at eps (else aggregate refuses epsilon) */
static bool
aggplan_fits(const AggLayout *l, double eps, int k)
{
	for (int i = 0; i < l->width; i++)
	{
		uint64		num,
					den;

		aggplan_noise(l, i, eps, k, &num, &den);
		if (den < 1)
			return false;
	}
	return true;
}

/* slot's noise rate den / num at eps (core/aggci.h), as aggrun.c's intervals */
static double
aggplan_rate(const AggLayout *l, int slot, double eps, int k)
{
	uint64		num,
				den;

	aggplan_noise(l, slot, eps, k, &num, &den);
	return (double) den / (double) num;
}

/* a quantile's reach in ranks at eps, the largest over its q's (core/aggquant.h) */
static double
aggplan_quantile(const AggLayout *l, const AggStat *st, double eps, int k)
{
	AggquantShape s = {st->nbins, st->group, aggplan_rate(l, st->slot, eps, k),
	st->ncoarse > 0 ? aggplan_rate(l, st->slot + st->nbins, eps, k) : 0};
	AggquantLaw *law = aggquant_law_new(&s);
	double		reach = 0;

	if (law == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory"),
				 errdetail("Failed on a quantile's noise law.")));
	/* nothing here raises: the law is freed below */
	for (int j = 0; j < st->nq; j++)
		reach = fmax(reach, aggquant_reach(law, st->q[j], 0.025));
	aggquant_law_free(law);
	return reach;
}

/*
 * Statistic i's 95 % half-width in its own units at the charged epsilon
 * eps (NaN: epsilon too small, or a mean or variance without "count"):
 * aggrun.c's, from the same core/aggci.h functions.
 */
static double
aggplan_halfwidth(const AggPlan *p, int i, double eps)
{
	const AggLayout *l = p->l;
	const AggStat *st = &l->stats[i];
	const EncColumn *c = st->col >= 0 ? &l->enc->cols[st->col] : NULL;
	AggciColumn ac = {c ? c->lo : 0, c ? c->hi : 0, st->step};
	int			k = p->k;

	/* a private k' <= k: aggregate.c's rest of epsilon, at k (the worst case) */
	if (p->unit_private)
		eps = nextafter(eps - eps * UNIT_BOUND_SHARE, 0);
	if (!aggplan_fits(l, eps, k))
		return NAN;
	switch (st->kind)
	{
		case AGG_COUNT:
		case AGG_UNITS:
		case AGG_HISTOGRAM:
			return aggci_halfwidth(aggplan_rate(l, st->slot, eps, k), 0.05);
		case AGG_SUM:
			return aggci_halfwidth(aggplan_rate(l, st->slot, eps, k), 0.05) * st->step;
		case AGG_MEAN:
			if (!(p->count > 0))
				return NAN;
			return aggci_mean_halfwidth(&ac, p->count, aggplan_rate(l, st->slot, eps, k),
										aggplan_rate(l, st->slot + 1, eps, k));
		case AGG_VARIANCE:
			/* a sample variance's: the population one's times n / (n - 1) */
			if (!(p->count > (st->sample ? 1 : 0)))
				return NAN;
			return aggci_variance_halfwidth(&ac, AGG_SUM_UNITS, p->count,
											aggplan_rate(l, st->slot, eps, k),
											aggplan_rate(l, st->slot + 1, eps, k),
											aggplan_rate(l, st->slot + 2, eps, k)) *
				(st->sample ? p->count / (p->count - 1) : 1);
		case AGG_QUANTILE:
			/* in ranks: an end's reach beyond rank t (plus a leaf) */
			return aggplan_quantile(l, st, eps, k);
		default:
			break;
	}
	/* a statistic without a half-width here is refused, not guessed */
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("%s: no accuracy for statistic %d of \"what\"", p->fname, i + 1),
			 errhint("It gives count, sum, mean, variance, histogram and quantile (in ranks).")));
	return NAN;					/* keep compiler quiet */
}

static bool
aggplan_meets(const AggPlan *p, int i, double eps, double x)
{
	double		h = aggplan_halfwidth(p, i, eps);

	return !isnan(h) && h <= x;
}

/*
 * The least epsilon argument (rounded up to 6 significant digits) whose
 * run meets x for statistic i, or NaN: the half-width only shrinks as
 * epsilon grows (den grows), so a bisection over the float8s (ordered as
 * their bit patterns) finds the least, then the rounded value is checked
 * as a run converts it.  Past 2^16 x 2 statistics x k no slot's noise
 * changes (agglayout.h's caps).
 */
static double
aggplan_least(const AggPlan *p, int i, double x)
{
	double		lo = 1e-6,
				hi = ldexp(1.0, 17) * p->l->nstats * p->k,
				e,
				step;
	int64		a,
				b;

	if (aggplan_meets(p, i, aggplan_charged(lo), x))
		return lo;
	if (!aggplan_meets(p, i, hi, x))
		return NAN;
	memcpy(&a, &lo, sizeof(a));
	memcpy(&b, &hi, sizeof(b));
	while (b - a > 1)
	{
		int64		mid = a + (b - a) / 2;

		memcpy(&e, &mid, sizeof(e));
		if (aggplan_meets(p, i, e, x))
			b = mid;
		else
			a = mid;
	}
	memcpy(&e, &b, sizeof(e));
	step = pow(10, floor(log10(e)) - 5);
	/* the float8 conversions move e by a few ulps: a step or two up suffices */
	for (double m = ceil(e / step); m < ceil(e / step) + 100; m++)
	{
		/* the float8 nearest to the 6-digit decimal m x step */
		char	   *t = psprintf("%.5e", m * step);

		e = strtod(t, NULL);
		if (aggplan_meets(p, i, aggplan_charged(e), x))
			return e;
	}
	return NAN;
}

static const char *
aggplan_stat_name(AggStatKind kind)
{
	switch (kind)
	{
		case AGG_COUNT:
			return "count";
		case AGG_UNITS:
			return "units";
		case AGG_SUM:
			return "sum";
		case AGG_MEAN:
			return "mean";
		case AGG_VARIANCE:
			return "variance";
		case AGG_HISTOGRAM:
			return "histogram";
		case AGG_QUANTILE:
			return "quantile";
		default:
			break;
	}
	return "?";
}

/* one row per statistic: (statistic, column_name, value; NaN as NULL) */
static void
aggplan_row(FunctionCallInfo fcinfo, const AggPlan *p, int i, double value)
{
	ReturnSetInfo *rsi = (ReturnSetInfo *) fcinfo->resultinfo;
	const AggStat *st = &p->l->stats[i];
	Datum		v[3];
	bool		n[3] = {false, st->col < 0, isnan(value)};

	v[0] = CStringGetTextDatum(aggplan_stat_name(st->kind));
	v[1] = st->col >= 0 ? CStringGetTextDatum(p->l->enc->cols[st->col].column) : (Datum) 0;
	v[2] = Float8GetDatum(aggrows_clean(value));
	tuplestore_putvalues(rsi->setResult, rsi->setDesc, v, n);
}

/* the role whose members administer every protected table */
#define AGGPLAN_ADMIN_ROLE	"dpobj_admin"

/*
 * The caller may learn the table's plans: it can read the table, has its
 * owner's privileges, is a member of dpobj_admin, or has a budget for runs
 * on it (its domain's for a member).  From the catalog and dpobj.budgets
 * only, before any lock on the table.
 */
static void
aggplan_check_caller(Oid relid, const char *fname)
{
	Oid			caller = GetUserId();
	Oid			admin = get_role_oid(AGGPLAN_ADMIN_ROLE, true);
	char	   *relation = dp_relation_name(relid);
	RoleSwitch	rs;
	int64		id;
	bool		has;

	if (pg_class_aclcheck(relid, caller, ACL_SELECT) == ACLCHECK_OK ||
		compat_class_ownercheck(relid, caller) ||
		(OidIsValid(admin) && has_privs_of_role(caller, admin)))
		return;
	role_switch_begin(&rs, BOOTSTRAP_SUPERUSERID, false);
	has = budget_for_id(relid, caller, &id);
	role_switch_end(&rs);
	if (!has)
		ereport(ERROR,
				(errcode(ERRCODE_DPOBJ_BUDGET_EXCEEDED),
				 errmsg("role \"%s\" has no privacy budget on table %s",
						GetUserNameFromId(caller, false), relation),
				 errdetail("%s plans from the table's declared domains and privacy unit, "
						   "which only its readers, administrators and budget holders may learn.", fname),
				 errhint("The table's owner or a member of %s can grant one with dpobj.grant_budget().",
						 AGGPLAN_ADMIN_ROLE)));
}

/* one call's rows: the half-widths at epsilon, or the least epsilons for half_width */
static void
aggplan_rows(FunctionCallInfo fcinfo, const char *fname, bool accuracy)
{
	AggPlan		p;
	double		x = PG_GETARG_FLOAT8(2);

	aggplan_check_caller(PG_GETARG_OID(0), fname);
	if (accuracy)
	{
		aggplan_prepare(fcinfo, fname, x > 0 ? x : 1e-300, &p);
		for (int i = 0; i < p.l->nstats; i++)
			aggplan_row(fcinfo, &p, i, aggplan_halfwidth(&p, i, aggplan_charged(x)));
		return;
	}
	aggplan_prepare(fcinfo, fname, 0, &p);
	for (int i = 0; i < p.l->nstats; i++)
		aggplan_row(fcinfo, &p, i, aggplan_least(&p, i, x));
}

/*
 * aggplan_rows in a subtransaction rolled back when it returns (or fails):
 * every lock it took goes with it.  It writes nothing; its rows are in the
 * caller's tuplestore, outside the subtransaction.
 */
static void
aggplan_unlocked(FunctionCallInfo fcinfo, const char *fname, bool accuracy)
{
	MemoryContext oldcxt = CurrentMemoryContext;
	ResourceOwner oldowner = CurrentResourceOwner;

	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(oldcxt);
	PG_TRY();
	{
		aggplan_rows(fcinfo, fname, accuracy);
		RollbackAndReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(oldcxt);
		CurrentResourceOwner = oldowner;
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(oldcxt);
		edata = CopyErrorData();
		FlushErrorState();
		RollbackAndReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(oldcxt);
		CurrentResourceOwner = oldowner;
		ReThrowError(edata);
	}
	PG_END_TRY();
}

Datum
dpobj_aggregate_accuracy(PG_FUNCTION_ARGS)
{
	dp_check_not_null(fcinfo, 5, "dpobj.aggregate_accuracy");
	InitMaterializedSRF(fcinfo, 0);
	aggplan_unlocked(fcinfo, "dpobj.aggregate_accuracy", true);
	return (Datum) 0;
}

Datum
dpobj_aggregate_epsilon(PG_FUNCTION_ARGS)
{
	double		x;

	dp_check_not_null(fcinfo, 5, "dpobj.aggregate_epsilon");
	x = PG_GETARG_FLOAT8(2);
	if (!isfinite(x) || x < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("dpobj.aggregate_epsilon: half_width must be a finite number >= 0"),
				 errhint("A count's is in rows, a quantile's in ranks, a sum's and a mean's in the column's units.")));
	InitMaterializedSRF(fcinfo, 0);
	aggplan_unlocked(fcinfo, "dpobj.aggregate_epsilon", false);
	return (Datum) 0;
}
