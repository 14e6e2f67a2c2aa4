/*-------------------------------------------------------------------------
 *
 * protectable.c
 *	  Which relations dpobj protects and trains on (protectable.h).
 *
 * System catalogs and other extensions' tables (leak 8): a
 * dpobj_admin member could protect pg_catalog.pg_authid, grant itself a
 * budget and train on password verifiers.  Catalogs (pg_catalog,
 * information_schema, TOAST) and every table that belongs to an extension
 * are refused.
 *
 * Citus (leak 7): a filter on the distribution column turned the scan into
 * a single-shard query that ran the whole aggregate, final function
 * included, on a worker -- outside the protected context.  The final
 * function fails closed on any scan it does not recognise (protected.c),
 * and every table Citus knows -- listed in its metadata table
 * pg_catalog.pg_dist_partition, looked up by qualified name without
 * linking against Citus -- is refused before anything runs.  The direct
 * aggregates do run distributed (partial states on the workers, the
 * mechanism on the coordinator: distributed.h), but the sealing guarantees
 * cannot be kept on the workers (docs/SCALING.md, "The protected path"):
 * their task sessions run under the workers' own settings (index scans,
 * parallel plans, logging) which train() cannot pin, they do not know that
 * bad rows must be dropped silently, and their per-shard statistics
 * counters are readable by anyone who can connect to a worker.
 *
 * Foreign tables, views and the like, also as inheritance children or
 * partitions, are refused: their rows come from somewhere else.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "protectable.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/catalog.h"
#include "catalog/dependency.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_namespace.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"

static void
refuse(const char *relation, const char *why, const char *hint)
{
	ereport(ERROR,
			(errcode(ERRCODE_WRONG_OBJECT_TYPE),
			 errmsg("dpobj cannot protect or train on %s: %s", relation, why),
			 errhint("%s", hint)));
}

static bool
is_system_relation(Oid relid)
{
	Oid			nsp = get_rel_namespace(relid);

	return IsCatalogRelationOid(relid) || IsCatalogNamespace(nsp) ||
		IsToastNamespace(nsp) ||
		nsp == get_namespace_oid("information_schema", true);
}

/* relid is listed in Citus's metadata (pg_catalog.pg_dist_partition) */
static bool
is_citus_table(Oid relid)
{
	Oid			meta = get_relname_relid("pg_dist_partition", PG_CATALOG_NAMESPACE);
	AttrNumber	att;
	Relation	rel;
	ScanKeyData key;
	SysScanDesc scan;
	bool		found;

	if (!OidIsValid(meta))
		return false;			/* Citus is not installed here */
	att = get_attnum(meta, "logicalrelid");
	if (att == InvalidAttrNumber)
		return true;			/* metadata we do not understand: fail closed */
	rel = table_open(meta, AccessShareLock);
	ScanKeyInit(&key, att, BTEqualStrategyNumber, F_OIDEQ, ObjectIdGetDatum(relid));
	scan = systable_beginscan(rel, InvalidOid, false, NULL, 1, &key);
	found = HeapTupleIsValid(systable_getnext(scan));
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return found;
}

/* one relation of the tree: the table itself (root) or a child */
static void
check_one(Oid relid, const char *relation, bool root)
{
	char		relkind = get_rel_relkind(relid);

	if (relkind != RELKIND_RELATION && relkind != RELKIND_PARTITIONED_TABLE &&
		relkind != RELKIND_MATVIEW)
		refuse(relation, root ? "it is not a table" : "one of its partitions or inheritance children is not a table",
			   "Only tables, partitioned tables and materialized views of this server can be protected; a view's or foreign table's rows come from elsewhere.");
	if (is_system_relation(relid))
		refuse(relation, "it is a system catalog",
			   "Protect your own tables; system catalogs hold the server's secrets.");
	if (OidIsValid(getExtensionOfObject(RelationRelationId, relid)))
		refuse(relation, "it belongs to an extension",
			   "Protect your own tables; an extension's tables are its private state.");
	if (is_citus_table(relid))
		refuse(relation, "it is a Citus distributed, reference or managed table",
			   "The protected path cannot seal Citus worker sessions (docs/SCALING.md); the owner can train on a local copy, or call the aggregates directly.");
}

void
dpobj_check_protectable(Oid relid, const char *relation)
{
	List	   *tree = find_all_inheritors(relid, NoLock, NULL);
	ListCell   *lc;

	foreach(lc, tree)
		check_one(lfirst_oid(lc), relation, lfirst_oid(lc) == relid);
}
