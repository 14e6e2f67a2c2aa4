/*-------------------------------------------------------------------------
 *
 * unitlinks.c
 *	  Privacy units through foreign keys (unitlinks.h): the checks of a
 *	  path (linkunit.c declares it) and the path a run on a linked table
 *	  joins along.
 *
 * A table without a unit column (order_lines) reaches its unit's table
 * (customers) along one foreign key per hop (order_lines -> orders ->
 * customers).  Each hop must be a validated foreign key whose referenced
 * side is a non-deferrable unique index (a primary key or unique
 * constraint), its column pairs of one built-in unit type (units.c) and
 * collation each side, compared by that type's built-in equality: a child
 * row matches at most one parent row, and no comparison can fail on any
 * value.  A row whose path ends in NULL or nowhere has no unit and is
 * dropped (an inner join, then the unit's IS NOT NULL).
 *
 * The declaration is the owner's: the caller owns every table of the
 * path, all owned by one role (the run reads them as that role, inside the
 * sealed query only), and the unit's table is protected with a privacy
 * unit and in a budget domain, which the linked table joins
 * (budgetdomains.c, the join agreement of domainjoin.c).  The linked
 * table's protection row records the unit table's unit column; a row of
 * dpobj.unit_links records the path by table and foreign-key name.  A run
 * checks every hop again (unit_links_for_run): a dropped or altered
 * foreign key refuses it before the charge, as a changed unit column does.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "protected/unitlinks.h"
#include "base/dpobj.h"
#include "base/pg_compat.h"
#include "base/privileged.h"
#include "protected/entryargs.h"
#include "protected/spiplans.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/transam.h"
#include "catalog/indexing.h"
#include "catalog/pg_authid.h"
#include "catalog/pg_constraint.h"
#include "catalog/pg_index.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/syscache.h"

/* types a unit may have: exact equality, no value-dependent error */
bool
unit_type_ok(Oid basetype)
{
	switch (basetype)
	{
		case INT2OID:
		case INT4OID:
		case INT8OID:
		case TEXTOID:
		case VARCHAROID:
		case BPCHAROID:
		case UUIDOID:
			return true;
		default:
			return false;
	}
}

char *
unit_links_alias(int i)
{
	return psprintf("\"dpobj link %d\"", i);
}

void
unit_links_refuse(bool run, const char *relation, const char *what)
{
	if (run)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("the link of table %s to its privacy unit broke: %s", relation, what),
				 errdetail("Which rows are one unit's is no longer what dpobj.link_unit() checked. Nothing was charged."),
				 errhint("The owner of the tables on its path calls dpobj.link_unit() again, or dpobj.unprotect().")));
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_FOREIGN_KEY),
			 errmsg("cannot link table %s to a privacy unit: %s", relation, what),
			 errhint("Each hop of the path is a validated foreign key of the table before it, referencing a primary key or unique constraint of the next; the last table is protected with a privacy unit and in a budget domain.")));
}

/* the int16 or Oid elements of a pg_constraint array column */
static void *
con_array(HeapTuple tup, TupleDesc desc, int attno, int *n)
{
	bool		isnull;
	Datum		d = heap_getattr(tup, attno, desc, &isnull);
	ArrayType  *a;

	if (isnull)
		return NULL;
	a = DatumGetArrayTypeP(d);
	*n = ARR_DIMS(a)[0];
	return ARR_DATA_PTR(a);
}

/*
 * Why foreign key tup cannot be hop i (NULL: it can), its condition
 * appended to on: the referenced index unique and immediate, the key
 * validated, each pair of columns of one unit type and collation compared
 * by a built-in operator.
 */
static const char *
hop_unfit(HeapTuple tup, TupleDesc desc, int i, StringInfo on)
{
	Form_pg_constraint con = (Form_pg_constraint) GETSTRUCT(tup);
	HeapTuple	itup;
	bool		unique = false;
	int			n = 0,
				nf = 0,
				nop = 0;
	int16	   *fk,
			   *pk;
	Oid		   *ops;

	if (!con->convalidated)
		return "is not validated";
	itup = SearchSysCache1(INDEXRELID, ObjectIdGetDatum(con->conindid));
	if (HeapTupleIsValid(itup))
	{
		Form_pg_index ind = (Form_pg_index) GETSTRUCT(itup);

		unique = ind->indisunique && ind->indimmediate &&
			heap_attisnull(itup, Anum_pg_index_indpred, NULL);
		ReleaseSysCache(itup);
	}
	if (!unique)
		return "references no immediate primary key or unique constraint";
	fk = con_array(tup, desc, Anum_pg_constraint_conkey, &n);
	pk = con_array(tup, desc, Anum_pg_constraint_confkey, &nf);
	ops = con_array(tup, desc, Anum_pg_constraint_conpfeqop, &nop);
	if (fk == NULL || pk == NULL || ops == NULL || n != nf || n != nop || n < 1)
		return "has no columns";
	for (int j = 0; j < n; j++)
	{
		Oid			ft,
					pt,
					fc,
					pc;
		int32		fm,
					pm;

		get_atttypetypmodcoll(con->conrelid, fk[j], &ft, &fm, &fc);
		get_atttypetypmodcoll(con->confrelid, pk[j], &pt, &pm, &pc);
		if (getBaseType(ft) != getBaseType(pt) || !unit_type_ok(getBaseType(ft)) || fc != pc ||
			ops[j] >= FirstNormalObjectId)
			return "pairs columns of different types or collations, or of a type that cannot be a privacy unit";
		appendStringInfo(on, "%s%s.%s OPERATOR(pg_catalog.=) %s.%s", j > 0 ? " AND " : "",
						 unit_links_alias(i), quote_identifier(get_attname(con->conrelid, fk[j], false)),
						 unit_links_alias(i + 1),
						 quote_identifier(get_attname(con->confrelid, pk[j], false)));
	}
	return NULL;
}

/*
 * Hop i, from tables[i] to tables[i + 1]: the one foreign key (named name,
 * unless NULL) between them, checked (hop_unfit); appends its join to
 * p->joins and records its name.
 */
static void
hop_resolve(UnitLinkPath *p, int i, const char *name, const char *relation, bool run)
{
	Relation	rel = table_open(ConstraintRelationId, AccessShareLock);
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tup;
	int			found = 0;
	const char *unfit = NULL;
	StringInfoData on;
	char	   *from = get_rel_name(p->tables[i]);
	char	   *to = get_rel_name(p->tables[i + 1]);

	initStringInfo(&on);
	ScanKeyInit(&key, Anum_pg_constraint_conrelid, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(p->tables[i]));
	scan = systable_beginscan(rel, ConstraintRelidTypidNameIndexId, true, NULL, 1, &key);
	while (HeapTupleIsValid(tup = systable_getnext(scan)))
	{
		Form_pg_constraint con = (Form_pg_constraint) GETSTRUCT(tup);

		if (con->contype != CONSTRAINT_FOREIGN || con->confrelid != p->tables[i + 1] ||
			(name != NULL && strcmp(NameStr(con->conname), name) != 0))
			continue;
		if (found++ == 0)
		{
			p->via[i] = pstrdup(NameStr(con->conname));
			unfit = hop_unfit(tup, RelationGetDescr(rel), i, &on);
		}
	}
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	if (found == 0)
		unit_links_refuse(run, relation, name != NULL ?
					psprintf("foreign key \"%s\" of table %s referencing %s does not exist", name, from, to) :
					psprintf("table %s has no foreign key referencing %s", from, to));
	if (found > 1)
		unit_links_refuse(run, relation, psprintf("table %s has more than one foreign key referencing %s", from, to));
	if (unfit != NULL)
		unit_links_refuse(run, relation, psprintf("foreign key \"%s\" of table %s %s", p->via[i], from, unfit));
	appendStringInfo(&p->joins, " JOIN %s AS %s ON %s", dp_relation_name(p->tables[i + 1]),
					 unit_links_alias(i + 1), on.data);
}

/* the path's tables after the first: each locked, owned by the first's owner, once */
static void
path_lock(UnitLinkPath *p, const char *relation, bool run)
{
	Oid			owner = InvalidOid;

	for (int i = 0; i <= p->nhops; i++)
	{
		HeapTuple	tup;
		Oid			o;

		/* locked first, then looked up: a table dropped meanwhile is not found */
		if (i > 0)
			LockRelationOid(p->tables[i], AccessShareLock);
		for (int j = 0; j < i; j++)
			if (p->tables[j] == p->tables[i])
				unit_links_refuse(run, relation, psprintf("the path returns to table %s (a cycle)",
													get_rel_name(p->tables[i])));
		tup = SearchSysCache1(RELOID, ObjectIdGetDatum(p->tables[i]));
		if (!HeapTupleIsValid(tup))
			unit_links_refuse(run, relation, "a table of the path does not exist");
		o = ((Form_pg_class) GETSTRUCT(tup))->relowner;
		ReleaseSysCache(tup);
		if (i == 0)
			owner = o;
		else if (o != owner)
			unit_links_refuse(run, relation, psprintf("table %s has another owner than table %s",
												get_rel_name(p->tables[i]), relation));
		/* the run reads the path as that owner (train.c checks the first table) */
		if (i > 0 && pg_class_aclcheck(p->tables[i], owner, ACL_SELECT) != ACLCHECK_OK)
			unit_links_refuse(run, relation, psprintf("the owner of table %s cannot read table %s",
												relation, get_rel_name(p->tables[i])));
	}
}

void
unit_links_resolve(UnitLinkPath *p, const char *relation, bool run)
{
	path_lock(p, relation, run);
	initStringInfo(&p->joins);
	for (int i = 0; i < p->nhops; i++)
		hop_resolve(p, i, run ? p->via[i] : NULL, relation, run);
}

static const char links_sql[] =
"SELECT path::pg_catalog.oid[], via::pg_catalog.text[] FROM dpobj.unit_links "
" WHERE relid OPERATOR(pg_catalog.=) $1";

bool
unit_links_for_run(Oid relid, const char *relation, UnitLinkPath *p)
{
	RoleSwitch	rs;
	Oid			type = REGCLASSOID;
	Datum		value = ObjectIdGetDatum(relid);
	bool		isnull;
	Datum	   *tables,
			   *names;
	int			n,
				nnames;

	role_switch_begin(&rs, BOOTSTRAP_SUPERUSERID, false);
	if (dp_spi_run(links_sql, 1, &type, &value, NULL, false, 1) != SPI_OK_SELECT)
		elog(ERROR, "dpobj: unit link lookup failed");
	role_switch_end(&rs);
	if (SPI_processed != 1)
		return false;
	deconstruct_array(DatumGetArrayTypeP(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull)),
					  OIDOID, sizeof(Oid), true, TYPALIGN_INT, &tables, NULL, &n);
	deconstruct_array(DatumGetArrayTypeP(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull)),
					  TEXTOID, -1, false, TYPALIGN_INT, &names, NULL, &nnames);
	if (n < 1 || n > DPOBJ_MAX_UNIT_HOPS || nnames != n)
		elog(ERROR, "dpobj: malformed unit link of %s", relation);
	p->nhops = n;
	p->tables[0] = relid;
	for (int i = 0; i < n; i++)
		p->tables[i + 1] = DatumGetObjectId(tables[i]);
	for (int i = 0; i < n; i++)
		p->via[i] = TextDatumGetCString(names[i]);
	unit_links_resolve(p, relation, true);
	return true;
}

void
unit_links_refuse_protect(Oid relid, const char *relation)
{
	RoleSwitch	rs;
	Oid			type = REGCLASSOID;
	Datum		value = ObjectIdGetDatum(relid);

	role_switch_begin(&rs, BOOTSTRAP_SUPERUSERID, false);
	if (dp_spi_run(links_sql, 1, &type, &value, NULL, false, 1) != SPI_OK_SELECT)
		elog(ERROR, "dpobj: unit link lookup failed");
	role_switch_end(&rs);
	if (SPI_processed > 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("table %s reaches its privacy unit through foreign keys", relation),
				 errhint("dpobj.link_unit() changes its max_rows_per_unit; for a unit column of its own, its owner unprotects it first.")));
}

