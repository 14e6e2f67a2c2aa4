/*-------------------------------------------------------------------------
 *
 * sqlunits.c
 *	  count(DISTINCT x) in a private query (sqlcompile.h): x must be the
 *	  table's privacy unit, its unit column; a table linked to its unit
 *	  (dpobj.link_unit) names it as the unit table's unit column or as the
 *	  one-column foreign key of the path's last hop that references it
 *	  (orders.customer_id -> customers.customer_id): the same value on every
 *	  row that has a unit; or the unit column of a table joined on the unit
 *	  by JOIN (unitjoin.h), equal to the unit on every joined row (by LEFT
 *	  JOIN it is NULL on a row without a match, which the count of the
 *	  table's units would count: refused).  The catalog and dpobj's
 *	  declarations only.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_authid.h"
#include "catalog/pg_constraint.h"
#include "catalog/pg_type.h"
#include "commands/tablecmds.h"
#include "executor/spi.h"
#include "utils/syscache.h"

#include "base/privileged.h"
#include "context/linkcols.h"
#include "context/protected.h"
#include "protected/spiplans.h"
#include "protected/sqlcompile.h"
#include "protected/sqljoin.h"
#include "protected/sqlrefuse.h"

/* relid's recorded unit column (its unit table's for a linked table), or InvalidAttrNumber */
static AttrNumber
sqlunits_attnum(Oid relid)
{
	RoleSwitch	rs;
	AttrNumber	att = InvalidAttrNumber;
	bool		isnull;

	SPI_connect();
	role_switch_begin(&rs, BOOTSTRAP_SUPERUSERID, false);
	if (dp_spi_run("SELECT unit_attnum FROM dpobj.protected_tables"
				   " WHERE relid OPERATOR(pg_catalog.=) $1 AND privacy_unit IS NOT NULL",
				   1, (Oid[]) {REGCLASSOID}, (Datum[]) {ObjectIdGetDatum(relid)}, NULL, true, 1)
		!= SPI_OK_SELECT)
		elog(ERROR, "dpobj: privacy unit lookup failed");
	role_switch_end(&rs);
	if (SPI_processed == 1)
	{
		Datum		d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);

		att = isnull ? InvalidAttrNumber : DatumGetInt16(d);
	}
	SPI_finish();
	return att;
}

/* the one column of foreign key con of table that references column ref, or InvalidAttrNumber */
static AttrNumber
sqlunits_fk_column(Oid table, const char *con, AttrNumber ref)
{
	Oid			oid = con ? get_relation_constraint_oid(table, con, true) : InvalidOid;
	HeapTuple	tup = SearchSysCache1(CONSTROID, ObjectIdGetDatum(oid));
	AttrNumber	key[INDEX_MAX_KEYS],
				refs[INDEX_MAX_KEYS];
	AttrNumber	att = InvalidAttrNumber;

	if (!HeapTupleIsValid(tup))
		return InvalidAttrNumber;
	if (sqljoin_keys(tup, Anum_pg_constraint_conkey, key) == 1 &&
		sqljoin_keys(tup, Anum_pg_constraint_confkey, refs) == 1 && refs[0] == ref)
		att = key[0];
	ReleaseSysCache(tup);
	return att;
}

bool
sqlunits_is_unit(Oid relid, Node *arg)
{
	Var		   *v = sqlexpr_plain_var(arg);
	Oid			path[DPOBJ_MAX_UNIT_HOPS];
	char	   *via[DPOBJ_MAX_UNIT_HOPS];
	int			n;
	AttrNumber	unit = sqlunits_attnum(relid);
	AttrNumber	att;
	Oid			table;
	Oid			fk_table;
	bool		left;

	if (v == NULL || v->varattno <= 0 || unit == InvalidAttrNumber)
		return false;
	table = sqljoin_unit_partner(v->varattno, &att, &left);
	if (OidIsValid(table) && att == sqlunits_attnum(table) && left)
		sqlexpr_refuse("count(DISTINCT ...) of the privacy unit column of a table joined by LEFT JOIN (NULL without a match: count the first table's unit)");
	if (OidIsValid(table))
		return att == sqlunits_attnum(table);
	table = sqljoin_attr(relid, v->varattno, &att);
	n = linked_path(relid, path, via);
	if (table == (n > 0 ? path[n - 1] : relid) && att == unit)
		return true;
	if (n == 0)
		return false;
	fk_table = n >= 2 ? path[n - 2] : relid;
	return table == fk_table && att == sqlunits_fk_column(fk_table, via[n - 1], unit);
}
