/*-------------------------------------------------------------------------
 *
 * linkunit.c
 *	  dpobj.link_unit(rel, path regclass[], max_rows_per_unit): the owner's
 *	  declaration of a unit through foreign keys (unitlinks.c checks the
 *	  path; docs/PRIVACY.md "Units through foreign keys").
 *
 * The caller owns every table of the path; the unit's table is protected
 * with a privacy unit and in a budget domain, which rel joins through
 * budget_domain_set() (budgetdomains.c, the agreement of domainjoin.c).
 * rel's protection row records the unit table's unit column and rel's k;
 * a row of dpobj.unit_links the path.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "protected/unitlinks.h"
#include "base/dpobj.h"
#include "base/pg_compat.h"
#include "base/privileged.h"
#include "protected/budgetdomains.h"
#include "protected/entryargs.h"
#include "protected/protectable.h"
#include "protected/protecttree.h"
#include "protected/units.h"

#include "catalog/pg_authid.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

PG_FUNCTION_INFO_V1(dpobj_link_unit);

/* ---------------------------------------------------------------------
 * dpobj.link_unit(rel regclass, path regclass[], max_rows_per_unit integer)
 * RETURNS boolean
 * ---------------------------------------------------------------------
 */

/* the unit's table: protected with a unit column of its own, in a domain; rel's present level */
static const char link_state_sql[] =
"SELECT (SELECT u.budget_domain::pg_catalog.text FROM dpobj.protected_tables u "
"         WHERE u.relid OPERATOR(pg_catalog.=) $2 AND u.privacy_unit IS NOT NULL "
"           AND NOT EXISTS (SELECT 1 FROM dpobj.unit_links x WHERE x.relid OPERATOR(pg_catalog.=) $2)), "
"       EXISTS (SELECT 1 FROM dpobj.protected_tables p "
"                 LEFT JOIN dpobj.unit_links l ON l.relid OPERATOR(pg_catalog.=) p.relid "
"                WHERE p.relid OPERATOR(pg_catalog.=) $1 AND p.privacy_unit IS NOT NULL "
"                  AND (l.relid IS NULL OR l.path::pg_catalog.oid[] OPERATOR(pg_catalog.<>) $3))";

/* rel's protection: the unit table's unit column, rel's k */
static const char link_protect_sql[] =
"INSERT INTO dpobj.protected_tables AS p "
"       (relid, protected_by, privacy_unit, unit_attnum, unit_type, max_rows_per_unit, "
"        unit_typmod, unit_collation, unit_collversion) "
"SELECT $1, $3::pg_catalog.name, u.privacy_unit, u.unit_attnum, u.unit_type, $4, "
"       u.unit_typmod, u.unit_collation, u.unit_collversion "
"  FROM dpobj.protected_tables u WHERE u.relid OPERATOR(pg_catalog.=) $2 "
UNITS_PROTECTION_UPSERT;

static const char link_insert_sql[] =
"INSERT INTO dpobj.unit_links AS l (relid, path, via, linked_by) "
"VALUES ($1, $2::pg_catalog.oid[]::pg_catalog.regclass[], $3::pg_catalog.name[], $4::pg_catalog.name) "
"ON CONFLICT (relid) DO UPDATE SET via = excluded.via "
" WHERE l.via OPERATOR(pg_catalog.<>) excluded.via RETURNING relid";

/* rel linked, its protection written; the unit table's domain */
static char *
link_write(const UnitLinkPath *p, const char *relation, int32 k, bool *changed)
{
	RoleSwitch	rs;
	Oid			types[4] = {REGCLASSOID, REGCLASSOID, OIDARRAYOID, TEXTOID};
	Datum		values[4];
	Datum		elems[DPOBJ_MAX_UNIT_HOPS];
	Datum		names[DPOBJ_MAX_UNIT_HOPS];
	bool		isnull;
	char	   *domain;
	char	   *user = GetUserNameFromId(GetUserId(), false);

	for (int i = 0; i < p->nhops; i++)
	{
		elems[i] = ObjectIdGetDatum(p->tables[i + 1]);
		names[i] = CStringGetTextDatum(p->via[i]);
	}
	values[0] = ObjectIdGetDatum(p->tables[0]);
	values[1] = ObjectIdGetDatum(p->tables[p->nhops]);
	values[2] = PointerGetDatum(construct_array(elems, p->nhops, OIDOID, sizeof(Oid), true, TYPALIGN_INT));
	role_switch_begin(&rs, BOOTSTRAP_SUPERUSERID, false);
	if (SPI_execute_with_args(link_state_sql, 3, types, values, NULL, false, 0) != SPI_OK_SELECT)
		elog(ERROR, "dpobj.link_unit: lookup failed");
	domain = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
	if (domain == NULL)
		unit_links_refuse(false, relation, psprintf("table %s is not protected with a privacy unit column of its own in a budget domain",
											  get_rel_name(p->tables[p->nhops])));
	if (DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull)))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("table %s is protected at another privacy unit", relation),
				 errhint("Its owner unprotects it first (dpobj.unprotect; the ledger keeps every charge), then links it.")));
	types[2] = TEXTOID;
	values[2] = CStringGetTextDatum(user);
	values[3] = Int32GetDatum(k);
	types[3] = INT4OID;
	if (SPI_execute_with_args(link_protect_sql, 4, types, values, NULL, false, 0) != SPI_OK_INSERT_RETURNING)
		elog(ERROR, "dpobj.link_unit: insert failed");
	*changed = SPI_processed == 1;
	types[1] = OIDARRAYOID;
	values[1] = PointerGetDatum(construct_array(elems, p->nhops, OIDOID, sizeof(Oid), true, TYPALIGN_INT));
	types[2] = TEXTARRAYOID;
	values[2] = PointerGetDatum(construct_array(names, p->nhops, TEXTOID, -1, false, TYPALIGN_INT));
	types[3] = TEXTOID;
	values[3] = CStringGetTextDatum(user);
	if (SPI_execute_with_args(link_insert_sql, 4, types, values, NULL, false, 0) != SPI_OK_INSERT_RETURNING)
		elog(ERROR, "dpobj.link_unit: insert failed");
	*changed = *changed || SPI_processed == 1;
	role_switch_end(&rs);
	return domain;
}

/* the path argument: 1 to DPOBJ_MAX_UNIT_HOPS tables, no NULL; the caller owns each */
static void
link_path_arg(ArrayType *a, Oid relid, const char *relation, UnitLinkPath *p)
{
	Datum	   *elems;
	bool	   *nulls;
	int			n;

	deconstruct_array(a, REGCLASSOID, sizeof(Oid), true, TYPALIGN_INT, &elems, &nulls, &n);
	if (ARR_NDIM(a) > 1 || n < 1 || n > DPOBJ_MAX_UNIT_HOPS)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("path must list 1 to %d tables", DPOBJ_MAX_UNIT_HOPS),
				 errhint("For example ARRAY['orders', 'customers']::regclass[]: each next table referenced by the one before, the last the unit's.")));
	p->nhops = n;
	p->tables[0] = relid;
	for (int i = 0; i < n; i++)
	{
		if (nulls[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("path must not contain NULL")));
		p->tables[i + 1] = DatumGetObjectId(elems[i]);
	}
	for (int i = 0; i <= n; i++)
		if (!SearchSysCacheExists1(RELOID, ObjectIdGetDatum(p->tables[i])) ||
			!compat_class_ownercheck(p->tables[i], GetUserId()))
			ereport(ERROR,
					(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
					 errmsg("must be the owner of every table on the path to link table %s to a privacy unit",
							relation),
					 errhint("The link decides whose rows each row of %s is: the owner of the tables declares it.",
							 relation)));
}

Datum
dpobj_link_unit(PG_FUNCTION_ARGS)
{
	Oid			relid;
	char		relkind;
	char	   *relation;
	int32		k;
	UnitLinkPath p;
	char	   *domain;
	bool		changed;
	MemoryContext outer = CurrentMemoryContext;

	dpobj_verify_schema();
	dp_check_not_null(fcinfo, 3, "dpobj.link_unit");
	relid = PG_GETARG_OID(0);
	relation = dp_lock_relation(relid, &relkind);
	dpobj_check_protectable(relid, relation);
	protecttree_check(relid, relation, true);
	k = PG_GETARG_INT32(2);
	units_check_rows_per_unit(k);
	link_path_arg(PG_GETARG_ARRAYTYPE_P(1), relid, relation, &p);
	unit_links_resolve(&p, relation, false);
	units_lock_protection(relid, ExclusiveLock);
	units_lock_protection(p.tables[p.nhops], ShareLock);
	SPI_connect();
	domain = MemoryContextStrdup(outer, link_write(&p, relation, k, &changed));
	SPI_finish();
	if (budget_domain_set(GetUserId(), relid, relation, domain, InvalidOid))
		changed = true;
	PG_RETURN_BOOL(changed);
}
