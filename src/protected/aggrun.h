/*-------------------------------------------------------------------------
 *
 * aggrun.h
 *	  The public layout of a dpobj.aggregate() call, shared by aggrun.c
 *	  (the run) and aggplan.c (its accuracy before any run).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_AGGRUN_H
#define DPOBJ_AGGRUN_H

#include "postgres.h"

#include "utils/array.h"
#include "utils/jsonb.h"

/*
 * The columns a call reads (group_by's, then the statistics'; a count alone
 * a column with declared levels), checked against the catalog.
 */
extern char **aggrun_columns(Oid relid, const char *relation, ArrayType *group_by,
							 Jsonb *what, int *n);

/* the layout {"encoding": enc, "group_by": [...], "what": what} */
extern Jsonb *aggrun_layout(Jsonb *enc, ArrayType *group_by, Jsonb *what);

#endif							/* DPOBJ_AGGRUN_H */
