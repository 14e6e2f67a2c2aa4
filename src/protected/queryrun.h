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
	ArrayType  *group_by;
	Jsonb	   *options;
	int			ngroups;
	int			noutputs;
	char	  **group;			/* per output: its group column, or NULL */
	int		   *stat;			/* else its statistic */
	bool	   *sqrt;			/* and whether its square root (a standard deviation) */
} QueryPlan;

/* one group's release: its group_values (aggregate()'s) and per statistic */
typedef struct QueryGroup
{
	Jsonb	   *group;
	double	   *est;
	double	   *lo;				/* 95 % interval */
	double	   *hi;
	bool	   *has;			/* an estimate (a mean of no rows has none) */
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

#endif							/* DPOBJ_QUERYRUN_H */
