/*-------------------------------------------------------------------------
 *
 * selecthint.c
 *	  A plain SELECT on a protected table by an analyst with a budget on it
 *	  fails as PostgreSQL would ("permission denied for table ...", 42501),
 *	  with a hint naming the ways in: dpobj.query_epsilon (a private query)
 *	  and dpobj's entry points that take the table (describe, aggregate,
 *	  synthesize, train or submit, evaluate).
 *
 * A post_parse_analyze_hook (chained to the previous one) looks at the
 * relations a statement reads.  For one the current role may not read at
 * all (no SELECT on the table nor on any column: PostgreSQL's own check at
 * execution would refuse it), it asks whether the role has a budget on the
 * table (dpobj.budget_for: its own or its budget domain's).  Only then does
 * it raise the same error earlier, with the hint.  The role can see that
 * budget in dpobj.my_budgets already, so the hint reveals nothing new; a
 * role without a budget gets PostgreSQL's error unchanged.  Nothing here
 * reads a row of the table.  Works in sessions that loaded dpobj
 * (shared_preload_libraries, or any dpobj call before).
 *
 * With dpobj.query_epsilon set, such a SELECT is a private query instead:
 * compiled and rewritten (sqlfront.c) when the table is its only relation
 * (or the first, joined along its path, sqljoin.h), after inlining WITH
 * queries and subqueries in FROM (sqlinline.c); refused when it reads the
 * table anywhere else (a sublink, a set operation...).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "base/hooks.h"
#include "base/dpobj.h"
#include "base/pg_compat.h"
#include "base/privileged.h"
#include "context/linkcols.h"
#include "context/protected.h"
#include "protected/selecthint.h"
#include "protected/sqljoin.h"
#include "protected/sqlcompile.h"
#include "protected/sqlfront.h"
#include "protected/spiplans.h"

#include "catalog/pg_authid.h"
#include "catalog/pg_type.h"
#include "commands/explain.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "parser/analyze.h"
#include "parser/parse_relation.h"
#include "parser/parsetree.h"
#include "tcop/utility.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

static post_parse_analyze_hook_type prev_post_parse_analyze_hook = NULL;

/* the caller's budget on rel (its own, or its budget domain's), as budget_for */
static const char budget_sql[] =
"SELECT 1 FROM dpobj.protected_tables p "
"  JOIN dpobj.budgets b "
"    ON CASE WHEN p.budget_domain IS NULL THEN b.relid OPERATOR(pg_catalog.=) p.relid "
"            ELSE b.budget_domain OPERATOR(pg_catalog.=) p.budget_domain END "
" WHERE p.relid OPERATOR(pg_catalog.=) $1 AND b.rolid OPERATOR(pg_catalog.=) $2";

/* true if the role has a budget on relid; false where dpobj is not usable */
static bool
has_budget(Oid relid, Oid role)
{
	char	   *version = NULL;
	Oid			types[2] = {REGCLASSOID, REGROLEOID};
	Datum		values[2] = {ObjectIdGetDatum(relid), ObjectIdGetDatum(role)};
	RoleSwitch	rs;
	bool		found;

	/* not installed here, or not yet updated to this library: no hint */
	if (!OidIsValid(dpobj_extension_info(NULL, NULL, &version)) ||
		strcmp(version, DPOBJ_SQL_VERSION) != 0)
		return false;
	dpobj_verify_schema();
	SPI_connect();
	role_switch_begin(&rs, BOOTSTRAP_SUPERUSERID, false);
	if (dp_spi_run(budget_sql, 2, types, values, NULL, true, 1) != SPI_OK_SELECT)
		elog(ERROR, "dpobj: budget lookup failed");
	found = SPI_processed > 0;
	role_switch_end(&rs);
	SPI_finish();
	return found;
}

/* PostgreSQL's error on relid, with the hint */
static pg_noreturn void
hint_error(Oid relid)
{
	char	   *name = quote_qualified_identifier(get_namespace_name(get_rel_namespace(relid)),
												  get_rel_name(relid));

	ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			 errmsg("permission denied for table %s", get_rel_name(relid)),
			 errhint("The table is protected by dpobj and you have a privacy budget on it: "
					 "SET dpobj.query_epsilon = ... to run aggregate SELECTs on it privately, "
					 "or use dpobj.describe('%s', ...), dpobj.aggregate(), dpobj.synthesize(), "
					 "dpobj.train() or dpobj.submit(), and dpobj.evaluate() (see dpobj.my_budgets; "
					 "dpobj.cost() prices a run).", name)));
}

/* true if the statement reads rte, a relation the role may not read at all but has a budget on */
static bool
check_relation(Query *query, RangeTblEntry *rte)
{
	Oid			role = GetUserId();

	return rte->rtekind == RTE_RELATION &&
		(compat_rte_required_perms(query, rte) & ACL_SELECT) &&
		pg_class_aclcheck(rte->relid, role, ACL_SELECT) != ACLCHECK_OK &&
		pg_attribute_aclcheck_all(rte->relid, role, ACL_SELECT, ACLMASK_ANY) != ACLCHECK_OK &&
		has_budget(rte->relid, role);
}

/* the protected relations a statement reads: the top level's first, and how many */
typedef struct HintFound
{
	Query	   *top;
	Oid			relid;			/* the first one found */
	bool		top_first;		/* it is range table entry 1 of the top level */
	bool		in_top;			/* one is in the top level's range table */
	int			n;
	int			base_rt;		/* the top level's one with the longest unit path */
	int			base_hops;
} HintFound;

static bool
query_walker(Node *node, HintFound *found)
{
	Query	   *query;
	ListCell   *lc;

	if (node == NULL)
		return false;
	if (!IsA(node, Query))
		return expression_tree_walker(node, query_walker, found);
	query = (Query *) node;
	foreach(lc, query->rtable)
	{
		RangeTblEntry *rte = lfirst_node(RangeTblEntry, lc);

		if (check_relation(query, rte))
		{
			found->in_top |= query == found->top;
			if (query == found->top)
			{
				Oid			path[DPOBJ_MAX_UNIT_HOPS];
				int			hops = linked_path(rte->relid, path, NULL);

				if (found->base_rt == 0 || hops > found->base_hops)
				{
					found->base_rt = foreach_current_index(lc) + 1;
					found->base_hops = hops;
				}
			}
			if (found->n++ == 0)
			{
				found->relid = rte->relid;
				found->top_first = query == found->top && foreach_current_index(lc) == 0;
			}
		}
	}
	/* subqueries in FROM, CTEs, sublinks (VALUES lists' and functions' too) */
	return query_tree_walker(query, query_walker, found, 0);
}

Oid
selecthint_private_relid(Query *query, bool hint)
{
	HintFound	found = {query, InvalidOid, false, false, 0, 0, 0};

	query_walker((Node *) query, &found);
	if (found.n == 0)
		return InvalidOid;
	if (hint)
		hint_error(found.relid);
	/* read through WITH queries or subqueries in FROM: those inlined (sqlinline.c) */
	if (!found.top_first && query->commandType == CMD_SELECT && query->setOperations == NULL &&
		!query->hasSubLinks && sqlinline_query(query))
	{
		memset(&found, 0, sizeof(found));
		found.top = query;
		query_walker((Node *) query, &found);
	}
	/*
	 * a join along a unit path (sqljoin.h), FROM in any order: the protected
	 * table whose path reaches furthest (a catalog fact) becomes entry 1
	 */
	if (found.in_top && (compat_query_nrtes(query) > 1 || list_length(query->jointree->fromlist) != 1))
	{
		sqljoin_first(query, found.base_rt);
		return rt_fetch(1, query->rtable)->relid;
	}
	if (!found.top_first || found.n > 1)
		sqlexpr_refuse("a protected table in a subquery, a WITH query, a set operation "
					   "or a statement other than SELECT");
	return found.relid;
}

/* dpobj.query() analyzes its text with the hook off: it compiles the query itself */
static bool hint_suspended = false;

/*
 * Inside CREATE VIEW or CREATE RULE: a private query there would be stored
 * compiled, and charge whoever runs it later; it is refused.  (A function's
 * SQL text is analyzed again when it runs; a SQL-standard body is analyzed
 * without this hook and keeps the table: PostgreSQL refuses its caller.)
 */
static int	hint_in_definition = 0;
static ProcessUtility_hook_type prev_process_utility = NULL;

static void
selecthint_process_utility(PlannedStmt *pstmt, const char *queryString, bool readOnlyTree,
						   ProcessUtilityContext context, ParamListInfo params,
						   QueryEnvironment *queryEnv, DestReceiver *dest, QueryCompletion *qc)
{
	Node	   *stmt = pstmt->utilityStmt;
	bool		definition = IsA(stmt, ViewStmt) || IsA(stmt, RuleStmt);

	hint_in_definition += definition;
	PG_TRY();
	{
		dp_next_process_utility(prev_process_utility, pstmt, queryString, readOnlyTree, context,
								params, queryEnv, dest, qc);
	}
	PG_FINALLY();
	{
		hint_in_definition -= definition;
	}
	PG_END_TRY();
}

void
selecthint_suspend(bool on)
{
	hint_suspended = on;
}

/*
 * A statement reading a protected table the role has a budget on: with
 * dpobj.query_epsilon set, a private query (sqlfront.c) if it is one,
 * else PostgreSQL's error with the hint
 */
static void
check_query(Query *query)
{
	Oid			relid;

	if (hint_suspended)
		return;
	relid = selecthint_private_relid(query, dpobj_query_epsilon <= 0);
	if (OidIsValid(relid) && hint_in_definition > 0)
		sqlexpr_refuse("a view or rule over a protected table (run the SELECT itself)");
	if (OidIsValid(relid))
		sqlfront_rewrite(query, relid);
}

/* the analyzed statement inside a utility statement, or NULL */
static Query *
utility_query(Node *stmt)
{
	Node	   *q = IsA(stmt, ExplainStmt) ? ((ExplainStmt *) stmt)->query :
		IsA(stmt, DeclareCursorStmt) ? ((DeclareCursorStmt *) stmt)->query :
		IsA(stmt, CreateTableAsStmt) ? ((CreateTableAsStmt *) stmt)->query : NULL;

	return q != NULL && IsA(q, Query) && ((Query *) q)->commandType != CMD_UTILITY ?
		(Query *) q : NULL;
}

static void
selecthint_post_parse_analyze(ParseState *pstate, Query *query, JumbleState *jstate)
{
	Query	   *inner;

	if (prev_post_parse_analyze_hook)
		prev_post_parse_analyze_hook(pstate, query, jstate);
	if (query->commandType != CMD_UTILITY)
		check_query(query);
	/* EXPLAIN's, DECLARE's and CREATE TABLE AS' statement: analyzed with it, without the hook */
	else if ((inner = utility_query(query->utilityStmt)) != NULL)
	{
		if (IsA(query->utilityStmt, CreateTableAsStmt) && !hint_suspended &&
			OidIsValid(selecthint_private_relid(inner, dpobj_query_epsilon <= 0)))
			sqlexpr_refuse("SELECT INTO and CREATE TABLE AS (run the SELECT, then store its rows)");
		check_query(inner);
	}
}

void
dpobj_select_hint_init(void)
{
	prev_post_parse_analyze_hook = post_parse_analyze_hook;
	post_parse_analyze_hook = selecthint_post_parse_analyze;
	prev_process_utility = ProcessUtility_hook;
	ProcessUtility_hook = selecthint_process_utility;
}
