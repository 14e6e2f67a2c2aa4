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
 * own tables included), nor a Citus table other than a hash-distributed
 * one (reference, managed local, append or range).  relation is its
 * qualified name, for messages.
 */
extern void dpobj_check_protectable(Oid relid, const char *relation);

/* relid is a table Citus knows (listed in pg_catalog.pg_dist_partition) */
extern bool dpobj_is_citus_table(Oid relid);

/*
 * A run of train(), evaluate() or submit() on relid (already accepted by
 * dpobj_check_protectable) with the table's privacy unit (units.h): false
 * for a local table; true for a Citus hash-distributed one, after refusing
 * (public grounds, before the charge) what is not sealed there: a privacy
 * unit other than the table's own distribution column (a unit linked
 * through foreign keys, on or to Citus tables, included).  A job's run is
 * sealed like train()'s: the job worker runs the same query, pins and
 * options (jobworker.c).
 */
struct TableUnit;
extern bool dpobj_check_citus_run(Oid relid, const char *relation, const struct TableUnit *unit);

#endif							/* DPOBJ_PROTECTABLE_H */
