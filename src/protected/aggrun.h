/*-------------------------------------------------------------------------
 *
 * aggrun.h
 *	  dpobj.aggregate()'s run on a protected table (aggrun.c), shared with
 *	  dpobj.describe() (describe.c), and its public layout and intervals,
 *	  shared with its accuracy before any run (aggplan.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_AGGRUN_H
#define DPOBJ_AGGRUN_H

#include "postgres.h"

#include "fmgr.h"
#include "utils/array.h"
#include "utils/jsonb.h"

/*
 * The columns a call reads: group_by's, then the statistics' (a count
 * alone: a column with declared levels); the caller checks them.
 */
extern char **aggrun_columns(Oid relid, ArrayType *group_by, Jsonb *what, int *n);

/* the layout {"encoding": enc, "group_by": [...], "what": what} */
extern Jsonb *aggrun_layout(Jsonb *enc, ArrayType *group_by, Jsonb *what);

/* the options "filter" and "deadline" only, else a public error */
extern void aggrun_check_options(Jsonb *options);

/*
 * Runs what grouped by group_by on relid (locked, its columns cols checked)
 * through dpobj.train()'s sealed path and fills fcinfo's materialized
 * result (InitMaterializedSRF done) with aggregate()'s rows; enc is the
 * columns' encoding if the caller already has it, else NULL.
 */
extern void aggrun_run(FunctionCallInfo fcinfo, Oid relid, const char *relation, char **cols,
					   int ncols, Jsonb *enc, Jsonb *what, ArrayType *group_by,
					   Jsonb *options, Datum epsilon, Datum delta);

#endif							/* DPOBJ_AGGRUN_H */
