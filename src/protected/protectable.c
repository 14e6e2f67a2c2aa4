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
 * function fails closed on any scan it does not recognise (protected.c)
 * and never runs on a worker (distributed.h).  Hash-distributed tables
 * (pg_catalog.pg_dist_partition.partmethod 'h', looked up by name without
 * linking against Citus) are accepted: train() then builds a query whose
 * shard tasks carry the protected mode in the aggregate's options and the
 * filter inside the aggregate (trainquery.h, docs/SCALING.md); a job's
 * background worker runs that same query (Citus plans and executes it in
 * any backend connected to the database).  A table with a privacy unit
 * runs there when it is distributed by its own unit column (partkey):
 * every unit's rows are on one shard, which bounds them (trainquery.h),
 * also joined on the unit to co-located protected tables (unitjoin.h);
 * a unit linked through foreign keys, or another distribution column, is
 * refused before the charge.  Every other table Citus knows -- reference tables (a router query on one
 * node), Citus-managed local, append- and range-distributed tables -- is
 * refused before anything runs.
 *
 * Foreign tables, views and the like, also as inheritance children or
 * partitions, are refused: their rows come from somewhere else.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "protected/protectable.h"
#include "base/distributed.h"
#include "protected/units.h"

#include "catalog/catalog.h"
#include "catalog/dependency.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_type.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

/* what a run with a privacy unit may be on Citus */
#define CITUS_UNIT_HINT "On Citus a table with a privacy unit runs when it is hash-distributed by its own unit column (create_distributed_table(rel, '<unit column>')); a linked table or a table distributed by another column does not (docs/SCALING.md). Nothing was charged."

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

bool
dpobj_is_citus_table(Oid relid)
{
	return dp_citus_partition(relid, NULL, NULL) != '\0';
}

/*
 * A unit's bounding runs on the shards when each unit's rows are on one
 * shard: the table's own unit column is its distribution column.  A linked
 * table (its rows joined to a unit through foreign keys) does not, nor a
 * table distributed by another column.
 */
static void
check_citus_unit(Oid relid, const char *relation, const TableUnit *unit)
{
	AttrNumber	distcol;

	for (int i = 0; unit->source != NULL && i < unit->hops; i++)
		if (dpobj_is_citus_table(unit->path[i]))
			refuse(relation, "a privacy unit linked through foreign keys does not run on Citus tables",
				   CITUS_UNIT_HINT);
	if (dp_citus_partition(relid, &distcol, NULL) == '\0')
		return;
	/* a linked table has no unit column of its own (a unit join's source is the table's) */
	if (unit->attnum <= 0)
		refuse(relation, "a privacy unit linked through foreign keys does not run on Citus tables",
			   CITUS_UNIT_HINT);
	if (unit->attnum <= 0 || distcol != unit->attnum)
		refuse(relation, "a run with a privacy unit on a Citus distributed table needs the table distributed by its unit column",
			   CITUS_UNIT_HINT);
}

bool
dpobj_check_citus_run(Oid relid, const char *relation, const TableUnit *unit)
{
	if (unit->rows_per_unit > 0)
		check_citus_unit(relid, relation, unit);
	return dpobj_is_citus_table(relid);
}

/* one relation of the tree: the table itself (root) or a child */
static void
check_one(Oid relid, const char *relation, bool root)
{
	char		relkind = get_rel_relkind(relid);
	char		method;

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
	method = dp_citus_partition(relid, NULL, NULL);
	if (method != '\0' && method != 'h')
		refuse(relation, "it is a Citus reference, managed local, append- or range-distributed table",
			   "The protected path is sealed only for hash-distributed Citus tables (docs/SCALING.md); distribute the table with create_distributed_table(), or train on a local copy.");
}

void
dpobj_check_protectable(Oid relid, const char *relation)
{
	List	   *tree = find_all_inheritors(relid, NoLock, NULL);
	ListCell   *lc;

	foreach(lc, tree)
		check_one(lfirst_oid(lc), relation, lfirst_oid(lc) == relid);
}
