/*-------------------------------------------------------------------------
 *
 * scanrels.h
 *	  Which relations an aggregate's input scans: walks the plan-state tree
 *	  below the Agg node that calls a final function.  Used for the ledger's
 *	  "relation" column and by the protected path, which must see a
 *	  recognised scan of exactly the protected table.  A Citus custom scan
 *	  is mapped to the distributed tables it reads, and a Citus shard to its
 *	  table; other custom scans stay unrecognised.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_SCANRELS_H
#define DPOBJ_SCANRELS_H

#include "postgres.h"

#include "fmgr.h"
#include "nodes/pg_list.h"

typedef struct DPScanRelations
{
	List	   *relids;			/* OIDs of the scanned tables, each once */
	bool		unrecognised;	/* some scan node's rows come from something
								 * else (custom, foreign, function, values,
								 * recursive CTE ...) */
	bool		found_agg;		/* fcinfo was called by an Agg node */
	bool		citus;			/* some rows were read through Citus: a
								 * Citus custom scan (transition functions
								 * ran on worker nodes, outside this
								 * backend) or a shard; relids then name
								 * the distributed tables (distributed.h) */
	void	   *agg;			/* dp_scan_relations: the AggState calling
								 * fcinfo; dp_plan_relations: the plan's
								 * outermost AggState (NULL: none) */
} DPScanRelations;

/* The relations scanned below the aggregate calling fcinfo. */
extern void dp_scan_relations(FunctionCallInfo fcinfo, DPScanRelations *out);

/*
 * The relations a whole plan scans (its executor started, no row read):
 * found_agg when it has an aggregate, agg its outermost one.
 */
struct PlanState;
extern void dp_plan_relations(struct PlanState *top, DPScanRelations *out);

/* "schema.table, ..." of relids (quoted), or NULL when the list is empty */
extern char *dp_relation_names(List *relids);

/*
 * A 64-bit hash of relid and its inheritance children / partitions at any depth
 * (find_all_inheritors, in OID order): a tree that a run checked
 * (protecttree.h) and one that changed before its scan (ATTACH PARTITION,
 * ALTER TABLE ... INHERIT) differ.
 */
extern uint64 dp_inheritance_tree_hash(Oid relid);

#endif							/* DPOBJ_SCANRELS_H */
