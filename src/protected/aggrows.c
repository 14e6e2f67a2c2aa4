/*-------------------------------------------------------------------------
 *
 * aggrows.c
 *	  The rows of a dpobj.aggregate() release: post-processing of its noisy
 *	  cells with the public layout (docs/PRIVACY.md, "Private statistics",
 *	  "Post-processing"), one row per group and statistic (and histogram
 *	  bin) with a 95 % interval from the noise's law.  Every estimate and
 *	  interval lies where the truth can: counts at or above 0, a column's
 *	  statistics within its values' range ([0, 1] for a boolean, whose
 *	  encoding is [-1, 1]); floats print to 15 significant digits.
 *
 *	  dpobj.aggregate_rows(layout, release): the same rows of a release of
 *	  dpobj.dp_aggregate (or dp_aggregate_keys) and its layout, for direct
 *	  runs (post-processing: no row read, nothing charged)
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "lib/stringinfo.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/json.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"

#include "context/linkcols.h"
#include "core/aggci.h"
#include "core/aggquant.h"
#include "protected/aggrun.h"
#include "state/agglayout.h"

typedef struct AggOut
{
	ReturnSetInfo *rsi;
	const AggLayout *l;
	Jsonb	   *rel;
	JsonbContainer *values;
	double	   *vlo;			/* per encoding column: its values' range */
	double	   *vhi;
	AggquantLaw **laws;			/* per quantile statistic, or NULL */
	int			cell;
	const char *key;			/* a released key, "column": key; NULL: declared cells */
} AggOut;

double
aggrows_clean(double v)
{
	char		buf[64];

	if (!isfinite(v))
		return v;
	snprintf(buf, sizeof(buf), "%.15g", v);
	return strtod(buf, NULL);
}

/* a released value's noise, slot i: its rate den / num (core/aggci.h) */
static double
aggrows_rate(Jsonb *rel, int i)
{
	JsonbValue *nz = getKeyJsonValueFromContainer(&rel->root, "noise", 5, NULL);
	JsonbValue *p = getIthJsonbValueFromContainer(nz->val.binary.data, i);
	double		num = DatumGetFloat8(DirectFunctionCall1(numeric_float8, NumericGetDatum(
		getIthJsonbValueFromContainer(p->val.binary.data, 0)->val.numeric))),
				den = DatumGetFloat8(DirectFunctionCall1(numeric_float8, NumericGetDatum(
		getIthJsonbValueFromContainer(p->val.binary.data, 1)->val.numeric)));

	return den / num;
}

/* the released value j of the current cell's slots (a noisy integer) */
static double
aggrows_value(const AggOut *o, int slot)
{
	return DatumGetFloat8(DirectFunctionCall1(numeric_float8, NumericGetDatum(
		getIthJsonbValueFromContainer(o->values, o->cell * o->l->width + slot)->val.numeric)));
}

/* "column": level of c's index lev ("other": null) */
static void
aggrows_level(StringInfo b, const EncColumn *c, int lev)
{
	escape_json(b, c->column);
	appendStringInfoString(b, ": ");
	if (lev < c->nlevels)
		escape_json(b, c->levels[lev]);
	else
		appendStringInfoString(b, "null");
}

/*
 * the group values of cell, or key ("column": key) when not NULL, and extra
 * (a histogram bin's key, or "")
 */
static Datum
aggrows_group(const AggOut *o, const char *extra)
{
	const AggLayout *l = o->l;
	StringInfoData b;
	int		   *lev = palloc(sizeof(int) * Max(l->ngroups, 1));
	int			cell = o->cell;

	for (int g = l->ngroups - 1; g >= 0; g--)
	{
		lev[g] = cell % l->gsize[g];
		cell /= l->gsize[g];
	}
	initStringInfo(&b);
	appendStringInfoChar(&b, '{');
	for (int g = 0; g < l->ngroups; g++)
	{
		if (g > 0)
			appendStringInfoString(&b, ", ");
		aggrows_level(&b, &l->enc->cols[l->gcol[g]], lev[g]);
	}
	if (o->key != NULL)
		appendStringInfoString(&b, o->key);
	if (extra[0] != '\0')
		appendStringInfo(&b, "%s%s", l->ngroups > 0 || o->key ? ", " : "", extra);
	appendStringInfoChar(&b, '}');
	return DirectFunctionCall1(jsonb_in, CStringGetDatum(b.data));
}

/* a row; without has_est (a mean's or variance's count <= 0) the estimate is NULL */
static void
aggrows_row(AggOut *o, const char *extra, const char *stat, const EncColumn *c,
			bool has_est, double est, double lo, double hi)
{
	Datum		v[6];
	bool		n[6] = {false, false, c == NULL, !has_est, false, false};

	v[0] = aggrows_group(o, extra);
	v[1] = CStringGetTextDatum(stat);
	v[2] = c ? CStringGetTextDatum(c->column) : (Datum) 0;
	v[3] = Float8GetDatum(aggrows_clean(est));
	v[4] = Float8GetDatum(aggrows_clean(lo));
	v[5] = Float8GetDatum(aggrows_clean(hi));
	tuplestore_putvalues(o->rsi->setResult, o->rsi->setDesc, v, n);
}

/* a count (a histogram bin's too) v +- h: at or above 0, as the truth */
static void
aggrows_count(AggOut *o, const char *extra, const char *stat, const EncColumn *c, double v,
			  double h)
{
	aggrows_row(o, extra, stat, c, true, Max(v, 0), Max(v - h, 0), Max(v + h, 0));
}

/* the statistic's column's values' range and lattice step */
static AggciColumn
aggrows_ci_column(const AggOut *o, const AggStat *st)
{
	AggciColumn ac = {o->vlo[st->col], o->vhi[st->col], st->step};

	return ac;
}

/* a sum (S lattice units, half-width h): of the sign the values' range gives it */
static void
aggrows_sum(AggOut *o, const AggStat *st, double S, double h)
{
	double		est = S * st->step,
				lo = (S - h) * st->step,
				hi = (S + h) * st->step;

	if (o->vlo[st->col] >= 0)
	{
		est = Max(est, 0);
		lo = Max(lo, 0);
		hi = Max(hi, 0);
	}
	if (o->vhi[st->col] <= 0)
	{
		est = Min(est, 0);
		lo = Min(lo, 0);
		hi = Min(hi, 0);
	}
	aggrows_row(o, "", "sum", &o->l->enc->cols[st->col], true, est, lo, hi);
}

/* a mean's row from its noisy lattice sum S and count C (rates rs, rc): core/aggci.h */
static void
aggrows_mean(AggOut *o, const AggStat *st, double S, double C, double rs, double rc)
{
	AggciColumn c = aggrows_ci_column(o, st);
	double		est = 0,
				lo = 0,
				hi = 0;
	bool		has = aggci_mean(&c, S, C, rs, rc, &est, &lo, &hi);

	aggrows_row(o, "", "mean", &o->l->enc->cols[st->col], has, est, lo, hi);
}

/* a variance's row from its noisy lattice sums Q, S and count C: core/aggci.h */
static void
aggrows_variance(AggOut *o, const AggStat *st, double Q, double S, double C,
				 double rq, double rs, double rc)
{
	AggciColumn c = aggrows_ci_column(o, st);
	double		est = 0,
				lo = 0,
				hi = 0;
	bool		has = aggci_variance(&c, AGG_SUM_UNITS, Q, S, C, rq, rs, rc, &est, &lo, &hi);

	/*
	 * the sample variance: the population one and its interval times n / (n
	 * - 1), n the noisy count C (none when C <= 1, the interval's top then
	 * the largest factor's, 2)
	 */
	if (st->sample)
	{
		has = has && C > 1;
		est *= has ? C / (C - 1) : 0;
		lo *= C > 1 ? C / (C - 1) : 1;
		hi *= C > 1 ? C / (C - 1) : 2;
	}
	aggrows_row(o, "", "variance", &o->l->enc->cols[st->col], has, est, lo, hi);
}

/* frees a quantile's noise law with the memory context that holds its pointer */
static void
aggrows_law_free(void *arg)
{
	aggquant_law_free((AggquantLaw *) arg);
}

/* the noise law of quantile st (its leaves' and coarse bins' rates), kept for every cell */
static AggquantLaw *
aggrows_law(const AggStat *st, double rate_leaf, double rate_coarse)
{
	AggquantShape s = {st->nbins, st->group, rate_leaf, rate_coarse};
	AggquantLaw *law = aggquant_law_new(&s);
	MemoryContextCallback *cb;

	if (law == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory"),
				 errdetail("Failed on a quantile's noise law.")));
	cb = palloc(sizeof(MemoryContextCallback));
	cb->func = aggrows_law_free;
	cb->arg = law;
	MemoryContextRegisterResetCallback(CurrentMemoryContext, cb);
	return law;
}

/*
 * A quantile's rows (core/aggquant.h): per q, the interval between the
 * edges its tests leave, the estimate the middle of those at the noise's
 * median; within the values' range
 */
static void
aggrows_quantile(AggOut *o, int i)
{
	const AggStat *st = &o->l->stats[i];
	const EncColumn *c = &o->l->enc->cols[st->col];
	double	   *leaf = palloc(sizeof(double) * st->nbins),
			   *coarse = palloc(sizeof(double) * Max(st->ncoarse, 1)),
				vlo = o->vlo[st->col],
				vhi = o->vhi[st->col];

	if (o->laws[i] == NULL)
		o->laws[i] = aggrows_law(st, aggrows_rate(o->rel, st->slot),
								 st->ncoarse > 0 ? aggrows_rate(o->rel, st->slot + st->nbins) : 0);
	for (int b = 0; b < st->nbins; b++)
		leaf[b] = aggrows_value(o, st->slot + b);
	for (int b = 0; b < st->ncoarse; b++)
		coarse[b] = aggrows_value(o, st->slot + st->nbins + b);
	for (int j = 0; j < st->nq; j++)
	{
		int			lo,
					hi,
					el,
					eh;

		CHECK_FOR_INTERRUPTS();
		aggquant_interval(o->laws[i], leaf, coarse, st->q[j], 0.025, &lo, &hi, &el, &eh);
		aggrows_row(o, "", psprintf("quantile(%g)", st->q[j]), c, true,
					Min(Max((agg_edge(c->lo, c->hi, el, st->nbins) +
							 agg_edge(c->lo, c->hi, eh, st->nbins)) / 2, vlo), vhi),
					Min(Max(agg_edge(c->lo, c->hi, lo, st->nbins), vlo), vhi),
					Max(Min(agg_edge(c->lo, c->hi, hi, st->nbins), vhi), vlo));
	}
}

/* a histogram's bin key, "column": level or [from, to] (edges as agg_edge's) */
static char *
aggrows_bin(const EncColumn *c, int bin, int nbins)
{
	StringInfoData b;

	initStringInfo(&b);
	if (c->nlevels > 0)
		aggrows_level(&b, c, bin);
	else
	{
		escape_json(&b, c->column);
		appendStringInfo(&b, ": [%.15g, %.15g]", agg_edge(c->lo, c->hi, bin, nbins),
						 agg_edge(c->lo, c->hi, bin + 1, nbins));
	}
	return b.data;
}

/* the rows of one cell from its W released values */
static void
aggrows_cell(AggOut *o)
{
	const AggLayout *l = o->l;

	for (int i = 0; i < l->nstats; i++)
	{
		const AggStat *st = &l->stats[i];
		const EncColumn *c = st->col >= 0 ? &l->enc->cols[st->col] : NULL;
		double		v = aggrows_value(o, st->slot),
					r = aggrows_rate(o->rel, st->slot),
					h = aggci_halfwidth(r, 0.05);

		if (st->kind == AGG_COUNT || st->kind == AGG_UNITS)
			aggrows_count(o, "", st->kind == AGG_COUNT ? "count" : "units", c, v, h);
		else if (st->kind == AGG_SUM)
			aggrows_sum(o, st, v, h);
		else if (st->kind == AGG_MEAN)
			aggrows_mean(o, st, v, aggrows_value(o, st->slot + 1), r,
						 aggrows_rate(o->rel, st->slot + 1));
		else if (st->kind == AGG_VARIANCE)
			aggrows_variance(o, st, v, aggrows_value(o, st->slot + 1),
							 aggrows_value(o, st->slot + 2), r,
							 aggrows_rate(o->rel, st->slot + 1),
							 aggrows_rate(o->rel, st->slot + 2));
		else if (st->kind == AGG_QUANTILE)
			aggrows_quantile(o, i);
		else
			for (int bin = 0; bin < st->nbins; bin++)
				aggrows_count(o, aggrows_bin(c, bin, st->nbins), "histogram", c,
							  aggrows_value(o, st->slot + bin), h);
	}
}

/*
 * Each numeric column's values' range: a boolean's [0, 1] (encoded on
 * [-1, 1]: a boolean needs no declaration), else its declared bounds
 */
static void
aggrows_ranges(Oid relid, const AggLayout *l, double *vlo, double *vhi)
{
	for (int i = 0; i < l->enc->ncols; i++)
	{
		const EncColumn *c = &l->enc->cols[i];
		Oid			table;
		AttrNumber	att = linked_column_attnum(relid, c->column, &table);
		bool		boolean = c->nlevels == 0 && att > 0 &&
			getBaseType(get_atttype(table, att)) == BOOLOID;

		vlo[i] = boolean ? 0 : c->lo;
		vhi[i] = boolean ? 1 : c->hi;
	}
}

/*
 * A private k' the run drew (protected/unitbound.c; DP output): one more row,
 * {} and 'rows_per_unit', its value as estimate and interval
 */
static void
aggrows_unit_bound(AggOut *o)
{
	JsonbValue *k = getKeyJsonValueFromContainer(&o->rel->root, "rows_per_unit", 13, NULL);
	Datum		v[6];
	bool		n[6] = {false, false, true, false, false, false};

	if (k == NULL || k->type != jbvNumeric)
		return;
	v[0] = DirectFunctionCall1(jsonb_in, CStringGetDatum("{}"));
	v[1] = CStringGetTextDatum("rows_per_unit");
	v[2] = (Datum) 0;
	v[3] = v[4] = v[5] = DirectFunctionCall1(numeric_float8, NumericGetDatum(k->val.numeric));
	tuplestore_putvalues(o->rsi->setResult, o->rsi->setDesc, v, n);
}

void
aggrows_emit(FunctionCallInfo fcinfo, Oid relid, const AggLayout *l, Jsonb *rel,
			 const char *keycol)
{
	AggOut		o;
	JsonbValue *values = getKeyJsonValueFromContainer(&rel->root, "values", 6, NULL),
			   *keys = keycol ? getKeyJsonValueFromContainer(&rel->root, "keys", 4, NULL) : NULL;
	int			ncells = keys ? (int) JsonContainerSize(keys->val.binary.data) : l->ncells;

	o.rsi = (ReturnSetInfo *) fcinfo->resultinfo;
	o.l = l;
	o.rel = rel;
	o.values = values->val.binary.data;
	o.vlo = palloc(sizeof(double) * Max(l->enc->ncols, 1));
	o.vhi = palloc(sizeof(double) * Max(l->enc->ncols, 1));
	o.laws = palloc0(sizeof(AggquantLaw *) * l->nstats);
	o.key = NULL;
	aggrows_ranges(relid, l, o.vlo, o.vhi);
	for (o.cell = 0; o.cell < ncells; o.cell++)
	{
		if (keys != NULL)
		{
			/* each released key (in key order) as one cell */
			JsonbValue *kv = getIthJsonbValueFromContainer(keys->val.binary.data, o.cell);
			StringInfoData b;

			initStringInfo(&b);
			escape_json(&b, keycol);
			appendStringInfoString(&b, ": ");
			escape_json(&b, pnstrdup(kv->val.string.val, kv->val.string.len));
			o.key = b.data;
		}
		aggrows_cell(&o);
	}
	aggrows_unit_bound(&o);
}

PG_FUNCTION_INFO_V1(dpobj_aggregate_rows);

static void
aggrows_bad(const char *msg)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("dpobj.aggregate_rows: %s", msg),
			 errhint("Pass the \"layout\" a dp_aggregate() run had and the jsonb it released.")));
}

/* element i of array a: an integer number within [lo, hi] (range: their text), or an error */
static void
aggrows_check_int(JsonbContainer *a, int i, double lo, double hi, const char *range,
				  const char *what)
{
	JsonbValue *e = getIthJsonbValueFromContainer(a, i);
	double		v;

	if (e == NULL || e->type != jbvNumeric)
		aggrows_bad(psprintf("%s must be numbers", what));
	v = DatumGetFloat8(DirectFunctionCall1(numeric_float8, NumericGetDatum(e->val.numeric)));
	if (!(v >= lo && v <= hi && v == floor(v)))
		aggrows_bad(psprintf("%s must be integers in %s", what, range));
}

/* the release's form against the layout: its values, noise scales and keys */
static void
aggrows_check_release(const AggLayout *l, Jsonb *rel)
{
	JsonbValue *values,
			   *noise,
			   *keys;
	int			ncells = l->ncells;

	if (!JB_ROOT_IS_OBJECT(rel) || JB_ROOT_IS_SCALAR(rel))
		aggrows_bad("the release must be a JSON object");
	values = getKeyJsonValueFromContainer(&rel->root, "values", 6, NULL);
	noise = getKeyJsonValueFromContainer(&rel->root, "noise", 5, NULL);
	keys = getKeyJsonValueFromContainer(&rel->root, "keys", 4, NULL);
	if (keys != NULL)
	{
		if (keys->type != jbvBinary || !JsonContainerIsArray(keys->val.binary.data))
			aggrows_bad("\"keys\" must be an array of strings");
		ncells = JsonContainerSize(keys->val.binary.data);
		for (int i = 0; i < ncells; i++)
			if (getIthJsonbValueFromContainer(keys->val.binary.data, i)->type != jbvString)
				aggrows_bad("\"keys\" must be an array of strings");
	}
	if (values == NULL || values->type != jbvBinary || !JsonContainerIsArray(values->val.binary.data) ||
		(int64) JsonContainerSize(values->val.binary.data) != (int64) ncells * l->width)
		aggrows_bad(psprintf("\"values\" must be an array of %d values (%d cells of %d)",
							 ncells * l->width, ncells, l->width));
	if (noise == NULL || noise->type != jbvBinary || !JsonContainerIsArray(noise->val.binary.data) ||
		(int) JsonContainerSize(noise->val.binary.data) != l->width)
		aggrows_bad(psprintf("\"noise\" must be an array of %d pairs [num, den]", l->width));
	for (int i = 0; i < ncells * l->width; i++)
		aggrows_check_int(values->val.binary.data, i, -ldexp(1, 53), ldexp(1, 53), "[-2^53, 2^53]",
						  "\"values\"");
	for (int i = 0; i < l->width; i++)
	{
		JsonbValue *p = getIthJsonbValueFromContainer(noise->val.binary.data, i);

		if (p->type != jbvBinary || !JsonContainerIsArray(p->val.binary.data) ||
			JsonContainerSize(p->val.binary.data) != 2)
			aggrows_bad("\"noise\" must be an array of pairs [num, den]");
		for (int j = 0; j < 2; j++)
			aggrows_check_int(p->val.binary.data, j, 1, ldexp(1, 63), "[1, 2^63]",
							  "a noise scale's num and den");
	}
}

/* dpobj.aggregate_rows(layout jsonb, release jsonb): dpobj.aggregate()'s rows of a release */
Datum
dpobj_aggregate_rows(PG_FUNCTION_ARGS)
{
	AggLayout  *l = agg_layout_parse(PG_GETARG_JSONB_P(0));
	Jsonb	   *rel = PG_GETARG_JSONB_P(1);

	aggrows_check_release(l, rel);
	InitMaterializedSRF(fcinfo, 0);
	aggrows_emit(fcinfo, InvalidOid, l, rel,
				 getKeyJsonValueFromContainer(&rel->root, "keys", 4, NULL) ? "key" : NULL);
	return (Datum) 0;
}
