/*-------------------------------------------------------------------------
 *
 * sqljoin.c
 *	  A private query's joins along a linked table's unit path (sqljoin.h).
 *
 *	  Accepted: FROM the linked table (range table entry 1) and tables of
 *	  its path recorded by dpobj.link_unit(), each once, the tables joined
 *	  forming the path's first hops, each hop by equality (a built-in "=")
 *	  of every column of its foreign key to the referenced column: in
 *	  INNER JOIN ... ON, in WHERE, or in LEFT JOIN ... ON from the child to
 *	  its parent when the foreign key's columns are NOT NULL (the key is
 *	  validated, so every row has exactly its one parent row: the same
 *	  rows).  A row whose path ends in NULL has no unit: left out, as in
 *	  every run on the linked table.  Refused,
 *	  0A000 naming it: another join condition in ON, a table twice or off
 *	  the path, a missing hop equality (a cross join), RIGHT and FULL
 *	  joins, FROM items other than tables.  USING and NATURAL are their
 *	  equalities (PostgreSQL's), their merged column the left input's.  On public
 *	  grounds only: the query's text, the catalog, dpobj.unit_links.
 *
 *	  A path table's column becomes a column of the linked table's row,
 *	  named "table.column", which aggregate() reads through the path's
 *	  join (context/linkcols.h): the run is one run on the linked table,
 *	  charged to its budget domain once, each row still counted once per
 *	  its unit with the same k.
 *
 *	  A table off the path is a public lookup table (lookups.h): joined
 *	  (JOIN, LEFT JOIN, or in WHERE) by "=" of its columns to columns of
 *	  the protected table, a joined path table or an earlier lookup
 *	  (region on nation's column: still one row at most), each lookup once, each
 *	  checked as the caller once its equalities are known; its columns
 *	  become "table.column" too, and the plan's option "lookups"
 *	  (sqljoin_options) carries the joins to the run, which checks them again.
 *	  A protected table off the path is joined on the privacy unit instead
 *	  (unitjoin.h): carried the same way, marked "unit", its columns' domains
 *	  its owner's declarations.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_attribute.h"
#include "catalog/pg_constraint.h"
#include "catalog/pg_inherits.h"
#include "commands/tablecmds.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "parser/parsetree.h"
#include "rewrite/rewriteManip.h"
#include "utils/array.h"
#include "utils/json.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "base/pg_compat.h"
#include "context/linkcols.h"
#include "context/protected.h"
#include "protected/lookups.h"
#include "protected/sqlrefuse.h"
#include "protected/sqljoin.h"
#include "protected/unitjoin.h"

/* entry 1's attribute number of a path table's column: hop * STEP + attnum */
#define SQLJOIN_ATTNO_STEP 2048	/* above MaxHeapAttributeNumber */
/* lookup table i's "hop" (lookups.h): after the path's */
#define SQLJOIN_LOOKUP_HOP (DPOBJ_MAX_UNIT_HOPS + 1)

/*
 * the compiled query's path and lookup tables (for sqljoin_attr), and each
 * lookup's join (for sqljoin_options), reset by each flatten
 */
static Oid	join_tables[SQLJOIN_LOOKUP_HOP + DPOBJ_MAX_LOOKUPS];
static int	join_ntables = 0;
static int	join_nlookups = 0;
static bool join_left[DPOBJ_MAX_LOOKUPS];
static bool join_unit[DPOBJ_MAX_LOOKUPS];	/* a protected table joined on the unit */
static char *join_names[DPOBJ_MAX_LOOKUPS];	/* its columns' "name.column" (lookupjoin.h) */
static int	join_nkeys[DPOBJ_MAX_LOOKUPS];
static AttrNumber join_own[DPOBJ_MAX_LOOKUPS][INDEX_MAX_KEYS];	/* entry 1's attno */
static AttrNumber join_key[DPOBJ_MAX_LOOKUPS][INDEX_MAX_KEYS];	/* the lookup's */
/* a lookup's columns inside an aggregate (bounded by its values) */
static int	join_nbounded[DPOBJ_MAX_LOOKUPS];
static AttrNumber join_bounded[DPOBJ_MAX_LOOKUPS][DPOBJ_MAX_LOOKUP_BOUNDED];

typedef struct SqlJoin
{
	Query	   *q;
	int			ntables;		/* relid and its path's tables */
	char	   *via[DPOBJ_MAX_UNIT_HOPS];
	int		   *hop;			/* per range table index: its table's hop, or -1 */
	bool		present[DPOBJ_MAX_UNIT_HOPS + 1];
	int			nkeys[DPOBJ_MAX_UNIT_HOPS];
	AttrNumber	key[DPOBJ_MAX_UNIT_HOPS][INDEX_MAX_KEYS];	/* hop i's foreign key ... */
	AttrNumber	ref[DPOBJ_MAX_UNIT_HOPS][INDEX_MAX_KEYS];	/* ... and the columns it references */
	bool		seen[DPOBJ_MAX_UNIT_HOPS][INDEX_MAX_KEYS];
	int			nlookups;		/* lookup i: join_tables[SQLJOIN_LOOKUP_HOP + i] */
	int			nunit;			/* of which protected tables joined on the unit */
} SqlJoin;

int
sqljoin_keys(HeapTuple tup, AttrNumber column, AttrNumber *out)
{
	bool		isnull;
	Datum		d = SysCacheGetAttr(CONSTROID, tup, column, &isnull);
	Datum	   *elems;
	int			n;

	if (isnull)
		return 0;
	deconstruct_array(DatumGetArrayTypeP(d), INT2OID, sizeof(int16), true, TYPALIGN_SHORT,
					  &elems, NULL, &n);
	n = Min(n, INDEX_MAX_KEYS);
	for (int i = 0; i < n; i++)
		out[i] = DatumGetInt16(elems[i]);
	return n;
}

/* each hop's foreign key columns, from the constraint link_unit() recorded */
static void
sqljoin_hops(SqlJoin *j)
{
	for (int i = 0; i + 1 < j->ntables; i++)
	{
		Oid			con = j->via[i] ? get_relation_constraint_oid(join_tables[i], j->via[i], true) :
			InvalidOid;
		HeapTuple	tup = SearchSysCache1(CONSTROID, ObjectIdGetDatum(con));
		int			nref;

		/* gone: the run refuses it, uncharged; no equality can match it here */
		j->nkeys[i] = 0;
		if (!HeapTupleIsValid(tup))
			continue;
		j->nkeys[i] = sqljoin_keys(tup, Anum_pg_constraint_conkey, j->key[i]);
		nref = sqljoin_keys(tup, Anum_pg_constraint_confkey, j->ref[i]);
		if (nref != j->nkeys[i])
			j->nkeys[i] = 0;
		ReleaseSysCache(tup);
	}
}

/* a plain Var of the query's level under relabellings, or NULL */
static Var *
sqljoin_var(Node *node)
{
	while (node && IsA(node, RelabelType))
		node = (Node *) ((RelabelType *) node)->arg;
	return node && IsA(node, Var) && ((Var *) node)->varlevelsup == 0 ? (Var *) node : NULL;
}

/* cond is PostgreSQL's own "=" of two columns of the query's tables: *a, *b, true */
static bool
sqljoin_var_equality(const SqlJoin *j, Node *cond, Var **a, Var **b)
{
	OpExpr	   *o = IsA(cond, OpExpr) ? (OpExpr *) cond : NULL;
	char	   *name = o && list_length(o->args) == 2 ? sqlexpr_builtin_op(o->opno) : NULL;

	*a = name ? sqljoin_var(linitial(o->args)) : NULL;
	*b = name ? sqljoin_var(lsecond(o->args)) : NULL;
	return *a != NULL && *b != NULL && strcmp(name, "=") == 0 &&
		(*a)->varno <= list_length(j->q->rtable) && (*b)->varno <= list_length(j->q->rtable);
}

/*
 * cond is a hop's equality "parent.ref = child.key" (either way round,
 * parent's hop only if parent >= 1): marked seen, true
 */
static bool
sqljoin_hop_equality(SqlJoin *j, Node *cond, int parent)
{
	Var		   *a,
			   *b;
	int			ha,
				hb;

	if (!sqljoin_var_equality(j, cond, &a, &b))
		return false;
	ha = j->hop[a->varno];
	hb = j->hop[b->varno];
	/* the path's tables only (a lookup table's: sqljoin_lookup_equality) */
	if (ha < 0 || hb < 0 || ha >= SQLJOIN_LOOKUP_HOP || hb >= SQLJOIN_LOOKUP_HOP)
		return false;
	if (ha > hb)
	{
		Var		   *t = a;

		a = b;
		b = t;
		ha = hb;
		hb = j->hop[b->varno];
	}
	/* a the child (hop ha), b its parent */
	if (hb != ha + 1 || (parent >= 1 && hb != parent))
		return false;
	for (int k = 0; k < j->nkeys[ha]; k++)
		if (j->key[ha][k] == a->varattno && j->ref[ha][k] == b->varattno)
		{
			j->seen[ha][k] = true;
			return true;
		}
	return false;
}

/*
 * cond is "lookup.key = column" (either way round) of lookup L (only, if
 * >= 0; an inner one otherwise, -2 in WHERE) and a column of the protected
 * table, a path table joined or an earlier lookup: recorded, true
 */
static bool
sqljoin_lookup_equality(SqlJoin *j, Node *cond, int only)
{
	Var		   *a,
			   *b;
	int			ha,
				hb,
				l;
	bool		where = only == -2;

	only = Max(only, -1);
	if (!sqljoin_var_equality(j, cond, &a, &b))
		return false;
	ha = j->hop[a->varno];
	hb = j->hop[b->varno];
	/* two lookups: a the one joined (ON's), else the later in FROM */
	if (ha < SQLJOIN_LOOKUP_HOP ||
		(hb >= SQLJOIN_LOOKUP_HOP && (only >= 0 ? hb - SQLJOIN_LOOKUP_HOP == only : hb > ha)))
	{
		Var		   *t = a;

		a = b;
		b = t;
		ha = hb;
		hb = j->hop[b->varno];
	}
	/* a the lookup's column, b the row's */
	l = ha - SQLJOIN_LOOKUP_HOP;
	if (l < 0 || (only >= 0 && l != only) || (only < 0 && join_left[l]))
		return false;
	/* in WHERE, an equality on a lookup's column outside its unique keys is a filter (Q5's) */
	if (where && !join_unit[l] && a->varattno > 0 &&
		!lookups_key_column(join_tables[SQLJOIN_LOOKUP_HOP + l], a->varattno))
		return false;
	if (hb >= SQLJOIN_LOOKUP_HOP && (join_unit[l] || join_unit[hb - SQLJOIN_LOOKUP_HOP]))
		sqlexpr_refuse("a join of a protected table on another joined table's column (join each to the first table in FROM on its privacy unit)");
	/* a lookup on an earlier lookup's column (region on nation's): at most 1 row still */
	if (hb >= SQLJOIN_LOOKUP_HOP && hb - SQLJOIN_LOOKUP_HOP > l)
		sqlexpr_refuse("a join of a lookup table to a later lookup table's column (list the table joined on first in FROM)");
	if (hb < 0 || a->varattno <= 0 || b->varattno <= 0)
		return false;
	if (join_nkeys[l] >= INDEX_MAX_KEYS)
		sqlexpr_refuse("a join on more equalities than an index has columns");
	join_own[l][join_nkeys[l]] = (AttrNumber) (hb * SQLJOIN_ATTNO_STEP + b->varattno);
	join_key[l][join_nkeys[l]++] = a->varattno;
	return true;
}

/* the condition's text for a refusal */
static char *
sqljoin_describe(Node *cond)
{
	return IsA(cond, OpExpr) && sqlexpr_builtin_op(((OpExpr *) cond)->opno) ?
		psprintf("a condition with %s", sqlexpr_builtin_op(((OpExpr *) cond)->opno)) :
		"a condition";
}

/* ON of a join: its hops' equalities only */
static void
sqljoin_on(SqlJoin *j, Node *quals, int parent)
{
	ListCell   *lc;

	foreach(lc, make_ands_implicit((Expr *) quals))
		if (parent >= SQLJOIN_LOOKUP_HOP ?
			!sqljoin_lookup_equality(j, lfirst(lc), parent - SQLJOIN_LOOKUP_HOP) :
			!sqljoin_hop_equality(j, lfirst(lc), parent) && !sqljoin_lookup_equality(j, lfirst(lc), -1))
			sqlexpr_refuse(psprintf("a join condition other than the equality of a foreign key's columns on the path to the privacy unit, of a lookup table's unique key to a column, or of two protected tables' privacy unit columns (%s in ON; filters go in WHERE)",
									sqljoin_describe(lfirst(lc))));
}

/*
 * LEFT JOIN from the child of hop h to its parent: the same rows as JOIN
 * only if no key column of the hop is NULL (a row without its parent has
 * no unit: every run leaves it out)
 */
static void
sqljoin_left_notnull(SqlJoin *j, int h)
{
	for (int k = 0; k < j->nkeys[h]; k++)
	{
		HeapTuple	tup = SearchSysCache2(ATTNUM, ObjectIdGetDatum(join_tables[h]),
										  Int16GetDatum(j->key[h][k]));
		bool		notnull = HeapTupleIsValid(tup) &&
			((Form_pg_attribute) GETSTRUCT(tup))->attnotnull;

		if (HeapTupleIsValid(tup))
			ReleaseSysCache(tup);
		if (!notnull)
			sqlexpr_refuse(psprintf("LEFT JOIN along foreign key %s, whose column %s may be NULL (a row without a parent has no privacy unit and is left out: use JOIN)",
									j->via[h], get_attname(join_tables[h], j->key[h][k], false)));
	}
}

/*
 * range table entry rt, table relid, as the next lookup table, named as
 * its table; a public one joined again (nation n1, nation n2) as its alias
 */
static void
sqljoin_add_lookup(SqlJoin *j, int rt, Oid relid)
{
	char	   *name = get_rel_name(relid);
	bool		unit = unitjoin_protected(relid);
	bool		clash = false;

	for (int i = 0; i < j->nlookups; i++)
		if (join_tables[SQLJOIN_LOOKUP_HOP + i] == relid)
		{
			if (unit)
				sqlexpr_refuse(psprintf("a join of table %s twice", name));
			name = rt_fetch(rt, j->q->rtable)->eref->aliasname;
		}
	/* its columns resolve by that name (linkcols.h): the name its own */
	for (int i = 0; i < j->nlookups; i++)
		clash = clash || strcmp(name, join_names[i]) == 0;
	for (int i = 0; i < j->ntables && strcmp(name, get_rel_name(relid)) != 0; i++)
		clash = clash || strchr(name, '.') != NULL || strcmp(name, get_rel_name(join_tables[i])) == 0;
	if (clash)
		sqlexpr_refuse(psprintf("a join of table %s as %s, a name with a dot or another joined table's (alias it otherwise)",
								get_rel_name(relid), name));
	if (j->nlookups >= DPOBJ_MAX_LOOKUPS)
		sqlexpr_refuse(psprintf("joins of more than %d lookup tables and tables joined on the privacy unit",
								DPOBJ_MAX_LOOKUPS));
	/* another protected table: joined on the unit (unitjoin.h), checked with its keys */
	join_unit[j->nlookups] = unit;
	if (unit && ++j->nunit > DPOBJ_MAX_UNIT_JOINS)
		sqlexpr_refuse(psprintf("joins of more than %d other protected tables on the privacy unit",
								DPOBJ_MAX_UNIT_JOINS));
	join_names[j->nlookups] = name;
	join_tables[SQLJOIN_LOOKUP_HOP + j->nlookups] = relid;
	j->hop[rt] = SQLJOIN_LOOKUP_HOP + j->nlookups++;
	join_nlookups = j->nlookups;
}

/* a FROM item: tables of the path, inner joins and left joins from a child to its parent */
static void
sqljoin_from(SqlJoin *j, Node *n)
{
	if (IsA(n, RangeTblRef))
	{
		int			rt = ((RangeTblRef *) n)->rtindex;
		RangeTblEntry *rte = rt_fetch(rt, j->q->rtable);
		int			h = -1;

		if (rte->rtekind != RTE_RELATION)
			sqlexpr_refuse("joins of FROM items other than tables");
		for (int i = 0; i < j->ntables; i++)
			if (join_tables[i] == rte->relid)
				h = i;
		if (rte->tablesample != NULL)
			sqlexpr_refuse("TABLESAMPLE");
		if (h == 0 && rt != 1)
			sqlexpr_refuse(psprintf("a join of table %s twice", get_rel_name(rte->relid)));
		/* off the path: a public lookup table (lookups.h), checked once its keys are known */
		if (h < 0)
		{
			sqljoin_add_lookup(j, rt, rte->relid);
			return;
		}
		if (j->present[h])
			sqlexpr_refuse(psprintf("a join of table %s twice", get_rel_name(rte->relid)));
		if (h > 0 && !rte->inh && has_subclass(rte->relid))
			sqlexpr_refuse("FROM ONLY a table with partitions or children");
		j->present[h] = true;
		j->hop[rt] = h;
		return;
	}
	if (IsA(n, JoinExpr))
	{
		JoinExpr   *je = (JoinExpr *) n;

		if (je->jointype != JOIN_INNER && je->jointype != JOIN_LEFT)
			sqlexpr_refuse("RIGHT and FULL joins");
		sqljoin_from(j, je->larg);
		sqljoin_from(j, je->rarg);
		if (je->jointype == JOIN_LEFT && IsA(je->rarg, RangeTblRef) &&
			j->hop[((RangeTblRef *) je->rarg)->rtindex] >= SQLJOIN_LOOKUP_HOP)
		{
			/* a lookup table on the right: the row kept, its columns NULL without a match */
			int			h = j->hop[((RangeTblRef *) je->rarg)->rtindex];

			join_left[h - SQLJOIN_LOOKUP_HOP] = true;
			sqljoin_on(j, je->quals, h);
		}
		else if (je->jointype == JOIN_LEFT)
		{
			/* from a child to its parent only: the parent a table on the right */
			if (!IsA(je->rarg, RangeTblRef) || je->quals == NULL ||
				j->hop[((RangeTblRef *) je->rarg)->rtindex] < 1)
				sqlexpr_refuse("LEFT JOIN of anything but a parent table on the path");
			sqljoin_on(j, je->quals, j->hop[((RangeTblRef *) je->rarg)->rtindex]);
			sqljoin_left_notnull(j, j->hop[((RangeTblRef *) je->rarg)->rtindex] - 1);
		}
		else
			sqljoin_on(j, je->quals, -1);
		return;
	}
	sqlexpr_refuse("joins of FROM items other than tables");
}

/*
 * a Var of a join's output (USING's or NATURAL's merged column, a column
 * named through the join's alias) as the expression it stands for: INNER's
 * and LEFT's merged column the left input's (PostgreSQL's joinaliasvars)
 */
static Node *
sqljoin_alias_vars(Node *node, Query *q)
{
	if (node == NULL || IsA(node, Query))
		return node;
	if (IsA(node, Var) && ((Var *) node)->varlevelsup == 0 &&
		rt_fetch(((Var *) node)->varno, q->rtable)->rtekind == RTE_JOIN)
	{
		Var		   *v = (Var *) node;
		RangeTblEntry *rte = rt_fetch(v->varno, q->rtable);

		if (v->varattno <= 0 || v->varattno > list_length(rte->joinaliasvars))
			sqlexpr_refuse("system columns and whole-row references");
		return sqljoin_alias_vars(copyObject(list_nth(rte->joinaliasvars, v->varattno - 1)), q);
	}
	return expression_tree_mutator(node, sqljoin_alias_vars, q);
}

/* Vars of path tables to entry 1's (in place: each Var node once renumbered stays so) */
static bool
sqljoin_renumber(Node *node, SqlJoin *j)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var))
	{
		Var		   *v = (Var *) node;

		if (v->varlevelsup == 0 && v->varno <= list_length(j->q->rtable) && j->hop[v->varno] >= 1)
		{
			if (v->varattno <= 0)
				sqlexpr_refuse("system columns and whole-row references");
			v->varattno = (AttrNumber) (j->hop[v->varno] * SQLJOIN_ATTNO_STEP + v->varattno);
			v->varno = 1;
			v->varnosyn = 1;
			v->varattnosyn = v->varattno;
			compat_var_clear_nulling(v);
		}
		return false;
	}
	if (IsA(node, Query))
		return query_tree_walker((Query *) node, sqljoin_renumber, j, 0);
	return expression_tree_walker(node, sqljoin_renumber, j);
}

/* lookup l's table and keys: a fit public lookup table (lookups.h), as the caller */
static void
sqljoin_lookup_check(Oid relid, int l)
{
	Oid			own_table[INDEX_MAX_KEYS];
	AttrNumber	own_att[INDEX_MAX_KEYS];

	for (int k = 0; k < join_nkeys[l]; k++)
		own_table[k] = sqljoin_attr(relid, join_own[l][k], &own_att[k]);
	if (join_unit[l])
		unitjoin_check(relid, join_tables[SQLJOIN_LOOKUP_HOP + l], join_nkeys[l], own_table, own_att,
					   join_key[l]);
	else
		lookups_check(relid, join_tables[SQLJOIN_LOOKUP_HOP + l], join_nkeys[l], own_table, own_att,
					  join_key[l]);
}

/* the compiled lookups as the current joins (context/lookupjoin.h) */
static void
sqljoin_lookups_set(Oid relid)
{
	LookupJoin	lj[DPOBJ_MAX_LOOKUPS];

	for (int l = 0; l < join_nlookups; l++)
	{
		lj[l].table = join_tables[SQLJOIN_LOOKUP_HOP + l];
		lj[l].name = join_names[l];
		lj[l].left = join_left[l];
		lj[l].unit = join_unit[l];
		lj[l].nkeys = join_nkeys[l];
		for (int k = 0; k < join_nkeys[l]; k++)
		{
			lj[l].own[k] = sqljoin_column(relid, join_own[l][k]);
			lj[l].key[k] = get_attname(lj[l].table, join_key[l][k], false);
		}
		lj[l].nbounded = join_nbounded[l];
		for (int k = 0; k < join_nbounded[l]; k++)
			lj[l].bounded[k] = get_attname(lj[l].table, join_bounded[l][k], false);
	}
	lookup_joins_set(relid, lj, join_nlookups);
}

bool
sqljoin_flatten(Query *q, Oid relid)
{
	SqlJoin	j;
	Oid			path[DPOBJ_MAX_UNIT_HOPS];
	List	   *where = NIL;
	ListCell   *lc;
	int			last = 0;
	Node	   *from = list_length(q->jointree->fromlist) == 1 ? linitial(q->jointree->fromlist) : NULL;

	join_ntables = 0;
	join_nlookups = 0;
	memset(join_left, 0, sizeof(join_left));
	memset(join_unit, 0, sizeof(join_unit));
	memset(join_nkeys, 0, sizeof(join_nkeys));
	memset(join_nbounded, 0, sizeof(join_nbounded));
	if (compat_query_nrtes(q) == 1 && from != NULL && IsA(from, RangeTblRef))
		return false;
	(void) query_tree_mutator(q, sqljoin_alias_vars, q,
							  QTW_DONT_COPY_QUERY | QTW_IGNORE_JOINALIASES | QTW_IGNORE_RC_SUBQUERIES);
	memset(&j, 0, sizeof(j));
	j.q = q;
	j.ntables = 1 + linked_path(relid, path, j.via);
	join_tables[0] = relid;
	memcpy(&join_tables[1], path, sizeof(Oid) * (j.ntables - 1));
	join_ntables = j.ntables;
	sqljoin_hops(&j);
	j.hop = palloc(sizeof(int) * (list_length(q->rtable) + 1));
	for (int i = 0; i <= list_length(q->rtable); i++)
		j.hop[i] = -1;
	foreach(lc, q->jointree->fromlist)
		sqljoin_from(&j, lfirst(lc));
	/* WHERE: the hops' equalities out, the rest filters */
	foreach(lc, make_ands_implicit((Expr *) q->jointree->quals))
		if (!sqljoin_hop_equality(&j, lfirst(lc), -1) && !sqljoin_lookup_equality(&j, lfirst(lc), -2))
			where = lappend(where, lfirst(lc));
	/* the tables joined: the path's first hops, each hop's every key column equal */
	while (last + 1 < j.ntables && j.present[last + 1])
		last++;
	for (int h = last + 1; h < j.ntables; h++)
		if (j.present[h])
			sqlexpr_refuse(psprintf("a join of table %s without the tables between it and the protected table on the path",
									get_rel_name(join_tables[h])));
	for (int h = 0; h < last; h++)
		for (int k = 0; k < Max(j.nkeys[h], 1); k++)
			if (j.nkeys[h] == 0 || !j.seen[h][k])
				sqlexpr_refuse(psprintf("a join of table %s without equality on every column of foreign key %s (a cross join)",
										get_rel_name(join_tables[h + 1]),
										j.via[h] ? j.via[h] : "?"));
	for (int l = 0; l < j.nlookups; l++)
		sqljoin_lookup_check(relid, l);
	q->jointree->quals = (Node *) make_ands_explicit(where);
	if (where == NIL)
		q->jointree->quals = NULL;
	q->jointree->fromlist = list_make1(makeNode(RangeTblRef));
	((RangeTblRef *) linitial(q->jointree->fromlist))->rtindex = 1;
	(void) query_tree_walker(q, sqljoin_renumber, &j, 0);
	/* their columns' names resolve while the query compiles (a GROUP BY expression's levels) */
	if (j.nlookups > 0)
		sqljoin_lookups_set(relid);
	return true;
}

void
sqljoin_first(Query *q, int rt)
{
	int			spare = list_length(q->rtable) + 1;
	RangeTblEntry *first = rt_fetch(1, q->rtable);

	if (rt == 1)
		return;
	ChangeVarNodes((Node *) q, 1, spare, 0);
	ChangeVarNodes((Node *) q, rt, 1, 0);
	ChangeVarNodes((Node *) q, spare, rt, 0);
	list_nth_cell(q->rtable, 0)->ptr_value = rt_fetch(rt, q->rtable);
	list_nth_cell(q->rtable, rt - 1)->ptr_value = first;
}

Oid
sqljoin_attr(Oid relid, AttrNumber attno, AttrNumber *att)
{
	int			h = attno / SQLJOIN_ATTNO_STEP;

	*att = attno;
	if (h == 0 || (h >= join_ntables && h < SQLJOIN_LOOKUP_HOP) ||
		h >= SQLJOIN_LOOKUP_HOP + join_nlookups)
		return relid;
	*att = attno % SQLJOIN_ATTNO_STEP;
	return join_tables[h];
}

/* lookup l's column: "table.column", a built-in type's, the name its own */
static char *
sqljoin_lookup_column(Oid relid, int l, AttrNumber att, char *name)
{
	Oid			table = join_tables[SQLJOIN_LOOKUP_HOP + l];
	const char *what = join_unit[l] ? "table joined on the privacy unit" : "lookup table";

	if (!sqlexpr_builtin(getBaseType(get_atttype(table, att))))
		sqlexpr_refuse(psprintf("column %s of %s %s, whose type is not PostgreSQL's own",
								get_attname(table, att, false), what, get_rel_name(table)));
	if (strlen(name) >= NAMEDATALEN || get_attnum(relid, name) != InvalidAttrNumber)
		sqlexpr_refuse(psprintf("column %s of %s %s, whose name \"%s\" is too long or the protected table's own column's",
								get_attname(table, att, false), what, get_rel_name(table), name));
	return name;
}

char *
sqljoin_column(Oid relid, AttrNumber attno)
{
	AttrNumber	att;
	Oid			table = sqljoin_attr(relid, attno, &att);
	char	   *name;
	Oid			found;
	const char *column;

	if (att <= 0)
		sqlexpr_refuse("system columns and whole-row references");
	if (table == relid)
		return get_attname(relid, att, false);
	name = psprintf("%s.%s", get_rel_name(table), get_attname(table, att, false));
	if (attno / SQLJOIN_ATTNO_STEP >= SQLJOIN_LOOKUP_HOP)
		return sqljoin_lookup_column(relid, attno / SQLJOIN_ATTNO_STEP - SQLJOIN_LOOKUP_HOP, att,
									 psprintf("%s.%s", join_names[attno / SQLJOIN_ATTNO_STEP - SQLJOIN_LOOKUP_HOP],
											  get_attname(table, att, false)));
	/* the name must reach this column (linkcols.h): not shadowed, not too long */
	if (!linked_column(relid, name, &found, &column) || found != table)
		sqlexpr_refuse(psprintf("column %s of a joined table, whose name \"%s\" the protected table's own column or an earlier table on the path takes",
								get_attname(table, att, false), name));
	return name;
}

void
sqljoin_options(Oid relid, StringInfo options, const AttrNumber *gattnos, int ngroups)
{
	StringInfoData b;

	if (join_nlookups == 0)
		return;
	/* a column's domain is its levels or its bounds, not both (a table joined twice: one domain) */
	for (int g = 0; g < ngroups; g++)
		for (int l = 0; sqljoin_is_lookup(gattnos[g]) && l < join_nlookups; l++)
			for (int k = 0; !join_unit[l] && k < join_nbounded[l]; k++)
				if (join_tables[gattnos[g] / SQLJOIN_ATTNO_STEP] == join_tables[SQLJOIN_LOOKUP_HOP + l] &&
					gattnos[g] % SQLJOIN_ATTNO_STEP == join_bounded[l][k])
					sqlexpr_refuse(psprintf("lookup column %s both in GROUP BY and inside an aggregate",
											sqljoin_column(relid, gattnos[g])));
	initStringInfo(&b);
	appendStringInfoString(&b, "\"lookups\": [");
	for (int l = 0; l < join_nlookups; l++)
	{
		appendStringInfo(&b, "%s{\"table\": %u, \"left\": %s,%s", l > 0 ? ", " : "",
						 join_tables[SQLJOIN_LOOKUP_HOP + l], join_left[l] ? "true" : "false",
						 join_unit[l] ? " \"unit\": true," : "");
		/* a table joined again: its columns' other name */
		if (strcmp(join_names[l], get_rel_name(join_tables[SQLJOIN_LOOKUP_HOP + l])) != 0)
		{
			appendStringInfoString(&b, " \"as\": ");
			escape_json(&b, join_names[l]);
			appendStringInfoChar(&b, ',');
		}
		appendStringInfoString(&b, " \"on\": [");
		for (int k = 0; k < join_nkeys[l]; k++)
		{
			appendStringInfoString(&b, k > 0 ? ", [" : "[");
			escape_json(&b, sqljoin_column(relid, join_own[l][k]));
			appendStringInfoString(&b, ", ");
			escape_json(&b, get_attname(join_tables[SQLJOIN_LOOKUP_HOP + l], join_key[l][k], false));
			appendStringInfoChar(&b, ']');
		}
		appendStringInfoChar(&b, ']');
		for (int k = 0; k < join_nbounded[l]; k++)
		{
			appendStringInfoString(&b, k > 0 ? ", " : ", \"bounded\": [");
			escape_json(&b, get_attname(join_tables[SQLJOIN_LOOKUP_HOP + l], join_bounded[l][k], false));
		}
		appendStringInfoString(&b, join_nbounded[l] > 0 ? "]}" : "}");
	}
	appendStringInfoChar(&b, ']');
	/* into the options object: {... , "lookups": [...]} */
	Assert(options->len >= 2 && options->data[options->len - 1] == '}');
	options->data[--options->len] = '\0';
	appendStringInfo(options, "%s%s}", options->len > 1 ? ", " : "", b.data);
}

/*
 * each Var of a lookup table's column a value is read from: numeric, marked
 * bounded (a CASE's conditions read values only to test them, as a FILTER does)
 */
static bool
sqljoin_bound_walker(Node *node, void *arg)
{
	if (node == NULL)
		return false;
	if (IsA(node, CaseExpr) && ((CaseExpr *) node)->arg == NULL)
	{
		ListCell   *lc;

		foreach(lc, ((CaseExpr *) node)->args)
			(void) sqljoin_bound_walker((Node *) lfirst_node(CaseWhen, lc)->result, arg);
		return sqljoin_bound_walker((Node *) ((CaseExpr *) node)->defresult, arg);
	}
	/* a public lookup's (a protected table's columns have declared domains) */
	if (IsA(node, Var) && ((Var *) node)->varlevelsup == 0 && ((Var *) node)->varno == 1 &&
		((Var *) node)->varattno / SQLJOIN_ATTNO_STEP >= SQLJOIN_LOOKUP_HOP &&
		!join_unit[((Var *) node)->varattno / SQLJOIN_ATTNO_STEP - SQLJOIN_LOOKUP_HOP])
	{
		Var		   *v = (Var *) node;
		int			l = v->varattno / SQLJOIN_ATTNO_STEP - SQLJOIN_LOOKUP_HOP;
		AttrNumber	att = v->varattno % SQLJOIN_ATTNO_STEP;
		bool		seen = false;

		lookups_check_bounded(join_tables[SQLJOIN_LOOKUP_HOP + l], att);
		for (int k = 0; k < join_nbounded[l]; k++)
			seen = seen || join_bounded[l][k] == att;
		if (!seen && join_nbounded[l] >= DPOBJ_MAX_LOOKUP_BOUNDED)
			sqlexpr_refuse(psprintf("more than %d columns of one lookup table inside aggregates",
									DPOBJ_MAX_LOOKUP_BOUNDED));
		if (!seen)
			join_bounded[l][join_nbounded[l]++] = att;
		return false;
	}
	return expression_tree_walker(node, sqljoin_bound_walker, arg);
}

void
sqljoin_aggregated(Oid relid, Node *arg)
{
	(void) sqljoin_bound_walker(arg, NULL);
	/* their bounds too while the query compiles (a GROUP BY expression's levels: the rest) */
	if (join_nlookups > 0)
		sqljoin_lookups_set(relid);
}

bool
sqljoin_is_lookup(AttrNumber attno)
{
	return attno / SQLJOIN_ATTNO_STEP >= SQLJOIN_LOOKUP_HOP;
}

Oid
sqljoin_unit_partner(AttrNumber attno, AttrNumber *att, bool *left)
{
	int			l = attno / SQLJOIN_ATTNO_STEP - SQLJOIN_LOOKUP_HOP;

	if (l < 0 || l >= join_nlookups || !join_unit[l])
		return InvalidOid;
	*att = attno % SQLJOIN_ATTNO_STEP;
	*left = join_left[l];
	return join_tables[SQLJOIN_LOOKUP_HOP + l];
}
