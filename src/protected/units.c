/*-------------------------------------------------------------------------
 *
 * units.c
 *	  Privacy units of protected tables (units.h): the unit column's checks
 *	  for dpobj.protect(rel, privacy_unit, max_rows_per_unit) and its check
 *	  before every run.
 *
 * Contribution bounding happens in train()'s query (trainquery.c,
 * unitkeep.c): rows with a NULL unit are dropped and each unit keeps a
 * uniformly random k of its rows, chosen with random bits independent of
 * every row, so which rows a unit keeps depends on that unit's rows only.
 * The mechanisms are calibrated for k changed rows (option
 * "rows_per_unit", docs/PRIVACY.md).  Nothing of the bounding is visible
 * to the analyst: it runs in the sealed query (seal.c, which also turns
 * off the statistics that would count a sort's temporary files).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "protected/units.h"
#include "base/dpobj.h"
#include "base/distributed.h"
#include "base/privileged.h"
#include "protected/spiplans.h"
#include "protected/entryargs.h"
#include "protected/lookups.h"
#include "protected/unitlinks.h"
#include "context/trainquery.h"

#include "access/htup_details.h"
#include "access/relation.h"
#include "access/xact.h"
#include "catalog/pg_attribute.h"
#include "catalog/pg_authid.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "storage/lock.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/syscache.h"

void
units_check_column(Oid relid, const char *relation, const char *name,
				   int16 *attnum, Oid *typid)
{
	HeapTuple	tup = train_query_column(relid, relation, name,
									 "Pass the privacy unit column's name exactly as it is spelled in the catalog, without quotes.");
	Form_pg_attribute att;

	att = (Form_pg_attribute) GETSTRUCT(tup);
	*attnum = att->attnum;
	*typid = att->atttypid;
	ReleaseSysCache(tup);
	if (*attnum <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_COLUMN),
				 errmsg("column \"%s\" of table %s does not exist", name, relation),
				 errhint("System columns cannot be privacy units.")));
	if (!unit_type_ok(getBaseType(*typid)))
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("column \"%s\" of table %s has a type that cannot be a privacy unit", name, relation),
				 errhint("A privacy unit must be an integer, text, varchar, char or uuid column (or a domain over one).")));
}

/*
 * The recorded unit and whether its collation's versions (recorded in
 * pg_collation or pg_database, and the library's actual one) are those of
 * protect(): ALTER COLLATION ... REFRESH VERSION or a new ICU/glibc that
 * reports another version may change which values are equal.  A table
 * without a unit does not call dpobj.unit_collation_version() (a SQL
 * function, parsed and planned at every call): nothing reads its column.
 */
/* what makes two values of the unit column equal, as protect() recorded it */
typedef struct UnitIdentity
{
	Oid			typid;
	int32		typmod;
	Oid			collation;
	bool		same_collversion;
} UnitIdentity;

#define UNIT_SQL \
"SELECT privacy_unit::pg_catalog.text, unit_attnum, unit_type::pg_catalog.oid, max_rows_per_unit, " \
"       unit_typmod, unit_collation, " \
"       CASE WHEN privacy_unit IS NOT NULL THEN " \
"         unit_collversion IS NOT DISTINCT FROM dpobj.unit_collation_version(unit_collation) END, " \
"       budget_domain::pg_catalog.text, " \
"       EXISTS (SELECT 1 FROM dpobj.unit_links l WHERE l.relid OPERATOR(pg_catalog.=) $1) " \
"  FROM dpobj.protected_tables WHERE relid OPERATOR(pg_catalog.=) $1"

/*
 * Read committed: the lock is taken before the statement's snapshot, so
 * the row read is the last committed one.  Under a transaction snapshot
 * the row read may be older than a change committed while the run waited
 * for the lock: FOR SHARE then raises a serialization failure instead.
 */
static const char unit_sql[] = UNIT_SQL;
static const char unit_sql_snapshot[] = UNIT_SQL " FOR SHARE";

/*
 * The recorded unit column still is that column, equal values as at
 * protect(): name, number, type (a domain over a type is its own type),
 * typmod, collation and the collation's versions.
 */
static void
units_check_unchanged(Oid relid, const char *relation, const char *name,
					  int16 attnum, const UnitIdentity *id)
{
	HeapTuple	tup = SearchSysCache2(ATTNUM, ObjectIdGetDatum(relid), Int16GetDatum(attnum));
	bool		same = false;

	if (HeapTupleIsValid(tup))
	{
		Form_pg_attribute att = (Form_pg_attribute) GETSTRUCT(tup);

		same = !att->attisdropped && att->atttypid == id->typid &&
			att->atttypmod == id->typmod && att->attcollation == id->collation &&
			id->same_collversion && strcmp(NameStr(att->attname), name) == 0;
		ReleaseSysCache(tup);
	}
	if (!same)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("the privacy unit column \"%s\" of table %s was dropped or altered after dpobj.protect()",
						name, relation),
				 errdetail("Its name, number, type, type modifier, collation or the collation's version differ from those dpobj.protect() recorded, so which rows are one unit may have changed. Nothing was charged."),
				 errhint("The table's owner calls dpobj.protect(rel, privacy_unit => ..., max_rows_per_unit => ...) again; after a dump and restore, a superuser calls dpobj.reattach_unit(rel).")));
}

/* a protection row as a run reads it (found false: not protected) */
typedef struct UnitRow
{
	bool		found;
	char	   *name;			/* NULL: row level */
	int16		attnum;
	int			k;
	UnitIdentity id;
	char	   *domain;			/* NULL: none */
	bool		linked;			/* its unit is reached through foreign keys */
} UnitRow;

/* inside SPI: relid's protection row, its unit's lock taken first */
static void
unit_row_read(Oid relid, UnitRow *r)
{
	RoleSwitch	rs;
	Oid			types[1] = {REGCLASSOID};
	Datum		values[1];
	bool		isnull;
	HeapTuple	row;
	TupleDesc	desc;

	memset(r, 0, sizeof(*r));
	values[0] = ObjectIdGetDatum(relid);
	units_lock_protection(relid, ShareLock);
	role_switch_begin(&rs, BOOTSTRAP_SUPERUSERID, false);
	if (dp_spi_run(IsolationUsesXactSnapshot() ? unit_sql_snapshot : unit_sql,
				   1, types, values, NULL, false, 1) != SPI_OK_SELECT)
		elog(ERROR, "dpobj.train: privacy unit lookup failed");
	role_switch_end(&rs);
	if (SPI_processed != 1)
		return;
	r->found = true;
	row = SPI_tuptable->vals[0];
	desc = SPI_tuptable->tupdesc;
	r->domain = SPI_getvalue(row, desc, 8);
	r->linked = DatumGetBool(SPI_getbinval(row, desc, 9, &isnull));
	(void) SPI_getbinval(row, desc, 1, &isnull);
	if (isnull)
		return;
	r->name = SPI_getvalue(row, desc, 1);
	r->attnum = DatumGetInt16(SPI_getbinval(row, desc, 2, &isnull));
	r->id.typid = DatumGetObjectId(SPI_getbinval(row, desc, 3, &isnull));
	r->k = DatumGetInt32(SPI_getbinval(row, desc, 4, &isnull));
	r->id.typmod = DatumGetInt32(SPI_getbinval(row, desc, 5, &isnull));
	r->id.collation = DatumGetObjectId(SPI_getbinval(row, desc, 6, &isnull));
	r->id.same_collversion = DatumGetBool(SPI_getbinval(row, desc, 7, &isnull));
}

/*
 * The columns of the path's tables, each ", tI.col AS \"table.col\"": the
 * names linkcols.h resolves, in its order (the first table of a name wins;
 * the linked table's own column of that name is its own).  The planner
 * drops those the run does not read from the subquery's output.
 */
static char *
units_path_columns(const UnitLinkPath *p)
{
	StringInfoData b;
	List	   *seen = NIL;

	initStringInfo(&b);
	for (int i = 1; i <= p->nhops; i++)
	{
		Relation	r = relation_open(p->tables[i], NoLock);
		TupleDesc	desc = RelationGetDescr(r);

		for (int j = 0; j < desc->natts; j++)
		{
			Form_pg_attribute att = TupleDescAttr(desc, j);
			char	   *alias;
			HeapTuple	own;
			ListCell   *lc;
			bool		dup = false;

			if (att->attisdropped)
				continue;
			alias = psprintf("%s.%s", RelationGetRelationName(r), NameStr(att->attname));
			/* a name is at most NAMEDATALEN - 1 bytes: longer ones are not offered */
			if (strlen(alias) >= NAMEDATALEN)
				continue;
			own = SearchSysCacheAttName(p->tables[0], alias);
			if (HeapTupleIsValid(own))
			{
				dup = ((Form_pg_attribute) GETSTRUCT(own))->attnum > 0;
				ReleaseSysCache(own);
			}
			foreach(lc, seen)
				dup = dup || strcmp((char *) lfirst(lc), alias) == 0;
			if (dup)
				continue;
			seen = lappend(seen, alias);
			appendStringInfo(&b, ", %s.%s AS %s", unit_links_alias(i),
							 quote_identifier(NameStr(att->attname)), quote_identifier(alias));
		}
		relation_close(r, NoLock);
	}
	return b.data;
}

/*
 * A linked table's unit: its unit table's, still protected with the
 * column link_unit() copied, in the same budget domain, the column
 * unchanged; the FROM item joining the path, in the caller's context.
 */
static void
units_linked(const char *relation, const UnitRow *r, UnitLinkPath *p, TableUnit *unit)
{
	UnitRow		u;
	Oid			ut = p->tables[p->nhops];
	char	   *unit_table = dp_relation_name(ut);
	char	   *source;
	StringInfoData lcols,
				ljoins;

	unit_row_read(ut, &u);
	/*
	 * by name and type: the unit table's own row is checked against the
	 * catalog; a linked unit table's column is another table's
	 */
	if (u.name == NULL || u.linked || strcmp(u.name, r->name) != 0 || u.id.typid != r->id.typid || r->domain == NULL || u.domain == NULL ||
		strcmp(r->domain, u.domain) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("the privacy unit of table %s, linked to it from table %s, changed after dpobj.link_unit()",
						unit_table, relation),
				 errdetail("Its unit column or budget domain is not the one the link recorded. Nothing was charged."),
				 errhint("The owner of the tables calls dpobj.link_unit() again.")));
	units_check_unchanged(ut, unit_table, u.name, u.attnum, &u.id);
	/*
	 * OFFSET 0: not pulled up into the run's query, whose unit_keep() (a
	 * volatile function on the unit only) would otherwise run at the unit
	 * table's scan, once per unit instead of once per row
	 */
	/* the run's lookup tables (lookups.h) after the path, whose columns they may join */
	initStringInfo(&lcols);
	initStringInfo(&ljoins);
	unit->nlookups = lookups_sql(p->tables[0], &lcols, &ljoins, unit->lookups);
	source = psprintf("(SELECT %s.*%s%s, %s.%s AS \"dpobj unit\" FROM %s AS %s%s%s OFFSET 0) AS \"dpobj linked\"",
					  unit_links_alias(0), units_path_columns(p), lcols.data, unit_links_alias(p->nhops),
					  quote_identifier(u.name), relation, unit_links_alias(0), p->joins.data,
					  ljoins.data);
	unit->source = SPI_palloc(strlen(source) + 1);
	strcpy(unit->source, source);
	unit->hops = p->nhops;
	for (int i = 0; i < p->nhops; i++)
		unit->path[i] = p->tables[i + 1];
}

/*
 * A table holding its unit (or none) joined to the run's lookup tables
 * (lookups.h): the FROM item of its row and their columns
 */
static void
units_lookups(Oid relid, const char *relation, TableUnit *unit)
{
	StringInfoData cols,
				joins;
	char	   *source;

	initStringInfo(&cols);
	initStringInfo(&joins);
	unit->nlookups = lookups_sql(relid, &cols, &joins, unit->lookups);
	if (unit->nlookups == 0)
		return;
	/*
	 * OFFSET 0 as a linked table's (units_linked); not on Citus, which
	 * would gather such a subquery's rows on the coordinator: there the
	 * joined rows are bounded by the sorted bounding alone, whose window
	 * keeps unit_keep_sorted() above the join (trainquery.h)
	 */
	source = psprintf("(SELECT %s.*%s FROM %s AS %s%s%s) AS \"dpobj linked\"",
					  unit_links_alias(0), cols.data, relation, unit_links_alias(0), joins.data,
					  dp_citus_table(relid) ? "" : " OFFSET 0");
	unit->source = SPI_palloc(strlen(source) + 1);
	strcpy(unit->source, source);
}

/*
 * The protected tables joined on the unit (unitjoin.h): each still
 * protected with the unit column the join names, unchanged, in relid's
 * budget domain (read under its protection's lock).  The joined rows are
 * relid's, bounded by its k (docs/PRIVACY.md "Joins on the privacy unit").
 */
static void
units_joined(Oid relid, const char *relation, const UnitRow *r)
{
	const LookupJoin *j;
	int			n = lookup_joins_get(relid, &j);

	for (int i = 0; i < n; i++)
	{
		UnitRow		u;
		char	   *name;

		if (!j[i].unit)
			continue;
		name = dp_relation_name(j[i].table);
		unit_row_read(j[i].table, &u);
		if (r->name == NULL || r->linked || u.name == NULL || u.linked || r->domain == NULL ||
			u.domain == NULL || strcmp(r->domain, u.domain) != 0 || j[i].nkeys != 1 ||
			strcmp(j[i].own[0], r->name) != 0 || strcmp(j[i].key[0], u.name) != 0)
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("table %s is not joined to table %s on their privacy units", name, relation),
					 errdetail("A table's privacy unit or budget domain is not the one the join was checked with. Nothing was charged.")));
		units_check_unchanged(j[i].table, name, u.name, u.attnum, &u.id);
	}
}

void
units_for_run(Oid relid, const char *relation, TableUnit *unit)
{
	UnitRow		r;
	UnitLinkPath path;
	const char *quoted;

	memset(unit, 0, sizeof(*unit));
	SPI_connect();
	unit_row_read(relid, &r);
	/* not protected: train()'s budget pre-check says so */
	if (r.name != NULL)
	{
		unit->rows_per_unit = r.k;
		if (r.linked && unit_links_for_run(relid, relation, &path))
		{
			units_linked(relation, &r, &path, unit);
			quoted = "\"dpobj unit\"";
		}
		else
		{
			units_check_unchanged(relid, relation, r.name, r.attnum, &r.id);
			unit->attnum = r.attnum;
			quoted = quote_identifier(r.name);
		}
		/* SPI_palloc: in the caller's context, past SPI_finish() */
		unit->column = SPI_palloc(strlen(quoted) + 1);
		strcpy(unit->column, quoted);
	}
	if (unit->source == NULL)
		units_lookups(relid, relation, unit);
	units_joined(relid, relation, &r);
	SPI_finish();
}

void
units_check_rows_per_unit(int k)
{
	if (k < 1 || k > DPOBJ_MAX_ROWS_PER_UNIT)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("max_rows_per_unit must be between 1 and %d", DPOBJ_MAX_ROWS_PER_UNIT),
				 errhint("Every run keeps at most this many rows of each unit, and its noise grows with it.")));
}
