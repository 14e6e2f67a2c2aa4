/*-------------------------------------------------------------------------
 *
 * unitjoin.c
 *	  A private query's join of protected tables on their privacy units
 *	  (unitjoin.h).
 *
 *	  Why each check: rows joined by the equality of two unit columns (one
 *	  unit type and collation, the equality the units are defined by) pair
 *	  only rows of one unit, so domain-neighbours (one unit's rows changed
 *	  in every member) give joined tables differing in that unit's rows
 *	  alone, which the run's bounding cuts to k (docs/PRIVACY.md).  One
 *	  domain: one person's rows share one unit value in each member, and
 *	  the one budget is charged.  One owner: the run reads both as the
 *	  protected table's owner.  No row-level security, inheritance or
 *	  virtual generated column: the run reads exactly the table's rows,
 *	  running no code of the owner's choosing.  The last check and whether
 *	  dpobj protects a table are lookups.c's too (it calls them here).  The
 *	  partner's protection is read under its lock in ShareLock, as the run
 *	  reads its own table's (protectlock.h): protect, unprotect or a change of
 *	  budget domain waits for the run's transaction to end.  On Citus, a
 *	  co-located join: each shard task bounds the units it holds whole.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/xact.h"
#include "catalog/pg_attribute.h"
#include "catalog/pg_authid.h"
#include "catalog/pg_class.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "base/distributed.h"
#include "base/privileged.h"
#include "protected/domainjoin.h"
#include "protected/entryargs.h"
#include "protected/spiplans.h"
#include "protected/sqlrefuse.h"
#include "protected/unitjoin.h"
#include "protected/unitlinks.h"
#include "protected/protectlock.h"

bool
unitjoin_protected(Oid table)
{
	RoleSwitch	rs;
	bool		found;

	SPI_connect();
	role_switch_begin(&rs, BOOTSTRAP_SUPERUSERID, false);
	if (dp_spi_run("SELECT 1 FROM dpobj.protected_tables WHERE relid OPERATOR(pg_catalog.=) $1",
				   1, (Oid[]) {REGCLASSOID}, (Datum[]) {ObjectIdGetDatum(table)}, NULL, true,
				   1) != SPI_OK_SELECT)
		elog(ERROR, "dpobj: protected table lookup failed");
	role_switch_end(&rs);
	found = SPI_processed > 0;
	SPI_finish();
	return found;
}

void
unitjoin_check_columns(Oid table, const char *name)
{
	for (int a = 1; a <= MaxHeapAttributeNumber; a++)
	{
		HeapTuple	att = SearchSysCache2(ATTNUM, ObjectIdGetDatum(table), Int16GetDatum(a));
		bool		virtual_gen;

		if (!HeapTupleIsValid(att))
			break;
		/* 18: a virtual generated column would run its expression in the sealed scan */
		virtual_gen = ((Form_pg_attribute) GETSTRUCT(att))->attgenerated == 'v';
		ReleaseSysCache(att);
		if (virtual_gen)
			sqlexpr_refuse(psprintf("a join of table %s, which has a virtual generated column", name));
	}
}

/* a protection as the join needs it */
typedef struct UnitDecl
{
	bool		own;			/* a unit column of its own (not linked) */
	AttrNumber	attnum;
	char	   *domain;			/* NULL: none */
} UnitDecl;

#define UNITJOIN_DECL_SQL \
	"SELECT unit_attnum, budget_domain::pg_catalog.text FROM dpobj.protected_tables p" \
	" WHERE relid OPERATOR(pg_catalog.=) $1 AND privacy_unit IS NOT NULL" \
	" AND NOT EXISTS (SELECT 1 FROM dpobj.unit_links l WHERE l.relid OPERATOR(pg_catalog.=) p.relid)"

/*
 * read after the protection's lock; under a transaction snapshot FOR
 * SHARE, so that a change committed while the lock was awaited raises a
 * serialization failure instead of reading the older row (as units.c)
 */
static void
unitjoin_decl(Oid table, UnitDecl *d)
{
	MemoryContext cxt = CurrentMemoryContext;
	RoleSwitch	rs;
	bool		isnull;
	bool		snapshot = IsolationUsesXactSnapshot();

	memset(d, 0, sizeof(*d));
	SPI_connect();
	role_switch_begin(&rs, BOOTSTRAP_SUPERUSERID, false);
	if (dp_spi_run(snapshot ? UNITJOIN_DECL_SQL " FOR SHARE OF p" : UNITJOIN_DECL_SQL,
				   1, (Oid[]) {REGCLASSOID}, (Datum[]) {ObjectIdGetDatum(table)}, NULL, !snapshot, 1)
		!= SPI_OK_SELECT)
		elog(ERROR, "dpobj: privacy unit lookup failed");
	role_switch_end(&rs);
	if (SPI_processed == 1)
	{
		char	   *domain = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2);

		d->attnum = DatumGetInt16(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1,
												&isnull));
		d->own = !isnull && d->attnum > 0;
		d->domain = domain ? MemoryContextStrdup(cxt, domain) : NULL;
	}
	SPI_finish();
}

/* the table itself: plain, read as the protected table's owner reads it, all its rows */
static void
unitjoin_check_table(Oid relid, Oid table, const char *name)
{
	HeapTuple	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(table));
	Form_pg_class c;

	if (!HeapTupleIsValid(tup))
		sqlexpr_refuse("a join of a table that does not exist");
	c = (Form_pg_class) GETSTRUCT(tup);
	if (c->relkind != RELKIND_RELATION || c->relrowsecurity)
		sqlexpr_refuse(psprintf("a join of protected table %s, which is not a plain table or has row-level security enabled",
								name));
	ReleaseSysCache(tup);
	if (has_subclass(table) || has_superclass(table))
		sqlexpr_refuse(psprintf("a join of protected table %s, which has inheritance children or parents",
								name));
	if (domain_table_owner(table) != domain_table_owner(relid))
		sqlexpr_refuse(psprintf("a join of protected table %s, whose owner is not the owner of table %s",
								name, get_rel_name(relid)));
	unitjoin_check_columns(table, name);
}

/*
 * Two hash-distributed tables of one colocation group have the same shards'
 * hash ranges on the same nodes: with both distributed by their unit
 * columns, Citus runs their join on the units shard by shard (a co-located
 * join), every unit's rows of both in one shard task, which bounds them.
 */
static void
unitjoin_check_citus(Oid relid, AttrNumber unit, Oid table, AttrNumber table_unit,
					 const char *name)
{
	AttrNumber	da,
				db;
	uint32		ca,
				cb;
	char		ma = dp_citus_partition(relid, &da, &ca);
	char		mb = dp_citus_partition(table, &db, &cb);

	if (ma == '\0' && mb == '\0')
		return;
	if (ma == '\0' || mb == '\0')
		sqlexpr_refuse(psprintf("a join of protected table %s on Citus to a table off Citus (or the reverse)",
								name));
	if (ma != 'h' || mb != 'h' || da != unit || db != table_unit || da <= 0 || db <= 0)
		sqlexpr_refuse(psprintf("a join on Citus of protected table %s where a table is not hash-distributed by its privacy unit column",
								name));
	if (ca != cb || ca == 0)
		sqlexpr_refuse(psprintf("a join on Citus of protected table %s, which is not co-located with table %s (create_distributed_table(..., colocate_with => ...))",
								name, get_rel_name(relid)));
}

void
unitjoin_check(Oid relid, Oid table, int nkeys, const Oid *own_table,
			   const AttrNumber *own_att, const AttrNumber *key_att)
{
	char	   *name = dp_relation_name(table);
	UnitDecl	a,
				b;
	Oid			ta,
				tb,
				ca,
				cb;
	int32		typmod;

	if (table == relid)
		sqlexpr_refuse(psprintf("a join of table %s twice", name));
	/* as the run's own table's (protectlock.h): its protection cannot change until the transaction ends */
	units_lock_protection(table, ShareLock);
	unitjoin_decl(relid, &a);
	unitjoin_decl(table, &b);
	if (!a.own || !b.own)
		sqlexpr_refuse(psprintf("a join of protected table %s to a table without a privacy unit column of its own (a row-level or linked table)",
								name));
	if (a.domain == NULL || b.domain == NULL || strcmp(a.domain, b.domain) != 0)
		sqlexpr_refuse(psprintf("a join of protected table %s, which is not in the budget domain of table %s",
								name, get_rel_name(relid)));
	if (nkeys != 1 || own_table[0] != relid || own_att[0] != a.attnum || key_att[0] != b.attnum)
		sqlexpr_refuse(psprintf("a join of protected table %s on anything but the equality of the two tables' privacy unit columns",
								name));
	get_atttypetypmodcoll(relid, a.attnum, &ta, &typmod, &ca);
	get_atttypetypmodcoll(table, b.attnum, &tb, &typmod, &cb);
	if (getBaseType(ta) != getBaseType(tb) || !unit_type_ok(getBaseType(ta)) || ca != cb)
		sqlexpr_refuse(psprintf("a join of protected table %s on privacy unit columns of different types or collations",
								name));
	/* on Citus: both distributed by their units, co-located */
	unitjoin_check_citus(relid, a.attnum, table, b.attnum, name);
	unitjoin_check_table(relid, table, name);
}
