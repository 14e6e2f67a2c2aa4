/*-------------------------------------------------------------------------
 *
 * queryrun.h
 *	  A private query's plan (sqlcompile.h) parsed and run (queryrun.c):
 *	  dpobj.aggregate()'s checks and run, one callback per group.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_QUERYRUN_H
#define DPOBJ_QUERYRUN_H

#include "postgres.h"

#include "fmgr.h"
#include "utils/array.h"
#include "utils/jsonb.h"

/* a validated plan */
typedef struct QueryPlan
{
	Oid			relid;
	Jsonb	   *what;
	int			nstats;
	char	   *stat_kind;		/* per statistic: c(ount), s(um), m(ean), v(ariance), q(uantile) */
	ArrayType  *group_by;
	int			nkeys;			/* group_by's columns */
	char	  **keys;
	Jsonb	   *options;
	int			ngroups;		/* group outputs: nkeys, or 1 merged */
	int			noutputs;
	char	  **group;			/* per output: its group column, or NULL */
	int		   *stat;			/* else its statistic */
	bool	   *sqrt;			/* and whether its square root (a standard deviation) */
	int		   *den;			/* or of stat over den (a merged average), else -1 */
	int			ncells;			/* "merge": cells (0: none) */
	char	  **cells;			/* cell c's level of key k: [c * nkeys + k], NULL: other */
	char	  **to;				/* cell c's merged group, NULL: SQL NULL */
} QueryPlan;

/* one group's release: its group_values (aggregate()'s) and per statistic */
typedef struct QueryGroup
{
	Jsonb	   *group;
	double	   *est;
	double	   *lo;				/* 95 % interval */
	double	   *hi;
	bool	   *has;			/* an estimate (a mean of no rows has none) */
	const char *merged;			/* a merged group's value (NULL: SQL NULL) */
} QueryGroup;

typedef void (*QueryEmit) (void *arg, const QueryPlan *p, const QueryGroup *g);

/* the plan, validated (22023 otherwise) */
extern QueryPlan *queryrun_parse(Jsonb *plan);

/*
 * Runs p at (epsilon, delta) as dpobj.aggregate() would, through fcinfo
 * (a materialized SRF's, its store kept for the caller); emit per group.
 * types: the group outputs' types, checked against the table and its
 * declared levels before the charge
 */
extern void queryrun_run(FunctionCallInfo fcinfo, QueryPlan *p, double epsilon, double delta,
						 const Oid *types, QueryEmit emit, void *arg);

/* output i's estimate in g (a standard deviation: the variance's square root) */
extern double queryrun_value(const QueryPlan *p, const QueryGroup *g, int i);

/* output i has an estimate in g */
extern bool queryrun_has(const QueryPlan *p, const QueryGroup *g, int i);

/* output i's 95 % interval in g, false if unbounded */
extern bool queryrun_interval(const QueryPlan *p, const QueryGroup *g, int i,
							  double *lo, double *hi);

/* group output i's text in g, NULL for SQL NULL */
extern char *queryrun_group_text(const QueryPlan *p, const QueryGroup *g, int i);

/*
 * Merged plans (querymerge.c): "merge" parsed and validated, its cells
 * checked to cover the levels (enc) and readable as type t, before the
 * charge; the released cells' rows summed into one group per value
 */
typedef struct QueryMerge QueryMerge;
extern void querymerge_parse(QueryPlan *p, JsonbContainer *merge);
extern void querymerge_check(const QueryPlan *p, Jsonb *enc, Oid t);
extern QueryMerge *querymerge_begin(const QueryPlan *p);
extern void querymerge_add(void *m, const QueryPlan *p, const QueryGroup *g);	/* a QueryEmit */
extern void querymerge_end(QueryMerge *m, const QueryPlan *p, QueryEmit emit, void *arg);

#endif							/* DPOBJ_QUERYRUN_H */
