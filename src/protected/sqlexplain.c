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
 *	  EXPLAIN EXECUTE of a prepared private query plans no Query (the hook
 *	  above is not called): a utility hook finds the prepared statement's
 *	  query and sends the same lines first, through a receiver wrapped
 *	  around EXPLAIN's.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

/* compat_explain_one_query (pg_compat.h) */
#define COMPAT_WANT_EXPLAIN
#include "base/hooks.h"
#include "base/pg_compat.h"

#include <math.h>

#include "catalog/pg_namespace.h"
#include "commands/defrem.h"
#include "commands/prepare.h"
#include "executor/tuptable.h"
#include "tcop/utility.h"
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
static ProcessUtility_hook_type prev_process_utility = NULL;

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

/*
 * per statistic of p, its 95 % half-width at epsilon (NaN: depends on the
 * count); a private k' <= k (unitbound.h): the worst case, aggplan.c's
 */
static double *
sqlexplain_halfwidths(QueryPlan *p, Jsonb *plan, double epsilon)
{
	double	   *hw = palloc(sizeof(double) * p->nstats);
	Oid			types[5] = {OIDOID, JSONBOID, FLOAT8OID, TEXTARRAYOID, JSONBOID};
	/* the noise does not depend on the filter: the lookup tables alone (lookups.h) */
	JsonbValue *lk = getKeyJsonValueFromContainer(&p->options->root, "lookups", 7, NULL);
	char	   *options = psprintf("{%s%s%s%s}",
									   lk == NULL ? "" : "\"lookups\": ",
									   lk == NULL ? "" : JsonbToCString(NULL, &JsonbValueToJsonb(lk)->root, -1),
									   lk != NULL && dpobj_query_private_bound ? ", " : "",
									   dpobj_query_private_bound ? "\"rows_per_unit\": \"private\"" : "");
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
sqlexplain_lines(StringInfo str, Jsonb *plan)
{
	QueryPlan  *p = queryrun_parse(plan);
	double	   *hw = sqlexplain_halfwidths(p, plan, dpobj_query_epsilon);
	const char *most = dpobj_query_private_bound ? "at most " : "";
	JsonbValue *outs = getKeyJsonValueFromContainer(&plan->root, "outputs", 7, NULL);

	appendStringInfo(str, "dpobj private query: epsilon %g, delta %g per execution, split equally over %d statistic%s%s\n",
					 dpobj_query_epsilon, dpobj_query_delta, p->nstats, p->nstats == 1 ? "" : "s",
					 dpobj_query_private_bound ? "; rows per unit private (worst case: widths at the declared k)" : "");
	for (int i = p->ngroups; i < p->noutputs; i++)
	{
		JsonbValue *o = getIthJsonbValueFromContainer(outs->val.binary.data, i);
		JsonbValue *label = getKeyJsonValueFromContainer(o->val.binary.data, "label", 5, NULL);
		JsonbValue *st = getIthJsonbValueFromContainer(&p->what->root, p->stat[i]);
		JsonbValue *kind = getKeyJsonValueFromContainer(st->val.binary.data, "stat", 4, NULL);
		double		h = hw[p->stat[i]];

		appendStringInfo(str, "  %.*s: ", label && label->type == jbvString ? label->val.string.len : 1,
						 label && label->type == jbvString ? label->val.string.val : "?");
		if (isnan(h) || p->sqrt[i] || p->den[i] >= 0)
			appendStringInfoString(str, "depends on the count\n");
		else if (p->ncells > 0)
			appendStringInfo(str, "+- %s%g per cell, a merged group's cells' added (95 %%)\n", most, h);
		else if (kind->val.string.len == 8 && strncmp(kind->val.string.val, "quantile", 8) == 0)
			appendStringInfo(str, "+- %s%g ranks (95 %%)\n", most, h);
		else
			appendStringInfo(str, "+- %s%g (95 %%)\n", most, h);
	}
}

static void
sqlexplain_one_query(Query *query, int cursorOptions, IntoClause *into, ExplainState *es,
					 const char *queryString, ParamListInfo params, QueryEnvironment *queryEnv)
{
	Jsonb	   *plan = sqlexplain_plan_of(query);

	if (plan != NULL && es->format == EXPLAIN_FORMAT_TEXT)
		sqlexplain_lines(es->str, plan);
	if (prev_explain_hook)
		prev_explain_hook(query, cursorOptions, into, es, queryString, params, queryEnv);
	else
		compat_explain_one_query(query, cursorOptions, into, es, queryString, params, queryEnv);
}

/* a receiver that sends lines (one text column each) before what it passes on */
typedef struct LinesFirstReceiver
{
	DestReceiver pub;
	DestReceiver *inner;
	List	   *lines;
} LinesFirstReceiver;

static void
lines_first_startup(DestReceiver *self, int operation, TupleDesc typeinfo)
{
	LinesFirstReceiver *r = (LinesFirstReceiver *) self;
	TupleTableSlot *slot = MakeSingleTupleTableSlot(typeinfo, &TTSOpsVirtual);
	ListCell   *lc;

	r->inner->rStartup(r->inner, operation, typeinfo);
	foreach(lc, r->lines)
	{
		ExecClearTuple(slot);
		slot->tts_values[0] = CStringGetTextDatum((char *) lfirst(lc));
		slot->tts_isnull[0] = false;
		ExecStoreVirtualTuple(slot);
		r->inner->receiveSlot(slot, r->inner);
	}
	ExecDropSingleTupleTableSlot(slot);
}

static bool
lines_first_receive(TupleTableSlot *slot, DestReceiver *self)
{
	LinesFirstReceiver *r = (LinesFirstReceiver *) self;

	return r->inner->receiveSlot(slot, r->inner);
}

static void
lines_first_shutdown(DestReceiver *self)
{
	LinesFirstReceiver *r = (LinesFirstReceiver *) self;

	r->inner->rShutdown(r->inner);
}

static void
lines_first_destroy(DestReceiver *self)
{
	pfree(self);
}

/* the text format's lines of EXPLAIN EXECUTE of a prepared private query, or NIL */
static List *
sqlexplain_execute_lines(ExplainStmt *stmt)
{
	Query	   *q = (Query *) stmt->query;
	ExecuteStmt *ex;
	PreparedStatement *ps;
	ListCell   *lc;
	Jsonb	   *plan;
	StringInfoData str;
	List	   *lines = NIL;
	char	   *line;

	/* EXPLAIN's statement, analyzed: a utility Query holding the EXECUTE */
	if (!IsA(q, Query) || q->commandType != CMD_UTILITY || !IsA(q->utilityStmt, ExecuteStmt))
		return NIL;
	ex = (ExecuteStmt *) q->utilityStmt;
	foreach(lc, stmt->options)
	{
		DefElem    *opt = lfirst_node(DefElem, lc);

		if (strcmp(opt->defname, "format") == 0 && strcmp(defGetString(opt), "text") != 0)
			return NIL;
	}
	ps = FetchPreparedStatement(ex->name, false);
	if (ps == NULL || list_length(ps->plansource->query_list) != 1 ||
		(plan = sqlexplain_plan_of(linitial_node(Query, ps->plansource->query_list))) == NULL)
		return NIL;
	initStringInfo(&str);
	sqlexplain_lines(&str, plan);
	for (line = strtok(str.data, "\n"); line != NULL; line = strtok(NULL, "\n"))
		lines = lappend(lines, pstrdup(line));
	return lines;
}

static void
sqlexplain_process_utility(PlannedStmt *pstmt, const char *queryString, bool readOnlyTree,
						   ProcessUtilityContext context, ParamListInfo params,
						   QueryEnvironment *queryEnv, DestReceiver *dest, QueryCompletion *qc)
{
	Node	   *stmt = pstmt->utilityStmt;
	List	   *lines = NIL;

	if (IsA(stmt, ExplainStmt))
		lines = sqlexplain_execute_lines((ExplainStmt *) stmt);
	if (lines != NIL)
	{
		LinesFirstReceiver *r = palloc0(sizeof(LinesFirstReceiver));

		r->pub.receiveSlot = lines_first_receive;
		r->pub.rStartup = lines_first_startup;
		r->pub.rShutdown = lines_first_shutdown;
		r->pub.rDestroy = lines_first_destroy;
		r->pub.mydest = dest->mydest;
		r->inner = dest;
		r->lines = lines;
		dest = &r->pub;
	}
	dp_next_process_utility(prev_process_utility, pstmt, queryString, readOnlyTree, context,
							params, queryEnv, dest, qc);
}

void
sqlexplain_init(void)
{
	prev_explain_hook = ExplainOneQuery_hook;
	ExplainOneQuery_hook = sqlexplain_one_query;
	prev_process_utility = ProcessUtility_hook;
	ProcessUtility_hook = sqlexplain_process_utility;
}
