/*-------------------------------------------------------------------------
 *
 * lookups.c
 *	  Public lookup tables of a private query's run (lookups.h).
 *
 *	  Why each check: the run reads the lookup as the protected table's
 *	  owner, inside the sealed query, so it must read exactly the rows the
 *	  caller may (SELECT, no row-level security, no inheritance: FROM ONLY
 *	  reads what a unique index covers); a unique key (not partial, no
 *	  expressions, not deferrable) on exactly the joined columns, compared
 *	  by an equality of the index's operator family, matches each row to at
 *	  most one lookup row, so no row counts twice and the sensitivities are
 *	  unchanged; the equality needs no cast and compares text byte-wise
 *	  (deterministic collations), so it raises nothing for any row.  Only
 *	  columns of built-in types are offered: no code of the lookup owner's
 *	  choosing runs in the sealed scan.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "access/relation.h"
#include "access/stratnum.h"
#include "access/transam.h"
#include "catalog/pg_authid.h"
#include "catalog/pg_class.h"
#include "catalog/pg_index.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_operator.h"
#include "catalog/catalog.h"
#include "catalog/pg_am.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "parser/parse_coerce.h"
#include "parser/parse_oper.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/json.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/syscache.h"

#include "base/privileged.h"
#include "context/linkcols.h"
#include "model/encode.h"
#include "base/distributed.h"
#include "protected/domainjoin.h"
#include "protected/entryargs.h"
#include "protected/lookups.h"
#include "protected/spiplans.h"
#include "protected/sqlrefuse.h"
#include "protected/unitjoin.h"
#include "protected/unitlinks.h"

static pg_noreturn void
lookups_bad(const char *msg)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("dpobj.aggregate: option \"lookups\" %s", msg),
			 errhint("\"lookups\": [{\"table\": oid, \"left\": false, \"on\": [[\"column\", \"lookup column\"], ...]}, ...] (a private query writes it).")));
}

/* SELECT on the whole table: the caller's, and the protected table's owner's */
static void
lookups_check_privileges(Oid relid, Oid table, const char *name)
{
	if (pg_class_aclcheck(table, GetUserId(), ACL_SELECT) != ACLCHECK_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("dpobj: permission denied for lookup table %s", name),
				 errdetail("A private query joins only tables you may read (SELECT on the whole table), or the tables on the protected table's foreign-key path."),
				 errhint("Nothing was charged.")));
	/* the sealed query reads it as the protected table's owner */
	if (pg_class_aclcheck(table, domain_table_owner(relid), ACL_SELECT) != ACLCHECK_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("dpobj: the owner of the protected table cannot read lookup table %s", name),
				 errdetail("The run reads the lookup table with the protected table's owner's privileges."),
				 errhint("Nothing was charged.")));
}

/* the table itself: readable by the caller as the owner reads it */
static void
lookups_check_table(Oid relid, Oid table, const char *name)
{
	HeapTuple	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(table));
	Form_pg_class c;
	Oid			schema = InvalidOid;
	Oid			path[DPOBJ_MAX_UNIT_HOPS];
	int			np = linked_path(relid, path, NULL);

	if (!HeapTupleIsValid(tup))
		sqlexpr_refuse("a join of a table that does not exist");
	c = (Form_pg_class) GETSTRUCT(tup);
	if (c->relkind != RELKIND_RELATION)
		sqlexpr_refuse(psprintf("a join of %s, which is not a plain table (a view, materialized view, foreign or partitioned table is no lookup table)",
								name));
	if (c->relrowsecurity)
		sqlexpr_refuse(psprintf("a join of table %s, which has row-level security enabled (the run would read rows you may not)",
								name));
	(void) dpobj_extension_info(NULL, &schema, NULL);
	if (c->relnamespace == schema || IsCatalogRelationOid(table))
		sqlexpr_refuse(psprintf("a join of %s, a table of dpobj's or of the system catalog", name));
	ReleaseSysCache(tup);
	if (table == relid || unitjoin_protected(table))
		sqlexpr_refuse(psprintf("a join of table %s, which dpobj protects and which is not on the protected table's foreign-key path to its privacy unit",
								name));
	lookups_check_privileges(relid, table, name);
	if (has_subclass(table) || has_superclass(table))
		sqlexpr_refuse(psprintf("a join of table %s, which has inheritance children or parents (a partition or an inheritance child is no lookup table)",
								name));
	/* "table.column" names: unique among the path's tables (linkcols.h) */
	for (int i = 0; i < np; i++)
		if (strcmp(get_rel_name(path[i]), get_rel_name(table)) == 0)
			sqlexpr_refuse(psprintf("a join of lookup table %s, whose name a table on the protected table's foreign-key path also has",
									name));
	unitjoin_check_columns(table, name);
}

/* the index's access method */
static Oid
lookups_index_am(Oid index)
{
	HeapTuple	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(index));
	Oid			am;

	if (!HeapTupleIsValid(tup))
		return InvalidOid;
	am = ((Form_pg_class) GETSTRUCT(tup))->relam;
	ReleaseSysCache(tup);
	return am;
}

/* the join's columns of a lookup and their equalities (lookups_index_fits) */
typedef struct LookupKeys
{
	int			nkeys;
	const AttrNumber *key_att;
	const Oid  *ops;
} LookupKeys;

/* key_att[k] among the index's key columns, with its equality's operator family */
static bool
lookups_index_fits(HeapTuple itup, const void *arg)
{
	const LookupKeys *keys = arg;
	int			nkeys = keys->nkeys;
	const AttrNumber *key_att = keys->key_att;
	const Oid  *ops = keys->ops;
	Form_pg_index ix = (Form_pg_index) GETSTRUCT(itup);
	bool		isnull;
	oidvector  *classes;

	if (!ix->indisunique || !ix->indimmediate || !ix->indisvalid ||
		!heap_attisnull(itup, Anum_pg_index_indpred, NULL) ||
		!heap_attisnull(itup, Anum_pg_index_indexprs, NULL))
		return false;
	classes = (oidvector *) DatumGetPointer(SysCacheGetAttr(INDEXRELID, itup, Anum_pg_index_indclass,
															&isnull));
	if (lookups_index_am(ix->indexrelid) != BTREE_AM_OID)
		return false;
	/* every key column joined ... */
	for (int i = 0; i < ix->indnkeyatts; i++)
	{
		bool		joined = false;

		for (int k = 0; k < nkeys; k++)
			joined = joined || key_att[k] == ix->indkey.values[i];
		if (!joined)
			return false;
	}
	/* ... and every joined column a key column, by its family's equality */
	for (int k = 0; k < nkeys; k++)
	{
		bool		fits = false;

		for (int i = 0; i < ix->indnkeyatts && !fits; i++)
			fits = key_att[k] == ix->indkey.values[i] &&
				get_op_opfamily_strategy(ops[k], get_opclass_family(classes->values[i])) ==
				BTEqualStrategyNumber;
		if (!fits)
			return false;
	}
	return true;
}

/* whether some index of table (opened with lock) passes fits(its pg_index row, arg) */
static bool
lookups_some_index(Oid table, LOCKMODE lock, bool (*fits) (HeapTuple itup, const void *arg),
				   const void *arg)
{
	Relation	rel = relation_open(table, lock);
	List	   *indexes = RelationGetIndexList(rel);
	ListCell   *lc;
	bool		found = false;

	relation_close(rel, NoLock);
	foreach(lc, indexes)
	{
		HeapTuple	itup = SearchSysCache1(INDEXRELID, ObjectIdGetDatum(lfirst_oid(lc)));

		if (!HeapTupleIsValid(itup))
			continue;
		found = found || fits(itup, arg);
		ReleaseSysCache(itup);
	}
	return found;
}

/* *arg among a unique index's key columns */
static bool
lookups_index_has_key(HeapTuple itup, const void *arg)
{
	Form_pg_index ix = (Form_pg_index) GETSTRUCT(itup);
	bool		found = false;

	for (int i = 0; ix->indisunique && i < ix->indnkeyatts; i++)
		found = found || ix->indkey.values[i] == *(const AttrNumber *) arg;
	return found;
}

bool
lookups_key_column(Oid table, AttrNumber att)
{
	return lookups_some_index(table, AccessShareLock, lookups_index_has_key, &att);
}

/* the equality of pair k: pg_catalog's "=", no cast, byte-wise on text */
static Oid
lookups_equality(const char *name, Oid own_table, AttrNumber own_att, Oid table, AttrNumber key_att)
{
	Oid			ltype,
				rtype,
				lcoll,
				rcoll,
				op;
	int32		typmod;
	Operator	tup;
	Form_pg_operator f;
	bool		ok;

	get_atttypetypmodcoll(own_table, own_att, &ltype, &typmod, &lcoll);
	get_atttypetypmodcoll(table, key_att, &rtype, &typmod, &rcoll);
	tup = oper(NULL, list_make2(makeString("pg_catalog"), makeString("=")), ltype, rtype, true, -1);
	if (tup == NULL)
		sqlexpr_refuse(psprintf("a join of lookup table %s on columns of types %s and %s, which PostgreSQL's = does not compare",
								name, format_type_be(ltype), format_type_be(rtype)));
	f = (Form_pg_operator) GETSTRUCT(tup);
	op = f->oid;
	ok = sqlexpr_builtin(op) && f->oprresult == BOOLOID &&
		IsBinaryCoercible(ltype, f->oprleft) && IsBinaryCoercible(rtype, f->oprright);
	ReleaseSysCache(tup);
	if (!ok)
		sqlexpr_refuse(psprintf("a join of lookup table %s on columns of types %s and %s, whose equality needs a cast",
								name, format_type_be(ltype), format_type_be(rtype)));
	if ((OidIsValid(lcoll) && !get_collation_isdeterministic(lcoll)) ||
		(OidIsValid(rcoll) && !get_collation_isdeterministic(rcoll)))
		sqlexpr_refuse(psprintf("a join of lookup table %s on a column under a nondeterministic collation",
								name));
	return op;
}

void
lookups_check(Oid relid, Oid table, int nkeys, const Oid *own_table,
			  const AttrNumber *own_att, const AttrNumber *key_att)
{
	char	   *name = get_rel_name(table) ? dp_relation_name(table) : "?";
	Oid			ops[INDEX_MAX_KEYS];

	lookups_check_table(relid, table, name);
	if (nkeys <= 0 || nkeys > INDEX_MAX_KEYS)
		sqlexpr_refuse(psprintf("a join of lookup table %s without equalities on its unique key (a cross join)",
								name));
	for (int k = 0; k < nkeys; k++)
		ops[k] = lookups_equality(name, own_table[k], own_att[k], table, key_att[k]);
	if (!lookups_some_index(table, NoLock, lookups_index_fits,
							&(LookupKeys) {nkeys, key_att, ops}))
		sqlexpr_refuse(psprintf("a join of lookup table %s on columns that are not exactly a unique key of it (a primary key or a unique index, not partial, not deferrable): a row could match several",
								name));
}

/* the string element i of a JSON array, or NULL */
static char *
lookups_string(JsonbContainer *a, int i)
{
	JsonbValue *v = getIthJsonbValueFromContainer(a, i);

	return v && v->type == jbvString ? pnstrdup(v->val.string.val, v->val.string.len) : NULL;
}

void
lookups_check_bounded(Oid table, AttrNumber att)
{
	Oid			t = att > 0 ? getBaseType(get_atttype(table, att)) : InvalidOid;

	if (!(t == INT2OID || t == INT4OID || t == INT8OID || t == FLOAT4OID || t == FLOAT8OID ||
		  t == NUMERICOID))
		sqlexpr_refuse(psprintf("column %s of lookup table %s inside an aggregate, which is not of a numeric type",
								att > 0 ? get_attname(table, att, false) : "?", get_rel_name(table)));
}

/* "bounded": the lookup's columns an aggregate reads, each numeric */
static void
lookups_bounded(LookupJoin *j, JsonbContainer *b)
{
	j->nbounded = JsonContainerSize(b);
	if (j->nbounded > DPOBJ_MAX_LOOKUP_BOUNDED)
		lookups_bad(psprintf("bounds at most %d columns of a table", DPOBJ_MAX_LOOKUP_BOUNDED));
	for (int k = 0; k < j->nbounded; k++)
	{
		if ((j->bounded[k] = lookups_string(b, k)) == NULL)
			lookups_bad("must list column names in \"bounded\"");
		lookups_check_bounded(j->table, get_attnum(j->table, j->bounded[k]));
	}
}

/* one element of "lookups": parsed, locked, checked */
static void
lookups_one(Oid relid, JsonbContainer *o, LookupJoin *j)
{
	JsonbValue *t = getKeyJsonValueFromContainer(o, "table", 5, NULL);
	JsonbValue *l = getKeyJsonValueFromContainer(o, "left", 4, NULL);
	JsonbValue *on = getKeyJsonValueFromContainer(o, "on", 2, NULL);
	JsonbValue *b = getKeyJsonValueFromContainer(o, "bounded", 7, NULL);
	JsonbValue *u = getKeyJsonValueFromContainer(o, "unit", 4, NULL);
	JsonbValue *as = getKeyJsonValueFromContainer(o, "as", 2, NULL);
	Oid			own_table[INDEX_MAX_KEYS];
	AttrNumber	own_att[INDEX_MAX_KEYS];
	AttrNumber	key_att[INDEX_MAX_KEYS];
	int64		oid;

	if (t == NULL || t->type != jbvNumeric || (l != NULL && l->type != jbvBool) ||
		on == NULL || on->type != jbvBinary || !JsonContainerIsArray(on->val.binary.data) ||
		(b != NULL && (b->type != jbvBinary || !JsonContainerIsArray(b->val.binary.data))) ||
		(u != NULL && (u->type != jbvBool || b != NULL)) ||
		(as != NULL && (as->type != jbvString || as->val.string.len < 1 ||
						as->val.string.len >= NAMEDATALEN ||
						memchr(as->val.string.val, '.', as->val.string.len) != NULL)))
		lookups_bad("must list objects with a \"table\" (an OID), \"on\" (an array), \"left\" (a boolean) and \"bounded\" (an array) or \"unit\" (a boolean), optionally \"as\" (a name without a dot)");
	oid = DatumGetInt64(DirectFunctionCall1(numeric_int8, NumericGetDatum(t->val.numeric)));
	if (oid <= 0 || oid > PG_UINT32_MAX)
		lookups_bad("names a table by an OID out of range");
	memset(j, 0, sizeof(*j));
	j->table = (Oid) oid;
	j->left = l != NULL && l->val.boolean;
	j->unit = u != NULL && u->val.boolean;
	j->nkeys = JsonContainerSize(on->val.binary.data);
	if (j->nkeys < 1 || j->nkeys > INDEX_MAX_KEYS)
		lookups_bad(psprintf("needs 1 to %d equalities per table", INDEX_MAX_KEYS));
	/* the caller's privilege before the lock: no lock on a table it may not read */
	if (!SearchSysCacheExists1(RELOID, ObjectIdGetDatum(j->table)))
		sqlexpr_refuse("a join of a table that does not exist");
	j->name = as != NULL ? pnstrdup(as->val.string.val, as->val.string.len) : get_rel_name(j->table);
	if (j->unit ? !unitjoin_protected(j->table) :
		pg_class_aclcheck(j->table, GetUserId(), ACL_SELECT) != ACLCHECK_OK)
		lookups_check_table(relid, j->table, dp_relation_name(j->table));
	LockRelationOid(j->table, AccessShareLock);
	for (int k = 0; k < j->nkeys; k++)
	{
		JsonbValue *p = getIthJsonbValueFromContainer(on->val.binary.data, k);
		const char *own;

		if (p == NULL || p->type != jbvBinary || !JsonContainerIsArray(p->val.binary.data) ||
			JsonContainerSize(p->val.binary.data) != 2 ||
			(j->own[k] = lookups_string(p->val.binary.data, 0)) == NULL ||
			(j->key[k] = lookups_string(p->val.binary.data, 1)) == NULL)
			lookups_bad("must pair two column names in each equality");
		(void) linked_column(relid, j->own[k], &own_table[k], &own);
		own_att[k] = get_attnum(own_table[k], own);
		key_att[k] = get_attnum(j->table, j->key[k]);
		if (own_att[k] <= 0 || key_att[k] <= 0)
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_COLUMN),
					 errmsg("dpobj: column \"%s\" of a join in option \"lookups\" does not exist",
							own_att[k] <= 0 ? j->own[k] : j->key[k])));
	}
	if (j->unit)
		unitjoin_check(relid, j->table, j->nkeys, own_table, own_att, key_att);
	else
	{
		/*
		 * on Citus only a reference table (a copy on every node), joined to
		 * a distributed table in each shard task
		 */
		if (dp_citus_table(relid) ? !dp_citus_reference_table(j->table) : dp_citus_table(j->table))
			sqlexpr_refuse(psprintf("a join of lookup table %s, on Citus a reference table joined to a distributed table only",
									dp_relation_name(j->table)));
		lookups_check(relid, j->table, j->nkeys, own_table, own_att, key_att);
	}
	if (b != NULL)
		lookups_bounded(j, b->val.binary.data);
}

/* a lookup's other name ("as") is not the protected table's nor a path table's: its columns resolve to it */
static void
lookups_check_name(Oid relid, const char *name)
{
	Oid			path[DPOBJ_MAX_UNIT_HOPS];
	int			np = linked_path(relid, path, NULL);

	for (int h = -1; h < np; h++)
		if (strcmp(get_rel_name(h < 0 ? relid : path[h]), name) == 0)
			sqlexpr_refuse(psprintf("a lookup table named %s as the protected table or a table on its path",
									name));
}

void
lookups_prepare(Oid relid, Jsonb *options, bool allowed)
{
	JsonbValue *v = options != NULL && JB_ROOT_IS_OBJECT(options) && !JB_ROOT_IS_SCALAR(options) ?
		getKeyJsonValueFromContainer(&options->root, "lookups", 7, NULL) : NULL;
	LookupJoin	j[DPOBJ_MAX_LOOKUPS];
	int			n;
	int			nunit = 0;

	/* the request's own: nothing of an earlier one resolves a name below */
	lookup_joins_set(relid, NULL, 0);
	if (v == NULL)
		return;
	if (!allowed)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the option \"lookups\" is dpobj.aggregate()'s")));
	if (v->type != jbvBinary || !JsonContainerIsArray(v->val.binary.data))
		lookups_bad("must be an array");
	n = JsonContainerSize(v->val.binary.data);
	if (n < 1 || n > DPOBJ_MAX_LOOKUPS)
		sqlexpr_refuse(psprintf("joins of more than %d lookup tables and tables joined on the privacy unit",
								DPOBJ_MAX_LOOKUPS));
	for (int i = 0; i < n; i++)
	{
		JsonbValue *e = getIthJsonbValueFromContainer(v->val.binary.data, i);

		if (e == NULL || e->type != jbvBinary || !JsonContainerIsObject(e->val.binary.data))
			lookups_bad("must list objects");
		/* the earlier lookups' columns resolve: a lookup may join on one (lookups_sql) */
		lookup_joins_set(relid, j, i);
		lookups_one(relid, e->val.binary.data, &j[i]);
		for (int k = 0; k < j[i].nkeys; k++)
		{
			Oid			t;
			const char *c;

			(void) linked_column(relid, j[i].own[k], &t, &c);
			for (int m = 0; m < i; m++)
				if (t == j[m].table && (j[m].unit || j[i].unit))
					sqlexpr_refuse("a join of a protected table on another joined table's column (join each to the first table in FROM on its privacy unit)");
		}
		if (j[i].unit && ++nunit > DPOBJ_MAX_UNIT_JOINS)
			sqlexpr_refuse(psprintf("joins of more than %d other protected tables on the privacy unit",
									DPOBJ_MAX_UNIT_JOINS));
		for (int k = 0; k < i; k++)
			if (strcmp(j[k].name, j[i].name) == 0 ||
				(j[k].table == j[i].table && (j[k].unit || j[i].unit)))
				sqlexpr_refuse(psprintf("a join of two tables named %s (or of one table twice)",
										j[i].name));
		if (strcmp(j[i].name, get_rel_name(j[i].table)) != 0)
			lookups_check_name(relid, j[i].name);
	}
	lookup_joins_set(relid, j, n);
}

/* a lookup column the run offers: a built-in type's (its output and comparisons PostgreSQL's) */
static bool
lookups_offered(Form_pg_attribute att)
{
	return !att->attisdropped && sqlexpr_builtin(getBaseType(att->atttypid));
}

int
lookups_sql(Oid relid, StringInfo cols, StringInfo joins, Oid *tables)
{
	const LookupJoin *j;
	int			n = lookup_joins_get(relid, &j);
	Oid			path[DPOBJ_MAX_UNIT_HOPS];
	int			np = linked_path(relid, path, NULL);

	for (int i = 0; i < n; i++)
	{
		char	   *alias = psprintf("\"dpobj lookup %d\"", i + 1);
		Relation	r = relation_open(j[i].table, NoLock);
		TupleDesc	desc = RelationGetDescr(r);

		appendStringInfo(joins, " %sJOIN ONLY %s AS %s ON ", j[i].left ? "LEFT " : "",
						 dp_relation_name(j[i].table), alias);
		for (int k = 0; k < j[i].nkeys; k++)
		{
			Oid			t;
			const char *own;
			int			at = 0;

			int			m = -1;

			(void) linked_column(relid, j[i].own[k], &t, &own);
			for (int h = 0; h < np; h++)
				if (path[h] == t)
					at = h + 1;
			/* an earlier lookup's column (lookups_prepare): that lookup's alias */
			if (at == 0 && t != relid)
				m = lookup_joins_column(relid, j[i].own[k], &t, &own);
			appendStringInfo(joins, "%s%s.%s%s OPERATOR(pg_catalog.=) %s.%s", k > 0 ? " AND " : "",
							 m >= 0 ? psprintf("\"dpobj lookup %d\"", m + 1) : unit_links_alias(at),
							 quote_identifier(own),
							 type_is_collatable(get_atttype(t, get_attnum(t, own))) ?
							 " COLLATE pg_catalog.\"C\"" : "",
							 alias, quote_identifier(j[i].key[k]));
		}
		for (int a = 0; a < desc->natts; a++)
		{
			Form_pg_attribute att = TupleDescAttr(desc, a);
			char	   *name = psprintf("%s.%s", j[i].name, NameStr(att->attname));

			if (lookups_offered(att) && strlen(name) < NAMEDATALEN)
				appendStringInfo(cols, ", %s.%s AS %s", alias,
								 quote_identifier(NameStr(att->attname)), quote_identifier(name));
		}
		relation_close(r, NoLock);
		tables[i] = j[i].table;
	}
	return n;
}

void
lookups_levels(StringInfo js, Oid table, const char *column, const char *name)
{
	const char *col = quote_identifier(column);
	char	   *sql = psprintf("SELECT DISTINCT %s::pg_catalog.text COLLATE pg_catalog.\"C\" FROM ONLY %s"
							   " WHERE %s IS NOT NULL ORDER BY 1 LIMIT %d",
							   col, dp_relation_name(table), col, DPOBJ_MAX_LEVELS + 1);

	if (!sqlexpr_builtin(getBaseType(get_atttype(table, get_attnum(table, column)))))
		sqlexpr_refuse(psprintf("grouping by lookup column %s, whose type is not PostgreSQL's own", name));
	if (SPI_execute(sql, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "dpobj: lookup levels failed");
	if (SPI_processed > DPOBJ_MAX_LEVELS || SPI_processed == 0)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("dpobj: lookup column %s has %s distinct values: a group column has 1 to %d",
						name, SPI_processed == 0 ? "no" : "more", DPOBJ_MAX_LEVELS),
				 errdetail("Nothing was charged.")));
	appendStringInfoString(js, "{\"column\": ");
	escape_json(js, name);
	appendStringInfoString(js, ", \"levels\": [");
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		char	   *level = SPI_getvalue(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1);

		/* as a declared level (domains.c) */
		if (strlen(level) > DPOBJ_MAX_LEVEL_BYTES)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("dpobj: lookup column %s has a value longer than %d bytes: a group column's are category names",
							name, DPOBJ_MAX_LEVEL_BYTES),
					 errdetail("Nothing was charged.")));
		if (i > 0)
			appendStringInfoString(js, ", ");
		escape_json(js, level);
	}
	appendStringInfoString(js, "]}");
}

void
lookups_bounds(StringInfo js, Oid table, const char *column, const char *name)
{
	const char *col = quote_identifier(column);
	char	   *sql = psprintf("SELECT pg_catalog.min(%s)::pg_catalog.float8, pg_catalog.max(%s)::pg_catalog.float8"
							   " FROM ONLY %s", col, col, dp_relation_name(table));
	bool		lonull,
				hinull;
	double		lo,
				hi;

	if (SPI_execute(sql, true, 0) != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "dpobj: lookup bounds failed");
	lo = DatumGetFloat8(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &lonull));
	hi = DatumGetFloat8(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &hinull));
	if (lonull || hinull || !isfinite(lo) || !isfinite(hi))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("dpobj: lookup column %s has no finite least and greatest values to bound an aggregate",
						name),
				 errdetail("Nothing was charged.")));
	/* one value: any interval holding it */
	if (hi <= lo)
		hi = lo + 1;
	appendStringInfoString(js, "{\"column\": ");
	escape_json(js, name);
	appendStringInfo(js, ", \"lo\": %.17g, \"hi\": %.17g}", lo, hi);
}
