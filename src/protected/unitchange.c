/*-------------------------------------------------------------------------
 *
 * unitchange.c
 *	  A table's privacy level does not change under spend (units.h;
 *	  docs/PRIVACY.md "Changing a table's privacy unit").
 *
 * A spend of epsilon records a guarantee for the neighbours of the level
 * the run was calibrated for: rows (row level), or all rows of one unit of
 * a column.  Read at another column's level it bounds nothing (a new unit
 * may span any number of old units or rows), so:
 *
 *	  - dpobj.protect(rel, privacy_unit, k) refuses to change a row-level
 *		protection to a unit, or the unit column or the equality of its
 *		values (another column number, collation, or a type whose equality
 *		differs: unit_equality_class), while a budget the table's runs are
 *		charged to (its own, or its budget domain's) has any spend;
 *	  - joining a budget domain refuses while the domain's budgets were
 *		charged by runs on this table at another unit column.
 *
 * A new k for the same column is allowed: every run bounds each unit to
 * its own k rows and is calibrated for them, so each spend is already a
 * guarantee per unit, whatever k.  Renaming the column, a new typmod, a
 * type of the same equality (int to bigint) and a new version of its
 * collation are allowed too (protect() again is how the owner confirms
 * them, units.c).  The checks read the catalog and the budgets
 * and ledger only, never the table's rows; the caller administers them.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "protected/units.h"
#include "base/privileged.h"

#include "catalog/pg_authid.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

/*
 * The current protection (FOR UPDATE: runs that read it hold it FOR
 * SHARE and finish first): its unit column, type and collation, the new
 * column's collation, whether a budget it is charged to has spend of any
 * kind, and its budget domain.
 */
static const char protect_sql[] =
"SELECT p.privacy_unit::pg_catalog.text, p.unit_attnum, p.unit_type::pg_catalog.oid, "
"       p.unit_collation, a.attcollation, "
"       EXISTS (SELECT 1 FROM dpobj.budgets b "
"                WHERE (b.relid OPERATOR(pg_catalog.=) p.relid "
"                       OR b.budget_domain OPERATOR(pg_catalog.=) p.budget_domain) "
"                  AND (b.spent_epsilon OPERATOR(pg_catalog.>) 0 "
"                       OR b.spent_delta OPERATOR(pg_catalog.>) 0 "
"                       OR b.spent_rho OPERATOR(pg_catalog.>) 0)), "
"       p.budget_domain::pg_catalog.text "
"  FROM dpobj.protected_tables p, pg_catalog.pg_attribute a "
" WHERE p.relid OPERATOR(pg_catalog.=) $1 "
"   AND a.attrelid OPERATOR(pg_catalog.=) $1::pg_catalog.oid "
"   AND a.attnum OPERATOR(pg_catalog.=) $2 "
"   FOR UPDATE OF p";

/*
 * Types whose equality agrees on the values a default cast carries over:
 * the integers; text and varchar (under one collation).  char(n) ignores
 * trailing blanks and uuid is its own; each is a class of one.
 */
static Oid
unit_equality_class(Oid typid)
{
	Oid			base = getBaseType(typid);

	switch (base)
	{
		case INT2OID:
		case INT4OID:
		case INT8OID:
			return INT8OID;
		case VARCHAROID:
			return TEXTOID;
		default:
			return base;
	}
}

/* the unit of the protection row: the same column with the same equality */
static bool
unit_same(HeapTuple row, TupleDesc desc, int16 attnum, Oid typid)
{
	bool		isnull;
	int16		old_attnum = DatumGetInt16(SPI_getbinval(row, desc, 2, &isnull));
	Oid			old_type;

	if (isnull)
		return false;			/* row level */
	old_type = DatumGetObjectId(SPI_getbinval(row, desc, 3, &isnull));
	return old_attnum == attnum &&
		unit_equality_class(old_type) == unit_equality_class(typid) &&
		DatumGetObjectId(SPI_getbinval(row, desc, 4, &isnull)) ==
		DatumGetObjectId(SPI_getbinval(row, desc, 5, &isnull));
}

void
unitchange_check_protect(Oid relid, const char *relation, const char *column,
						 int16 attnum, Oid typid)
{
	RoleSwitch	rs;
	Oid			types[2] = {REGCLASSOID, INT2OID};
	Datum		values[2];
	bool		isnull;
	HeapTuple	row;
	TupleDesc	desc;
	char	   *old;
	char	   *domain;

	values[0] = ObjectIdGetDatum(relid);
	values[1] = Int16GetDatum(attnum);
	SPI_connect();
	role_switch_begin(&rs, BOOTSTRAP_SUPERUSERID, false);
	if (SPI_execute_with_args(protect_sql, 2, types, values, NULL, false, 1) != SPI_OK_SELECT)
		elog(ERROR, "dpobj.protect: protection lookup failed");
	role_switch_end(&rs);
	/* not protected yet (nothing spent on it), the same unit, or no spend */
	if (SPI_processed == 0 ||
		unit_same(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, attnum, typid) ||
		!DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 6, &isnull)))
	{
		SPI_finish();
		return;
	}
	row = SPI_tuptable->vals[0];
	desc = SPI_tuptable->tupdesc;
	old = SPI_getvalue(row, desc, 1);
	domain = SPI_getvalue(row, desc, 7);
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("table %s has privacy budget spent at another level than privacy unit \"%s\"",
					relation, column),
			 old == NULL ?
			 errdetail("Its budgets were charged by runs calibrated for one row; a unit of many rows is not bounded by that spend.") :
			 errdetail("Its budgets were charged by runs calibrated for units of column \"%s\" under another equality (column, type or collation); a new unit may span many of those units, so that spend does not bound it.",
					   old),
			 domain != NULL ?
			 errhint("Keep the unit column (a new max_rows_per_unit is allowed), or take the table out of budget domain \"%s\" first (dpobj.set_budget_domain('%s', NULL)); runs charged to the domain at the old level keep it from joining again.",
					 domain, relation) :
			 errhint("Keep the unit column (a new max_rows_per_unit is allowed), or retire the budgets: dpobj.unprotect('%s') (its owner; the ledger keeps every charge), then protect it at the new level and grant new budgets.",
					 relation)));
}

/*
 * A charge to the domain's budgets by a run on this table at another unit
 * column than its current one (the ledger records the column's name and
 * the table as the run named it).
 */
static const char join_sql[] =
"SELECT l.privacy_unit::pg_catalog.text FROM dpobj.ledger l, dpobj.protected_tables p "
" WHERE p.relid OPERATOR(pg_catalog.=) $1 "
"   AND l.budget_domain OPERATOR(pg_catalog.=) $2 "
"   AND pg_catalog.to_regclass(l.relation) OPERATOR(pg_catalog.=) $1 "
"   AND l.privacy_unit IS DISTINCT FROM p.privacy_unit "
" LIMIT 1";

void
unitchange_check_join(Oid relid, const char *relation, const char *domain)
{
	RoleSwitch	rs;
	Oid			types[2] = {REGCLASSOID, TEXTOID};
	Datum		values[2];
	char	   *old = NULL;
	bool		found;

	values[0] = ObjectIdGetDatum(relid);
	values[1] = CStringGetTextDatum(domain);
	SPI_connect();
	role_switch_begin(&rs, BOOTSTRAP_SUPERUSERID, false);
	if (SPI_execute_with_args(join_sql, 2, types, values, NULL, false, 1) != SPI_OK_SELECT)
		elog(ERROR, "dpobj.set_budget_domain: ledger lookup failed");
	role_switch_end(&rs);
	found = SPI_processed > 0;
	if (found)
	{
		old = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("budget domain \"%s\" was charged by runs on table %s at another privacy unit", domain, relation),
				 errdetail("Those runs were calibrated for units of column \"%s\"; the domain's spend does not bound a unit of the table's present column.",
						   old ? old : "(row level)"),
				 errhint("Protect the table again with that unit column, or put it into a new budget domain.")));
	}
	SPI_finish();
}
