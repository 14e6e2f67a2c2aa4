/*-------------------------------------------------------------------------
 *
 * distributed.h
 *	  Citus awareness without linking against Citus (docs/SCALING.md).  dpobj never depends on Citus: everything here
 *	  looks Citus's metadata up by name at run time, and only when the
 *	  citus extension exists in the current database.
 *
 *	  - One ledger, one budget: a mechanism's final function (the charge,
 *	    the noise) runs only on the coordinator.  On a worker node -- a
 *	    single-shard ("router") query or GROUP BY the distribution column
 *	    pushes the whole aggregate there, or someone calls an aggregate
 *	    directly on a worker -- it is refused before anything is charged.
 *	  - The ledger names the distributed table: a Citus custom scan is
 *	    mapped to the distributed tables its plan reads, a shard to its
 *	    table.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_DISTRIBUTED_H
#define DPOBJ_DISTRIBUTED_H

#include "postgres.h"

#include "access/attnum.h"
#include "fmgr.h"
#include "nodes/execnodes.h"
#include "nodes/pg_list.h"

/* the citus extension is installed in the current database */
extern bool dp_citus_present(void);

/*
 * Raises (before any charge) when this backend is not the coordinator's
 * session: a Citus worker node, or a backend serving a Citus task.
 */
extern void dp_citus_refuse_worker(FunctionCallInfo fcinfo);

/* this backend runs on a Citus worker node or serves a Citus task */
extern bool dp_citus_task_session(void);

/*
 * For a Citus custom scan: appends the Citus tables its distributed plan
 * reads to *relids and returns true; false when the scan is not Citus's
 * or cannot be mapped exactly (e.g. it reads intermediate results of
 * subplans), leaving *relids alone.
 */
extern bool dp_citus_scan_relations(CustomScanState *css, List **relids);

/*
 * relid is a table Citus knows (distributed, reference, local: its rows go
 * through Citus's INSERT, never straight into the coordinator's table)
 */
extern bool dp_citus_table(Oid relid);

/*
 * relid's row in Citus's metadata (pg_catalog.pg_dist_partition): its
 * distribution method (partmethod) -- 'h' hash-distributed, 'n' reference
 * or Citus-managed local, 'a'/'r' append/range; '\0' when Citus does not
 * know relid (or is not installed); '?' for metadata we do not understand
 * (fail closed) -- and, when distcol is not NULL, its distribution column's
 * number (partkey, a Var in node text; 0 when it has none or it is not
 * understood) and, when coloc is not NULL, its colocation group
 * (colocationid; 0 when it has none or it is not understood).
 */
extern char dp_citus_partition(Oid relid, AttrNumber *distcol, uint32 *coloc);

/* relid is a Citus reference table (partmethod 'n', repmodel 't': a copy on every node) */
extern bool dp_citus_reference_table(Oid relid);

/* the Citus table a shard belongs to, or InvalidOid when relid is no shard */
extern Oid	dp_citus_shard_table(Oid relid);

#endif							/* DPOBJ_DISTRIBUTED_H */
