/*-------------------------------------------------------------------------
 *
 * sqlcompile.c
 *	  A private query's compile (sqlcompile.h): a SELECT that PostgreSQL
 *	  analyzed as its caller, on one protected table, into
 *	  dpobj.aggregate()'s request -- its statistics ("what"), group_by and
 *	  options "filter" (column op constant, ANDed) and "where" (any other
 *	  condition, sqlexpr.c) -- and its outputs.  Every construct outside the
 *	  accepted subset is refused here, on the query's text alone, before
 *	  anything is read or charged.
 *
 *	  Aggregates: count(*), count(x) (the rows where x is not NULL), sum,
 *	  avg, variance/var_samp and var_pop (aggregate()'s variance, "sample"
 *	  or not), stddev/stddev_samp/stddev_pop (its square root),
 *	  percentile_cont/percentile_disc(q) WITHIN GROUP (ORDER BY x), min and
 *	  max (the quantiles SQLCOMPILE_QMIN and 1 - SQLCOMPILE_QMIN),
 *	  count(DISTINCT unit) (aggregate()'s "units": the privacy unit only,
 *	  sqlunits.c).  Equal statistics are released once.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_aggregate.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_operator.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "parser/parsetree.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/json.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "base/pg_compat.h"
#include "protected/domains.h"
#include "protected/sqlcompile.h"
#include "protected/sqljoin.h"

/* min and max: these quantiles (aggregate() takes q strictly between 0 and 1) */
#define SQLCOMPILE_QMIN 0.000001

typedef struct SqlState
{
	Query	   *query;
	Oid			relid;
	List	   *stats;			/* each statistic's JSON text, distinct */
	SqlCompiled *c;
	StringInfoData outputs;		/* the plan's "outputs" */
	int			nfilter;		/* "filter" conditions so far */
	StringInfoData merge;		/* the plan's "merge", or empty */
} SqlState;

/* the query's shape: one table, no construct outside the subset */
static void
sqlcompile_shape(Query *q, bool joined)
{
	RangeTblEntry *rte = rt_fetch(1, q->rtable);
	Node	   *from = list_length(q->jointree->fromlist) == 1 ?
		linitial(q->jointree->fromlist) : NULL;

	if (q->commandType != CMD_SELECT)
		sqlexpr_refuse("data-modifying statements");
	if (q->utilityStmt != NULL && !IsA(q->utilityStmt, DeclareCursorStmt))
		sqlexpr_refuse("utility statements");
	if (q->setOperations != NULL)
		sqlexpr_refuse("set operations (UNION, INTERSECT, EXCEPT)");
	if (q->cteList != NIL)
		sqlexpr_refuse("WITH queries");
	if (q->hasSubLinks)
		sqlexpr_refuse("subqueries");
	if (q->hasWindowFuncs)
		sqlexpr_refuse("window functions");
	if (q->hasTargetSRFs)
		sqlexpr_refuse("set-returning functions");
	if (q->distinctClause != NIL)
		sqlexpr_refuse("SELECT DISTINCT");
	if (q->rowMarks != NIL || q->hasForUpdate)
		sqlexpr_refuse("FOR UPDATE and FOR SHARE");
	if (q->groupingSets != NIL)
		sqlexpr_refuse("GROUPING SETS, ROLLUP and CUBE");
	if ((!joined && compat_query_nrtes(q) != 1) || from == NULL || !IsA(from, RangeTblRef) ||
		((RangeTblRef *) from)->rtindex != 1)
		sqlexpr_refuse("joins (one protected table per query, for now)");
	if (rte->tablesample != NULL)
		sqlexpr_refuse("TABLESAMPLE");
	/* aggregate() reads the table with its partitions and children */
	if (!rte->inh && has_subclass(rte->relid))
		sqlexpr_refuse("FROM ONLY a table with partitions or children");
	if (!q->hasAggs && q->groupClause == NIL)
		sqlexpr_refuse("row-level output (a column that is not grouped, or no aggregate)");
}

/* a function of the post-processing that is not PostgreSQL's own, or volatile */
static bool
sqlcompile_foreign_fn(Oid fn, void *context)
{
	return !sqlexpr_builtin(fn) || get_func_namespace(fn) != PG_CATALOG_NAMESPACE ||
		func_volatile(fn) == PROVOLATILE_VOLATILE;
}

/* the post-processing (outputs, HAVING): built-in, non-volatile functions only */
static bool
sqlcompile_post_walker(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Aggref))
		return false;			/* compiled on its own */
	if (check_functions_in_node(node, sqlcompile_foreign_fn, NULL))
		sqlexpr_refuse("functions and operators that are not PostgreSQL's own, nor volatile ones");
	return expression_tree_walker(node, sqlcompile_post_walker, context);
}

/* the Var a node stands for: PostgreSQL 18's grouped Var resolved to its expression */
static Node *
sqlcompile_resolve(SqlState *s, Node *node)
{
	if (node && IsA(node, Var) && s->c->grouprte != 0 &&
		((Var *) node)->varno == s->c->grouprte && ((Var *) node)->varlevelsup == 0)
		return list_nth(compat_rte_group_exprs(rt_fetch(s->c->grouprte, s->query->rtable)),
						((Var *) node)->varattno - 1);
	return node;
}

/* the outputs' arrays, room for n */
static void
sqlcompile_alloc(SqlCompiled *c, int n)
{
	c->names = palloc0(sizeof(char *) * n);
	c->types = palloc0(sizeof(Oid) * n);
	c->typmods = palloc0(sizeof(int32) * n);
	c->colls = palloc0(sizeof(Oid) * n);
	c->gattnos = palloc0(sizeof(AttrNumber) * n);
	c->labels = palloc0(sizeof(char *) * n);
}

/* GROUP BY one expression over columns with declared levels: its cells merged */
static void
sqlcompile_group_merge(SqlState *s, TargetEntry *tle, Node *expr, StringInfo group_by)
{
	SqlCompiled *c = s->c;

	if (list_length(s->query->groupClause) != 1)
		sqlexpr_refuse("GROUP BY an expression with other group columns");
	if (OidIsValid(exprCollation(expr)) && !get_collation_isdeterministic(exprCollation(expr)))
		sqlexpr_refuse("GROUP BY an expression under a nondeterministic collation");
	/* evaluated now on the levels: built-in, non-volatile functions only (18: not in targetList) */
	sqlcompile_post_walker(expr, NULL);
	resetStringInfo(group_by);
	sqlmerge_compile(s->relid, expr, group_by, &s->merge, &c->ranged);
	c->merge = expr;
	c->names[0] = tle->resname ? pstrdup(tle->resname) : "group";
	c->types[0] = exprType(expr);
	c->typmods[0] = exprTypmod(expr);
	c->colls[0] = exprCollation(expr);
	c->gattnos[0] = InvalidAttrNumber;
	appendStringInfoString(&s->outputs, "{\"merge\": true}");
	c->ngroups = 1;
}

/* GROUP BY: plain columns of the table, each once, or one merged expression */
static void
sqlcompile_groups(SqlState *s, StringInfo group_by)
{
	SqlCompiled *c = s->c;
	ListCell   *lc;

	appendStringInfoChar(group_by, '[');
	foreach(lc, s->query->groupClause)
	{
		SortGroupClause *g = lfirst_node(SortGroupClause, lc);
		TargetEntry *tle = get_sortgroupclause_tle(g, s->query->targetList);
		Var		   *v = (Var *) sqlcompile_resolve(s, (Node *) tle->expr);

		if (!IsA(v, Var))
		{
			sqlcompile_group_merge(s, tle, (Node *) v, group_by);
			return;
		}
		if (v->varno != 1 || v->varlevelsup != 0)
			sqlexpr_refuse("GROUP BY expressions other than over columns with declared levels");
		for (int i = 0; i < c->ngroups; i++)
			if (c->gattnos[i] == v->varattno)
				sqlexpr_refuse("GROUP BY naming a column twice");
		/* groups are matched byte-wise: PostgreSQL's would merge values its collation equates */
		if (OidIsValid(v->varcollid) && !get_collation_isdeterministic(v->varcollid))
			sqlexpr_refuse("GROUP BY a column under a nondeterministic collation");
		c->names[c->ngroups] = sqlexpr_column(s->relid, v->varattno);
		c->types[c->ngroups] = v->vartype;
		c->typmods[c->ngroups] = v->vartypmod;
		c->colls[c->ngroups] = v->varcollid;
		c->gattnos[c->ngroups] = v->varattno;
		if (c->ngroups > 0)
			appendStringInfoString(group_by, ", ");
		escape_json(group_by, c->names[c->ngroups]);
		appendStringInfo(&s->outputs, "%s{\"group\": ", c->ngroups > 0 ? ", " : "");
		escape_json(&s->outputs, c->names[c->ngroups]);
		appendStringInfoChar(&s->outputs, '}');
		c->ngroups++;
	}
	appendStringInfoChar(group_by, ']');
}

/* the statistic's index in "what", added unless there */
static int
sqlcompile_stat(SqlState *s, const char *json)
{
	ListCell   *lc;

	foreach(lc, s->stats)
		if (strcmp(lfirst(lc), json) == 0)
			return foreach_current_index(lc);
	s->stats = lappend(s->stats, pstrdup(json));
	return list_length(s->stats) - 1;
}

/* an aggregate's argument: {"column": c} or {"expr": E} */
static void
sqlcompile_arg(SqlState *s, StringInfo b, Node *arg)
{
	/* aggregate() reads a numeric column as float8: a numeric cast of one is the column */
	Var		   *v = sqlexpr_plain_var(sqlexpr_strip_numeric_casts(arg));

	if (v != NULL)
	{
		appendStringInfoString(b, ", \"column\": ");
		escape_json(b, sqlexpr_column(s->relid, v->varattno));
	}
	else
	{
		appendStringInfoString(b, ", \"expr\": ");
		sqlexpr_value(b, arg, s->relid);
	}
}

/* percentile_*(q): q a constant in [0, 1] */
static double
sqlcompile_q(Aggref *a)
{
	Const	   *q = list_length(a->aggdirectargs) == 1 ?
		sqlexpr_folded_const(linitial(a->aggdirectargs)) : NULL;
	Oid			out;
	bool		varlena;
	double		v;

	if (q == NULL || q->constisnull || exprType(linitial(a->aggdirectargs)) != FLOAT8OID)
		sqlexpr_refuse("percentiles other than of one constant fraction");
	getTypeOutputInfo(q->consttype, &out, &varlena);
	v = strtod(OidOutputFunctionCall(out, q->constvalue), NULL);
	if (!(v >= 0 && v <= 1))
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("percentile value %g is not between 0 and 1", v)));
	return Min(Max(v, SQLCOMPILE_QMIN), 1 - SQLCOMPILE_QMIN);
}

/* the column is declared NOT NULL */
static bool
sqlcompile_notnull(Oid relid, AttrNumber attno)
{
	AttrNumber	att;
	Oid			table = sqljoin_attr(relid, attno, &att);
	HeapTuple	tup = SearchSysCache2(ATTNUM, ObjectIdGetDatum(table), Int16GetDatum(att));
	bool		nn;

	if (!HeapTupleIsValid(tup))
		return false;
	/* a lookup table's column is NULL without a match (LEFT JOIN) */
	nn = ((Form_pg_attribute) GETSTRUCT(tup))->attnotnull && !sqljoin_is_lookup(attno);
	ReleaseSysCache(tup);
	return nn;
}

/* an aggregate's form outside the subset: refused */
static void
sqlcompile_agg_check(SqlState *s, Aggref *a, const char *name)
{
	if (!sqlexpr_builtin(a->aggfnoid) || get_func_namespace(a->aggfnoid) != PG_CATALOG_NAMESPACE)
		sqlexpr_refuse("aggregates that are not PostgreSQL's own");
	if (a->agglevelsup != 0)
		sqlexpr_refuse("outer-level aggregates");
	if (a->aggdistinct != NIL && strcmp(name, "count") != 0)
		sqlexpr_refuse("DISTINCT in aggregates other than count(DISTINCT unit)");
	if (a->aggdistinct != NIL && list_length(a->args) == 1 &&
		!sqlunits_is_unit(s->relid, (Node *) linitial_node(TargetEntry, a->args)->expr))
		sqlexpr_refuse("count(DISTINCT ...) of anything but the privacy unit (only the unit may be counted distinct)");
	if (a->aggdistinct != NIL && s->c->merge != NULL)
		sqlexpr_refuse("count(DISTINCT unit) by a GROUP BY expression");
	if (a->aggdistinct != NIL && a->aggfilter != NULL)
		sqlexpr_refuse("count(DISTINCT unit) FILTER (WHERE ...)");
	if (a->aggkind == AGGKIND_NORMAL && a->aggorder != NIL)
		sqlexpr_refuse("ORDER BY within an aggregate");
	if (list_length(a->args) > 1)
		sqlexpr_refuse(psprintf("%s() of several arguments", name));
}

/* the aggregate's statistic into b; its output's function ("value", "sqrt") */
static const char *
sqlcompile_agg_stat(SqlState *s, StringInfo b, Aggref *a, const char *name, Node *arg)
{
	static const char *const variances[] = {"variance", "var_samp", "var_pop", "stddev",
	"stddev_samp", "stddev_pop", NULL};
	Var		   *v = arg ? sqlexpr_plain_var(arg) : NULL;

	if (strcmp(name, "count") == 0 && a->aggdistinct != NIL)
	{
		/* the distinct privacy units of each group (sqlunits.c) */
		appendStringInfoString(b, "{\"stat\": \"units\"}");
		return "value";
	}
	if (strcmp(name, "count") == 0)
	{
		/* count(x): the rows where x is not NULL (of a NOT NULL column, count(*)) */
		appendStringInfoString(b, "{\"stat\": \"count\"");
		if ((!a->aggstar || a->aggfilter != NULL) && arg != NULL &&
			(v == NULL || !sqlcompile_notnull(s->relid, v->varattno)))
			sqlcompile_arg(s, b, arg);
		appendStringInfoChar(b, '}');
		return "value";
	}
	if (a->aggkind == AGGKIND_ORDERED_SET &&
		(strcmp(name, "percentile_cont") == 0 || strcmp(name, "percentile_disc") == 0))
		appendStringInfo(b, "{\"stat\": \"quantile\", \"q\": %.15g", sqlcompile_q(a));
	else if (a->aggkind != AGGKIND_NORMAL)
		sqlexpr_refuse(psprintf("the ordered-set aggregate %s()", name));
	else if (strcmp(name, "min") == 0 || strcmp(name, "max") == 0)
		appendStringInfo(b, "{\"stat\": \"quantile\", \"q\": %.15g",
						 name[1] == 'i' ? SQLCOMPILE_QMIN : 1 - SQLCOMPILE_QMIN);
	else if (strcmp(name, "sum") == 0 || strcmp(name, "avg") == 0)
		appendStringInfo(b, "{\"stat\": \"%s\"", name[0] == 's' ? "sum" : "mean");
	else if (sqlexpr_is(name, variances))
		appendStringInfo(b, "{\"stat\": \"variance\", \"sample\": %s",
						 strstr(name, "_pop") ? "false" : "true");
	else
		sqlexpr_refuse(psprintf("the aggregate %s()", name));
	sqlcompile_arg(s, b, arg);
	appendStringInfoChar(b, '}');
	return strncmp(name, "stddev", 6) == 0 ? "sqrt" : "value";
}

/*
 * agg(x) FILTER (WHERE cond) as agg(CASE WHEN cond THEN x END), count(*)'s
 * x being 1: every statistic skips its NULLs, as the FILTER skips the rows
 * (the condition a general one of dpobj's evaluator, a NULL not passing)
 */
static Node *
sqlcompile_filtered_arg(Aggref *a, Node *arg)
{
	CaseExpr   *c = makeNode(CaseExpr);
	CaseWhen   *w = makeNode(CaseWhen);
	Node	   *value = arg ? arg : (Node *) makeConst(INT4OID, -1, InvalidOid, sizeof(int32),
													Int32GetDatum(1), false, true);

	w->expr = (Expr *) a->aggfilter;
	w->result = (Expr *) value;
	w->location = -1;
	c->casetype = exprType(value);
	c->casecollid = exprCollation(value);
	c->args = list_make1(w);
	c->defresult = NULL;		/* ELSE NULL */
	c->location = -1;
	return (Node *) c;
}

/* one distinct aggregate: its statistic and output */
static void
sqlcompile_aggref(SqlState *s, Aggref *a)
{
	SqlCompiled *c = s->c;
	char	   *name = get_func_name(a->aggfnoid);
	Node	   *arg0 = a->args ? (Node *) linitial_node(TargetEntry, a->args)->expr : NULL;
	Node	   *arg = a->aggfilter ? sqlcompile_filtered_arg(a, arg0) : arg0;
	Var		   *v = arg0 ? sqlexpr_plain_var(sqlexpr_strip_numeric_casts(arg0)) : NULL;
	StringInfoData b;
	const char *fn;
	int			k = c->noutputs;
	int			den = -1;

	sqlcompile_agg_check(s, a, name);
	sqljoin_aggregated(s->relid, (Node *) a->args);
	/* a statistic of an undeclared column: named here, not by the encoder (a lookup's: its values) */
	if (v != NULL && strcmp(name, "count") != 0 && !sqljoin_is_lookup(v->varattno) &&
		getBaseType(v->vartype) != BOOLOID)
	{
		char	   *col = sqlexpr_column(s->relid, v->varattno);

		if (domains_undeclared(s->relid, &col, 1) != NULL)
			sqlexpr_refuse(psprintf("%s() of %s, a column without declared bounds (its owner declares them: dpobj.declare_domain(table, column, lo, hi))",
									name, col));
	}
	/* a ranged group column is read as levels: no statistic of it in the same run */
	if (v != NULL && c->merge != NULL &&
		list_member(c->ranged, makeString(sqlexpr_column(s->relid, v->varattno))))
		sqlexpr_refuse(psprintf("%s() of %s by a GROUP BY expression over its declared range",
								name, sqlexpr_column(s->relid, v->varattno)));
	initStringInfo(&b);
	fn = sqlcompile_agg_stat(s, &b, a, name, arg);
	if (c->merge != NULL && (strstr(b.data, "\"variance\"") || strstr(b.data, "\"quantile\"")))
		sqlexpr_refuse("variances, standard deviations, percentiles, min and max by a GROUP BY expression");
	/* merged cells' average: their summed sum over their summed count */
	if (c->merge != NULL && strcmp(name, "avg") == 0)
	{
		StringInfoData n;

		initStringInfo(&n);
		resetStringInfo(&b);
		sqlcompile_agg_stat(s, &b, a, "sum", arg);
		sqlcompile_agg_stat(s, &n, a, "count", arg);
		fn = "ratio";
		den = sqlcompile_stat(s, n.data);
	}
	if (!sqlexpr_numeric_type(a->aggtype))
		sqlexpr_refuse(psprintf("%s() of type %s", name, format_type_be(a->aggtype)));
	c->labels[k] = psprintf("%s(%s%s)%s", name, a->aggdistinct != NIL ? "DISTINCT " : "",
							arg0 == NULL ? "*" : v ? sqlexpr_column(s->relid, v->varattno) : "...",
							a->aggfilter ? " FILTER (...)" : "");
	appendStringInfo(&s->outputs, "%s{\"stat\": %d, \"fn\": \"%s\", ",
					 k > 0 ? ", " : "", sqlcompile_stat(s, b.data), fn);
	if (den >= 0)
		appendStringInfo(&s->outputs, "\"den\": %d, ", den);
	appendStringInfoString(&s->outputs, "\"label\": ");
	escape_json(&s->outputs, c->labels[k]);
	appendStringInfoChar(&s->outputs, '}');
	c->names[k] = name;
	c->types[k] = a->aggtype;
	c->typmods[k] = -1;
	c->colls[k] = a->aggcollid;
	c->aggrefs = lappend(c->aggrefs, a);
	c->noutputs++;
}

/* collects the distinct Aggrefs (equal() ones once) */
static bool
sqlcompile_agg_walker(Node *node, List **aggs)
{
	if (node == NULL)
		return false;
	if (IsA(node, Aggref))
	{
		if (!list_member(*aggs, node))
			*aggs = lappend(*aggs, node);
		return false;
	}
	return expression_tree_walker(node, sqlcompile_agg_walker, aggs);
}

/* {"column": c, "op": op, "value": ...} opened, up to the value */
static void
sqlcompile_filter_open(SqlState *s, StringInfo f, Var *v, const char *op)
{
	appendStringInfo(f, "%s{\"column\": ", f->len > 1 ? ", " : "");
	escape_json(f, sqlexpr_column(s->relid, v->varattno));
	appendStringInfo(f, ", \"op\": \"%s\", \"value\": ", op);
	s->nfilter++;
}

/*
 * A query parameter as a filter's value: null in the plan, set when the
 * query runs (sqlfront.c) from the parameter's text, read as the column's type
 */
static bool
sqlcompile_filter_param(SqlState *s, Param *p)
{
	s->c->params = lappend(s->c->params, p);
	s->c->param_filters = lappend_int(s->c->param_filters, s->nfilter - 1);
	return true;
}

/*
 * A WHERE conjunct as a filter condition, else false: a boolean column or
 * NOT one (= true, = false: NULL passes neither), or "column op constant"
 * (or a query parameter) of the column's own type, the constant's own text
 * read as that type (numeric casts of it are exact)
 */
static bool
sqlcompile_filter(SqlState *s, StringInfo f, Node *cond)
{
	static const char *const ops[] = {"=", "<>", "<", "<=", ">", ">=", NULL};
	static const char *const flipped[] = {"=", "<>", ">", ">=", "<", "<=", NULL};
	OpExpr	   *o = IsA(cond, OpExpr) ? (OpExpr *) cond : NULL;
	bool		negated = is_notclause(cond);
	Var		   *v = sqlexpr_plain_var(negated ? (Node *) get_notclausearg((Expr *) cond) : cond);
	Node	   *kn;
	Const	   *k;
	Param	   *pr;
	char	   *name;
	bool		flip;
	Oid			out;
	bool		varlena;

	if (v != NULL && v->varattno > 0 && getBaseType(v->vartype) == BOOLOID)
	{
		sqlcompile_filter_open(s, f, v, "=");
		appendStringInfo(f, "%s}", negated ? "false" : "true");
		return true;
	}
	if (o == NULL || list_length(o->args) != 2 || get_op_rettype(o->opno) != BOOLOID ||
		(name = sqlexpr_builtin_op(o->opno)) == NULL)
		return false;
	flip = IsA(sqlexpr_strip_numeric_casts(linitial(o->args)), Const) ||
		IsA(sqlexpr_strip_numeric_casts(linitial(o->args)), Param);
	v = sqlexpr_plain_var(flip ? lsecond(o->args) : linitial(o->args));
	kn = flip ? linitial(o->args) : lsecond(o->args);
	k = sqlexpr_folded_const(kn);
	pr = IsA(sqlexpr_strip_numeric_casts(kn), Param) ? (Param *) sqlexpr_strip_numeric_casts(kn) : NULL;
	if (pr != NULL && pr->paramkind != PARAM_EXTERN)
		return false;
	/* the value's own type is the column's, or both are numeric (read exactly) */
	if (v == NULL || v->varattno <= 0 || (k != NULL && k->constisnull) || (k == NULL && pr == NULL) ||
		!((k ? k->consttype : pr->paramtype) == v->vartype ||
		  (exprType(kn) == v->vartype && sqlexpr_numeric_type(k ? k->consttype : pr->paramtype))))
		return false;
	for (int i = 0; ops[i]; i++)
		if (strcmp(name, ops[i]) == 0)
		{
			sqlcompile_filter_open(s, f, v, flip ? flipped[i] : ops[i]);
			if (pr != NULL)
			{
				appendStringInfoString(f, "null}");
				return sqlcompile_filter_param(s, pr);
			}
			getTypeOutputInfo(k->consttype, &out, &varlena);
			escape_json(f, OidOutputFunctionCall(out, k->constvalue));
			appendStringInfoChar(f, '}');
			return true;
		}
	return false;
}

/* WHERE: {"filter": [...]} of the simple conjuncts, "where" of the others */
static void
sqlcompile_where(SqlState *s, StringInfo options)
{
	List	   *conds = make_ands_implicit((Expr *) s->query->jointree->quals);
	StringInfoData f,
				w;
	ListCell   *lc;
	int			nw = 0;

	initStringInfo(&f);
	initStringInfo(&w);
	appendStringInfoChar(&f, '[');
	foreach(lc, conds)
		if (!sqlcompile_filter(s, &f, lfirst(lc)))
		{
			appendStringInfoString(&w, nw++ > 0 ? ", " : "");
			sqlexpr_condition(&w, lfirst(lc), s->relid);
		}
	appendStringInfoChar(&f, ']');
	appendStringInfoChar(options, '{');
	if (f.len > 2)
		appendStringInfo(options, "\"filter\": %s", f.data);
	if (nw == 1)
		appendStringInfo(options, "%s\"where\": %s", f.len > 2 ? ", " : "", w.data);
	else if (nw > 1)
		appendStringInfo(options, "%s\"where\": {\"op\": \"and\", \"args\": [%s]}",
						 f.len > 2 ? ", " : "", w.data);
	appendStringInfoChar(options, '}');
}

SqlCompiled *
sqlcompile_query(Query *query, Oid relid)
{
	SqlState	s = {query, relid, NIL, palloc0(sizeof(SqlCompiled))};
	List	   *aggs = NIL;
	StringInfoData group_by,
				options,
				plan;
	ListCell   *lc;

	s.c->relid = relid;
	s.c->grouprte = compat_query_group_rte(query);
	sqlfold_query(query);
	sqlcompile_shape(query, sqljoin_flatten(query, relid));
	/* the post-processing: outputs, HAVING, ORDER BY's operators */
	sqlcompile_post_walker((Node *) query->targetList, NULL);
	sqlcompile_post_walker(query->havingQual, NULL);
	sqlcompile_post_walker(query->limitCount, NULL);
	sqlcompile_post_walker(query->limitOffset, NULL);
	foreach(lc, query->sortClause)
		if (!sqlexpr_builtin(lfirst_node(SortGroupClause, lc)->sortop))
			sqlexpr_refuse("ORDER BY operators that are not PostgreSQL's own");
	sqlcompile_agg_walker((Node *) query->targetList, &aggs);
	sqlcompile_agg_walker(query->havingQual, &aggs);
	sqlcompile_alloc(s.c, list_length(query->groupClause) + list_length(aggs) + 1);
	initStringInfo(&s.outputs);
	initStringInfo(&group_by);
	initStringInfo(&options);
	initStringInfo(&s.merge);
	sqlcompile_groups(&s, &group_by);
	s.c->noutputs = s.c->ngroups;
	foreach(lc, aggs)
		sqlcompile_aggref(&s, lfirst(lc));
	sqlcompile_where(&s, &options);
	sqljoin_options(relid, &options, s.c->gattnos, s.c->ngroups);
	initStringInfo(&plan);
	appendStringInfo(&plan, "{\"relid\": %u, \"what\": [", relid);
	foreach(lc, s.stats)
		appendStringInfo(&plan, "%s%s", foreach_current_index(lc) > 0 ? ", " : "",
						 (char *) lfirst(lc));
	/* groups alone: a count makes the run (not an output) */
	if (s.stats == NIL)
		appendStringInfoString(&plan, "{\"stat\": \"count\"}");
	appendStringInfo(&plan, "], \"group_by\": %s, \"options\": %s, \"outputs\": [%s]",
					 group_by.data, options.data, s.outputs.data);
	if (s.merge.len > 0)
		appendStringInfo(&plan, ", \"merge\": %s", s.merge.data);
	appendStringInfoChar(&plan, '}');
	s.c->plan = DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(plan.data)));
	return s.c;
}
