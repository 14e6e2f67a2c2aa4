/*-------------------------------------------------------------------------
 *
 * protecttree.c
 *	  Protected tables in one inheritance or partition tree
 *	  (protecttree.h).
 *
 * A run on a parent scans its partitions and inheritance children too, so
 * a child protected on its own would have two independent budgets on its
 * rows (one charged by runs on the child, one by runs on the parent).
 * dpobj refuses that rather than sharing one budget: protect() refuses a
 * table with a protected ancestor or descendant, and since ATTACH
 * PARTITION and ALTER TABLE ... INHERIT can join two protected trees later,
 * every run refuses too (before the charge), until one table is
 * unprotected or detached.  A tree that changes between this check and the
 * scan is refused by the protected context (protected.c).
 *
 * protect() takes no lock on the other members (a root may have thousands
 * of partitions): two concurrent protect() calls in one tree may both
 * succeed, and a run already past its check charges its own table's budget
 * only.  From then on every run on either table is refused, so no rows are
 * ever charged to two budgets.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "protected/protecttree.h"
#include "base/privileged.h"
#include "context/scanrels.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/pg_authid.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "utils/array.h"
#include "utils/fmgroids.h"
#include "utils/snapmgr.h"

/* every ancestor of relid, at any depth (inheritance allows several parents) */
static List *
tree_ancestors(Oid relid)
{
	List	   *out = NIL;
	List	   *todo = list_make1_oid(relid);
	Relation	inh = table_open(InheritsRelationId, AccessShareLock);

	while (todo != NIL)
	{
		ScanKeyData key;
		SysScanDesc scan;
		HeapTuple	tup;

		ScanKeyInit(&key, Anum_pg_inherits_inhrelid, BTEqualStrategyNumber, F_OIDEQ,
					ObjectIdGetDatum(linitial_oid(todo)));
		todo = list_delete_first(todo);
		scan = systable_beginscan(inh, InheritsRelidSeqnoIndexId, true, NULL, 1, &key);
		while (HeapTupleIsValid(tup = systable_getnext(scan)))
		{
			Oid			parent = ((Form_pg_inherits) GETSTRUCT(tup))->inhparent;

			if (!list_member_oid(out, parent))
			{
				out = lappend_oid(out, parent);
				todo = lappend_oid(todo, parent);
			}
		}
		systable_endscan(scan);
	}
	table_close(inh, AccessShareLock);
	return out;
}

/* the other members of relid's tree: its ancestors, then its descendants */
static List *
tree_others(Oid relid, List **ancestors)
{
	List	   *down = find_all_inheritors(relid, NoLock, NULL);

	*ancestors = tree_ancestors(relid);
	return list_concat(list_copy(*ancestors), list_delete_oid(down, relid));
}

static Datum
oid_array(List *oids)
{
	Datum	   *elems = palloc(sizeof(Datum) * Max(list_length(oids), 1));
	int			n = 0;
	ListCell   *lc;

	foreach(lc, oids)
		elems[n++] = ObjectIdGetDatum(lfirst_oid(lc));
	return PointerGetDatum(construct_array(elems, n, OIDOID, sizeof(Oid), true, TYPALIGN_INT));
}

static const char protected_member_sql[] =
"SELECT relid::pg_catalog.oid FROM dpobj.protected_tables "
" WHERE relid::pg_catalog.oid OPERATOR(pg_catalog.=) ANY ($1) ORDER BY 1 LIMIT 1";

/*
 * the first protected table among others, or InvalidOid; as the bootstrap
 * superuser, under the latest snapshot: a protection committed since this
 * transaction's snapshot counts, whatever the isolation level
 */
static Oid
protected_member(List *others)
{
	Oid			type = OIDARRAYOID;
	Datum		value = oid_array(others);
	RoleSwitch	rs;
	SPIPlanPtr	plan;
	bool		isnull;
	Oid			found = InvalidOid;

	SPI_connect();
	role_switch_begin(&rs, BOOTSTRAP_SUPERUSERID, false);
	plan = SPI_prepare(protected_member_sql, 1, &type);
	if (plan == NULL ||
		SPI_execute_snapshot(plan, &value, NULL, GetLatestSnapshot(), InvalidSnapshot,
							 true, false, 1) != SPI_OK_SELECT)
		elog(ERROR, "dpobj: protected tree lookup failed");
	role_switch_end(&rs);
	if (SPI_processed == 1)
		found = DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[0],
											   SPI_tuptable->tupdesc, 1, &isnull));
	SPI_finish();
	return found;
}

void
protecttree_check(Oid relid, const char *relation, bool protecting)
{
	List	   *ancestors;
	List	   *others = tree_others(relid, &ancestors);
	Oid			other;
	char	   *name;

	if (others == NIL)
		return;
	other = protected_member(others);
	if (!OidIsValid(other))
		return;
	name = dp_relation_names(list_make1_oid(other));
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 protecting ?
			 errmsg("cannot protect table %s: %s, in its inheritance or partition tree, is protected",
					relation, name) :
			 errmsg("tables %s and %s, in one inheritance or partition tree, are both protected by dpobj",
					relation, name),
			 errdetail("%s is %s of %s, so two independent budgets would count the same rows.%s",
					   list_member_oid(ancestors, other) ? relation : name,
					   "a partition or inheritance child (at any depth)",
					   list_member_oid(ancestors, other) ? name : relation,
					   protecting ? "" : " Nothing was charged."),
			 errhint("Protect one table of an inheritance or partition tree (usually its root): unprotect the other, or detach it (ALTER TABLE ... DETACH PARTITION or NO INHERIT).")));
}

static const char readable_sql[] =
"SELECT c.oid FROM pg_catalog.pg_class c "
" WHERE c.oid OPERATOR(pg_catalog.=) ANY ($1) "
"   AND (EXISTS (SELECT 1 FROM pg_catalog.aclexplode(c.relacl) x "
"                 WHERE x.privilege_type OPERATOR(pg_catalog.=) 'SELECT' "
"                   AND x.grantee OPERATOR(pg_catalog.<>) c.relowner) "
"     OR EXISTS (SELECT 1 FROM pg_catalog.pg_attribute a, pg_catalog.aclexplode(a.attacl) x "
"                 WHERE a.attrelid OPERATOR(pg_catalog.=) c.oid AND NOT a.attisdropped "
"                   AND x.privilege_type OPERATOR(pg_catalog.=) 'SELECT' "
"                   AND x.grantee OPERATOR(pg_catalog.<>) c.relowner)) "
" ORDER BY 1";

void
protecttree_warn_readable(Oid relid, const char *relation)
{
	List	   *ancestors;
	List	   *others = tree_others(relid, &ancestors);
	List	   *readable = NIL;
	Oid			type = OIDARRAYOID;
	Datum		value;
	bool		isnull;
	MemoryContext caller = CurrentMemoryContext;

	if (others == NIL)
		return;
	value = oid_array(others);
	SPI_connect();
	if (SPI_execute_with_args(readable_sql, 1, &type, &value, NULL, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "dpobj.protect: privilege lookup failed");
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		Oid			oid = DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[i],
														 SPI_tuptable->tupdesc, 1, &isnull));
		MemoryContext spi = MemoryContextSwitchTo(caller);

		readable = lappend_oid(readable, oid);
		MemoryContextSwitchTo(spi);
	}
	SPI_finish();
	if (readable != NIL)
		ereport(WARNING,
				(errcode(ERRCODE_WARNING),
				 errmsg("rows of %s can be read through %s", relation, dp_relation_names(readable)),
				 errdetail("Roles other than the owner may SELECT from these parents, partitions or inheritance children of it; a query on them reads its rows without dpobj."),
				 errhint("REVOKE SELECT on them (and on their columns) from every role but their owner, so that analysts reach the rows only through dpobj.train().")));
}
