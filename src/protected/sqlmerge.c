/*-------------------------------------------------------------------------
 *
 * sqlmerge.c
 *	  GROUP BY one expression (a CASE, COALESCE, comparison...) over columns
 *	  with declared levels: the run groups by those columns, one cell per
 *	  combination of their levels (and "other": values outside the levels
 *	  and NULL, read here as NULL, as a plain GROUP BY shows it), and the
 *	  plan's "merge" maps each cell to the expression's value there,
 *	  evaluated now on the public levels alone; queryrun.c adds the released
 *	  cells of one value.  An integer column of a declared range of at most
 *	  AGG_RANGE_LEVELS values has its integers as levels (age / 10,
 *	  width_bucket(age, ...), CASE WHEN age < 30 ...: rangelevels.c).  Refused (0A000) otherwise, before anything is read.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "utils/builtins.h"
#include "utils/json.h"
#include "utils/lsyscache.h"

#include "model/encode.h"
#include "protected/aggrun.h"
#include "protected/domainfit.h"
#include "protected/domains.h"
#include "protected/sqlcompile.h"

/* cells of a merge at most (a public bound, on the declarations) */
#define SQLMERGE_MAX_CELLS 1000

typedef struct SqlMergeSub
{
	List	   *vars;			/* the distinct Vars, in order */
	Const	  **values;			/* per Var: its value in this cell */
} SqlMergeSub;

/* the expression's columns: Vars of the table's own columns; no parameter */
static bool
sqlmerge_vars(Node *node, List **vars)
{
	if (node == NULL)
		return false;
	if (IsA(node, Param) || IsA(node, Aggref) || IsA(node, SubLink))
		sqlexpr_refuse("GROUP BY an expression with parameters or aggregates");
	if (IsA(node, Var))
	{
		Var		   *v = (Var *) node;
		ListCell   *lc;

		if (v->varno != 1 || v->varlevelsup != 0 || v->varattno <= 0)
			sqlexpr_refuse("GROUP BY an expression over other than the table's columns");
		foreach(lc, *vars)
			if (((Var *) lfirst(lc))->varattno == v->varattno)
				return false;
		*vars = lappend(*vars, v);
		return false;
	}
	return expression_tree_walker(node, sqlmerge_vars, vars);
}

/* each Var replaced by its value in the cell */
static Node *
sqlmerge_subst(Node *node, SqlMergeSub *s)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, Var))
	{
		ListCell   *lc;

		foreach(lc, s->vars)
			if (((Var *) lfirst(lc))->varattno == ((Var *) node)->varattno)
				return (Node *) s->values[foreach_current_index(lc)];
	}
	return expression_tree_mutator(node, sqlmerge_subst, s);
}

/* column v's value at level k of c (k = nlevels: "other", NULL) */
static Const *
sqlmerge_level(Var *v, const EncColumn *c, int k)
{
	Oid			in,
				ioparam;
	int16		len;
	bool		byval;

	get_typlenbyval(v->vartype, &len, &byval);
	if (k == c->nlevels)
		return makeNullConst(v->vartype, v->vartypmod, v->varcollid);
	getTypeInputInfo(v->vartype, &in, &ioparam);
	return makeConst(v->vartype, v->vartypmod, v->varcollid, len,
					 OidInputFunctionCall(in, c->levels[k], ioparam, v->vartypmod), false, byval);
}

/* each cell's [[levels...], value] into merge */
static void
sqlmerge_cells(Node *expr, SqlMergeSub *s, EncColumn **cols, StringInfo merge)
{
	int			n = list_length(s->vars);
	int		   *k = palloc0(sizeof(int) * n);
	Oid			out;
	bool		varlena;

	getTypeOutputInfo(exprType(expr), &out, &varlena);
	appendStringInfoChar(merge, '[');
	for (int cell = 0;; cell++)
	{
		Const	   *r;

		appendStringInfoString(merge, cell > 0 ? ", [[" : "[[");
		for (int i = 0; i < n; i++)
		{
			s->values[i] = sqlmerge_level(list_nth(s->vars, i), cols[i], k[i]);
			appendStringInfoString(merge, i > 0 ? ", " : "");
			if (k[i] == cols[i]->nlevels)
				appendStringInfoString(merge, "null");
			else
				escape_json(merge, cols[i]->levels[k[i]]);
		}
		r = (Const *) evaluate_expr((Expr *) sqlmerge_subst(expr, s), exprType(expr),
									exprTypmod(expr), exprCollation(expr));
		appendStringInfoString(merge, "], ");
		if (!IsA(r, Const) || r->constisnull)
			appendStringInfoString(merge, "null");
		else
			escape_json(merge, OidOutputFunctionCall(out, r->constvalue));
		appendStringInfoChar(merge, ']');
		/* the next combination, the last column fastest */
		for (int i = n - 1; i >= 0; i--)
		{
			if (++k[i] <= cols[i]->nlevels)
				break;
			k[i] = 0;
			if (i == 0)
			{
				appendStringInfoChar(merge, ']');
				return;
			}
		}
	}
}

void
sqlmerge_compile(Oid relid, Node *expr, StringInfo group_by, StringInfo merge, List **ranged)
{
	SqlMergeSub s = {NIL, NULL};
	char	  **names;
	EncColumn **cols;
	Encoding   *e;
	Jsonb	   *enc;
	double		ncells = 1;
	int			n;
	char	   *undeclared;

	sqlmerge_vars(expr, &s.vars);
	n = list_length(s.vars);
	if (n == 0)
		sqlexpr_refuse("GROUP BY a constant");
	names = palloc(sizeof(char *) * n);
	cols = palloc0(sizeof(EncColumn *) * n);
	s.values = palloc(sizeof(Const *) * n);
	for (int i = 0; i < n; i++)
		names[i] = sqlexpr_column(relid, ((Var *) list_nth(s.vars, i))->varattno);
	/* extract(year FROM d), date_trunc() over an undeclared column: named, not the encoder's error */
	undeclared = domains_undeclared(relid, names, n);
	if (undeclared != NULL)
		sqlexpr_refuse(psprintf("GROUP BY an expression over %s, without declared levels (GROUP BY a column alone releases its keys)",
								undeclared));
	/* an integer column's declared range of few values: its integers as levels (rangelevels.c) */
	enc = domains_encoding(relid, psprintf("%s.%s",
										   quote_identifier(get_namespace_name(get_rel_namespace(relid))),
										   quote_identifier(get_rel_name(relid))),
						   names, n, DOMAINS_REQUIRED);
	e = encoding_parse(enc);
	for (int i = 0; i < e->ncols; i++)
		if (e->cols[i].nlevels == 0)
			*ranged = lappend(*ranged, makeString(pstrdup(e->cols[i].column)));
	e = encoding_parse(aggrun_range_levels(relid, enc, NULL));
	appendStringInfoChar(group_by, '[');
	for (int i = 0; i < n; i++)
	{
		for (int j = 0; j < e->ncols; j++)
			if (strcmp(e->cols[j].column, names[i]) == 0)
				cols[i] = &e->cols[j];
		if (cols[i] != NULL && cols[i]->nlevels == 0 &&
			domainfit_integer(((Var *) list_nth(s.vars, i))->vartype))
			sqlexpr_refuse(psprintf("GROUP BY an expression over %s, an integer column whose declared range holds more than %d values",
									names[i], AGG_RANGE_LEVELS));
		if (cols[i] == NULL || cols[i]->nlevels == 0)
			sqlexpr_refuse(psprintf("GROUP BY an expression over %s, a column without declared levels",
									names[i]));
		ncells *= cols[i]->nlevels + 1;
		appendStringInfoString(group_by, i > 0 ? ", " : "");
		escape_json(group_by, names[i]);
	}
	appendStringInfoChar(group_by, ']');
	if (ncells > SQLMERGE_MAX_CELLS)
		sqlexpr_refuse(psprintf("GROUP BY an expression over more than %d cells of levels",
								SQLMERGE_MAX_CELLS));
	sqlmerge_cells(expr, &s, cols, merge);
}
