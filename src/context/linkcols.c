/*-------------------------------------------------------------------------
 *
 * linkcols.c
 *	  Columns of the tables on a linked table's unit path (linkcols.h).
 *
 * A parent's column is a value of the linked table's row (the value of
 * the row its foreign keys lead to), so a run reads it as one of the
 * row's own: the names are resolved from the catalog and the recorded
 * path only, never evaluated.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "context/linkcols.h"
#include "context/lookupjoin.h"
#include "context/protected.h"

#include "base/privileged.h"

#include "access/htup_details.h"
#include "catalog/pg_attribute.h"
#include "catalog/pg_authid.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

int
linked_path(Oid relid, Oid *tables, char **via)
{
	MemoryContext cxt = CurrentMemoryContext;
	RoleSwitch	rs;
	Oid			type = OIDOID;
	Datum		value = ObjectIdGetDatum(relid);
	int			n = 0;
	int			ret;

	SPI_connect();
	role_switch_begin(&rs, BOOTSTRAP_SUPERUSERID, false);
	ret = SPI_execute_with_args("SELECT path::pg_catalog.oid[], via::pg_catalog.text[] FROM dpobj.unit_links"
								" WHERE relid OPERATOR(pg_catalog.=) $1", 1, &type, &value,
								NULL, true, 1);
	role_switch_end(&rs);
	if (ret != SPI_OK_SELECT)
		elog(ERROR, "dpobj: unit link lookup failed");
	if (SPI_processed == 1)
	{
		bool		isnull;
		Datum		d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
		Datum	   *elems;

		if (!isnull)
		{
			deconstruct_array(DatumGetArrayTypeP(d), OIDOID, sizeof(Oid), true, TYPALIGN_INT,
							  &elems, NULL, &n);
			n = Min(n, DPOBJ_MAX_UNIT_HOPS);
			for (int i = 0; i < n; i++)
				tables[i] = DatumGetObjectId(elems[i]);
			d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull);
			if (via != NULL && !isnull)
			{
				int			nvia;

				deconstruct_array(DatumGetArrayTypeP(d), TEXTOID, -1, false, TYPALIGN_INT,
								  &elems, NULL, &nvia);
				for (int i = 0; i < n; i++)
					via[i] = i < nvia ? MemoryContextStrdup(cxt, TextDatumGetCString(elems[i])) : NULL;
			}
		}
	}
	SPI_finish();
	return n;
}

/* whether rel has a live user column named name */
static bool
has_column(Oid rel, const char *name)
{
	HeapTuple	tup = SearchSysCacheAttName(rel, name);
	bool		ok;

	if (!HeapTupleIsValid(tup))
		return false;
	ok = ((Form_pg_attribute) GETSTRUCT(tup))->attnum > 0;
	ReleaseSysCache(tup);
	return ok;
}

bool
linked_column(Oid relid, const char *name, Oid *table, const char **column)
{
	Oid			path[DPOBJ_MAX_UNIT_HOPS];
	int			n;

	*table = relid;
	*column = name;
	/* the table's own column first; a name without a dot is never a parent's */
	if (strchr(name, '.') == NULL || strlen(name) >= NAMEDATALEN || has_column(relid, name))
		return false;
	n = linked_path(relid, path, NULL);
	for (int i = 0; i < n; i++)
	{
		char	   *rel = get_rel_name(path[i]);
		size_t		len = rel ? strlen(rel) : 0;

		if (rel != NULL && strncmp(name, rel, len) == 0 && name[len] == '.' &&
			has_column(path[i], name + len + 1))
		{
			*table = path[i];
			*column = name + len + 1;
			return true;
		}
	}
	/* or a column of one of the run's public lookup tables (lookupjoin.h) */
	return lookup_joins_column(relid, name, table, column) >= 0;
}

HeapTuple
linked_column_tuple(Oid relid, const char *name)
{
	Oid			table;
	const char *column;

	(void) linked_column(relid, name, &table, &column);
	return SearchSysCacheAttName(table, column);
}

AttrNumber
linked_column_attnum(Oid relid, const char *name, Oid *table)
{
	const char *column;

	(void) linked_column(relid, name, table, &column);
	return get_attnum(*table, column);
}
