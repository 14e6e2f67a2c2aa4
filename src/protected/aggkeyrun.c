/*-------------------------------------------------------------------------
 *
 * aggkeyrun.c
 *	  dpobj.aggregate() grouped by a column without declared levels: the
 *	  public checks and layout of its run (aggrun.h), before the charge.
 *	  The run is families/statistics/aggkeys.c's through train()'s sealed path.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_authid.h"
#include "catalog/pg_type.h"
#include "utils/lsyscache.h"
#include "executor/spi.h"
#include "lib/stringinfo.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/json.h"
#include "utils/jsonb.h"

#include "base/options.h"
#include "base/privileged.h"
#include "context/linkcols.h"
#include "context/lookupjoin.h"
#include "context/trainquery.h"
#include "protected/aggrun.h"
#include "protected/protectable.h"
#include "protected/spiplans.h"
#include "state/agglayout.h"

/* whether relid's column name has declared levels (the owner's declaration) */
static bool
aggrun_has_levels(Oid relid, const char *name)
{
	RoleSwitch	rs;
	bool		found;
	bool		isnull;
	bool		ranged = false;
	double		lo = 0,
				hi = 0;
	Oid			table;
	const char *column;

	/* a path table's column: that table's declaration (linkcols.h) */
	(void) linked_column(relid, name, &table, &column);
	/* a public lookup table's: its values are its levels (lookups.h) */
	if (lookup_joins_is(relid, table))
		return true;
	SPI_connect();
	role_switch_begin(&rs, BOOTSTRAP_SUPERUSERID, false);
	if (dp_spi_run("SELECT levels IS NOT NULL, coalesce(lo, 0), coalesce(hi, 0) FROM dpobj.feature_domains"
				   " WHERE relid OPERATOR(pg_catalog.=) $1"
				   " AND column_name::pg_catalog.text OPERATOR(pg_catalog.=) $2",
				   2, (Oid[]) {OIDOID, TEXTOID},
				   (Datum[]) {ObjectIdGetDatum(table), CStringGetTextDatum(column)}, NULL, true,
				   1) != SPI_OK_SELECT)
		elog(ERROR, "dpobj.aggregate: feature domain lookup failed");
	role_switch_end(&rs);
	found = SPI_processed == 1;
	if (found && !DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull)))
	{
		lo = DatumGetFloat8(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull));
		hi = DatumGetFloat8(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 3, &isnull));
		ranged = true;
	}
	SPI_finish();
	/* an integer range of few values: its integers are its levels (rangelevels.c) */
	return found && (!ranged || aggrun_range_is_levels(relid, name, lo, hi));
}

char *
aggrun_key_column(Oid relid, const char *relation, ArrayType *group_by)
{
	Datum	   *g;
	bool	   *gnull;
	int			ng;
	char	   *key = NULL;

	if (ARR_NDIM(group_by) > 1)
		return NULL;			/* aggrun_columns refuses it */
	deconstruct_array(group_by, TEXTOID, -1, false, TYPALIGN_INT, &g, &gnull, &ng);
	for (int i = 0; i < ng; i++)
		if (!gnull[i] && !aggrun_has_levels(relid, TextDatumGetCString(g[i])))
		{
			key = TextDatumGetCString(g[i]);
			/* the column exists (42703 from the catalog, before any other refusal) */
			train_query_check_columns(relid, relation, &key, 1, NULL, NULL);
		}
	if (key == NULL)
		return NULL;
	if (dpobj_is_citus_table(relid))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("dpobj.aggregate: group_by column \"%s\" has no declared levels, which a Citus distributed table does not support", key),
				 errhint("Group by columns whose levels the owner declared (dpobj.declare_domain).")));
	if (ng > 1)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("dpobj.aggregate: group_by column \"%s\" has no declared levels and is not the only group_by column", key),
				 errhint("Group by one column without declared levels, or by columns whose levels the owner declared (dpobj.declare_domain).")));
	return key;
}

Jsonb *
aggrun_key_what(Jsonb *what)
{
	int			n = JB_ROOT_IS_ARRAY(what) && !JB_ROOT_IS_SCALAR(what) ? JB_ROOT_COUNT(what) : 0;

	if (n == 0)
		return what;			/* agg_layout_parse refuses it */
	for (int i = 0; i < n; i++)
	{
		JsonbValue *e = getIthJsonbValueFromContainer(&what->root, i);
		JsonbValue *st = e && e->type == jbvBinary && JsonContainerIsObject(e->val.binary.data) ?
			getKeyJsonValueFromContainer(e->val.binary.data, "stat", 4, NULL) : NULL;

		if (st && st->type == jbvString && st->val.string.len == 5 &&
			strncmp(st->val.string.val, "count", 5) == 0)
			return what;
	}
	/* the key's selection count, released too */
	return DatumGetJsonbP(DirectFunctionCall2(jsonb_concat, JsonbPGetDatum(what),
											  DirectFunctionCall1(jsonb_in,
																  CStringGetDatum("[{\"stat\": \"count\"}]"))));
}

Jsonb *
aggrun_key_encoding(Oid relid, const char *key, Jsonb *what)
{
	int			n = JB_ROOT_IS_ARRAY(what) && !JB_ROOT_IS_SCALAR(what) ? JB_ROOT_COUNT(what) : 0;
	Oid			table;
	AttrNumber	att = linked_column_attnum(relid, key, &table);
	Oid			type = att == InvalidAttrNumber ? InvalidOid : getBaseType(get_atttype(table, att));
	StringInfoData b;

	for (int i = 0; i < n; i++)
	{
		JsonbValue *e = getIthJsonbValueFromContainer(&what->root, i);

		if (e == NULL || e->type != jbvBinary || !JsonContainerIsObject(e->val.binary.data) ||
			getKeyJsonValueFromContainer(e->val.binary.data, "column", 6, NULL) != NULL)
			return NULL;
	}
	/* the types an encoded categorical column takes (trainquery.c) */
	if (n == 0 || !(type == TEXTOID || type == VARCHAROID || type == BPCHAROID ||
					type == INT2OID || type == INT4OID || type == INT8OID || type == BOOLOID))
		return NULL;
	initStringInfo(&b);
	appendStringInfoString(&b, "[{\"column\": ");
	escape_json(&b, key);
	appendStringInfoString(&b, ", \"levels\": [\"-\"]}]");
	return DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(b.data)));
}

void
aggrun_key_no_max(Jsonb *options)
{
	if (getKeyJsonValueFromContainer(&options->root, "max_keys", 8, NULL) != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("dpobj.aggregate: \"max_keys\" is for a group_by column without declared levels"),
				 errhint("Declared levels are all released; drop the option.")));
}

Jsonb *
aggrun_key_layout(Jsonb *enc, Jsonb *what, Jsonb *options)
{
	JsonbValue *v = getKeyJsonValueFromContainer(&options->root, "max_keys", 8, NULL);
	char	   *max_keys = "";

	/* checked here, before the charge; absent: aggkeys.c's default */
	if (v != NULL)
		max_keys = psprintf(", \"max_keys\": %d", dp_option_int(v, "max_keys", 1, AGG_MAX_CELLS));
	return DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(
		psprintf("{\"encoding\": %s, \"group_by\": [], \"what\": %s%s}",
				 JsonbToCString(NULL, &enc->root, VARSIZE(enc)),
				 JsonbToCString(NULL, &what->root, VARSIZE(what)), max_keys))));
}
