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
 *		protection to a unit, or the unit column (its number, type or
 *		collation), while a budget the table's runs are charged to (its
 *		own, or its budget domain's) has any spend;
 *	  - joining a budget domain refuses while the domain's budgets were
 *		charged by runs on this table at another unit column.
 *
 * A new k for the same column is allowed: every run bounds each unit to
 * its own k rows and is calibrated for them, so each spend is already a
 * guarantee per unit, whatever k.  Renaming the column and a new version
 * of its collation are allowed too (protect() again is how the owner
 * confirms them, units.c).  The checks read the catalog and the budgets
 * and ledger only, never the table's rows; the caller administers them.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "units.h"
#include "privileged.h"

#include "catalog/pg_authid.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "utils/builtins.h"

/*
 * The current protection (FOR UPDATE: runs that read it hold it FOR
 * SHARE and finish first): its unit, whether the new column ($2, of base
 * type $3) is the same unit, and whether a budget it is charged to has
 * spend of any kind.
 */
static const char protect_sql[] =
"SELECT p.privacy_unit::pg_catalog.text, "
"       p.unit_attnum OPERATOR(pg_catalog.=) $2 "
"         AND p.unit_type::pg_catalog.oid OPERATOR(pg_catalog.=) $3 "
"         AND p.unit_collation OPERATOR(pg_catalog.=) a.attcollation, "
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

void
unitchange_check_protect(Oid relid, const char *relation, const char *column,
						 int16 attnum, Oid typid)
{
	RoleSwitch	rs;
	Oid			types[3] = {REGCLASSOID, INT2OID, OIDOID};
	Datum		values[3];
	bool		isnull;
	bool		same;
	bool		spent;
	char	   *old;
	char	   *domain;

	values[0] = ObjectIdGetDatum(relid);
	values[1] = Int16GetDatum(attnum);
	values[2] = ObjectIdGetDatum(typid);
	SPI_connect();
	role_switch_begin(&rs, BOOTSTRAP_SUPERUSERID, false);
	if (SPI_execute_with_args(protect_sql, 3, types, values, NULL, false, 1) != SPI_OK_SELECT)
		elog(ERROR, "dpobj.protect: protection lookup failed");
	role_switch_end(&rs);
	if (SPI_processed == 0)
	{
		SPI_finish();			/* not protected yet: nothing was spent on it */
		return;
	}
	old = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
	same = DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull));
	same = same && !isnull;
	spent = DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 3, &isnull));
	domain = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 4);
	if (same || !spent)
	{
		SPI_finish();
		return;
	}
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("table %s has privacy budget spent at another level than privacy unit \"%s\"",
					relation, column),
			 old == NULL ?
			 errdetail("Its budgets were charged by runs calibrated for one row; a unit of many rows is not bounded by that spend.") :
			 errdetail("Its budgets were charged by runs calibrated for units of column \"%s\" (or of another type or collation); a unit of the new column may span many of those units, so that spend does not bound it.",
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
