/*-------------------------------------------------------------------------
 *
 * aggrun.h
 *	  dpobj.aggregate()'s run on a protected table (aggrun.c), shared with
 *	  dpobj.describe() (describe.c): one charge, one row per released value.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_AGGRUN_H
#define DPOBJ_AGGRUN_H

#include "postgres.h"

#include "fmgr.h"
#include "utils/array.h"
#include "utils/jsonb.h"

/* the options "filter" and "deadline" only, else a public error */
extern void aggrun_check_options(Jsonb *options);

/*
 * Runs what grouped by group_by on relid (locked, its columns cols checked)
 * through dpobj.train()'s sealed path and fills fcinfo's materialized
 * result (InitMaterializedSRF done) with aggregate()'s rows.
 */
extern void aggrun_run(FunctionCallInfo fcinfo, Oid relid, const char *relation, char **cols,
					   int ncols, Jsonb *what, ArrayType *group_by, Jsonb *options,
					   Datum epsilon, Datum delta);

#endif							/* DPOBJ_AGGRUN_H */
