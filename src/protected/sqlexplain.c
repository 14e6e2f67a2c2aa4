/*-------------------------------------------------------------------------
 *
 * sqlexplain.c
 *	  EXPLAIN of a private query (sqlfront.c): before the plan, its privacy
 *	  cost and each aggregate's 95 % accuracy at that cost, from
 *	  dpobj.aggregate_accuracy() (aggplan.c: public inputs only, no row
 *	  read, nothing charged), e.g.
 *	    dpobj private query: epsilon 1, delta 0 per execution
 *	      avg(spend): depends on the count
 *	      count(*): +- 6 (95 %)
 *	  EXPLAIN without ANALYZE never runs dpobj.query_run(): it charges
 *	  nothing.  Text format only; other formats show the plan alone.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

/* compat_explain_one_query (pg_compat.h) */
#define COMPAT_WANT_EXPLAIN
#include "base/pg_compat.h"

#include <math.h>

#include "catalog/pg_namespace.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "parser/parsetree.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/fmgrprotos.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"

#include "base/dpobj.h"
#include "protected/queryrun.h"
#include "protected/spiplans.h"
#include "protected/sqlfront.h"

static ExplainOneQuery_hook_type prev_explain_hook = NULL;

/* the plan of a rewritten private query (a scan of dpobj.query_run(plan) alone), or NULL */
static Jsonb *
sqlexplain_plan_of(Query *query)
{
	RangeTblEntry *rte;
	FuncExpr   *f;
	Node	   *arg;
	Oid			nsp;

	if (query->commandType != CMD_SELECT || list_length(query->rtable) != 1)
		return NULL;
	rte = rt_fetch(1, query->rtable);
	if (rte->rtekind != RTE_FUNCTION || list_length(rte->functions) != 1)
		return NULL;
	f = (FuncExpr *) linitial_node(RangeTblFunction, rte->functions)->funcexpr;
	if (!IsA(f, FuncExpr) || list_length(f->args) != 1)
		return NULL;
	nsp = get_func_namespace(f->funcid);
	if (strcmp(get_func_name(f->funcid), "query_run") != 0 ||
		strcmp(get_namespace_name(nsp), "dpobj") != 0)
		return NULL;
	/* the plan, under the jsonb_set() of each query parameter (sqlfront.c) */
	arg = linitial(f->args);
	while (IsA(arg, FuncExpr) && ((FuncExpr *) arg)->funcid == F_JSONB_SET)
		arg = linitial(((FuncExpr *) arg)->args);
	if (!IsA(arg, Const) || ((Const *) arg)->constisnull)
		return NULL;
	return DatumGetJsonbP(((Const *) arg)->constvalue);
}

/* per statistic of p, its 95 % half-width at epsilon (NaN: depends on the count) */
static double *
sqlexplain_halfwidths(QueryPlan *p, Jsonb *plan, double epsilon)
{
	double	   *hw = palloc(sizeof(double) * p->nstats);
	Oid			types[5] = {OIDOID, JSONBOID, FLOAT8OID, TEXTARRAYOID, JSONBOID};
	/* the noise does not depend on the filter: the lookup tables alone (lookups.h) */
	JsonbValue *lk = getKeyJsonValueFromContainer(&p->options->root, "lookups", 7, NULL);
	char	   *options = lk == NULL ? "{}" :
		psprintf("{\"lookups\": %s}", JsonbToCString(NULL, &JsonbValueToJsonb(lk)->root, -1));
	Datum		values[5] = {ObjectIdGetDatum(p->relid), JsonbPGetDatum(p->what),
		Float8GetDatum(epsilon), PointerGetDatum(p->group_by),
	DirectFunctionCall1(jsonb_in, CStringGetDatum(options))};

	SPI_connect();
	if (dp_spi_run("SELECT half_width FROM dpobj.aggregate_accuracy($1::pg_catalog.regclass, $2, $3, $4, $5)",
				   5, types, values, NULL, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "dpobj: the accuracy lookup failed");
	for (int i = 0; i < p->nstats; i++)
	{
		bool		isnull = true;
		Datum		d = i < (int) SPI_processed ?
			SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &isnull) : (Datum) 0;

		hw[i] = isnull ? NAN : DatumGetFloat8(d);
	}
	SPI_finish();
	return hw;
}

/* the lines: the cost, then each aggregate's accuracy */
static void
sqlexplain_lines(ExplainState *es, Jsonb *plan)
{
	QueryPlan  *p = queryrun_parse(plan);
	double	   *hw = sqlexplain_halfwidths(p, plan, dpobj_query_epsilon);
	JsonbValue *outs = getKeyJsonValueFromContainer(&plan->root, "outputs", 7, NULL);

	appendStringInfo(es->str, "dpobj private query: epsilon %g, delta %g per execution, split equally over %d statistic%s\n",
					 dpobj_query_epsilon, dpobj_query_delta, p->nstats, p->nstats == 1 ? "" : "s");
	for (int i = p->ngroups; i < p->noutputs; i++)
	{
		JsonbValue *o = getIthJsonbValueFromContainer(outs->val.binary.data, i);
		JsonbValue *label = getKeyJsonValueFromContainer(o->val.binary.data, "label", 5, NULL);
		JsonbValue *st = getIthJsonbValueFromContainer(&p->what->root, p->stat[i]);
		JsonbValue *kind = getKeyJsonValueFromContainer(st->val.binary.data, "stat", 4, NULL);
		double		h = hw[p->stat[i]];

		appendStringInfo(es->str, "  %.*s: ", label && label->type == jbvString ? label->val.string.len : 1,
						 label && label->type == jbvString ? label->val.string.val : "?");
		if (isnan(h) || p->sqrt[i] || p->den[i] >= 0)
			appendStringInfoString(es->str, "depends on the count\n");
		else if (p->ncells > 0)
			appendStringInfo(es->str, "+- %g per cell, a merged group's cells' added (95 %%)\n", h);
		else if (kind->val.string.len == 8 && strncmp(kind->val.string.val, "quantile", 8) == 0)
			appendStringInfo(es->str, "+- %g ranks (95 %%)\n", h);
		else
			appendStringInfo(es->str, "+- %g (95 %%)\n", h);
	}
}

static void
sqlexplain_one_query(Query *query, int cursorOptions, IntoClause *into, ExplainState *es,
					 const char *queryString, ParamListInfo params, QueryEnvironment *queryEnv)
{
	Jsonb	   *plan = sqlexplain_plan_of(query);

	if (plan != NULL && es->format == EXPLAIN_FORMAT_TEXT)
		sqlexplain_lines(es, plan);
	if (prev_explain_hook)
		prev_explain_hook(query, cursorOptions, into, es, queryString, params, queryEnv);
	else
		compat_explain_one_query(query, cursorOptions, into, es, queryString, params, queryEnv);
}

void
sqlexplain_init(void)
{
	prev_explain_hook = ExplainOneQuery_hook;
	ExplainOneQuery_hook = sqlexplain_one_query;
}
