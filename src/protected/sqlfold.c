/*-------------------------------------------------------------------------
 *
 * sqlfold.c
 *	  A private query's constant subexpressions folded before it compiles:
 *	  date '1998-12-01' - interval '90' day, date '1994-01-01' + 30,
 *	  make_date(1994, 1, 1) become constants, as the planner would fold
 *	  them.  Only a subtree with no column, parameter, aggregate or
 *	  subquery, whose every function (operators', casts' and type I/O's
 *	  too) is PostgreSQL's own (pg_catalog, OID below FirstNormalObjectId)
 *	  and immutable, is evaluated: over the query's constants alone, at
 *	  parse analysis, as its caller, before anything is read or charged.
 *	  An error there (an overflow, a division by zero) is the query text's.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_namespace.h"
#include "catalog/pg_proc.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "utils/lsyscache.h"

#include "protected/sqlcompile.h"

/* a function that may not be folded: not PostgreSQL's own, or not immutable */
static bool
sqlfold_foreign_fn(Oid fn, void *context)
{
	return !sqlexpr_builtin(fn) || get_func_namespace(fn) != PG_CATALOG_NAMESPACE ||
		func_volatile(fn) != PROVOLATILE_IMMUTABLE;
}

/* true if node reads anything but constants, or calls a function not to fold */
static bool
sqlfold_blocked(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var) || IsA(node, Param) || IsA(node, Aggref) || IsA(node, WindowFunc) ||
		IsA(node, SubLink) || IsA(node, Query) || IsA(node, GroupingFunc) ||
		IsA(node, PlaceHolderVar) || IsA(node, SQLValueFunction) || IsA(node, CurrentOfExpr) ||
		IsA(node, NextValueExpr))
		return true;
	if (check_functions_in_node(node, sqlfold_foreign_fn, NULL))
		return true;
	return expression_tree_walker(node, sqlfold_blocked, context);
}

static Node *
sqlfold_mutator(Node *node, void *context)
{
	if (node == NULL || IsA(node, Query))
		return node;
	if ((IsA(node, FuncExpr) || IsA(node, OpExpr) || IsA(node, CoerceViaIO)) &&
		!sqlfold_blocked(node, NULL))
	{
		Node	   *folded = eval_const_expressions(NULL, node);

		if (IsA(folded, Const))
			return folded;
	}
	return expression_tree_mutator(node, sqlfold_mutator, context);
}

void
sqlfold_query(Query *query)
{
	query->jointree = (FromExpr *) sqlfold_mutator((Node *) query->jointree, NULL);
	query->targetList = (List *) sqlfold_mutator((Node *) query->targetList, NULL);
	query->havingQual = sqlfold_mutator(query->havingQual, NULL);
}
