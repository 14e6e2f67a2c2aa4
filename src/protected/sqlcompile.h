/*-------------------------------------------------------------------------
 *
 * sqlcompile.h
 *	  A plain aggregate SELECT on one protected table compiled into
 *	  dpobj.aggregate()'s request (sqlcompile.c, sqlexpr.c), and the plan's
 *	  run by dpobj.query_run() and dpobj.query() (queryrun.c).
 *
 *	  The plan is a jsonb object:
 *	    {"relid": oid, "what": [statistic, ...], "group_by": [column, ...],
 *	     "options": {"filter": [...], "where": condition},
 *	     "outputs": [{"group": column} | {"stat": i, "fn": "value" | "sqrt",
 *	                  "label": "avg(x)"}, ...]}
 *	  its outputs the group columns first, in group_by's order, then one per
 *	  distinct aggregate of the query (a statistic of "what", or its square
 *	  root for a standard deviation).  GROUP BY one expression over columns
 *	  with declared levels (sqlmerge.c): group_by its columns, "merge":
 *	  [[[level or null, ...], value or null], ...] per cell, one group output
 *	  {"merge": true}, and an average {"stat": sum, "fn": "ratio", "den": count}.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_SQLCOMPILE_H
#define DPOBJ_SQLCOMPILE_H

#include "postgres.h"

#include "base/pg_compat.h"
#include "protected/sqlrefuse.h"
#include "nodes/parsenodes.h"
#include "lib/stringinfo.h"
#include "utils/jsonb.h"

/* a compiled query: its plan and its outputs' names and types */
typedef struct SqlCompiled
{
	Oid			relid;
	Jsonb	   *plan;
	int			noutputs;
	char	  **names;			/* per output: a column's name, an aggregate's */
	Oid		   *types;
	int32	   *typmods;
	Oid		   *colls;
	int			ngroups;		/* the first ngroups outputs are group columns */
	AttrNumber *gattnos;		/* their attribute numbers */
	List	   *aggrefs;		/* the distinct Aggrefs, output ngroups + i each */
	char	  **labels;			/* per distinct aggregate, e.g. "avg(spend)" (EXPLAIN) */
	Index		grouprte;		/* PostgreSQL 18's RTE_GROUP index, or 0 */
	List	   *params;			/* query parameters: the values ... */
	List	   *param_filters;	/* ... of these "filter" conditions (indexes) */
	Node	   *merge;			/* GROUP BY this expression over levels (sqlmerge.c), or NULL */
	List	   *ranged;			/* its columns of a declared integer range (their names) */
} SqlCompiled;

/*
 * Compiles query (analyzed, its only relation relid at range table index
 * 1) or refuses, 0A000, naming the construct; nothing read or charged
 */
extern SqlCompiled *sqlcompile_query(Query *query, Oid relid);

/*
 * query's WITH queries and subqueries in FROM inlined (sqlinline.c), its
 * range table theirs in their entries' place: true if any; refused
 * (0A000) when one is of a shape outside the subset
 */
extern bool sqlinline_query(Query *query);

/*
 * query's constant subexpressions over PostgreSQL's own immutable
 * functions evaluated into constants, in place (sqlfold.c)
 */
extern void sqlfold_query(Query *query);

/*
 * The JSON expression of an expression over relid's row (sqlexpr.c):
 * values and conditions in the format docs/REFERENCE.md ("query") states,
 * built-in operators and functions only; refused otherwise
 */
extern void sqlexpr_value(StringInfo b, Node *node, Oid relid);
extern void sqlexpr_condition(StringInfo b, Node *node, Oid relid);

/*
 * GROUP BY expr over relid's columns with declared levels: their names
 * into group_by (a JSON array), each cell's value of expr into merge; the
 * names of those whose levels are a declared integer range into *ranged
 */
extern void sqlmerge_compile(Oid relid, Node *expr, StringInfo group_by, StringInfo merge,
							 List **ranged);

/*
 * arg, count(DISTINCT arg)'s, is relid's privacy unit (sqlunits.c): its
 * unit column, or a linked table's unit as its unit table's column or the
 * last hop's foreign key referencing it
 */
extern bool sqlunits_is_unit(Oid relid, Node *arg);

/* column attno of relid's row as a Var's name (no system column) */
extern char *sqlexpr_column(Oid relid, AttrNumber attno);

/* s is one of list's strings (NULL-terminated) */
extern bool sqlexpr_is(const char *s, const char *const *list);

/* a numeric type (or a domain over one): int2/4/8, float4/8, numeric */
extern bool sqlexpr_numeric_type(Oid t);

/* node under relabellings and casts between numeric types */
extern Node *sqlexpr_strip_numeric_casts(Node *node);

/* the constant under numeric casts (not evaluated: its own value), or NULL */
extern Const *sqlexpr_folded_const(Node *node);

/* the Var of relid's row under node (strip a relabelling), or NULL */
extern Var *sqlexpr_plain_var(Node *node);

#endif							/* DPOBJ_SQLCOMPILE_H */
