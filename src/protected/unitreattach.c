/*-------------------------------------------------------------------------
 *
 * unitreattach.c
 *	  dpobj.reattach_unit(rel regclass) RETURNS boolean: after a dump and
 *	  restore, a superuser confirms a table's privacy unit column
 *	  (docs/VERSIONS.md, "Moving to a newer major version").
 *
 * pg_dump writes a table without its dropped columns, so a unit column
 * after one comes back under a lower number, and a collation other than
 * the database default under a new OID: units_for_run() refuses every run
 * on the table (nothing charged), and protect() again is refused while
 * its budgets have spend (unitchange.c), since a new column number could
 * be another column.  The column of the recorded name, type and type
 * modifier is recorded again under its present number and collation, with
 * that collation's versions.  Only a superuser may: a table's owner could
 * drop the unit column and add another of the same name and type, whose
 * values would make other units of the rows that the spend was for.  The
 * catalog and dpobj.protected_tables only, never the table's rows.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "protected/units.h"
#include "protected/entryargs.h"
#include "base/privileged.h"

#include "access/htup_details.h"
#include "catalog/pg_attribute.h"
#include "catalog/pg_authid.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/syscache.h"

PG_FUNCTION_INFO_V1(dpobj_reattach_unit);

/* the recorded unit: name, type, typmod (FOR UPDATE: runs hold it FOR SHARE) */
static const char reattach_read_sql[] =
"SELECT privacy_unit::pg_catalog.text, unit_type::pg_catalog.oid, unit_typmod, unit_attnum "
"  FROM dpobj.protected_tables WHERE relid OPERATOR(pg_catalog.=) $1 FOR UPDATE";

static const char reattach_write_sql[] =
"UPDATE dpobj.protected_tables "
"   SET unit_attnum = $2, unit_collation = $3, "
"       unit_collversion = dpobj.unit_collation_version($3) "
" WHERE relid OPERATOR(pg_catalog.=) $1 "
"   AND (unit_attnum, unit_collation, unit_collversion) IS DISTINCT FROM "
"       ($2, $3, dpobj.unit_collation_version($3)) "
"RETURNING relid";

/*
 * Not a swap in place: the recorded number is not a dropped column of the
 * table (a restore writes none), as when another column was added under the
 * unit's name, e.g. one whose values make every row its own unit.  A unit
 * column with a default or generated values is legitimate (protect() takes
 * one, and a restore keeps it): it is no evidence of a swap.
 */
static void
reattach_refuse_swap(Oid relid, const char *relation, const char *name, int16 recorded)
{
	HeapTuple	old = SearchSysCache2(ATTNUM, ObjectIdGetDatum(relid), Int16GetDatum(recorded));
	bool		dropped = HeapTupleIsValid(old) &&
		((Form_pg_attribute) GETSTRUCT(old))->attisdropped;

	if (HeapTupleIsValid(old))
		ReleaseSysCache(old);
	if (dropped)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("column \"%s\" of table %s is not the privacy unit dpobj.protect() recorded",
						name, relation),
				 errdetail("The recorded unit column was dropped from this table; this column replaced it."),
				 errhint("Its owner calls dpobj.unprotect() and then dpobj.protect() again.")));
}

/* the present column of that name, its type and typmod the recorded ones */
static void
reattach_column(Oid relid, const char *relation, const char *name, Oid typid,
				int32 typmod, int16 *attnum, Oid *collation)
{
	HeapTuple	tup = SearchSysCacheAttName(relid, name);
	Form_pg_attribute att;
	int16		recorded = *attnum;

	if (!HeapTupleIsValid(tup))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_COLUMN),
				 errmsg("table %s has no column \"%s\", its recorded privacy unit", relation, name),
				 errhint("Its owner protects it again at another level (dpobj.unprotect() first while its budgets have spend).")));
	att = (Form_pg_attribute) GETSTRUCT(tup);
	*attnum = att->attnum;
	*collation = att->attcollation;
	if (att->atttypid != typid || att->atttypmod != typmod)
	{
		ReleaseSysCache(tup);
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("column \"%s\" of table %s has another type than dpobj.protect() recorded",
						name, relation),
				 errdetail("Only the number and the collation of the unit column are recorded again; its type decides which values are one unit."),
				 errhint("Its owner calls dpobj.protect(rel, privacy_unit => ..., max_rows_per_unit => ...) again.")));
	}
	ReleaseSysCache(tup);
	reattach_refuse_swap(relid, relation, name, recorded);
}

Datum
dpobj_reattach_unit(PG_FUNCTION_ARGS)
{
	Oid			relid;
	char		relkind;
	char	   *relation;
	char	   *name;
	Oid			typid;
	int32		typmod;
	int16		attnum;
	Oid			collation;
	bool		isnull;
	bool		changed;
	RoleSwitch	rs;
	Oid			types[3] = {REGCLASSOID, INT2OID, OIDOID};
	Datum		values[3];

	dpobj_verify_schema();
	dp_check_not_null(fcinfo, 1, "dpobj.reattach_unit");
	if (!superuser())
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("must be superuser to reattach a privacy unit"),
				 errhint("A table's owner could have dropped the unit column and added another of the same name; a superuser confirms the column after a restore.")));
	relid = PG_GETARG_OID(0);
	relation = dp_lock_relation(relid, &relkind);
	units_lock_protection(relid, ExclusiveLock);
	values[0] = ObjectIdGetDatum(relid);
	SPI_connect();
	role_switch_begin(&rs, BOOTSTRAP_SUPERUSERID, false);
	if (SPI_execute_with_args(reattach_read_sql, 1, types, values, NULL, false, 0) != SPI_OK_SELECT)
		elog(ERROR, "dpobj.reattach_unit: protection lookup failed");
	name = SPI_processed == 1 ? SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1) : NULL;
	if (name == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("table %s is not protected with a privacy unit", relation),
				 errhint("Only a table that dpobj.protect(rel, privacy_unit => ...) protected has a unit column to reattach.")));
	typid = DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull));
	typmod = DatumGetInt32(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 3, &isnull));
	attnum = DatumGetInt16(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 4, &isnull));
	reattach_column(relid, relation, name, typid, typmod, &attnum, &collation);
	values[1] = Int16GetDatum(attnum);
	values[2] = ObjectIdGetDatum(collation);
	if (SPI_execute_with_args(reattach_write_sql, 3, types, values, NULL, false, 0) != SPI_OK_UPDATE_RETURNING)
		elog(ERROR, "dpobj.reattach_unit: update failed");
	changed = SPI_processed == 1;
	role_switch_end(&rs);
	SPI_finish();
	PG_RETURN_BOOL(changed);
}
