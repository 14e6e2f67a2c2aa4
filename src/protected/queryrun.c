/*-------------------------------------------------------------------------
 *
 * queryrun.c
 *	  A private query's run (sqlcompile.h's plan): dpobj.aggregate()'s own
 *	  checks and run (aggrun.h) on the plan's request, its long rows (group,
 *	  statistic, estimate, interval) pivoted into one row per group.
 *
 *	  dpobj.query_run(plan jsonb) RETURNS SETOF record: the rewritten
 *	  query's scan (sqlfront.c), one typed row per group (the column
 *	  definition list's types), at dpobj.query_epsilon and query_delta read
 *	  now.  Callable directly with any plan: it is validated, and gives no
 *	  more than aggregate() with the same request.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/tuplestore.h"

#include "base/dpobj.h"
#include "base/options.h"
#include "context/linkcols.h"
#include "model/encode.h"
#include "protected/lookups.h"
#include "protected/aggrun.h"
#include "protected/domains.h"
#include "protected/entryargs.h"
#include "protected/queryrun.h"
#include "protected/runaccess.h"

static pg_noreturn void
queryrun_bad(const char *msg)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("dpobj.query_run: %s", msg),
			 errhint("query_run runs the plan a private query's rewrite made; write the SELECT itself.")));
}

/* key of object o: of type t, else an error (NULL if absent and !required) */
static JsonbValue *
queryrun_key(JsonbContainer *o, const char *key, enum jbvType t, bool required)
{
	JsonbValue *v = getKeyJsonValueFromContainer(o, key, strlen(key), NULL);

	if (v == NULL && !required)
		return NULL;
	if (v == NULL || v->type != t)
		queryrun_bad(psprintf("the plan's \"%s\" is missing or of the wrong type", key));
	return v;
}

static bool
queryrun_str_is(const JsonbValue *v, const char *s)
{
	return v != NULL && v->type == jbvString && v->val.string.len == strlen(s) &&
		strncmp(v->val.string.val, s, v->val.string.len) == 0;
}

/* "what": each statistic releases one row per group (no histogram, one q) */
static void
queryrun_check_what(QueryPlan *p, JsonbContainer *w, int n)
{
	p->stat_kind = palloc0(n + 1);
	for (int i = 0; i < n; i++)
	{
		JsonbValue *e = getIthJsonbValueFromContainer(w, i);
		JsonbValue *st;

		if (e->type != jbvBinary || !JsonContainerIsObject(e->val.binary.data))
			queryrun_bad("every statistic must be an object");
		st = queryrun_key(e->val.binary.data, "stat", jbvString, true);
		if (!queryrun_str_is(st, "count") && !queryrun_str_is(st, "sum") &&
			!queryrun_str_is(st, "mean") && !queryrun_str_is(st, "variance") &&
			!queryrun_str_is(st, "quantile") && !queryrun_str_is(st, "units"))
			queryrun_bad("a statistic must be a count, units, sum, mean, variance or quantile");
		if (queryrun_str_is(st, "quantile"))
			queryrun_key(e->val.binary.data, "q", jbvNumeric, true);
		p->stat_kind[i] = st->val.string.val[0];
	}
}

/* output o's "den" (a merged average's count), or -1 */
static int
queryrun_den(QueryPlan *p, JsonbContainer *o, bool ratio)
{
	JsonbValue *d = queryrun_key(o, "den", jbvNumeric, ratio);
	int			den;

	if (!ratio)
		return -1;
	den = DatumGetInt32(DirectFunctionCall1(numeric_int4, NumericGetDatum(d->val.numeric)));
	if (p->ncells == 0 || den < 0 || den >= p->nstats || p->stat_kind[den] != 'c')
		queryrun_bad("a \"ratio\" output's \"den\" must be a merged plan's count");
	return den;
}

/*
 * "outputs": the group columns in group_by's order (a merged plan: one
 * {"merge": true}), then statistics
 */
static void
queryrun_outputs(QueryPlan *p, JsonbContainer *outs)
{
	p->noutputs = JsonContainerSize(outs);
	p->ngroups = p->ncells > 0 ? 1 : p->nkeys;
	if (p->noutputs < p->ngroups || p->noutputs > 1000)
		queryrun_bad("\"outputs\" must name the group columns, then the statistics");
	p->group = palloc0(sizeof(char *) * p->noutputs);
	p->stat = palloc0(sizeof(int) * p->noutputs);
	p->sqrt = palloc0(sizeof(bool) * p->noutputs);
	p->den = palloc0(sizeof(int) * p->noutputs);
	for (int i = 0; i < p->noutputs; i++)
	{
		JsonbValue *o = getIthJsonbValueFromContainer(outs, i);
		JsonbValue *g,
				   *fn;

		if (o->type != jbvBinary || !JsonContainerIsObject(o->val.binary.data))
			queryrun_bad("every output must be an object");
		if (i < p->ngroups && p->ncells > 0)
		{
			queryrun_key(o->val.binary.data, "merge", jbvBool, true);
			continue;
		}
		if (i < p->ngroups)
		{
			g = queryrun_key(o->val.binary.data, "group", jbvString, true);
			if (g->val.string.len != strlen(p->keys[i]) ||
				strncmp(g->val.string.val, p->keys[i], g->val.string.len) != 0)
				queryrun_bad("the outputs' group columns must be group_by's, in its order");
			p->group[i] = p->keys[i];
			continue;
		}
		p->stat[i] = DatumGetInt32(DirectFunctionCall1(numeric_int4, NumericGetDatum(
			queryrun_key(o->val.binary.data, "stat", jbvNumeric, true)->val.numeric)));
		if (p->stat[i] < 0 || p->stat[i] >= p->nstats)
			queryrun_bad("an output's \"stat\" must be the index of a statistic");
		fn = queryrun_key(o->val.binary.data, "fn", jbvString, true);
		if (!queryrun_str_is(fn, "value") && !queryrun_str_is(fn, "sqrt") &&
			!queryrun_str_is(fn, "ratio"))
			queryrun_bad("an output's \"fn\" must be \"value\", \"sqrt\" or \"ratio\"");
		p->sqrt[i] = queryrun_str_is(fn, "sqrt");
		p->den[i] = queryrun_den(p, o->val.binary.data, queryrun_str_is(fn, "ratio"));
	}
}

QueryPlan *
queryrun_parse(Jsonb *plan)
{
	QueryPlan  *p = palloc0(sizeof(QueryPlan));
	JsonbValue *relid,
			   *what,
			   *gb,
			   *opts,
			   *merge;
	JsonbContainer *groups;
	Datum	   *gd;
	double		r;

	if (!JB_ROOT_IS_OBJECT(plan) || JB_ROOT_IS_SCALAR(plan))
		queryrun_bad("the plan must be a JSON object");
	relid = queryrun_key(&plan->root, "relid", jbvNumeric, true);
	r = DatumGetFloat8(DirectFunctionCall1(numeric_float8, NumericGetDatum(relid->val.numeric)));
	if (!(r >= 1 && r <= PG_UINT32_MAX && r == floor(r)))
		queryrun_bad("the plan's \"relid\" must be a table's OID");
	p->relid = (Oid) r;
	what = queryrun_key(&plan->root, "what", jbvBinary, true);
	gb = queryrun_key(&plan->root, "group_by", jbvBinary, true);
	opts = queryrun_key(&plan->root, "options", jbvBinary, true);
	if (!JsonContainerIsArray(what->val.binary.data) || !JsonContainerIsArray(gb->val.binary.data) ||
		!JsonContainerIsObject(opts->val.binary.data))
		queryrun_bad("the plan's \"what\" and \"group_by\" must be arrays, its \"options\" an object");
	p->what = JsonbValueToJsonb(what);
	p->options = JsonbValueToJsonb(opts);
	p->nstats = JsonContainerSize(what->val.binary.data);
	queryrun_check_what(p, what->val.binary.data, p->nstats);
	groups = gb->val.binary.data;
	p->nkeys = JsonContainerSize(groups);
	p->keys = palloc0(sizeof(char *) * Max(p->nkeys, 1));
	gd = palloc(sizeof(Datum) * Max(p->nkeys, 1));
	for (int i = 0; i < p->nkeys; i++)
	{
		JsonbValue *k = getIthJsonbValueFromContainer(groups, i);

		if (k->type != jbvString)
			queryrun_bad("the plan's \"group_by\" must name columns");
		p->keys[i] = pnstrdup(k->val.string.val, k->val.string.len);
		gd[i] = CStringGetTextDatum(p->keys[i]);
	}
	p->group_by = construct_array(gd, p->nkeys, TEXTOID, -1, false, TYPALIGN_INT);
	merge = queryrun_key(&plan->root, "merge", jbvBinary, false);
	if (merge != NULL)
		querymerge_parse(p, merge->val.binary.data);
	queryrun_outputs(p, queryrun_key(&plan->root, "outputs", jbvBinary, true)->val.binary.data);
	return p;
}

/* the declared levels of the group columns, each read as its output's type (public) */
static void
queryrun_check_levels(QueryPlan *p, Jsonb *enc, const Oid *types)
{
	Encoding   *e = encoding_parse(enc);

	for (int g = 0; g < p->ngroups; g++)
		for (int i = 0; i < e->ncols; i++)
			if (strcmp(e->cols[i].column, p->group[g]) == 0)
			{
				Oid			in,
							ioparam;

				getTypeInputInfo(types[g], &in, &ioparam);
				for (int k = 0; k < e->cols[i].nlevels; k++)
					OidInputFunctionCall(in, e->cols[i].levels[k], ioparam, -1);
			}
}

/* aggregate()'s row layout */
static TupleDesc
queryrun_long_desc(void)
{
	TupleDesc	d = CreateTemplateTupleDesc(6);

	TupleDescInitEntry(d, 1, "group_values", JSONBOID, -1, 0);
	TupleDescInitEntry(d, 2, "statistic", TEXTOID, -1, 0);
	TupleDescInitEntry(d, 3, "column_name", TEXTOID, -1, 0);
	TupleDescInitEntry(d, 4, "estimate", FLOAT8OID, -1, 0);
	TupleDescInitEntry(d, 5, "ci_low", FLOAT8OID, -1, 0);
	TupleDescInitEntry(d, 6, "ci_high", FLOAT8OID, -1, 0);
	return d;
}

/* one group's values: est/lo/hi per statistic (has: an estimate) */
static void
queryrun_pivot(QueryPlan *p, Tuplestorestate *ts, TupleDesc desc, QueryEmit emit, void *arg)
{
	TupleTableSlot *slot = MakeSingleTupleTableSlot(desc, &TTSOpsMinimalTuple);
	QueryGroup	g;
	char	   *cur = NULL;
	int			r = 0;

	g.est = palloc0(sizeof(double) * p->nstats);
	g.lo = palloc0(sizeof(double) * p->nstats);
	g.hi = palloc0(sizeof(double) * p->nstats);
	g.has = palloc0(sizeof(bool) * p->nstats);
	g.group = NULL;
	tuplestore_rescan(ts);
	while (tuplestore_gettupleslot(ts, true, false, slot))
	{
		bool		isnull;
		Jsonb	   *gv = DatumGetJsonbP(slot_getattr(slot, 1, &isnull));
		char	   *text = JsonbToCString(NULL, &gv->root, VARSIZE(gv));

		CHECK_FOR_INTERRUPTS();
		if (cur == NULL || strcmp(cur, text) != 0)
		{
			if (cur != NULL)
				emit(arg, p, &g);
			cur = text;
			g.group = gv;
			r = 0;
		}
		/* a statistic per row, in "what"'s order (a key's selection count last) */
		if (r < p->nstats)
		{
			Datum		est = slot_getattr(slot, 4, &isnull);

			g.has[r] = !isnull;
			g.est[r] = isnull ? 0 : DatumGetFloat8(est);
			g.lo[r] = DatumGetFloat8(slot_getattr(slot, 5, &isnull));
			g.hi[r] = DatumGetFloat8(slot_getattr(slot, 6, &isnull));
		}
		r++;
	}
	if (cur != NULL)
		emit(arg, p, &g);
	ExecDropSingleTupleTableSlot(slot);
}

/* the type of the run's column name: its own, or a path table's (linkcols.h) */
static Oid
queryrun_column_type(Oid relid, const char *name)
{
	Oid			table;
	AttrNumber	att = linked_column_attnum(relid, name, &table);

	return get_atttype(table, att);
}

/*
 * aggregate()'s checks, in its order, on public grounds, then the group
 * outputs' types (the table's, its levels readable as them): the run's
 * call and encoding, before any charge
 */
static Jsonb *
queryrun_check(QueryPlan *p, double epsilon, double delta, const Oid *types,
			   const char **relation, AggCall *c)
{
	char		relkind;
	Jsonb	   *enc;

	if (!(epsilon > 0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("dpobj: a private query needs epsilon > 0"),
				 errhint("SET dpobj.query_epsilon = ... (each run of the query is charged).")));
	*relation = dp_lock_relation(p->relid, &relkind);
	run_check_access(p->relid, *relation);
	lookups_prepare(p->relid, p->options, true);
	aggrun_prepare(p->relid, *relation, p->what, p->group_by, c);
	aggrun_check_options(p->options);
	if (c->key != NULL && delta == 0.0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("dpobj: grouping by \"%s\", a column without declared levels, needs delta > 0", c->key),
				 errhint("Keys are selected privately at (epsilon, delta): SET dpobj.query_delta = ..., e.g. 1/n^2 for n rows.")));
	/* dpobj.query_rows_per_unit = private: declared cells only (unitbound.h) */
	if (c->key != NULL && dpobj_query_private_bound)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("dpobj: dpobj.query_rows_per_unit = private by \"%s\", a column without declared levels, is not available", c->key),
				 errhint("Group by columns with declared levels, or SET dpobj.query_rows_per_unit = declared.")));
	if (c->key == NULL)
		aggrun_key_no_max(p->options);
	if (p->ncells > 0 && c->key != NULL)
		queryrun_bad("a merged plan's group columns must have declared levels");
	for (int g = 0; g < p->ngroups && p->ncells == 0; g++)
		if (queryrun_column_type(p->relid, p->group[g]) != types[g])
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("dpobj: group column \"%s\" is not of its type in the table", p->group[g]),
					 errhint("If the table changed since the query was prepared, prepare it again.")));
	if (c->key != NULL)
		return c->enc;
	/* statistics of expressions alone: aggrun_run derives their encoding */
	if (c->ncols == 0 && p->ncells == 0)
		return NULL;
	enc = c->ncols == 0 ? NULL :
		aggrun_range_levels(p->relid, domains_encoding(p->relid, *relation, c->cols, c->ncols,
													   DOMAINS_REQUIRED), p->what);
	if (p->ncells > 0)
		querymerge_check(p, enc, types[0]);
	else
		queryrun_check_levels(p, enc, types);
	return enc;
}

void
queryrun_run(FunctionCallInfo fcinfo, QueryPlan *p, double epsilon, double delta,
			 const Oid *types, QueryEmit emit, void *arg)
{
	ReturnSetInfo *rsi = (ReturnSetInfo *) fcinfo->resultinfo;
	Tuplestorestate *keep = rsi->setResult,
			   *longrows;
	TupleDesc	keepdesc = rsi->setDesc;
	const char *relation;
	AggCall		c;
	Jsonb	   *enc = queryrun_check(p, epsilon, delta, types, &relation, &c);
	MemoryContext old;

	/* aggregate()'s rows into a store of their own, then one row per group */
	old = MemoryContextSwitchTo(rsi->econtext->ecxt_per_query_memory);
	rsi->setDesc = queryrun_long_desc();
	rsi->setResult = longrows = tuplestore_begin_heap(false, false, work_mem);
	MemoryContextSwitchTo(old);
	if (c.key != NULL)
		aggrun_run_keys(fcinfo, p->relid, relation, c.cols, c.ncols, enc, c.key, c.what,
						p->options, Float8GetDatum(epsilon), Float8GetDatum(delta));
	else
		aggrun_run(fcinfo, "query", p->relid, relation, c.cols, c.ncols, enc, c.what,
				   c.group_by, dpobj_query_private_bound ?
				   dp_options_add(p->options, "{\"rows_per_unit\": \"private\"}") : p->options,
				   Float8GetDatum(epsilon), Float8GetDatum(delta));
	rsi->setResult = keep;
	rsi->setDesc = keepdesc;
	if (p->ncells > 0)
	{
		QueryMerge *m = querymerge_begin(p);

		queryrun_pivot(p, longrows, queryrun_long_desc(), querymerge_add, m);
		querymerge_end(m, p, emit, arg);
	}
	else
		queryrun_pivot(p, longrows, queryrun_long_desc(), emit, arg);
	tuplestore_end(longrows);
}

/* a released value as type t (a statistic's output) */
static Datum
queryrun_number(double v, Oid t)
{
	switch (getBaseType(t))
	{
		case FLOAT8OID:
			return Float8GetDatum(v);
		case FLOAT4OID:
			return DirectFunctionCall1(dtof, Float8GetDatum(v));
		case INT2OID:
			return DirectFunctionCall1(dtoi2, Float8GetDatum(rint(Min(Max(v, PG_INT16_MIN), PG_INT16_MAX))));
		case INT4OID:
			return DirectFunctionCall1(dtoi4, Float8GetDatum(rint(Min(Max(v, PG_INT32_MIN), PG_INT32_MAX))));
		case INT8OID:
			return DirectFunctionCall1(dtoi8, Float8GetDatum(rint(Min(Max(v, -9.2e18), 9.2e18))));
		case NUMERICOID:
			return DirectFunctionCall1(float8_numeric, Float8GetDatum(v));
		default:
			queryrun_bad(psprintf("an aggregate's output must be of a numeric type, not %s",
								  format_type_be(t)));
	}
}

double
queryrun_value(const QueryPlan *p, const QueryGroup *g, int i)
{
	double		v = g->est[p->stat[i]];

	if (p->den[i] >= 0)
		return v / g->est[p->den[i]];
	return p->sqrt[i] ? sqrt(Max(v, 0)) : v;
}

bool
queryrun_has(const QueryPlan *p, const QueryGroup *g, int i)
{
	if (p->den[i] >= 0)
		return g->has[p->stat[i]] && g->has[p->den[i]] && g->est[p->den[i]] > 0;
	return g->has[p->stat[i]];
}

/*
 * A ratio's interval: the quotients' extremes over its numerator's and
 * denominator's intervals (both hold: it holds), unbounded unless the
 * denominator's is positive
 */
bool
queryrun_interval(const QueryPlan *p, const QueryGroup *g, int i, double *lo, double *hi)
{
	double		a = g->lo[p->stat[i]],
				b = g->hi[p->stat[i]];

	if (p->den[i] >= 0)
	{
		double		c = g->lo[p->den[i]],
					d = g->hi[p->den[i]];

		if (!(c > 0))
			return false;
		*lo = Min(Min(a / c, a / d), Min(b / c, b / d));
		*hi = Max(Max(a / c, a / d), Max(b / c, b / d));
		return true;
	}
	*lo = p->sqrt[i] ? sqrt(Max(a, 0)) : a;
	*hi = p->sqrt[i] ? sqrt(Max(b, 0)) : b;
	return true;
}

char *
queryrun_group_text(const QueryPlan *p, const QueryGroup *g, int i)
{
	JsonbValue *gv;

	if (p->ncells > 0)
		return g->merged ? pstrdup(g->merged) : NULL;
	gv = getKeyJsonValueFromContainer(&g->group->root, p->group[i], strlen(p->group[i]), NULL);
	return gv == NULL || gv->type != jbvString ? NULL :
		pnstrdup(gv->val.string.val, gv->val.string.len);
}

/* query_run's typed row of one group */
static void
queryrun_emit_row(void *arg, const QueryPlan *p, const QueryGroup *g)
{
	ReturnSetInfo *rsi = (ReturnSetInfo *) arg;
	TupleDesc	d = rsi->setDesc;
	Datum	   *v = palloc0(sizeof(Datum) * p->noutputs);
	bool	   *n = palloc0(sizeof(bool) * p->noutputs);

	for (int i = 0; i < p->noutputs; i++)
	{
		Oid			t = TupleDescAttr(d, i)->atttypid;

		if (i < p->ngroups)
		{
			char	   *gv = queryrun_group_text(p, g, i);
			Oid			in,
						ioparam;

			n[i] = gv == NULL;
			getTypeInputInfo(t, &in, &ioparam);
			if (!n[i])
				v[i] = OidInputFunctionCall(in, gv, ioparam, TupleDescAttr(d, i)->atttypmod);
		}
		else
		{
			n[i] = !queryrun_has(p, g, i);
			if (!n[i])
				v[i] = queryrun_number(queryrun_value(p, g, i), t);
		}
	}
	tuplestore_putvalues(rsi->setResult, d, v, n);
}

PG_FUNCTION_INFO_V1(dpobj_query_run);

/* dpobj.query_run(plan jsonb) RETURNS SETOF record */
Datum
dpobj_query_run(PG_FUNCTION_ARGS)
{
	QueryPlan  *p;
	ReturnSetInfo *rsi;
	Oid		   *types;

	if (PG_ARGISNULL(0))
		queryrun_bad("the plan must not be NULL");
	p = queryrun_parse(PG_GETARG_JSONB_P(0));
	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);
	rsi = (ReturnSetInfo *) fcinfo->resultinfo;
	if (rsi->setDesc->natts != p->noutputs)
		queryrun_bad(psprintf("the column definition list must have %d columns", p->noutputs));
	types = palloc(sizeof(Oid) * p->noutputs);
	for (int i = 0; i < p->noutputs; i++)
	{
		types[i] = TupleDescAttr(rsi->setDesc, i)->atttypid;
		if (i >= p->ngroups)
			(void) queryrun_number(0, types[i]);	/* a numeric type, else refused */
	}
	queryrun_run(fcinfo, p, dpobj_query_epsilon, dpobj_query_delta, types,
				 queryrun_emit_row, rsi);
	return (Datum) 0;
}
