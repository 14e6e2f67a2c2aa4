/*-------------------------------------------------------------------------
 *
 * protecttree.h
 *	  Protected tables in one inheritance or partition tree (protecttree.c):
 *	  a partition's or inheritance child's rows are also its ancestors'
 *	  rows, so at most one table of a tree has budgets.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_PROTECTTREE_H
#define DPOBJ_PROTECTTREE_H

#include "postgres.h"

/*
 * Raises an error when another table of relid's tree -- an ancestor or a
 * descendant at any depth (pg_inherits) -- is protected; public grounds
 * only (the catalog), read under the latest snapshot (a protection
 * committed after this transaction's snapshot counts).  protecting:
 * dpobj.protect(); else a run of relid (nothing charged yet).
 */
extern void protecttree_check(Oid relid, const char *relation, bool protecting);

/*
 * dpobj.protect(): a WARNING naming the ancestors and descendants of relid
 * that roles other than their owner may SELECT from (table or column
 * privilege, PUBLIC included): relid's rows are readable through them.
 */
extern void protecttree_warn_readable(Oid relid, const char *relation);

#endif							/* DPOBJ_PROTECTTREE_H */
