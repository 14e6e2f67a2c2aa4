/*-------------------------------------------------------------------------
 *
 * aggrun.c
 *	  dpobj.aggregate(rel, what, epsilon, delta, group_by, options):
 *	  dp_aggregate (mechanisms/aggregate.c) on a protected table, through
 *	  dpobj.train()'s sealed path, with its public layout (the declared
 *	  domains of the columns named, group_by, what) as an option; the
 *	  released noisy cells become one row per group and statistic (and
 *	  histogram bin), with 95 % intervals from the noise's law.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_authid.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/json.h"
#include "utils/jsonb.h"

#include "base/privileged.h"
#include "context/trainquery.h"
#include "core/aggci.h"
#include "mechanisms/aggregate.h"
#include "protected/aggrun.h"
#include "protected/domains.h"
#include "protected/entryargs.h"
#include "protected/spiplans.h"
#include "protected/train.h"

PG_FUNCTION_INFO_V1(dpobj_aggregate);

/* adds name to cols unless there */
static void
aggrun_add_column(char **cols, int *n, const char *name)
{
	for (int i = 0; i < *n; i++)
		if (strcmp(cols[i], name) == 0)
			return;
	cols[(*n)++] = pstrdup(name);
}

/*
 * The columns the run reads: group_by's, then the statistics' (what's
 * structure is checked by agg_layout_parse).  A count alone reads a column
 * with declared levels: its encoding drops no row (NULL is "other").
 */
char **
aggrun_columns(Oid relid, ArrayType *group_by, Jsonb *what, int *n)
{
	Datum	   *g;
	bool	   *gnull;
	int			ng;
	int			nw = JB_ROOT_IS_ARRAY(what) && !JB_ROOT_IS_SCALAR(what) ? JB_ROOT_COUNT(what) : 0;
	char	  **cols;

	if (ARR_NDIM(group_by) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("dpobj.aggregate: group_by must be a one-dimensional text array"),
				 errhint("For example ARRAY['sex', 'race'].")));
	deconstruct_array(group_by, TEXTOID, -1, false, TYPALIGN_INT, &g, &gnull, &ng);
	cols = palloc(sizeof(char *) * (ng + nw + 1));
	*n = 0;
	for (int i = 0; i < ng; i++)
	{
		if (gnull[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("dpobj.aggregate: group_by column names must not be NULL"),
					 errhint("For example ARRAY['sex', 'race'].")));
		aggrun_add_column(cols, n, TextDatumGetCString(g[i]));
	}
	for (int i = 0; i < nw; i++)
	{
		JsonbValue *e = getIthJsonbValueFromContainer(&what->root, i);
		JsonbValue *c = e && e->type == jbvBinary && JsonContainerIsObject(e->val.binary.data) ?
			getKeyJsonValueFromContainer(e->val.binary.data, "column", 6, NULL) : NULL;

		if (c != NULL && c->type == jbvString)
			aggrun_add_column(cols, n, pnstrdup(c->val.string.val, c->val.string.len));
	}
	if (*n == 0)
	{
		RoleSwitch	rs;
		MemoryContext cxt = CurrentMemoryContext;

		SPI_connect();
		role_switch_begin(&rs, BOOTSTRAP_SUPERUSERID, false);
		if (dp_spi_run("SELECT column_name::pg_catalog.text FROM dpobj.feature_domains"
					   " WHERE relid OPERATOR(pg_catalog.=) $1 AND levels IS NOT NULL"
					   " ORDER BY column_name LIMIT 1", 1, (Oid[]) {OIDOID},
					   (Datum[]) {ObjectIdGetDatum(relid)}, NULL, true, 1) != SPI_OK_SELECT)
			elog(ERROR, "dpobj.aggregate: feature domain lookup failed");
		role_switch_end(&rs);
		if (SPI_processed == 1)
			cols[(*n)++] = MemoryContextStrdup(cxt,
											   SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1));
		SPI_finish();
		if (*n == 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("dpobj.aggregate: a count alone needs a column with declared levels in the table"),
					 errhint("Group by such a column, or have the owner declare one (dpobj.declare_domain).")));
	}
	return cols;
}

void
aggrun_prepare(Oid relid, const char *relation, Jsonb *what, ArrayType *group_by, AggCall *c)
{
	c->what = what;
	c->group_by = group_by;
	c->enc = NULL;
	c->key = aggrun_key_column(relid, relation, group_by);
	if (c->key != NULL)
	{
		/* a key without declared levels: grouped by no declared column, and a count */
		c->what = aggrun_key_what(what);
		c->group_by = construct_empty_array(TEXTOID);
		c->enc = aggrun_key_encoding(relid, c->key, c->what);
	}
	if (c->enc != NULL)
	{
		c->cols = palloc(sizeof(char *));
		c->cols[0] = c->key;
		c->ncols = 1;
	}
	else
		c->cols = aggrun_columns(relid, c->group_by, c->what, &c->ncols);
	train_query_check_columns(relid, relation, c->cols, c->ncols, NULL, NULL);
}

/* the options: "filter", "deadline", "max_keys" only (the layout is dpobj.aggregate's own) */
void
aggrun_check_options(Jsonb *options)
{
	JsonbIterator *it;
	JsonbValue	v;
	JsonbIteratorToken tok;

	if (!JB_ROOT_IS_OBJECT(options) || JB_ROOT_IS_SCALAR(options))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("dpobj.aggregate: options must be a JSON object"),
				 errhint("For example '{\"filter\": [...]}'.")));
	it = JsonbIteratorInit(&options->root);
	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
		if (tok == WJB_KEY &&
			!(v.val.string.len == 6 && strncmp(v.val.string.val, "filter", 6) == 0) &&
			!(v.val.string.len == 8 && strncmp(v.val.string.val, "deadline", 8) == 0) &&
			!(v.val.string.len == 8 && strncmp(v.val.string.val, "max_keys", 8) == 0))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("unknown option \"%.*s\" for dpobj.aggregate", v.val.string.len, v.val.string.val),
					 errhint("dpobj.aggregate takes the options \"filter\", \"deadline\" and \"max_keys\".")));
}

/* {"encoding": enc, "group_by": [...], "what": what} */
Jsonb *
aggrun_layout(Jsonb *enc, ArrayType *group_by, Jsonb *what)
{
	StringInfoData b;

	initStringInfo(&b);
	appendStringInfo(&b, "{\"encoding\": %s, \"group_by\": %s, \"what\": %s}",
					 JsonbToCString(NULL, &enc->root, VARSIZE(enc)),
					 TextDatumGetCString(DirectFunctionCall1(array_to_json, PointerGetDatum(group_by))),
					 JsonbToCString(NULL, &what->root, VARSIZE(what)));
	return DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(b.data)));
}

/* a released value's noise, slot i: [num, den], and its rate den / num (core/aggci.h) */
static double
aggrun_noise(Jsonb *rel, int i, double *num, double *den)
{
	JsonbValue *nz = getKeyJsonValueFromContainer(&rel->root, "noise", 5, NULL);
	JsonbValue *p = getIthJsonbValueFromContainer(nz->val.binary.data, i);

	*num = DatumGetFloat8(DirectFunctionCall1(numeric_float8, NumericGetDatum(
		getIthJsonbValueFromContainer(p->val.binary.data, 0)->val.numeric)));
	*den = DatumGetFloat8(DirectFunctionCall1(numeric_float8, NumericGetDatum(
		getIthJsonbValueFromContainer(p->val.binary.data, 1)->val.numeric)));
	return *den / *num;
}

/* the released value j (a noisy integer) */
static double
aggrun_value(JsonbContainer *values, int j)
{
	return DatumGetFloat8(DirectFunctionCall1(numeric_float8, NumericGetDatum(
		getIthJsonbValueFromContainer(values, j)->val.numeric)));
}

/* "column": level of c's index lev ("other": null) */
static void
aggrun_level(StringInfo b, const EncColumn *c, int lev)
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
aggrun_group(const AggLayout *l, int cell, const char *key, const char *extra)
{
	StringInfoData b;
	int		   *lev = palloc(sizeof(int) * Max(l->ngroups, 1));

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
		aggrun_level(&b, &l->enc->cols[l->gcol[g]], lev[g]);
	}
	if (key != NULL)
		appendStringInfoString(&b, key);
	if (extra[0] != '\0')
		appendStringInfo(&b, "%s%s", l->ngroups > 0 || key ? ", " : "", extra);
	appendStringInfoChar(&b, '}');
	return DirectFunctionCall1(jsonb_in, CStringGetDatum(b.data));
}

typedef struct AggOut
{
	ReturnSetInfo *rsi;
	const AggLayout *l;
	int			cell;
	const char *key;			/* a released key, "column": key; NULL: declared cells */
} AggOut;

/* a row; without has_est (a mean's or variance's count <= 0) the estimate is NULL */
static void
aggrun_row(AggOut *o, const char *extra, const char *stat, const EncColumn *c,
		   bool has_est, double est, double lo, double hi)
{
	Datum		v[6];
	bool		n[6] = {false, false, c == NULL, !has_est, false, false};

	v[0] = aggrun_group(o->l, o->cell, o->key, extra);
	v[1] = CStringGetTextDatum(stat);
	v[2] = c ? CStringGetTextDatum(c->column) : (Datum) 0;
	v[3] = Float8GetDatum(est);
	v[4] = Float8GetDatum(lo);
	v[5] = Float8GetDatum(hi);
	tuplestore_putvalues(o->rsi->setResult, o->rsi->setDesc, v, n);
}

/* the statistic's column, bounds and lattice step */
static AggciColumn
aggrun_ci_column(const AggOut *o, const AggStat *st)
{
	const EncColumn *c = &o->l->enc->cols[st->col];
	AggciColumn ac = {c->lo, c->hi, st->step};

	return ac;
}

/* a mean's row from its noisy lattice sum S and count C (rates rs, rc): core/aggci.h */
static void
aggrun_mean(AggOut *o, const AggStat *st, double S, double C, double rs, double rc)
{
	AggciColumn c = aggrun_ci_column(o, st);
	double		est = 0,
				lo = 0,
				hi = 0;
	bool		has = aggci_mean(&c, S, C, rs, rc, &est, &lo, &hi);

	aggrun_row(o, "", "mean", &o->l->enc->cols[st->col], has, est, lo, hi);
}

/* a variance's row from its noisy lattice sums Q, S and count C: core/aggci.h */
static void
aggrun_variance(AggOut *o, const AggStat *st, double Q, double S, double C,
				double rq, double rs, double rc)
{
	AggciColumn c = aggrun_ci_column(o, st);
	double		est = 0,
				lo = 0,
				hi = 0;
	bool		has = aggci_variance(&c, AGG_SUM_UNITS, Q, S, C, rq, rs, rc, &est, &lo, &hi);

	aggrun_row(o, "", "variance", &o->l->enc->cols[st->col], has, est, lo, hi);
}

/*
 * A quantile's rows: the drawn bin's midpoint, and (bins >= 3 nq) the
 * interval from the lower edge of the bin drawn at rank t - s to the upper
 * edge of the one drawn at t + s, widened to the estimate's bin
 * (docs/PRIVACY.md); else the declared bounds.
 */
static void
aggrun_quantile(AggOut *o, const AggStat *st, JsonbContainer *values, int base)
{
	const EncColumn *c = &o->l->enc->cols[st->col];
	double		w = (c->hi - c->lo) / st->nbins;
	bool		ci = AGG_QUANT_DRAWS(st) > st->nq;

	for (int j = 0; j < st->nq; j++)
	{
		double		bin = aggrun_value(values, base + st->slot + j),
					lo = ci ? Min(bin, aggrun_value(values, base + st->slot + st->nq + j)) : 0,
					hi = ci ? Max(bin, aggrun_value(values, base + st->slot + 2 * st->nq + j)) :
			st->nbins - 1;

		aggrun_row(o, "", psprintf("quantile(%g)", st->q[j]), c, true,
				   Min(c->hi, c->lo + (bin + 0.5) * w), c->lo + lo * w, Min(c->hi, c->lo + (hi + 1) * w));
	}
}

/* a histogram's bin key, "column": level or [from, to] */
static char *
aggrun_bin(const EncColumn *c, int bin, int nbins)
{
	StringInfoData b;
	double		w = (c->hi - c->lo) / nbins;

	initStringInfo(&b);
	if (c->nlevels > 0)
		aggrun_level(&b, c, bin);
	else
	{
		escape_json(&b, c->column);
		/* 15 digits: the edges as the declared bounds read (10.8, not 10.800000000000001) */
		appendStringInfo(&b, ": [%.15g, %.15g]", c->lo + bin * w,
						 bin == nbins - 1 ? c->hi : c->lo + (bin + 1) * w);
	}
	return b.data;
}

/* the rows of one cell from its W released values */
static void
aggrun_cell(AggOut *o, Jsonb *rel, JsonbContainer *values)
{
	const AggLayout *l = o->l;
	int			base = o->cell * l->width;

	for (int i = 0; i < l->nstats; i++)
	{
		const AggStat *st = &l->stats[i];
		const EncColumn *c = st->col >= 0 ? &l->enc->cols[st->col] : NULL;
		double		v = aggrun_value(values, base + st->slot),
					num,
					den,
					r,
					h;

		r = aggrun_noise(rel, st->slot, &num, &den);
		h = aggci_halfwidth(r, 0.05);
		if (st->kind == AGG_COUNT)
			aggrun_row(o, "", "count", NULL, true, v, v - h, v + h);
		else if (st->kind == AGG_SUM)
			aggrun_row(o, "", "sum", c, true, v * st->step, (v - h) * st->step, (v + h) * st->step);
		else if (st->kind == AGG_MEAN)
			aggrun_mean(o, st, v, aggrun_value(values, base + st->slot + 1), r,
						aggrun_noise(rel, st->slot + 1, &num, &den));
		else if (st->kind == AGG_VARIANCE)
			aggrun_variance(o, st, v, aggrun_value(values, base + st->slot + 1),
							aggrun_value(values, base + st->slot + 2), r,
							aggrun_noise(rel, st->slot + 1, &num, &den),
							aggrun_noise(rel, st->slot + 2, &num, &den));
		else if (st->kind == AGG_QUANTILE)
			aggrun_quantile(o, st, values, base);
		else
			for (int bin = 0; bin < st->nbins; bin++)
			{
				v = aggrun_value(values, base + st->slot + bin);
				aggrun_row(o, aggrun_bin(c, bin, st->nbins), "histogram", c, true, v, v - h, v + h);
			}
	}
}

Datum
dpobj_aggregate(PG_FUNCTION_ARGS)
{
	Oid			relid;
	char		relkind;
	char	   *relation;
	Jsonb	   *options;
	AggCall		c;

	for (int i = 0; i < 6; i++)
		if (PG_ARGISNULL(i))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("dpobj.aggregate: argument %d must not be NULL", i + 1),
					 errhint("Pass '{}' for no group_by columns or options.")));
	relid = PG_GETARG_OID(0);
	options = PG_GETARG_JSONB_P(5);
	/* the result's tuplestore first: nothing after the charge can fail on the call's form */
	InitMaterializedSRF(fcinfo, 0);
	relation = dp_lock_relation(relid, &relkind);
	/* public grounds only: the catalog, the declarations, the arguments; columns first */
	aggrun_prepare(relid, relation, PG_GETARG_JSONB_P(1), PG_GETARG_ARRAYTYPE_P(4), &c);
	aggrun_check_options(options);
	/* by keys, the selection is (epsilon, delta)-DP: delta 0 refused, uncharged */
	if (c.key != NULL && PG_GETARG_FLOAT8(3) == 0.0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("dpobj.aggregate: grouping by \"%s\", a column without declared levels, needs delta > 0", c.key),
				 errhint("Keys are selected privately at (epsilon, delta): pass a delta, e.g. 1/n^2 for n rows.")));
	if (c.key != NULL)
		aggrun_run_keys(fcinfo, relid, relation, c.cols, c.ncols, c.enc, c.key, c.what, options,
						fcinfo->args[2].value, fcinfo->args[3].value);
	else
	{
		aggrun_key_no_max(options);
		aggrun_run(fcinfo, relid, relation, c.cols, c.ncols, NULL, c.what, c.group_by, options,
				   fcinfo->args[2].value, fcinfo->args[3].value);
	}
	return (Datum) 0;
}

/*
 * train()'s sealed path: (rel, mechanism, the columns, label, epsilon,
 * delta, options || {"encoding": enc, "layout": layout}); the release
 */
static Jsonb *
aggrun_train(FunctionCallInfo fcinfo, Oid relid, const char *mechanism, char **cols, int ncols,
			 const char *label, Jsonb *enc, Jsonb *layout, Jsonb *options, Datum epsilon,
			 Datum delta)
{
	LOCAL_FCINFO(tc, 7);
	Datum	   *cd;

	cd = palloc(sizeof(Datum) * ncols);
	for (int i = 0; i < ncols; i++)
		cd[i] = CStringGetTextDatum(cols[i]);
	InitFunctionCallInfoData(*tc, fcinfo->flinfo, 7, InvalidOid, NULL, NULL);
	tc->args[0].value = ObjectIdGetDatum(relid);
	tc->args[1].value = CStringGetTextDatum(mechanism);
	tc->args[2].value = PointerGetDatum(construct_array(cd, ncols, TEXTOID, -1, false, TYPALIGN_INT));
	tc->args[3].value = CStringGetTextDatum(label);
	tc->args[4].value = DirectFunctionCall1(float8_numeric, epsilon);
	tc->args[5].value = DirectFunctionCall1(float8_numeric, delta);
	tc->args[6].value = DirectFunctionCall2(jsonb_concat, JsonbPGetDatum(options),
											DirectFunctionCall1(jsonb_in, CStringGetDatum(
												psprintf("{\"encoding\": %s, \"layout\": %s}",
														 JsonbToCString(NULL, &enc->root, VARSIZE(enc)),
														 JsonbToCString(NULL, &layout->root, VARSIZE(layout))))));
	for (int i = 0; i < 7; i++)
		tc->args[i].isnull = false;
	return DatumGetJsonbP(train_evaluate(tc));
}

void
aggrun_run(FunctionCallInfo fcinfo, Oid relid, const char *relation, char **cols, int ncols,
		   Jsonb *enc, Jsonb *what, ArrayType *group_by, Jsonb *options, Datum epsilon,
		   Datum delta)
{
	Jsonb	   *layout;
	AggLayout  *l;
	Jsonb	   *rel;
	AggOut		o;
	JsonbValue *values;

	if (enc == NULL)
		enc = domains_encoding(relid, relation, cols, ncols, DOMAINS_REQUIRED);
	layout = aggrun_layout(enc, group_by, what);
	l = agg_layout_parse(layout);
	/* the label is unused ('aggregate' has none) */
	rel = aggrun_train(fcinfo, relid, "aggregate", cols, ncols, cols[0], enc, layout, options,
					   epsilon, delta);

	/* post-processing of the DP output with the public layout */
	o.rsi = (ReturnSetInfo *) fcinfo->resultinfo;
	o.l = l;
	o.key = NULL;
	values = getKeyJsonValueFromContainer(&rel->root, "values", 6, NULL);
	for (o.cell = 0; o.cell < l->ncells; o.cell++)
		aggrun_cell(&o, rel, values->val.binary.data);
}

void
aggrun_run_keys(FunctionCallInfo fcinfo, Oid relid, const char *relation, char **cols,
				int ncols, Jsonb *enc, const char *key, Jsonb *what, Jsonb *options,
				Datum epsilon, Datum delta)
{
	Jsonb	   *layout;
	AggLayout  *l;
	Jsonb	   *rel;
	AggOut		o;
	JsonbValue *values,
			   *keys;
	StringInfoData b;

	if (enc == NULL)
		enc = domains_encoding(relid, relation, cols, ncols, DOMAINS_REQUIRED);
	layout = aggrun_key_layout(enc, what, options);
	l = agg_layout_parse(layout);
	/* 'aggregate_keys': the key column is the label, read as text */
	rel = aggrun_train(fcinfo, relid, "aggregate_keys", cols, ncols, key, enc, layout,
					   DatumGetJsonbP(DirectFunctionCall2(jsonb_delete, JsonbPGetDatum(options),
														  CStringGetTextDatum("max_keys"))),
					   epsilon, delta);

	/* post-processing: each released key (in key order) as one cell */
	o.rsi = (ReturnSetInfo *) fcinfo->resultinfo;
	o.l = l;
	values = getKeyJsonValueFromContainer(&rel->root, "values", 6, NULL);
	keys = getKeyJsonValueFromContainer(&rel->root, "keys", 4, NULL);
	for (int i = 0; i < (int) JsonContainerSize(keys->val.binary.data); i++)
	{
		JsonbValue *kv = getIthJsonbValueFromContainer(keys->val.binary.data, i);

		initStringInfo(&b);
		escape_json(&b, key);
		appendStringInfoString(&b, ": ");
		escape_json(&b, pnstrdup(kv->val.string.val, kv->val.string.len));
		o.key = b.data;
		o.cell = i;
		aggrun_cell(&o, rel, values->val.binary.data);
	}
}
