/*-------------------------------------------------------------------------
 *
 * synthesize.c
 *	  dpobj.synthesize(table, target, epsilon, delta, columns, options): a
 *	  private synthetic copy of a protected table's declared columns
 *	  (docs/REFERENCE.md, "synthesize"; docs/PRIVACY.md, "Synthetic data").
 *
 * Order of work:
 *	  1. public checks only, nothing charged: a transaction that can write
 *	     (the target and the model are written after the charge); the table
 *	     protected and a budget on it (runaccess.h), before anything that
 *	     reads a declaration; the columns exist (on a linked table a path
 *	     table's "table.column" too, linkcols.h: the target's column keeps
 *	     that name), all have declared domains
 *	     (a refusal names every one without) that fit their current types
 *	     (domainfit.h); the options; the target's schema lets the caller
 *	     create it there (its default tablespace and access method too),
 *	     and no relation or type takes its name -- checked again under the
 *	     budget's run lock and the target name's lock, so that of two calls
 *	     naming one target the second is refused here, not at CREATE TABLE
 *	     after its charge;
 *	  2. the sealed path with the mechanism 'synthesize' (sealedrun.h):
 *	     charged once before the first row, one scan into the marginal
 *	     counts, the rounds, the model released and stored by name;
 *	  3. post-processing as the caller (this function is SECURITY INVOKER
 *	     and the sealed path has ended): the target created, owned by the
 *	     caller, and filled by dpobj.sample_into(model, target, n) (rows
 *	     drawn and written in batches, as COPY FROM), n the model's noisy
 *	     row count unless options "rows" fixes it.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "access/tableam.h"
#include "catalog/namespace.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_attribute.h"
#include "catalog/pg_authid.h"
#include "catalog/pg_class.h"
#include "catalog/pg_tablespace.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "commands/tablespace.h"
#include "common/hashfn.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/inval.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/json.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/regproc.h"
#include "utils/syscache.h"
#include "utils/varlena.h"

#include "base/dpobj.h"
#include "base/pg_compat.h"
#include "base/privileged.h"
#include "base/options.h"
#include "context/linkcols.h"
#include "context/protected.h"
#include "context/sealedrun.h"
#include "context/trainquery.h"
#include "model/model.h"
#include "model/kinds.h"
#include "protected/domainfit.h"
#include "protected/domains.h"
#include "protected/entryargs.h"
#include "protected/protectable.h"
#include "protected/runaccess.h"
#include "protected/spiplans.h"
#include "protected/synthesize.h"
#include "protected/train.h"

PG_FUNCTION_INFO_V1(dpobj_synthesize);

/* the most rows options "rows" may ask for (dpobj.sample() draws in batches) */
#define SYNTHESIZE_MAX_ROWS		INT64CONST(1000000000)

/* advisory tag class of a target name's lock (models.c has 0x4453) */
#define SYNTHESIZE_TARGET_LOCK_CLASS	0x4454

typedef struct SynthCall
{
	Oid			relid;
	char	   *relation;
	char	  **cols;
	int			ncols;
	Jsonb	   *enc;
	Jsonb	   *options;		/* for the mechanism */
	int64		rows;			/* options "rows", or 0: the noisy count */
	char	   *model_name;
	char	   *target;			/* quoted, schema-qualified */
	char	   *target_name;	/* as the result shows it */
	Oid			target_nsp;
	char	   *target_rel;		/* the new table's name in it */
	char	   *create_sql;		/* the target's CREATE TABLE */
	char	   *select_sql;		/* the casts of its rows (planned, not run) */
	char	   *undeclared;		/* columns NULL: the table's columns left out, or NULL */
} SynthCall;

static pg_noreturn void
synthesize_bad(const char *msg, const char *hint)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("dpobj.synthesize: %s", msg),
			 errhint("%s", hint)));
}

/*
 * The declared columns of relid in column order (catalog, as the bootstrap
 * superuser); *undeclared the others ("a, b"), or NULL
 */
static char **
synthesize_declared(Oid relid, int *n, char **undeclared)
{
	MemoryContext cxt = CurrentMemoryContext;
	RoleSwitch	rs;
	char	  **cols;
	StringInfoData left;

	initStringInfo(&left);		/* in the caller's context: read after SPI_finish */
	SPI_connect();
	role_switch_begin(&rs, BOOTSTRAP_SUPERUSERID, false);
	if (dp_spi_run("SELECT a.attname::pg_catalog.text, f.column_name IS NOT NULL"
				   " FROM pg_catalog.pg_attribute a LEFT JOIN dpobj.feature_domains f"
				   " ON f.relid OPERATOR(pg_catalog.=) a.attrelid"
				   " AND f.column_name OPERATOR(pg_catalog.=) a.attname"
				   " WHERE a.attrelid OPERATOR(pg_catalog.=) $1 AND a.attnum OPERATOR(pg_catalog.>) 0"
				   " AND NOT a.attisdropped ORDER BY a.attnum", 1, (Oid[]) {OIDOID},
				   (Datum[]) {ObjectIdGetDatum(relid)}, NULL, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "dpobj.synthesize: feature domain lookup failed");
	role_switch_end(&rs);
	*n = 0;
	cols = MemoryContextAlloc(cxt, sizeof(char *) * Max(SPI_processed, 1));
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		char	   *name = SPI_getvalue(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1);

		if (strcmp(SPI_getvalue(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 2), "t") == 0)
			cols[(*n)++] = MemoryContextStrdup(cxt, name);
		else
			appendStringInfo(&left, "%s%s", left.len ? ", " : "", quote_identifier(name));
	}
	SPI_finish();
	*undeclared = left.len > 0 ? left.data : NULL;
	return cols;
}

/* the columns (NULL, or a job's empty array: every declared one), each with a declared domain */
static void
synthesize_columns(ArrayType *a, SynthCall *c)
{
	char	   *missing;

	if (a == NULL || (ARR_NDIM(a) == 0 && ARR_ELEMTYPE(a) == TEXTOID))
	{
		c->cols = synthesize_declared(c->relid, &c->ncols, &c->undeclared);
		if (c->ncols == 0)
			synthesize_bad(psprintf("table %s has no column with a declared domain", c->relation),
						   "Its owner declares the domains (dpobj.declare_domain: levels, or bounds lo and hi).");
	}
	else
	{
		Datum	   *d;
		bool	   *nulls;

		if (ARR_NDIM(a) != 1 || ARR_ELEMTYPE(a) != TEXTOID)
			synthesize_bad("columns must be a one-dimensional text array",
						   "For example ARRAY['age', 'sex'], or NULL for every declared column.");
		deconstruct_array(a, TEXTOID, -1, false, TYPALIGN_INT, &d, &nulls, &c->ncols);
		if (c->ncols == 0)
			synthesize_bad("columns must name at least one column",
						   "For example ARRAY['age', 'sex'], or NULL for every declared column.");
		c->cols = palloc(sizeof(char *) * c->ncols);
		for (int i = 0; i < c->ncols; i++)
		{
			if (nulls[i])
				synthesize_bad("column names must not be NULL", "For example ARRAY['age', 'sex'].");
			c->cols[i] = TextDatumGetCString(d[i]);
			for (int j = 0; j < i; j++)
				if (strcmp(c->cols[i], c->cols[j]) == 0)
					synthesize_bad(psprintf("column \"%s\" is named twice", c->cols[i]),
								   "Name each column once.");
		}
	}
	train_query_check_columns(c->relid, c->relation, c->cols, c->ncols, NULL, NULL);
	missing = domains_undeclared(c->relid, c->cols, c->ncols);
	if (missing != NULL)
	{
		Oid			path[DPOBJ_MAX_UNIT_HOPS];

		/* on a linked table a "table.column" is declared on its path table */
		bool		linked = linked_path(c->relid, path, NULL) > 0;

		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("dpobj.synthesize: columns of table %s without a declared domain: %s",
						c->relation, missing),
				 errdetail("Nothing was charged."),
				 linked ?
				 errhint("The owner of the table holding each declares it (dpobj.declare_domain(table, column, levels) or (..., lo, hi); \"t.col\" on table t), or leave out %s.",
						 missing) :
				 errhint("Its owner declares them (dpobj.declare_domain(%s, column, levels) or (..., lo, hi)), or leave out %s.",
						 quote_literal_cstr(c->relation), missing)));
	}
	c->enc = domains_encoding(c->relid, c->relation, c->cols, c->ncols, DOMAINS_REQUIRED);
	/* the synthetic values are written into columns of the current types */
	domainfit_check_run(c->relid, c->enc, "dpobj.synthesize");
}

/* options "rows": a whole number of rows, 1 to SYNTHESIZE_MAX_ROWS */
static int64
synthesize_rows_option(JsonbValue *v)
{
	double		f;

	if (v->type != jbvNumeric)
		synthesize_bad("option \"rows\" must be a number", "For example {\"rows\": 10000}.");
	f = DatumGetFloat8(DirectFunctionCall1(numeric_float8_no_overflow,
										   NumericGetDatum(v->val.numeric)));
	if (!(f >= 1 && f <= (double) SYNTHESIZE_MAX_ROWS) || f != floor(f))
		synthesize_bad("option \"rows\" must be a whole number from 1 to 1000000000",
					   "Omit it for the model's noisy row count.");
	return (int64) f;
}

/* options without key */
static Jsonb *
synthesize_without(Jsonb *options, const char *key)
{
	return DatumGetJsonbP(DirectFunctionCall2(jsonb_delete, JsonbPGetDatum(options),
											  CStringGetTextDatum(key)));
}

/*
 * Column i's catalog row: the table's own column, or on a linked table a
 * path table's "table.column" (linkcols.h); the columns were checked to exist
 */
static Form_pg_attribute
synthesize_attr(const SynthCall *c, int i, FormData_pg_attribute *att)
{
	HeapTuple	tup = linked_column_tuple(c->relid, c->cols[i]);

	if (!HeapTupleIsValid(tup))
		elog(ERROR, "dpobj.synthesize: column \"%s\" not found", c->cols[i]);
	memcpy(att, GETSTRUCT(tup), ATTRIBUTE_FIXED_PART_SIZE);
	ReleaseSysCache(tup);
	return att;
}

/* column i's type is an integer type and its domain bounds (not levels) */
static bool
synthesize_is_integer(const SynthCall *c, int i)
{
	FormData_pg_attribute a;
	JsonbValue *e = getIthJsonbValueFromContainer(&c->enc->root, i);

	return domainfit_integer(synthesize_attr(c, i, &a)->atttypid) &&
		getKeyJsonValueFromContainer(e->val.binary.data, "levels", 6, NULL) == NULL;
}

/* column i is NOT NULL (catalog) or its levels are declared complete: both public */
static bool
synthesize_is_not_null(const SynthCall *c, int i)
{
	FormData_pg_attribute a;
	Oid			table;
	const char *column;

	(void) linked_column(c->relid, c->cols[i], &table, &column);
	return synthesize_attr(c, i, &a)->attnotnull || domains_complete(table, column);
}

/*
 * Options with {"key": [...]}, the columns that are(c, i), when one is:
 * added when options have no key, appended when its value is an array
 * ("union"), else options as they are (a value of another type is refused
 * with the options' checks)
 */
static Jsonb *
synthesize_add_columns(Jsonb *options, const SynthCall *c, const char *key,
					   bool (*are) (const SynthCall *c, int i), bool with_union)
{
	StringInfoData b;
	bool		any = false;
	JsonbValue *v = getKeyJsonValueFromContainer(&options->root, key, strlen(key), NULL);
	Jsonb	   *given = v != NULL ? JsonbValueToJsonb(v) : NULL;
	Jsonb	   *cols;

	if (given != NULL && !(with_union && JB_ROOT_IS_ARRAY(given) && !JB_ROOT_IS_SCALAR(given)))
		return options;
	initStringInfo(&b);
	appendStringInfoChar(&b, '[');
	for (int i = 0; i < c->ncols; i++)
		if (are(c, i))
		{
			appendStringInfoString(&b, any ? ", " : "");
			escape_json(&b, c->cols[i]);
			any = true;
		}
	appendStringInfoChar(&b, ']');
	if (!any)
		return options;
	cols = DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(b.data)));
	if (given != NULL)
		cols = DatumGetJsonbP(DirectFunctionCall2(jsonb_concat, JsonbPGetDatum(given),
												  JsonbPGetDatum(cols)));
	return DatumGetJsonbP(DirectFunctionCall2(jsonb_concat, JsonbPGetDatum(options),
											  DirectFunctionCall1(jsonb_in, CStringGetDatum(
												  psprintf("{\"%s\": %s}", key,
														   JsonbToCString(NULL, &cols->root, VARSIZE(cols)))))));
}

/*
 * argument 6: "rows" and "model_name" are synthesize()'s, "domains" and
 * "encoding" the declarations'; the rest goes to the mechanism with the
 * encoding (validated there, before the charge)
 */
static void
synthesize_options(Jsonb *options, SynthCall *c)
{
	JsonbValue *v;
	JsonbValue	dv;

	if (!JB_ROOT_IS_OBJECT(options) || JB_ROOT_IS_SCALAR(options))
		synthesize_bad("options must be a JSON object", "For example '{\"rows\": 10000}'.");
	if (getKeyJsonValueFromContainer(&options->root, "domains", 7, NULL) != NULL ||
		getKeyJsonValueFromContainer(&options->root, "encoding", 8, NULL) != NULL)
		synthesize_bad("options \"domains\" and \"encoding\" cannot be set",
					   "The domains are the table's declarations (dpobj.declare_domain).");
	c->rows = 0;
	if ((v = getKeyJsonValueFromContainer(&options->root, "rows", 4, NULL)) != NULL)
		c->rows = synthesize_rows_option(v);
	if ((v = getKeyJsonValueFromContainer(&options->root, "model_name", 10, NULL)) != NULL)
	{
		if (v->type != jbvString)
			synthesize_bad("option \"model_name\" must be a string",
						   "The synthesizer's model is stored under it (default: the target's name).");
		c->model_name = pnstrdup(v->val.string.val, v->val.string.len);
	}
	options = synthesize_without(synthesize_without(options, "rows"), "model_name");
	/* integer types drawn as integers; NOT NULL and complete columns without NULL or "other" */
	options = synthesize_add_columns(options, c, "integer", synthesize_is_integer, false);
	options = synthesize_add_columns(options, c, "not_null", synthesize_is_not_null, true);
	/* the mechanism's "domains": the encoding, which the run gets itself */
	JsonbToJsonbValue(c->enc, &dv);
	c->options = dp_options_put(options, "domains", &dv);
}

/*
 * No relation and no type of the target's name in its schema: CREATE TABLE
 * makes a row type of the same name, so a type (a domain, an enum, any
 * role's with CREATE on the schema) takes the name as a table does
 */
static void
synthesize_target_free(const SynthCall *c)
{
	const char *what = NULL;

	if (OidIsValid(get_relname_relid(c->target_rel, c->target_nsp)))
		what = "relation";
	else if (OidIsValid(GetSysCacheOid2(TYPENAMENSP, Anum_pg_type_oid,
										CStringGetDatum(c->target_rel),
										ObjectIdGetDatum(c->target_nsp))))
		what = "type";
	if (what != NULL)
		ereport(ERROR,
				(errcode(what[0] == 'r' ? ERRCODE_DUPLICATE_TABLE : ERRCODE_DUPLICATE_OBJECT),
				 errmsg("dpobj.synthesize: %s %s already exists", what, c->target_name),
				 errdetail("Nothing was charged."),
				 errhint("Name a new table, or drop the old one first.")));
}

/*
 * CREATE TABLE's checks of the caller's settings (DefineRelation): its
 * default_table_access_method exists; its default_tablespace, unless the
 * database's, needs CREATE and is never pg_global.  A temporary table
 * takes temp_tablespaces, whose entries without CREATE are skipped.
 */
static void
synthesize_storage(Oid nsp)
{
	Oid			ts;

	if (!OidIsValid(get_table_am_oid(default_table_access_method, true)))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("dpobj.synthesize: table access method \"%s\" (default_table_access_method) does not exist",
						default_table_access_method),
				 errdetail("Nothing was charged."),
				 errhint("Set default_table_access_method to an existing one, e.g. heap.")));
	if (isTempNamespace(nsp))
		return;
	ts = GetDefaultTablespace(RELPERSISTENCE_PERMANENT, false);
	if (OidIsValid(ts) &&
		(ts == GLOBALTABLESPACE_OID ||
		 compat_tablespace_aclcheck(ts, GetUserId(), ACL_CREATE) != ACLCHECK_OK))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("dpobj.synthesize: permission denied to create the target in tablespace %s (default_tablespace)",
						quote_identifier(get_tablespace_name(ts))),
				 errdetail("Nothing was charged."),
				 errhint("Set default_tablespace to a tablespace where you have CREATE, or to '' for the database's.")));
}

/*
 * Before the charge, once the budget's run lock is held (train.h): the
 * target's schema against DROP SCHEMA, and the target's name against
 * another dpobj.synthesize() naming it, both to the end of the
 * transaction; then the name is checked again, with what a call that held
 * it committed.  A hash collision of two names only makes one call wait.
 */
static void
synthesize_claim_target(const SynthCall *c)
{
	LOCKTAG		tag;

	train_lock_budget(c->relid);
	LockDatabaseObject(NamespaceRelationId, c->target_nsp, 0, AccessShareLock);
	SET_LOCKTAG_ADVISORY(tag, MyDatabaseId, c->target_nsp,
						 hash_bytes((const unsigned char *) c->target_rel,
									(int) strlen(c->target_rel)),
						 SYNTHESIZE_TARGET_LOCK_CLASS);
	(void) LockAcquire(&tag, ExclusiveLock, false, false);
	AcceptInvalidationMessages();
	if (!SearchSysCacheExists1(NAMESPACEOID, ObjectIdGetDatum(c->target_nsp)))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_SCHEMA),
				 errmsg("dpobj.synthesize: the target's schema was dropped"),
				 errdetail("Nothing was charged.")));
	synthesize_target_free(c);
}

/*
 * argument 2: the target, schema.table, a new table in a schema where the
 * caller has CREATE (checked as the caller: this function is SECURITY INVOKER)
 */
static void
synthesize_target(text *target, SynthCall *c)
{
	RangeVar   *rv = makeRangeVarFromNameList(textToQualifiedNameList(target));
	Oid			nsp;
	char	   *nspname;

	/* search_path is pinned (pg_catalog, pg_temp): the caller names the schema */
	if (rv->catalogname != NULL || rv->schemaname == NULL)
		synthesize_bad("the target must be schema.table",
					   "For example 'analytics.people_syn', or 'pg_temp.people_syn' for a temporary table.");
	nsp = RangeVarGetCreationNamespace(rv);
	nspname = get_namespace_name(nsp);
	if (compat_namespace_aclcheck(nsp, GetUserId(), ACL_CREATE) != ACLCHECK_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("dpobj.synthesize: permission denied to create table %s in schema %s",
						quote_identifier(rv->relname), quote_identifier(nspname)),
				 errdetail("Nothing was charged."),
				 errhint("Name a target in a schema where you have CREATE.")));
	c->target_nsp = nsp;
	c->target_rel = rv->relname;
	c->target = quote_qualified_identifier(isTempNamespace(nsp) ? "pg_temp" : nspname,
										   rv->relname);
	c->target_name = quote_qualified_identifier(nspname, rv->relname);
	synthesize_storage(nsp);
	synthesize_target_free(c);
	if (c->model_name == NULL)
		c->model_name = pstrdup(rv->relname);
}

/* the run's request: (rel, 'synthesize', columns, epsilon, delta, options, name) */
static void
synthesize_request(DPRunRequest *req, const SynthCall *c, Numeric epsilon, Numeric delta)
{
	memset(req, 0, sizeof(*req));
	req->relid = c->relid;
	req->mechanism = "synthesize";
	req->own_entry = true;
	req->columns = dp_run_columns(c->cols, c->ncols);
	/* the label is unused ('synthesize' has none) */
	req->label = c->cols[0];
	req->epsilon = epsilon;
	req->delta = delta;
	req->options = c->options;
	req->encoding = c->enc;
	req->model_name = c->model_name;
}

/*
 * The target's CREATE TABLE (the columns with the source's types) and the
 * casts that dpobj.sample_into() applies to its rows (a level's text, a
 * number's float8, to the column's type), made and checked as the caller
 * before the charge: USAGE on every type (CREATE TABLE needs it), and a
 * SELECT of those casts over dpobj.sample()'s rows planned (not run), so
 * that writing the released rows fails on no public ground after the charge
 * and every cache it needs is loaded before the scan.
 */
static void
synthesize_statements(SynthCall *c)
{
	StringInfoData create,
				select;

	initStringInfo(&create);
	initStringInfo(&select);
	appendStringInfo(&create, "CREATE TABLE %s (", c->target);
	appendStringInfoString(&select, "SELECT ");
	for (int i = 0; i < c->ncols; i++)
	{
		FormData_pg_attribute a;
		Oid			typ = synthesize_attr(c, i, &a)->atttypid;
		char	   *type = format_type_with_typemod(typ, a.atttypmod);
		JsonbValue *e = getIthJsonbValueFromContainer(&c->enc->root, i);
		bool		levels = getKeyJsonValueFromContainer(e->val.binary.data, "levels", 6, NULL) != NULL;

		if (compat_type_aclcheck(typ, GetUserId(), ACL_USAGE) != ACLCHECK_OK)
			ereport(ERROR,
					(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
					 errmsg("dpobj.synthesize: permission denied for type %s of column \"%s\"",
							type, c->cols[i]),
					 errdetail("Nothing was charged."),
					 errhint("The type's owner grants USAGE on it, or leave out the column.")));
		appendStringInfo(&create, "%s%s %s", i ? ", " : "", quote_identifier(c->cols[i]), type);
		/* a level is the column's own text; a binned value a float8, cast as a column of the type */
		appendStringInfo(&select, "%s(s.r OPERATOR(pg_catalog.->>) %s)%s::%s", i ? ", " : "",
						 quote_literal_cstr(c->cols[i]), levels ? "" : "::pg_catalog.float8", type);
	}
	appendStringInfoChar(&create, ')');
	appendStringInfoString(&select, " FROM dpobj.sample($1, $2) AS s(r)");
	c->create_sql = create.data;
	c->select_sql = select.data;
	SPI_connect();
	if (SPI_prepare(c->select_sql, 2, (Oid[]) {model_type_oid(), INT8OID}) == NULL)
		elog(ERROR, "dpobj.synthesize: the target's rows cannot be planned");
	SPI_finish();
}

/* a failure after the charge (post-processing: no row is read here) */
static pg_noreturn void
synthesize_failed_after_charge(const char *msg)
{
	ereport(ERROR,
			(errcode(ERRCODE_DPOBJ_PROTECTED_FAILURE),
			 errmsg("dpobj.synthesize: %s", msg),
			 errdetail("The privacy budget of this run was charged."),
			 errhint("A retry is charged again.")));
}

/* after the run, public facts only: the columns kept, those left out and why, the model */
static void
synthesize_kept(const SynthCall *c)
{
	StringInfoData kept;

	initStringInfo(&kept);
	for (int i = 0; i < c->ncols; i++)
		appendStringInfo(&kept, "%s%s", i ? ", " : "", quote_identifier(c->cols[i]));
	ereport(NOTICE,
			(errmsg("dpobj.synthesize: %s holds columns %s%s%s",
					c->target_name, kept.data,
					c->undeclared ? "; left out (no declared domain): " : "",
					c->undeclared ? c->undeclared : ""),
			 errhint("dpobj.synth_fidelity(%s) and dpobj.marginal(%s, columns) describe its model, at no charge.",
					 quote_literal_cstr(c->model_name), quote_literal_cstr(c->model_name))));
}

/* CREATE TABLE target (made before the charge), then dpobj.sample_into() writes the rows */
static void
synthesize_write(const SynthCall *c, Datum model, int64 n)
{
	SPI_connect();
	if (SPI_execute(c->create_sql, false, 0) != SPI_OK_UTILITY)
		synthesize_failed_after_charge("creating the target failed");
	if (SPI_execute_with_args("SELECT dpobj.sample_into($1, $2, $3)", 3,
							  (Oid[]) {model_type_oid(), REGCLASSOID, INT8OID},
							  (Datum[]) {model,
								  ObjectIdGetDatum(get_relname_relid(c->target_rel, c->target_nsp)),
							  Int64GetDatum(n)}, NULL, false, 0) != SPI_OK_SELECT)
		synthesize_failed_after_charge("writing the synthetic rows failed");
	SPI_finish();
	synthesize_kept(c);
}

/* every public check of a run on relid, before any charge */
static void
synthesize_prepare(Oid relid, text *target, ArrayType *columns, Jsonb *options, SynthCall *c)
{
	char		relkind;

	memset(c, 0, sizeof(*c));
	c->relid = relid;
	c->relation = dp_lock_relation(c->relid, &relkind);
	dpobj_check_protectable(c->relid, c->relation);
	run_check_access(c->relid, c->relation);
	synthesize_columns(columns, c);
	synthesize_options(options, c);
	synthesize_target(target, c);
	synthesize_statements(c);
	/* the checks passed: what the run leaves out (public: the catalog) */
	if (c->undeclared != NULL)
		ereport(NOTICE,
				(errmsg("dpobj.synthesize: columns of table %s without a declared domain are left out: %s",
						c->relation, c->undeclared),
				 errhint("Its owner declares a column's domain (dpobj.declare_domain) to synthesize it.")));
}

/*
 * dpobj.submit(rel, 'synthesize', columns, label, epsilon, delta, options):
 * options "target" names the table the job creates; synthesize()'s checks
 * and train()'s budget pre-check, nothing charged (jobs.c queues the row).
 */
void
synthesize_check_job(FunctionCallInfo fcinfo)
{
	DPRunRequest req;
	SynthCall	c;
	Jsonb	   *options = PG_GETARG_JSONB_P(6);
	JsonbValue *t = getKeyJsonValueFromContainer(&options->root, "target", 6, NULL);

	if (t == NULL || t->type != jbvString)
		synthesize_bad("a synthesize job needs options \"target\": \"schema.table\"",
					   "For example '{\"target\": \"analytics.people_syn\"}'.");
	if (PG_NARGS() > 7 && !PG_ARGISNULL(7))
		synthesize_bad("a synthesize job takes its model name from options \"model_name\"",
					   "Pass model_name => NULL (the default: the target's name).");
	synthesize_prepare(PG_GETARG_OID(0), cstring_to_text_with_len(t->val.string.val, t->val.string.len),
					   PG_GETARG_ARRAYTYPE_P(2), synthesize_without(options, "target"), &c);
	synthesize_request(&req, &c, PG_GETARG_NUMERIC(4), PG_GETARG_NUMERIC(5));
	dp_sealed_check(&req);
}

/* the model's noisy row count, rounded (post-processing; at least 1 by construction) */
static int64
synthesize_model_rows(Datum model)
{
	Jsonb	   *params = model_params_object(DatumGetHeapTupleHeader(model));
	double		rows = 0;

	if (params == NULL || !model_param_number(params, "rows", &rows))
		synthesize_failed_after_charge("the released model has no row count");
	return (int64) Min(Max(rint(rows), 1.0), (double) SYNTHESIZE_MAX_ROWS);
}

Datum
dpobj_synthesize(PG_FUNCTION_ARGS)
{
	SynthCall	c;
	TupleDesc	tupdesc;
	Datum		model;
	int64		n;
	Datum		values[3];
	bool		nulls[3] = {false, false, false};

	for (int i = 0; i < 6; i++)
		if (i != 4 && PG_ARGISNULL(i))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("dpobj.synthesize: argument %d must not be NULL", i + 1),
					 errhint("Pass '{}' for no options; columns NULL means every declared column.")));
	/* the target and the model are written after the charge */
	dp_refuse_read_only("dpobj.synthesize()", "the target table and the model");
	/* the result's form first: nothing after the charge fails on the call's form */
	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE || tupdesc->natts != 3)
		elog(ERROR, "dpobj.synthesize: called in an unexpected context");
	tupdesc = BlessTupleDesc(tupdesc);

	synthesize_prepare(PG_GETARG_OID(0), PG_GETARG_TEXT_PP(1),
					   PG_ARGISNULL(4) ? NULL : PG_GETARG_ARRAYTYPE_P(4), PG_GETARG_JSONB_P(5), &c);
	synthesize_claim_target(&c);

	/* charged once, before the first row; every later step is post-processing */
	{
		DPRunRequest req;

		synthesize_request(&req, &c,
						   DatumGetNumeric(DirectFunctionCall1(float8_numeric, fcinfo->args[2].value)),
						   DatumGetNumeric(DirectFunctionCall1(float8_numeric, fcinfo->args[3].value)));
		model = dp_sealed_run(&req);
	}
	n = c.rows > 0 ? c.rows : synthesize_model_rows(model);
	synthesize_write(&c, model, n);

	values[0] = CStringGetTextDatum(c.target_name);
	values[1] = CStringGetTextDatum(c.model_name);
	values[2] = Int64GetDatum(n);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}
