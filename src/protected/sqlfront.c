/*-------------------------------------------------------------------------
 *
 * sqlfront.c
 *	  A plain aggregate SELECT on a protected table, by a role that may not
 *	  read it and holds a budget on it, with dpobj.query_epsilon set: the
 *	  analyzed query (sqlcompile.c) becomes a scan of
 *	  dpobj.query_run(plan) (queryrun.c), one typed row per group, in place
 *	  of the table.  Its aggregates become that function's output columns,
 *	  its HAVING a condition on them; its outputs, ORDER BY and LIMIT stay,
 *	  post-processing of the released values.  Each execution of the
 *	  rewritten query calls query_run once: one charge per execution.
 *
 *	  The caller's SQL is never run over the table's rows: the table leaves
 *	  the query, and with it the permission check PostgreSQL would make on
 *	  it (query_run makes aggregate()'s own checks when it runs).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_collation.h"
#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "parser/parse_func.h"
#include "parser/parsetree.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/fmgrprotos.h"

#include "base/pg_compat.h"
#include "protected/sqlcompile.h"
#include "protected/sqlfront.h"

typedef struct SqlFrontMap
{
	SqlCompiled *c;
	Query	   *query;
} SqlFrontMap;

/* the output Var i (0-based) of the function scan at index 1 */
static Var *
sqlfront_var(SqlCompiled *c, int i)
{
	return makeVar(1, i + 1, c->types[i], c->typmods[i], c->colls[i], 0);
}

/* Aggrefs and the group columns' Vars to the function's outputs */
static Node *
sqlfront_mutator(Node *node, SqlFrontMap *m)
{
	SqlCompiled *c = m->c;

	if (node == NULL)
		return NULL;
	/* the merged GROUP BY expression (PostgreSQL 18: its grouped Var) */
	if (c->merge != NULL &&
		(equal(node, c->merge) ||
		 (IsA(node, Var) && c->grouprte != 0 && ((Var *) node)->varno == c->grouprte &&
		  ((Var *) node)->varlevelsup == 0)))
		return (Node *) sqlfront_var(c, 0);
	if (IsA(node, Aggref))
	{
		ListCell   *lc;

		foreach(lc, c->aggrefs)
			if (equal(lfirst(lc), node))
				return (Node *) sqlfront_var(c, c->ngroups + foreach_current_index(lc));
		elog(ERROR, "dpobj: an aggregate of the query was not compiled");
	}
	if (IsA(node, Var) && ((Var *) node)->varlevelsup == 0)
	{
		Var		   *v = (Var *) node;

		if (c->grouprte != 0 && v->varno == c->grouprte)
			v = sqlexpr_plain_var(list_nth(compat_rte_group_exprs(rt_fetch(c->grouprte, m->query->rtable)),
										   v->varattno - 1));
		for (int i = 0; v != NULL && i < c->ngroups; i++)
			if (v->varno == 1 && v->varattno == c->gattnos[i])
				return (Node *) sqlfront_var(c, i);
		sqlexpr_refuse("row-level output (a column that is not grouped)");
	}
	return expression_tree_mutator(node, sqlfront_mutator, m);
}

/*
 * query_run's argument: the plan, each query parameter's text set as the
 * value of its filter condition when the query runs (jsonb_set(plan, path, to_jsonb(param::text)),
 * a NULL parameter as JSON null, which aggregate() refuses)
 */
static Node *
sqlfront_plan_arg(SqlCompiled *c)
{
	Node	   *arg = (Node *) makeConst(JSONBOID, -1, InvalidOid, -1, PointerGetDatum(c->plan),
										 false, false);
	ListCell   *lp,
			   *lpath;

	forboth(lp, c->params, lpath, c->param_filters)
	{
		Param	   *p = lfirst(lp);
		Node	   *text = (Node *) p;
		CoalesceExpr *value = makeNode(CoalesceExpr);
		Datum		keys[4] = {CStringGetTextDatum("options"), CStringGetTextDatum("filter"),
			CStringGetTextDatum(psprintf("%d", lfirst_int(lpath))), CStringGetTextDatum("value")};
		Const	   *path = makeConst(TEXTARRAYOID, -1, InvalidOid, -1,
									 PointerGetDatum(construct_array(keys, 4, TEXTOID, -1, false,
																	 TYPALIGN_INT)),
									 false, false);

		if (p->paramtype != TEXTOID)
		{
			CoerceViaIO *io = makeNode(CoerceViaIO);

			io->arg = (Expr *) p;
			io->resulttype = TEXTOID;
			io->resultcollid = DEFAULT_COLLATION_OID;
			io->coerceformat = COERCE_EXPLICIT_CAST;
			io->location = -1;
			text = (Node *) io;
		}
		value->coalescetype = JSONBOID;
		value->args = list_make2(makeFuncExpr(F_TO_JSONB, JSONBOID, list_make1(text), InvalidOid,
											  InvalidOid, COERCE_EXPLICIT_CALL),
								 makeConst(JSONBOID, -1, InvalidOid, -1,
										   DirectFunctionCall1(jsonb_in, CStringGetDatum("null")),
										   false, false));
		value->location = -1;
		arg = (Node *) makeFuncExpr(F_JSONB_SET, JSONBOID,
									list_make4(arg, path, value, makeBoolConst(true, false)),
									InvalidOid, InvalidOid, COERCE_EXPLICIT_CALL);
	}
	return arg;
}

/* FROM dpobj.query_run(plan) AS alias(outputs...) in place of range table entry 1 */
static void
sqlfront_function_rte(Query *query, SqlCompiled *c)
{
	RangeTblEntry *rte = rt_fetch(1, query->rtable);
	RangeTblFunction *rtf = makeNode(RangeTblFunction);
	Oid			argtypes[1] = {JSONBOID};
	Oid			fn = LookupFuncName(list_make2(makeString("dpobj"), makeString("query_run")),
									1, argtypes, false);
	List	   *names = NIL;

	rtf->funcexpr = (Node *) makeFuncExpr(fn, RECORDOID, list_make1(sqlfront_plan_arg(c)),
										  InvalidOid, InvalidOid, COERCE_EXPLICIT_CALL);
	((FuncExpr *) rtf->funcexpr)->funcretset = true;
	rtf->funccolcount = c->noutputs;
	for (int i = 0; i < c->noutputs; i++)
	{
		names = lappend(names, makeString(pstrdup(c->names[i])));
		rtf->funccoltypes = lappend_oid(rtf->funccoltypes, c->types[i]);
		rtf->funccoltypmods = lappend_int(rtf->funccoltypmods, c->typmods[i]);
		rtf->funccolcollations = lappend_oid(rtf->funccolcollations, c->colls[i]);
	}
	rtf->funccolnames = names;
	compat_rte_drop_perms(query, rte);
	rte->rtekind = RTE_FUNCTION;
	rte->relid = InvalidOid;
	rte->relkind = 0;
	rte->rellockmode = NoLock;
	rte->tablesample = NULL;
	rte->inh = false;
	rte->functions = list_make1(rtf);
	rte->funcordinality = false;
	rte->eref = makeAlias(rte->eref->aliasname, names);
	if (rte->alias != NULL)
		rte->alias = makeAlias(rte->alias->aliasname, NIL);
}

void
sqlfront_rewrite(Query *query, Oid relid)
{
	SqlCompiled *c = sqlcompile_query(query, relid);
	SqlFrontMap m = {c, query};

	query->targetList = (List *) sqlfront_mutator((Node *) query->targetList, &m);
	query->jointree->quals = sqlfront_mutator(query->havingQual, &m);
	query->havingQual = NULL;
	query->groupClause = NIL;
	query->groupDistinct = false;
	query->hasAggs = false;
	compat_query_drop_group_rte(query);
	/* a join's other tables leave the query with their permission checks (sqljoin.h) */
	query->rtable = list_truncate(query->rtable, 1);
	sqlfront_function_rte(query, c);
}
