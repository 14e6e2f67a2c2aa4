/*-------------------------------------------------------------------------
 *
 * sealprep.h
 *	  What the sealed query can touch, taken and loaded from the catalog
 *	  before it reads its first row: locks of the table's tree, TOAST and
 *	  indexes, the caches of its columns' types and collations and of the
 *	  plan's collations.  Implemented in sealprep.c.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_SEALPREP_H
#define DPOBJ_SEALPREP_H

#include "postgres.h"

#include "nodes/execnodes.h"

/* the run on relid (called again for each table of a linked table's path),
 * whose plan top has started and read no row (seal.c) */
extern void seal_prepare(Oid relid, PlanState *top);

/* a parallel worker of the sealed query: the families of the relations it scans */
extern void seal_prepare_worker(PlanState *top);

#endif							/* DPOBJ_SEALPREP_H */
