/*-------------------------------------------------------------------------
 *
 * protectable.h
 *	  Which relations dpobj.protect(), dpobj.train() and dpobj.submit()
 *	  accept (leaks 7 and 8; protectable.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_PROTECTABLE_H
#define DPOBJ_PROTECTABLE_H

#include "postgres.h"

/*
 * Raises an error (nothing charged, public grounds only: the catalog)
 * unless relid and every inheritance child / partition of it is an
 * ordinary table, partitioned table or materialized view of this server
 * that is neither a system catalog, nor a member of an extension (dpobj's
 * own tables included), nor a Citus distributed, reference or managed
 * local table.  relation is its qualified name, for messages.
 */
extern void dpobj_check_protectable(Oid relid, const char *relation);

#endif							/* DPOBJ_PROTECTABLE_H */
