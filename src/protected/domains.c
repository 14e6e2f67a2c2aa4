/*-------------------------------------------------------------------------
 *
 * domains.c
 *	  Public feature domains (domains.h):
 *
 *	  dpobj.declare_domain(rel, column_name, levels text[])   categorical
 *	  dpobj.declare_domain(rel, column_name, lo, hi)          numeric
 *	  dpobj.drop_domain(rel, column_name)
 *
 * A declaration says what is public about a column: its categories or its
 * range.  Only the table's owner (or a member of dpobj_admin) declares:
 * analysts with a budget see the declarations, so a declaration must come
 * from whoever decides what is public about the table, never from an
 * analyst who might have derived it from the rows.  Nothing here reads the
 * table.  A declaration replaces an earlier one for the same column; the
 * models trained before keep the encoding they record.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "protected/lookups.h"
#include "protected/domains.h"
#include "context/linkcols.h"
#include "protected/domainfit.h"
#include "model/encode.h"
#include "protected/entryargs.h"
#include "base/pg_compat.h"
#include "base/privileged.h"
#include "protected/spiplans.h"

#include <math.h>

#include "access/htup_details.h"
#include "catalog/pg_attribute.h"
#include "catalog/pg_authid.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/json.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

PG_FUNCTION_INFO_V1(dpobj_declare_domain_levels);
PG_FUNCTION_INFO_V1(dpobj_declare_domain_bounds);
PG_FUNCTION_INFO_V1(dpobj_drop_domain);

/* the owner of the table, or a member of dpobj_admin */
static void
domains_check_owner(Oid relid, const char *relation)
{
	Oid			admin = get_role_oid("dpobj_admin", true);

	if (compat_class_ownercheck(relid, GetUserId()) ||
		(OidIsValid(admin) && has_privs_of_role(GetUserId(), admin)))
		return;
	ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			 errmsg("must be the owner of table %s or a member of dpobj_admin to declare its domains",
					relation),
			 errhint("Feature domains are public by declaration: the table's owner decides them, not an analyst.")));
}

/* the column exists and its type fits the kind of domain; returns its base type and typmod */
static Oid
domains_check_column(Oid relid, const char *relation, const char *column, bool categorical,
					 int32 *typmod)
{
	HeapTuple	tup = SearchSysCacheAttName(relid, column);
	Form_pg_attribute att;
	Oid			t;
	bool		ok;

	if (!HeapTupleIsValid(tup))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_COLUMN),
				 errmsg("column \"%s\" of table %s does not exist", column, relation),
				 errhint("Pass the column name exactly as it is spelled in the catalog, without quotes.")));
	att = (Form_pg_attribute) GETSTRUCT(tup);
	*typmod = att->atttypmod;
	t = getBaseTypeAndTypmod(att->atttypid, typmod);
	ok = att->attnum > 0 && !att->attisdropped;
	ReleaseSysCache(tup);
	if (!ok)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_COLUMN),
				 errmsg("column \"%s\" of table %s does not exist", column, relation),
				 errhint("System columns have no domain.")));
	if (!domainfit_kind(t, categorical))
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("column \"%s\" of table %s cannot have a %s domain", column, relation,
						categorical ? "categorical" : "numeric"),
				 errhint(categorical ?
						 "Categorical domains are for text, varchar, char, integer and boolean columns (matched by their text)." :
						 "Numeric domains are for integer, float and numeric columns.")));
	return t;
}

static const char *
domains_level_hint(Oid type)
{
	if (type == BOOLOID)
		return "A boolean column's levels are 'true' and 'false' (t/f, yes/no, on/off and 1/0 are stored so); a boolean feature needs no declaration.";
	if (type == BPCHAROID)
		return "A char(n) column's text has no trailing blanks: drop them from the level.";
	return "An integer column's levels are integers of its type, e.g. ARRAY['1', '2', '3'].";
}

/*
 * The levels: one dimension, no NULL, each the text of a value of the
 * column's type (else no row could ever match it), no duplicate after
 * that normalisation, within the limits.  Returns the levels to store.
 */
static Datum
domains_check_levels(ArrayType *arr, Oid type, const char *column)
{
	Datum	   *d;
	bool	   *n;
	int			k;
	char	  **lv;

	if (ARR_NDIM(arr) != 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("levels must be a one-dimensional text array"),
				 errhint("For example ARRAY['Bachelors', 'HS-grad', 'Masters'].")));
	deconstruct_array(arr, TEXTOID, -1, false, TYPALIGN_INT, &d, &n, &k);
	if (k < 1 || k > DPOBJ_MAX_LEVELS)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a categorical domain has 1 to %d levels", DPOBJ_MAX_LEVELS),
				 errhint("Values outside the list are encoded as the level \"other\".")));
	lv = palloc(sizeof(char *) * k);
	for (int i = 0; i < k; i++)
	{
		if (n[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("levels must not be NULL"),
					 errhint("NULL values are encoded as the level \"other\".")));
		if (VARSIZE_ANY_EXHDR(DatumGetPointer(d[i])) > DPOBJ_MAX_LEVEL_BYTES)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("level %d is longer than %d bytes", i + 1, DPOBJ_MAX_LEVEL_BYTES),
					 errhint("Levels are category names.")));
		lv[i] = domainfit_level_text(type, TextDatumGetCString(d[i]));
		if (lv[i] == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
					 errmsg("level \"%s\" is not a value of column \"%s\" (type %s)",
							TextDatumGetCString(d[i]), column, format_type_be(type)),
					 errhint("%s", domains_level_hint(type))));
		for (int j = 0; j < i; j++)
			/* byte for byte, as the encoding matches values */
			if (strcmp(lv[i], lv[j]) == 0)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("levels %d and %d are the same", j + 1, i + 1),
						 errhint("List each level once.")));
		d[i] = CStringGetTextDatum(lv[i]);
	}
	return PointerGetDatum(construct_array(d, k, TEXTOID, -1, false, TYPALIGN_INT));
}

static const char declare_sql[] =
"INSERT INTO dpobj.feature_domains (relid, column_name, levels, lo, hi, declared_by, complete) "
"VALUES ($1, $2, $3, $4, $5, $6, $7) "
"ON CONFLICT (relid, column_name) DO UPDATE SET levels = EXCLUDED.levels, "
"  lo = EXCLUDED.lo, hi = EXCLUDED.hi, declared_by = EXCLUDED.declared_by, "
"  complete = EXCLUDED.complete, declared_at = pg_catalog.now()";

/* writes a declaration as the bootstrap superuser (fixed statement) */
static void
domains_write(Oid relid, const char *column, Datum levels, double lo, double hi, bool numeric,
			  bool complete)
{
	Oid			types[7] = {REGCLASSOID, NAMEOID, TEXTARRAYOID, FLOAT8OID, FLOAT8OID, NAMEOID,
	BOOLOID};
	Datum		values[7];
	char		nulls[7] = {' ', ' ', ' ', ' ', ' ', ' ', ' '};
	RoleSwitch	rs;

	values[0] = ObjectIdGetDatum(relid);
	values[1] = DirectFunctionCall1(namein, CStringGetDatum(column));
	values[2] = levels;
	values[3] = Float8GetDatum(lo);
	values[4] = Float8GetDatum(hi);
	values[5] = DirectFunctionCall1(namein, CStringGetDatum(GetUserNameFromId(GetUserId(), false)));
	values[6] = BoolGetDatum(complete);
	nulls[2] = numeric ? 'n' : ' ';
	nulls[3] = nulls[4] = numeric ? ' ' : 'n';
	SPI_connect();
	role_switch_begin(&rs, BOOTSTRAP_SUPERUSERID, false);
	if (SPI_execute_with_args(declare_sql, 7, types, values, nulls, false, 0) != SPI_OK_INSERT)
		elog(ERROR, "dpobj.declare_domain: insert failed");
	role_switch_end(&rs);
	SPI_finish();
}

/* what every entry point does first; returns the column's base type and typmod */
static Oid
domains_begin(FunctionCallInfo fcinfo, int nargs, const char *fname, char **column,
			  bool categorical, int32 *typmod)
{
	char		relkind;
	char	   *relation;
	Oid			type = InvalidOid;

	dpobj_verify_schema();
	dp_check_not_null(fcinfo, nargs, fname);
	relation = dp_lock_relation(PG_GETARG_OID(0), &relkind);
	domains_check_owner(PG_GETARG_OID(0), relation);
	*column = NameStr(*PG_GETARG_NAME(1));
	if (nargs > 2)
		type = domains_check_column(PG_GETARG_OID(0), relation, *column, categorical, typmod);
	return type;
}

/*
 * dpobj.declare_domain(rel regclass, column_name name, levels text[]
 * [, complete boolean]): complete, the column holds only its levels
 */
Datum
dpobj_declare_domain_levels(PG_FUNCTION_ARGS)
{
	char	   *column;
	int32		typmod;
	Oid			type = domains_begin(fcinfo, PG_NARGS(), "dpobj.declare_domain", &column, true,
									 &typmod);
	Datum		levels = domains_check_levels(PG_GETARG_ARRAYTYPE_P(2), type, column);

	domains_write(PG_GETARG_OID(0), column, levels, 0, 0, false,
				  PG_NARGS() > 3 && PG_GETARG_BOOL(3));
	PG_RETURN_VOID();
}

/* dpobj.declare_domain(rel regclass, column_name name, lo float8, hi float8) */
Datum
dpobj_declare_domain_bounds(PG_FUNCTION_ARGS)
{
	char	   *column;
	double		lo,
				hi;
	int32		typmod;
	Oid			type = domains_begin(fcinfo, 4, "dpobj.declare_domain", &column, false, &typmod);
	const char *why;

	lo = PG_GETARG_FLOAT8(2);
	hi = PG_GETARG_FLOAT8(3);
	if (!isfinite(lo) || !isfinite(hi) || !(lo < hi) || !isfinite(hi - lo))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("bounds must be finite with lo < hi"),
				 errhint("Values are clipped to [lo, hi] and scaled to [-1, 1]; hi - lo must be a finite float8.")));
	/* a synthetic copy writes values up to the bounds into a column of this type */
	if ((why = domainfit_bounds(type, typmod, lo, hi)) != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("bounds [%g, %g] do not fit column \"%s\": %s", lo, hi, column, why),
				 errhint("Declare bounds within the column's type: dpobj.synthesize() writes values up to them into a column of that type.")));
	domains_write(PG_GETARG_OID(0), column, (Datum) 0, lo, hi, true, false);
	PG_RETURN_VOID();
}

static const char drop_sql[] =
"DELETE FROM dpobj.feature_domains WHERE relid OPERATOR(pg_catalog.=) $1 "
"AND column_name OPERATOR(pg_catalog.=) $2";

/* dpobj.drop_domain(rel regclass, column_name name) RETURNS boolean */
Datum
dpobj_drop_domain(PG_FUNCTION_ARGS)
{
	char	   *column;
	Oid			types[2] = {REGCLASSOID, NAMEOID};
	Datum		values[2];
	RoleSwitch	rs;
	bool		dropped;

	domains_begin(fcinfo, 2, "dpobj.drop_domain", &column, false, NULL);
	values[0] = PG_GETARG_DATUM(0);
	values[1] = PG_GETARG_DATUM(1);
	SPI_connect();
	role_switch_begin(&rs, BOOTSTRAP_SUPERUSERID, false);
	if (SPI_execute_with_args(drop_sql, 2, types, values, NULL, false, 0) != SPI_OK_DELETE)
		elog(ERROR, "dpobj.drop_domain: delete failed");
	dropped = SPI_processed > 0;
	role_switch_end(&rs);
	SPI_finish();
	PG_RETURN_BOOL(dropped);
}

static const char complete_sql[] =
"SELECT complete FROM dpobj.feature_domains "
"WHERE relid OPERATOR(pg_catalog.=) $1 AND column_name OPERATOR(pg_catalog.=) $2";

bool
domains_complete(Oid relid, const char *column)
{
	Oid			types[2] = {REGCLASSOID, NAMEOID};
	Datum		values[2];
	RoleSwitch	rs;
	bool		isnull,
				complete = false;

	values[0] = ObjectIdGetDatum(relid);
	values[1] = DirectFunctionCall1(namein, CStringGetDatum(column));
	SPI_connect();
	role_switch_begin(&rs, BOOTSTRAP_SUPERUSERID, false);
	if (SPI_execute_with_args(complete_sql, 2, types, values, NULL, true, 1) != SPI_OK_SELECT)
		elog(ERROR, "dpobj: feature domain lookup failed");
	if (SPI_processed == 1)
		complete = DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1,
											  &isnull)) && !isnull;
	role_switch_end(&rs);
	SPI_finish();
	return complete;
}

/* ---- the encoding of a run ---- */

static const char read_sql[] =
"SELECT levels, lo, hi FROM dpobj.feature_domains "
"WHERE relid OPERATOR(pg_catalog.=) $1 AND column_name OPERATOR(pg_catalog.=) $2";

/*
 * Appends the declaration of one column to the encoding's JSON; false
 * when it has none.  Levels are escaped as JSON strings: they are data.
 */
static bool
domains_append(StringInfo js, Oid relid, const char *column)
{
	Oid			types[2] = {REGCLASSOID, NAMEOID};
	Datum		values[2];
	bool		isnull;
	HeapTuple	tup;
	TupleDesc	desc;
	Datum		lv;

	Oid			table;
	const char *own;

	/* a path table's column: that table's declaration (linkcols.h) */
	(void) linked_column(relid, column, &table, &own);
	/* a public lookup table's: its distinct values as levels, or its bounds (lookups.h) */
	if (lookup_joins_is(relid, table))
	{
		if (lookup_joins_bounded(relid, table, own))
			lookups_bounds(js, table, own, column);
		else
			lookups_levels(js, table, own, column);
		return true;
	}
	values[0] = ObjectIdGetDatum(table);
	values[1] = DirectFunctionCall1(namein, CStringGetDatum(own));
	if (dp_spi_run(read_sql, 2, types, values, NULL, true, 1) != SPI_OK_SELECT)
		elog(ERROR, "dpobj: feature domain lookup failed");
	if (SPI_processed == 0)
		return false;
	tup = SPI_tuptable->vals[0];
	desc = SPI_tuptable->tupdesc;
	appendStringInfoString(js, "{\"column\": ");
	escape_json(js, column);
	lv = SPI_getbinval(tup, desc, 1, &isnull);
	if (!isnull)
	{
		Datum	   *d;
		int			k;

		deconstruct_array(DatumGetArrayTypeP(lv), TEXTOID, -1, false, TYPALIGN_INT,
						  &d, NULL, &k);
		appendStringInfoString(js, ", \"levels\": [");
		for (int i = 0; i < k; i++)
		{
			if (i > 0)
				appendStringInfoString(js, ", ");
			escape_json(js, TextDatumGetCString(d[i]));
		}
		appendStringInfoString(js, "]}");
	}
	else
		appendStringInfo(js, ", \"lo\": %.17g, \"hi\": %.17g}",
						 DatumGetFloat8(SPI_getbinval(tup, desc, 2, &isnull)),
						 DatumGetFloat8(SPI_getbinval(tup, desc, 3, &isnull)));
	return true;
}

/* an undeclared column is boolean: its domain {false, true} is public by type */
static bool
domains_is_boolean(Oid relid, const char *column)
{
	Oid			table;
	AttrNumber	attnum = linked_column_attnum(relid, column, &table);

	return attnum > 0 && getBaseType(get_atttype(table, attnum)) == BOOLOID;
}

Jsonb *
domains_encoding(Oid relid, const char *relation, char **features, int nfeatures,
				 DomainsMode mode)
{
	StringInfoData js;
	RoleSwitch	rs;
	int			missing = -1;
	int			declared = 0;

	if (mode == DOMAINS_OFF)
		return NULL;
	initStringInfo(&js);
	appendStringInfoChar(&js, '[');
	SPI_connect();
	role_switch_begin(&rs, BOOTSTRAP_SUPERUSERID, false);
	for (int i = 0; i < nfeatures; i++)
	{
		if (i > 0)
			appendStringInfoString(&js, ", ");
		if (domains_append(&js, relid, features[i]))
			declared++;
		else if (domains_is_boolean(relid, features[i]))
		{
			/* one coordinate, 0 or 1: [-1, 1] scales x to itself */
			appendStringInfoString(&js, "{\"column\": ");
			escape_json(&js, features[i]);
			appendStringInfoString(&js, ", \"lo\": -1, \"hi\": 1}");
		}
		else if (missing < 0)
			missing = i;
	}
	role_switch_end(&rs);
	SPI_finish();
	appendStringInfoChar(&js, ']');
	if (declared == 0 && mode == DOMAINS_AUTO)
		return NULL;
	if (missing >= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("feature column \"%s\" of table %s has no declared domain",
						features[missing], relation),
				 errhint("Encoded features need a domain for every column but booleans (dpobj.declare_domain, by the table's owner); "
						 "or pass {\"encode\": false, \"R\": r}, r a public bound on each row's raw feature norm.")));
	return DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(js.data)));
}

char *
domains_undeclared(Oid relid, char **columns, int ncolumns)
{
	StringInfoData scratch,
				missing;
	RoleSwitch	rs;

	initStringInfo(&scratch);
	initStringInfo(&missing);
	SPI_connect();
	role_switch_begin(&rs, BOOTSTRAP_SUPERUSERID, false);
	for (int i = 0; i < ncolumns; i++)
		if (!domains_append(&scratch, relid, columns[i]))
			appendStringInfo(&missing, "%s%s", missing.len > 0 ? ", " : "",
							 quote_identifier(columns[i]));
	role_switch_end(&rs);
	SPI_finish();
	return missing.len > 0 ? missing.data : NULL;
}
