/*-------------------------------------------------------------------------
 *
 * synthwrite.h
 *	  Writing synthetic rows into a table at COPY's speed (synthwrite.c):
 *	  the model's draw (synthdraw.h) as typed values (synthtyped.h) put in
 *	  by table_multi_insert with a bulk-insert state, as COPY FROM does.
 *	  dpobj.sample_into(model, target, n) and dpobj.synthesize()'s target.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_SYNTHWRITE_H
#define DPOBJ_SYNTHWRITE_H

#include "postgres.h"

#include "access/htup_details.h"

/*
 * n rows drawn from model into the existing table relid, as the current
 * user (INSERT on it needed); the rows written.  A plain table whose
 * columns are the model's takes them in batches (its CHECK and NOT NULL
 * constraints and indexes kept); any other (triggers, rules, row security,
 * a partitioned table or a partition, columns of its own with defaults,
 * generated columns, a Citus table, a view) by INSERT ... SELECT from
 * dpobj.sample_rows().
 * fn names the caller in errors.
 */
extern int64 synthwrite_table(Oid relid, HeapTupleHeader model, int64 n, const char *fn);

#endif							/* DPOBJ_SYNTHWRITE_H */
