/*-------------------------------------------------------------------------
 *
 * aggrun.c
 *	  dpobj.aggregate(rel, what, epsilon, delta, group_by, options):
 *	  dp_aggregate (families/statistics/aggregate.c) on a protected table, through
 *	  the sealed path (context/sealedrun.h), with its public layout (the declared
 *	  domains of the columns named, group_by, what) as an option; the
 *	  released noisy cells become one row per group and statistic (and
 *	  histogram bin), with 95 % intervals from the noise's law (aggrows.c).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_authid.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/json.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"

#include "base/privileged.h"
#include "context/linkcols.h"
#include "context/protected.h"
#include "context/sealedrun.h"
#include "context/trainquery.h"
#include "protected/lookups.h"
#include "protected/aggrun.h"
#include "protected/domains.h"
#include "protected/entryargs.h"
#include "protected/runaccess.h"
#include "protected/spiplans.h"
#include "protected/unitbound.h"
#include "state/agglayout.h"

PG_FUNCTION_INFO_V1(dpobj_aggregate);

/* adds name to cols unless there */
static void
aggrun_add_column(char **cols, int *n, const char *name)
{
	for (int i = 0; i < *n; i++)
		if (strcmp(cols[i], name) == 0)
			return;
	cols[(*n)++] = pstrdup(name);
}

/* the first (by name) of table's columns with declared levels, or NULL */
static char *
aggrun_level_column(Oid table)
{
	RoleSwitch	rs;
	MemoryContext cxt = CurrentMemoryContext;
	char	   *col = NULL;

	SPI_connect();
	role_switch_begin(&rs, BOOTSTRAP_SUPERUSERID, false);
	if (dp_spi_run("SELECT column_name::pg_catalog.text FROM dpobj.feature_domains"
				   " WHERE relid OPERATOR(pg_catalog.=) $1 AND levels IS NOT NULL"
				   " ORDER BY column_name LIMIT 1", 1, (Oid[]) {OIDOID},
				   (Datum[]) {ObjectIdGetDatum(table)}, NULL, true, 1) != SPI_OK_SELECT)
		elog(ERROR, "dpobj.aggregate: feature domain lookup failed");
	role_switch_end(&rs);
	if (SPI_processed == 1)
		col = MemoryContextStrdup(cxt, SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1));
	SPI_finish();
	return col;
}

/*
 * The columns the run reads: group_by's, then the statistics' (what's
 * structure is checked by agg_layout_parse).  A count alone reads a column
 * with declared levels (a linked table's or one of its path tables'): a
 * count(*) skips no row.
 */
char **
aggrun_columns(Oid relid, ArrayType *group_by, Jsonb *what, int *n)
{
	Datum	   *g;
	bool	   *gnull;
	int			ng;
	int			nw = JB_ROOT_IS_ARRAY(what) && !JB_ROOT_IS_SCALAR(what) ? JB_ROOT_COUNT(what) : 0;
	char	  **cols;

	if (ARR_NDIM(group_by) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("dpobj.aggregate: group_by must be a one-dimensional text array"),
				 errhint("For example ARRAY['sex', 'race'].")));
	deconstruct_array(group_by, TEXTOID, -1, false, TYPALIGN_INT, &g, &gnull, &ng);
	cols = palloc(sizeof(char *) * (ng + nw + 1));
	*n = 0;
	for (int i = 0; i < ng; i++)
	{
		if (gnull[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("dpobj.aggregate: group_by column names must not be NULL"),
					 errhint("For example ARRAY['sex', 'race'].")));
		aggrun_add_column(cols, n, TextDatumGetCString(g[i]));
	}
	for (int i = 0; i < nw; i++)
	{
		JsonbValue *e = getIthJsonbValueFromContainer(&what->root, i);
		JsonbValue *c = e && e->type == jbvBinary && JsonContainerIsObject(e->val.binary.data) ?
			getKeyJsonValueFromContainer(e->val.binary.data, "column", 6, NULL) : NULL;

		if (c != NULL && c->type == jbvString)
			aggrun_add_column(cols, n, pnstrdup(c->val.string.val, c->val.string.len));
	}
	if (*n == 0 && !aggrun_has_expr(what))
	{
		char	   *col = aggrun_level_column(relid);
		Oid			path[DPOBJ_MAX_UNIT_HOPS];
		int			np = col == NULL ? linked_path(relid, path, NULL) : 0;

		/* a linked table: else one of its path tables' ("table.column", linkcols.h) */
		for (int i = 0; i < np && col == NULL; i++)
		{
			char	   *own = aggrun_level_column(path[i]);
			char	   *name = own ? psprintf("%s.%s", get_rel_name(path[i]), own) : NULL;
			Oid			table;
			const char *column;

			if (name != NULL && linked_column(relid, name, &table, &column) && table == path[i])
				col = name;
		}
		if (col != NULL)
			cols[(*n)++] = col;
		if (*n == 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("dpobj.aggregate: a count alone needs a column with declared levels in the table"),
					 errhint("Group by such a column, or have the owner declare one (dpobj.declare_domain).")));
	}
	return cols;
}

void
aggrun_prepare(Oid relid, const char *relation, Jsonb *what, ArrayType *group_by, AggCall *c)
{
	c->what = what;
	c->group_by = group_by;
	c->enc = NULL;
	c->key = aggrun_key_column(relid, relation, group_by);
	/* a key's rows are sorted by key: nothing marks a unit's first row of a key */
	if (c->key != NULL &&
		DatumGetBool(DirectFunctionCall2(jsonb_contains, JsonbPGetDatum(what),
										 DirectFunctionCall1(jsonb_in, CStringGetDatum("[{\"stat\": \"units\"}]")))))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("dpobj.aggregate: \"units\" (distinct privacy units) by \"%s\", a column without declared levels, is not available", c->key),
				 errhint("Count distinct units by columns with declared levels.")));
	if (c->key != NULL)
	{
		/* a key without declared levels: grouped by no declared column, and a count */
		c->what = aggrun_key_what(what);
		c->group_by = construct_empty_array(TEXTOID);
		c->enc = aggrun_key_encoding(relid, c->key, c->what);
	}
	if (c->enc != NULL)
	{
		c->cols = palloc(sizeof(char *));
		c->cols[0] = c->key;
		c->ncols = 1;
	}
	else
		c->cols = aggrun_columns(relid, c->group_by, c->what, &c->ncols);
	train_query_check_columns(relid, relation, c->cols, c->ncols, NULL, NULL);
}

/* the options: "filter", "where", "deadline", "max_keys", "lookups", "rows_per_unit" only (the layout is dpobj.aggregate's own) */
void
aggrun_check_options(Jsonb *options)
{
	JsonbIterator *it;
	JsonbValue	v;
	JsonbIteratorToken tok;

	if (!JB_ROOT_IS_OBJECT(options) || JB_ROOT_IS_SCALAR(options))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("dpobj.aggregate: options must be a JSON object"),
				 errhint("For example '{\"filter\": [...]}'.")));
	it = JsonbIteratorInit(&options->root);
	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
		if (tok == WJB_KEY &&
			!(v.val.string.len == 6 && strncmp(v.val.string.val, "filter", 6) == 0) &&
			!(v.val.string.len == 5 && strncmp(v.val.string.val, "where", 5) == 0) &&
			!(v.val.string.len == 8 && strncmp(v.val.string.val, "deadline", 8) == 0) &&
			!(v.val.string.len == 8 && strncmp(v.val.string.val, "max_keys", 8) == 0) &&
			!(v.val.string.len == 7 && strncmp(v.val.string.val, "lookups", 7) == 0) &&
			!(v.val.string.len == 13 && strncmp(v.val.string.val, "rows_per_unit", 13) == 0))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("unknown option \"%.*s\" for dpobj.aggregate", v.val.string.len, v.val.string.val),
					 errhint("dpobj.aggregate takes the options \"filter\", \"where\", \"deadline\", \"max_keys\", \"lookups\" and \"rows_per_unit\".")));
}

bool
aggrun_unit_private(Jsonb *options, const char *key, const char *fname)
{
	bool		private = unit_bound_requested(options, fname);

	/* a private k' calibrates declared cells only (unitbound.h) */
	if (private && key != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s: option \"rows_per_unit\": \"private\" by \"%s\", a column without declared levels, is not available",
						fname, key),
				 errhint("Group by columns with declared levels, or leave the option out.")));
	return private;
}

/* {"encoding": enc, "group_by": [...], "what": what} */
Jsonb *
aggrun_layout(Jsonb *enc, ArrayType *group_by, Jsonb *what)
{
	StringInfoData b;

	initStringInfo(&b);
	appendStringInfo(&b, "{\"encoding\": %s, \"group_by\": %s, \"what\": %s}",
					 JsonbToCString(NULL, &enc->root, VARSIZE(enc)),
					 TextDatumGetCString(DirectFunctionCall1(array_to_json, PointerGetDatum(group_by))),
					 JsonbToCString(NULL, &what->root, VARSIZE(what)));
	return DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(b.data)));
}

Datum
dpobj_aggregate(PG_FUNCTION_ARGS)
{
	Oid			relid;
	char		relkind;
	char	   *relation;
	Jsonb	   *options;
	AggCall		c;

	for (int i = 0; i < 6; i++)
		if (PG_ARGISNULL(i))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("dpobj.aggregate: argument %d must not be NULL", i + 1),
					 errhint("Pass '{}' for no group_by columns or options.")));
	relid = PG_GETARG_OID(0);
	options = PG_GETARG_JSONB_P(5);
	/* the result's tuplestore first: nothing after the charge can fail on the call's form */
	InitMaterializedSRF(fcinfo, 0);
	relation = dp_lock_relation(relid, &relkind);
	/* protected?  a budget?  before anything that reads a declaration (runaccess.h) */
	run_check_access(relid, relation);
	/* the public lookup tables whose columns the request may name (lookups.h) */
	lookups_prepare(relid, options, true);
	/* public grounds only: the catalog, the declarations, the arguments; columns first */
	aggrun_prepare(relid, relation, PG_GETARG_JSONB_P(1), PG_GETARG_ARRAYTYPE_P(4), &c);
	aggrun_check_options(options);
	/* by keys, the selection is (epsilon, delta)-DP: delta 0 refused, uncharged */
	if (c.key != NULL && PG_GETARG_FLOAT8(3) == 0.0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("dpobj.aggregate: grouping by \"%s\", a column without declared levels, needs delta > 0", c.key),
				 errhint("Keys are selected privately at (epsilon, delta): pass a delta, e.g. 1/n^2 for n rows.")));
	(void) aggrun_unit_private(options, c.key, "dpobj.aggregate");
	if (c.key != NULL)
		aggrun_run_keys(fcinfo, relid, relation, c.cols, c.ncols, c.enc, c.key, c.what, options,
						fcinfo->args[2].value, fcinfo->args[3].value);
	else
	{
		aggrun_key_no_max(options);
		aggrun_run(fcinfo, "aggregate", relid, relation, c.cols, c.ncols, NULL, c.what,
				   c.group_by, options, fcinfo->args[2].value, fcinfo->args[3].value);
	}
	return (Datum) 0;
}

/*
 * The sealed run (context/sealedrun.h) of mechanism on relid: cols read
 * (label among them), enc their encoding, layout the cells; the release
 */
static Jsonb *
aggrun_train(Oid relid, const char *mechanism, char **cols, int ncols, const char *label,
			 Jsonb *enc, Jsonb *layout, Jsonb *options, Datum epsilon, Datum delta)
{
	DPRunRequest req;

	memset(&req, 0, sizeof(req));
	req.relid = relid;
	req.mechanism = mechanism;
	req.own_entry = true;
	req.columns = dp_run_columns(cols, ncols);
	req.label = label;
	req.epsilon = DatumGetNumeric(DirectFunctionCall1(float8_numeric, epsilon));
	req.delta = DatumGetNumeric(DirectFunctionCall1(float8_numeric, delta));
	/* "rows_per_unit": "private" is the run's, not the mechanism's (unitbound.h) */
	req.unit_bound = unit_bound_requested(options, "dpobj.aggregate");
	req.options = DatumGetJsonbP(DirectFunctionCall2(jsonb_delete, JsonbPGetDatum(options),
													 CStringGetTextDatum("rows_per_unit")));
	req.encoding = enc;
	req.layout = layout;
	return DatumGetJsonbP(dp_sealed_run(&req));
}

void
aggrun_run(FunctionCallInfo fcinfo, const char *entry, Oid relid, const char *relation,
		   char **cols, int ncols, Jsonb *enc, Jsonb *what, ArrayType *group_by,
		   Jsonb *options, Datum epsilon, Datum delta)
{
	Jsonb	   *layout;
	AggLayout  *l;
	Jsonb	   *rel;

	enc = aggrun_expr_encoding(relid, relation, enc, what, &cols, &ncols);
	layout = aggrun_layout(enc, group_by, what);
	l = agg_layout_parse(layout);
	/* the label is unused ('aggregate' has none) */
	rel = aggrun_train(relid, entry, cols, ncols, cols[0], enc, layout, options,
					   epsilon, delta);
	/* a query's rows are its statistics only: a private k' is used, not shown */
	if (strcmp(entry, "query") == 0)
		rel = DatumGetJsonbP(DirectFunctionCall2(jsonb_delete, JsonbPGetDatum(rel),
												 CStringGetTextDatum("rows_per_unit")));

	/* post-processing of the DP output with the public layout */
	aggrows_emit(fcinfo, relid, l, rel, NULL);
}

void
aggrun_run_keys(FunctionCallInfo fcinfo, Oid relid, const char *relation, char **cols,
				int ncols, Jsonb *enc, const char *key, Jsonb *what, Jsonb *options,
				Datum epsilon, Datum delta)
{
	Jsonb	   *layout;
	AggLayout  *l;
	Jsonb	   *rel;

	enc = aggrun_expr_encoding(relid, relation, enc, what, &cols, &ncols);
	layout = aggrun_key_layout(enc, what, options);
	l = agg_layout_parse(layout);
	/* 'aggregate_keys': the key column is the label, read as text */
	rel = aggrun_train(relid, "aggregate_keys", cols, ncols, key, enc, layout,
					   DatumGetJsonbP(DirectFunctionCall2(jsonb_delete, JsonbPGetDatum(options),
														  CStringGetTextDatum("max_keys"))),
					   epsilon, delta);

	/* post-processing: each released key (in key order) as one cell */
	aggrows_emit(fcinfo, relid, l, rel, key);
}
