/*-------------------------------------------------------------------------
 *
 * sqlinline.c
 *	  A private query's WITH queries and subqueries in FROM, inlined into
 *	  it before it compiles (sqlcompile.h), as the planner pulls up a
 *	  simple subquery: each outer Var of the subquery becomes its output's
 *	  expression, its WHERE is ANDed into the outer one and its range
 *	  table takes its entry's place.  The compiler then checks the inlined
 *	  expressions as if the caller had written them in the outer query: no
 *	  caller function gets through.  A WITH query read once becomes a
 *	  subquery first; nested ones are inlined innermost first.
 *
 *	  Inlined: a plain SELECT with FROM and WHERE only -- no aggregate,
 *	  GROUP BY, DISTINCT, ORDER BY, LIMIT, window function, set operation,
 *	  sublink, set-returning or volatile function, FOR UPDATE; a WITH query
 *	  neither recursive, data-modifying, MATERIALIZED nor read more than
 *	  once.  Anything else is refused here (0A000) on the query's text,
 *	  before anything is read or charged.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "parser/parsetree.h"
#include "rewrite/rewriteManip.h"

#include "base/pg_compat.h"
#include "protected/sqlcompile.h"

/* the subquery's shape: one the outer query can take in */
static void
sqlinline_shape(Query *s, RangeTblEntry *rte)
{
	if (rte->lateral)
		sqlexpr_refuse("LATERAL subqueries");
	if (s->commandType != CMD_SELECT || s->utilityStmt != NULL || s->hasModifyingCTE)
		sqlexpr_refuse("data-modifying statements in WITH");
	if (s->setOperations != NULL)
		sqlexpr_refuse("set operations (UNION, INTERSECT, EXCEPT)");
	if (s->hasAggs || s->groupClause != NIL || s->groupingSets != NIL || s->havingQual != NULL)
		sqlexpr_refuse("aggregates or GROUP BY in a subquery or WITH query (aggregate in the outer SELECT)");
	if (s->hasWindowFuncs)
		sqlexpr_refuse("window functions");
	if (s->distinctClause != NIL)
		sqlexpr_refuse("DISTINCT in a subquery or WITH query");
	if (s->sortClause != NIL || s->limitCount != NULL || s->limitOffset != NULL)
		sqlexpr_refuse("ORDER BY, LIMIT or OFFSET in a subquery or WITH query");
	if (s->hasSubLinks)
		sqlexpr_refuse("subqueries");
	if (s->hasTargetSRFs)
		sqlexpr_refuse("set-returning functions");
	if (s->rowMarks != NIL || s->hasForUpdate)
		sqlexpr_refuse("FOR UPDATE and FOR SHARE");
	if (s->jointree->fromlist == NIL)
		sqlexpr_refuse("a subquery or WITH query without FROM");
	if (contain_volatile_functions((Node *) s->targetList) ||
		contain_volatile_functions((Node *) s->jointree))
		sqlexpr_refuse("volatile functions in a subquery or WITH query");
}

/* rte, a reference to a WITH query of q, as a subquery in FROM (the WITH query dropped) */
static void
sqlinline_cte(Query *q, RangeTblEntry *rte)
{
	CommonTableExpr *cte = NULL;
	ListCell   *lc;

	foreach(lc, q->cteList)
		if (strcmp(lfirst_node(CommonTableExpr, lc)->ctename, rte->ctename) == 0)
			cte = lfirst(lc);
	if (cte == NULL)
		elog(ERROR, "dpobj: WITH query \"%s\" not found", rte->ctename);
	if (cte->cterecursive)
		sqlexpr_refuse("WITH RECURSIVE");
	if (!IsA(cte->ctequery, Query) || ((Query *) cte->ctequery)->commandType != CMD_SELECT)
		sqlexpr_refuse("data-modifying statements in WITH");
	if (cte->ctematerialized == CTEMaterializeAlways)
		sqlexpr_refuse("WITH ... AS MATERIALIZED");
	if (cte->cterefcount != 1)
		sqlexpr_refuse("a WITH query read more than once");
	rte->rtekind = RTE_SUBQUERY;
	rte->subquery = (Query *) cte->ctequery;
	rte->security_barrier = false;
	rte->ctename = NULL;
	rte->ctelevelsup = 0;
	rte->self_reference = false;
	rte->coltypes = NIL;
	rte->coltypmods = NIL;
	rte->colcollations = NIL;
	q->cteList = list_delete_ptr(q->cteList, cte);
}

typedef struct SqlInlineVars
{
	Index		k;				/* the subquery's entry */
	List	   *tlist;			/* its outputs (renumbered) */
} SqlInlineVars;

/* each Var of entry k to the subquery's output expression */
static Node *
sqlinline_vars(Node *node, SqlInlineVars *c)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, Var) && ((Var *) node)->varno == c->k && ((Var *) node)->varlevelsup == 0)
	{
		Var		   *v = (Var *) node;

		if (v->varattno <= 0)
			sqlexpr_refuse("whole-row references to a subquery or WITH query");
		return (Node *) copyObject(list_nth_node(TargetEntry, c->tlist, v->varattno - 1)->expr);
	}
	return expression_tree_mutator(node, sqlinline_vars, c);
}

/* the FROM item *slot or under it: RangeTblRef k replaced by s's one FROM item */
static bool
sqlinline_from(Node **slot, Index k, Query *s, bool nullable)
{
	if (IsA(*slot, RangeTblRef))
	{
		if (((RangeTblRef *) *slot)->rtindex != k)
			return false;
		/* its WHERE moves to the outer one: not below an outer join's nullable side */
		if (nullable)
			sqlexpr_refuse("a subquery or WITH query on the nullable side of an outer join");
		if (list_length(s->jointree->fromlist) != 1)
			sqlexpr_refuse("a subquery or WITH query of several FROM items inside a JOIN");
		*slot = linitial(s->jointree->fromlist);
		return true;
	}
	if (IsA(*slot, JoinExpr))
	{
		JoinExpr   *j = (JoinExpr *) *slot;

		return sqlinline_from(&j->larg, k, s,
							  nullable || j->jointype == JOIN_RIGHT || j->jointype == JOIN_FULL) ||
			sqlinline_from(&j->rarg, k, s,
						   nullable || j->jointype == JOIN_LEFT || j->jointype == JOIN_FULL);
	}
	return false;
}

/* q's subquery at entry k inlined: its n entries at k .. k + n - 1, q's later ones moved by n - 1 */
static void
sqlinline_pullup(Query *q, Index k)
{
	RangeTblEntry *rte = rt_fetch(k, q->rtable);
	Query	   *s = rte->subquery;
	Index		len = list_length(q->rtable);
	SqlInlineVars c;
	ListCell   *lc;
	bool		found = false;
	int			n;
	List	   *quals;

	sqlinline_shape(s, rte);
	(void) sqlinline_query(s);
	n = list_length(s->rtable);
	for (Index i = len; i > k; i--)
		ChangeVarNodes((Node *) q, i, i + n - 1, 0);
	rte->subquery = NULL;
	/* s at q's level: its outer references one level nearer, its entries from k */
	IncrementVarSublevelsUp((Node *) s, -1, 1);
	OffsetVarNodes((Node *) s, k - 1, 0);
	c.k = k;
	c.tlist = s->targetList;
	/* the entries' own expressions too (PostgreSQL 18: the group entry's) */
	(void) query_tree_mutator(q, sqlinline_vars, &c, QTW_DONT_COPY_QUERY | QTW_IGNORE_RC_SUBQUERIES);
	foreach(lc, q->jointree->fromlist)
	{
		Node	  **item = (Node **) &lfirst(lc);

		if (IsA(*item, RangeTblRef) && ((RangeTblRef *) *item)->rtindex == k)
		{
			q->jointree->fromlist = list_concat(list_copy_head(q->jointree->fromlist, foreach_current_index(lc)),
												list_concat_copy(s->jointree->fromlist,
																 list_copy_tail(q->jointree->fromlist,
																				foreach_current_index(lc) + 1)));
			found = true;
			break;
		}
		if (sqlinline_from(item, k, s, false))
		{
			found = true;
			break;
		}
	}
	if (!found)
		elog(ERROR, "dpobj: subquery entry %u not in FROM", k);
	quals = list_concat(make_ands_implicit((Expr *) q->jointree->quals),
						make_ands_implicit((Expr *) s->jointree->quals));
	q->jointree->quals = quals != NIL ? (Node *) make_ands_explicit(quals) : NULL;
	compat_query_take_perminfos(q, s);
	q->rtable = list_concat(list_concat(list_copy_head(q->rtable, k - 1), s->rtable),
							list_copy_tail(q->rtable, k));
}

bool
sqlinline_query(Query *q)
{
	bool		any = false;

	if (q->hasRecursive)
		sqlexpr_refuse("WITH RECURSIVE");
	if (q->hasModifyingCTE)
		sqlexpr_refuse("data-modifying statements in WITH");
	for (;;)
	{
		ListCell   *lc;
		Index		k = 0;

		foreach(lc, q->rtable)
		{
			RangeTblEntry *rte = lfirst_node(RangeTblEntry, lc);

			if (rte->rtekind == RTE_CTE && rte->ctelevelsup == 0)
				sqlinline_cte(q, rte);
			if (rte->rtekind == RTE_SUBQUERY)
			{
				k = foreach_current_index(lc) + 1;
				break;
			}
		}
		if (k == 0)
			break;
		sqlinline_pullup(q, k);
		any = true;
	}
	if (q->cteList != NIL)
		sqlexpr_refuse("a WITH query not read in FROM");
	return any;
}
