/*-------------------------------------------------------------------------
 *
 * sqlquery.c
 *	  dpobj.query(sql text, epsilon float8, delta float8 DEFAULT 0)
 *	    RETURNS TABLE(result jsonb, intervals jsonb)
 *	  A private query from a script: the text (one SELECT) parsed and
 *	  analyzed as the caller, compiled as a plain private query is
 *	  (sqlcompile.c) and run at (epsilon, delta) (queryrun.c): one row per
 *	  group, its output columns by name in result and each estimate's 95 %
 *	  interval [low, high] in intervals.  The text itself is never
 *	  executed.  Its outputs are the group columns and aggregates
 *	  themselves: HAVING, ORDER BY, LIMIT and expressions over aggregates
 *	  belong to a plain SELECT.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "fmgr.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "nodes/nodeFuncs.h"
#include "parser/analyze.h"
#include "parser/parser.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/json.h"

#include "base/pg_compat.h"
#include "parser/parsetree.h"
#include "protected/queryrun.h"
#include "protected/selecthint.h"
#include "protected/sqlcompile.h"

/* an output column: a group column (group >= 0) or aggregate agg */
typedef struct SqlQueryCol
{
	char	   *name;
	int			group;
	int			out;			/* its plan output */
} SqlQueryCol;

typedef struct SqlQueryOut
{
	ReturnSetInfo *rsi;
	SqlQueryCol *cols;
	int			ncols;
} SqlQueryOut;

static pg_noreturn void
sqlquery_refuse(const char *msg)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("dpobj.query: %s", msg),
			 errhint("Pass one aggregate SELECT on a protected table you hold a budget on, its outputs "
					 "group columns and aggregates (HAVING, ORDER BY, LIMIT: in a plain SELECT).")));
}

/* the text as one analyzed SELECT, the hook's checks off (compiled below) */
static Query *
sqlquery_analyze(const char *sql)
{
	List	   *raw = raw_parser(sql, RAW_PARSE_DEFAULT);
	RawStmt    *rs = list_length(raw) == 1 ? linitial_node(RawStmt, raw) : NULL;
	Query	   *query;

	if (rs == NULL || !IsA(rs->stmt, SelectStmt))
		sqlquery_refuse("the text must be exactly one SELECT statement");
	selecthint_suspend(true);
	PG_TRY();
	{
		query = parse_analyze_fixedparams(rs, sql, NULL, 0, NULL);
	}
	PG_FINALLY();
	{
		selecthint_suspend(false);
	}
	PG_END_TRY();
	return query;
}

/* the query's outputs as the plan's: group columns and aggregates only */
static SqlQueryCol *
sqlquery_columns(Query *query, SqlCompiled *c, int *n)
{
	SqlQueryCol *cols = palloc0(sizeof(SqlQueryCol) * (list_length(query->targetList) + 1));
	ListCell   *lc;

	if (query->havingQual || query->sortClause || query->limitCount || query->limitOffset)
		sqlquery_refuse("HAVING, ORDER BY and LIMIT are for a plain SELECT");
	*n = 0;
	foreach(lc, query->targetList)
	{
		TargetEntry *tle = lfirst_node(TargetEntry, lc);
		Node	   *e = (Node *) tle->expr;
		/* 18: a grouped output is a Var of the group entry, resolved to its expression */
		bool		grouped = c->grouprte != 0 && IsA(e, Var) &&
			((Var *) e)->varno == c->grouprte && ((Var *) e)->varlevelsup == 0;
		Var		   *v;
		SqlQueryCol *col = &cols[*n];

		if (grouped)
			e = list_nth(compat_rte_group_exprs(rt_fetch(c->grouprte, query->rtable)),
						 ((Var *) e)->varattno - 1);
		v = sqlexpr_plain_var(e);

		if (tle->resjunk)
			continue;
		col->name = tle->resname ? tle->resname : "?column?";
		col->group = -1;
		col->out = -1;
		for (int g = 0; v != NULL && g < c->ngroups; g++)
			if (v->varattno == c->gattnos[g])
				col->group = col->out = g;
		if (c->merge != NULL && (equal(e, c->merge) || grouped))
			col->group = col->out = 0;
		for (int a = 0; IsA(tle->expr, Aggref) && a < list_length(c->aggrefs); a++)
			if (equal(list_nth(c->aggrefs, a), tle->expr))
				col->out = c->ngroups + a;
		if (col->out < 0)
			sqlquery_refuse(psprintf("output \"%s\" is neither a group column nor an aggregate", col->name));
		(*n)++;
	}
	return cols;
}

/* one group: {"name": value, ...} and {"name": [low, high], ...} */
static void
sqlquery_emit(void *arg, const QueryPlan *p, const QueryGroup *g)
{
	SqlQueryOut *o = arg;
	StringInfoData r,
				iv;
	Datum		v[2];
	bool		n[2] = {false, false};
	double		lo,
				hi;

	initStringInfo(&r);
	initStringInfo(&iv);
	appendStringInfoChar(&r, '{');
	appendStringInfoChar(&iv, '{');
	for (int i = 0; i < o->ncols; i++)
	{
		const SqlQueryCol *c = &o->cols[i];

		appendStringInfoString(&r, i > 0 ? ", " : "");
		escape_json(&r, c->name);
		appendStringInfoString(&r, ": ");
		if (c->group >= 0)
		{
			char	   *gv = queryrun_group_text(p, g, c->group);

			if (gv != NULL)
				escape_json(&r, gv);
			else
				appendStringInfoString(&r, "null");
			continue;
		}
		if (!queryrun_has(p, g, c->out))
			appendStringInfoString(&r, "null");
		else
			appendStringInfo(&r, "%.15g", queryrun_value(p, g, c->out));
		appendStringInfo(&iv, "%s", iv.len > 1 ? ", " : "");
		escape_json(&iv, c->name);
		if (queryrun_interval(p, g, c->out, &lo, &hi))
			appendStringInfo(&iv, ": [%.15g, %.15g]", lo, hi);
		else
			appendStringInfoString(&iv, ": null");
	}
	appendStringInfoChar(&r, '}');
	appendStringInfoChar(&iv, '}');
	v[0] = DirectFunctionCall1(jsonb_in, CStringGetDatum(r.data));
	v[1] = DirectFunctionCall1(jsonb_in, CStringGetDatum(iv.data));
	tuplestore_putvalues(o->rsi->setResult, o->rsi->setDesc, v, n);
}

PG_FUNCTION_INFO_V1(dpobj_query);

Datum
dpobj_query(PG_FUNCTION_ARGS)
{
	Query	   *query;
	Oid			relid;
	SqlCompiled *c;
	SqlQueryOut o;

	for (int i = 0; i < 3; i++)
		if (PG_ARGISNULL(i))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("dpobj.query: argument %d must not be NULL", i + 1)));
	query = sqlquery_analyze(text_to_cstring(PG_GETARG_TEXT_PP(0)));
	relid = selecthint_private_relid(query, false);
	if (!OidIsValid(relid))
		sqlquery_refuse("the query reads no protected table that you may not read and hold a budget on");
	c = sqlcompile_query(query, relid);
	o.cols = sqlquery_columns(query, c, &o.ncols);
	InitMaterializedSRF(fcinfo, 0);
	o.rsi = (ReturnSetInfo *) fcinfo->resultinfo;
	queryrun_run(fcinfo, queryrun_parse(c->plan), PG_GETARG_FLOAT8(1), PG_GETARG_FLOAT8(2),
				 c->types, sqlquery_emit, &o);
	return (Datum) 0;
}
