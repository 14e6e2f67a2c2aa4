/*-------------------------------------------------------------------------
 *
 * aggrun.h
 *	  dpobj.aggregate()'s public layout and intervals (aggrun.c), shared
 *	  with its accuracy before any run (aggplan.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_AGGRUN_H
#define DPOBJ_AGGRUN_H

#include "postgres.h"

#include "utils/array.h"
#include "utils/jsonb.h"

/*
 * The columns a call reads: group_by's, then the statistics' (a count
 * alone: a column with declared levels); the caller checks them.
 */
extern char **aggrun_columns(Oid relid, ArrayType *group_by, Jsonb *what, int *n);

/* the layout {"encoding": enc, "group_by": [...], "what": what} */
extern Jsonb *aggrun_layout(Jsonb *enc, ArrayType *group_by, Jsonb *what);

/*
 * The half-width, in lattice units, of the central interval of level
 * 1 - alpha of discrete Laplace noise of scale num / den
 */
extern double aggrun_halfwidth(double num, double den, double alpha);

#endif							/* DPOBJ_AGGRUN_H */
