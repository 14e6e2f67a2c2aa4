/*-------------------------------------------------------------------------
 *
 * describe.c
 *	  dpobj.describe(rel, epsilon, delta, options): a private profile of a
 *	  protected table in one dpobj.aggregate() run (aggrun.h), so one
 *	  charge: the row count, and per declared column a histogram over its
 *	  levels, or over "bins" equal bins of its bounds and its quartiles
 *	  (over 64 leaves).
 *	  Options: "columns", "bins", "shares" (the relative epsilon of the
 *	  count, of each histogram and of each column's quartiles; default 1
 *	  each), and aggregate()'s "filter", "where", "deadline" and
 *	  "rows_per_unit" (the same run: a private k' first).  After the run a
 *	  NOTICE says, from public quantities only, what the split over the
 *	  statistics costs a count (at worst, with a private k') and how to
 *	  narrow it.
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
#include "utils/json.h"
#include "utils/jsonb.h"

#include "base/options.h"
#include "base/privileged.h"
#include "context/trainquery.h"
#include "core/aggci.h"
#include "core/calibrate.h"
#include "model/encode.h"
#include "protected/aggrun.h"
#include "protected/domains.h"
#include "protected/entryargs.h"
#include "protected/runaccess.h"
#include "protected/spiplans.h"
#include "protected/unitbound.h"
#include "protected/units.h"
#include "state/agglayout.h"

PG_FUNCTION_INFO_V1(dpobj_describe);

/*
 * a numeric column's quartiles: 64 flat leaves, the narrowest intervals at a
 * profile's epsilon per statistic (bench/aggregate/quantile_intervals.sh)
 */
#define DESCRIBE_QUARTILE_LEAVES 64

typedef struct DescribeOpts
{
	Jsonb	   *columns;		/* a copy: the iterator's values do not last */
	int			bins;
	double		share[3];		/* count, histogram, quartiles */
	StringInfoData pass;		/* "filter", "where", "deadline", "rows_per_unit", for aggregate() */
} DescribeOpts;

static void
describe_bad(const char *msg)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("dpobj.describe: %s", msg),
			 errhint("Options: \"columns\" (names), \"bins\" (numeric histograms, default 10), "
					 "\"shares\" {\"count\", \"histogram\", \"quartiles\"} (default 1 each), \"filter\", \"where\", \"deadline\", \"rows_per_unit\".")));
}

/* "shares": {"count": a, "histogram": b, "quartiles": c}, each > 0 */
static void
describe_shares(JsonbValue *v, double *share)
{
	static const char *const keys[3] = {"count", "histogram", "quartiles"};
	int			found = 0;

	if (v->type != jbvBinary || !JsonContainerIsObject(v->val.binary.data))
		describe_bad("\"shares\" must be an object");
	for (int i = 0; i < 3; i++)
	{
		JsonbValue *e = getKeyJsonValueFromContainer(v->val.binary.data, keys[i], strlen(keys[i]), NULL);

		if (e != NULL)
		{
			share[i] = dp_option_number(e, keys[i], ldexp(1.0, -20), ldexp(1.0, 20), false);
			found++;
		}
	}
	if (found != JsonContainerSize(v->val.binary.data))
		describe_bad("\"shares\" has the keys \"count\", \"histogram\" and \"quartiles\"");
}

static void
describe_option(const char *key, JsonbValue *v, void *arg)
{
	DescribeOpts *o = arg;

	if (strcmp(key, "columns") == 0)
		o->columns = JsonbValueToJsonb(v);
	else if (strcmp(key, "bins") == 0)
		o->bins = dp_option_int(v, "bins", 1, AGG_MAX_BINS);
	else if (strcmp(key, "shares") == 0)
		describe_shares(v, o->share);
	else if (strcmp(key, "filter") == 0 || strcmp(key, "where") == 0 ||
			 strcmp(key, "deadline") == 0 || strcmp(key, "rows_per_unit") == 0)
	{
		Jsonb	   *j = JsonbValueToJsonb(v);

		appendStringInfo(&o->pass, "%s\"%s\": ", o->pass.len > 1 ? ", " : "", key);
		appendStringInfoString(&o->pass, JsonbToCString(NULL, &j->root, VARSIZE(j)));
	}
	else
		describe_bad(psprintf("unknown option \"%s\"", key));
}

/* the table's declared columns, by name, read as the bootstrap superuser */
static char **
describe_declared(Oid relid, int *n)
{
	RoleSwitch	rs;
	MemoryContext cxt = CurrentMemoryContext;
	char	  **cols;

	SPI_connect();
	role_switch_begin(&rs, BOOTSTRAP_SUPERUSERID, false);
	if (dp_spi_run("SELECT column_name::pg_catalog.text FROM dpobj.feature_domains"
				   " WHERE relid OPERATOR(pg_catalog.=) $1 ORDER BY column_name", 1,
				   (Oid[]) {OIDOID}, (Datum[]) {ObjectIdGetDatum(relid)}, NULL, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "dpobj.describe: feature domain lookup failed");
	role_switch_end(&rs);
	*n = (int) SPI_processed;
	cols = MemoryContextAlloc(cxt, sizeof(char *) * Max(*n, 1));
	for (int i = 0; i < *n; i++)
		cols[i] = MemoryContextStrdup(cxt, SPI_getvalue(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1));
	SPI_finish();
	return cols;
}

/* the columns of "columns": 1 or more distinct strings */
static char **
describe_named(Jsonb *v, int *n)
{
	char	  **cols;

	if (!JB_ROOT_IS_ARRAY(v) || JB_ROOT_IS_SCALAR(v) || JB_ROOT_COUNT(v) < 1)
		describe_bad("\"columns\" must be a non-empty array of column names");
	*n = JB_ROOT_COUNT(v);
	cols = palloc(sizeof(char *) * *n);
	for (int i = 0; i < *n; i++)
	{
		JsonbValue *e = getIthJsonbValueFromContainer(&v->root, i);

		if (e->type != jbvString)
			describe_bad("\"columns\" must be a non-empty array of column names");
		cols[i] = pnstrdup(e->val.string.val, e->val.string.len);
		for (int j = 0; j < i; j++)
			if (strcmp(cols[j], cols[i]) == 0)
				describe_bad(psprintf("\"columns\" names \"%s\" twice", cols[i]));
	}
	return cols;
}

/* what: a count, then per column its histogram (and a numeric column's quartiles) */
static Jsonb *
describe_what(const Encoding *enc, const DescribeOpts *o)
{
	StringInfoData b;
	int			nstats = 1;

	initStringInfo(&b);
	appendStringInfo(&b, "[{\"stat\": \"count\", \"share\": %.17g}", o->share[0]);
	for (int i = 0; i < enc->ncols; i++)
	{
		const EncColumn *c = &enc->cols[i];

		appendStringInfoString(&b, ", {\"stat\": \"histogram\", \"column\": ");
		escape_json(&b, c->column);
		appendStringInfo(&b, ", \"share\": %.17g", o->share[1]);
		if (c->nlevels == 0)
		{
			appendStringInfo(&b, ", \"bins\": %d}, {\"stat\": \"quantile\", \"column\": ", o->bins);
			escape_json(&b, c->column);
			appendStringInfo(&b, ", \"q\": [0.25, 0.5, 0.75], \"bins\": %d, \"share\": %.17g",
							 DESCRIBE_QUARTILE_LEAVES, o->share[2]);
			nstats++;
		}
		appendStringInfoChar(&b, '}');
		nstats++;
	}
	appendStringInfoChar(&b, ']');
	if (nstats > AGG_MAX_STATS)
		describe_bad(psprintf("%d statistics (a count, a histogram per column, quartiles per numeric column): at most %d",
							  nstats, AGG_MAX_STATS));
	return DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(b.data)));
}

/* a count's 95 % half-width at eps_share (none: 0) */
static double
describe_count_halfwidth(double eps_share)
{
	uint64		num,
				den;

	agg_slot_noise(false, eps_share, &num, &den);
	return den < 1 ? 0 : aggci_halfwidth((double) den / (double) num, 0.05);
}

/*
 * The NOTICE of the split: epsilon over the statistics, what a count is
 * worth in it and alone at the run's epsilon (per row: k rows per unit;
 * a private k' <= k: k at the statistics' share, the worst case), and how
 * to narrow it; nothing when epsilon is too small (refused later)
 */
static void
describe_notice(Oid relid, const char *relation, const Encoding *enc, const DescribeOpts *o,
				double eps, bool unit_private)
{
	TableUnit	unit;
	int			nnum = 0;
	double		weights,
				eps_noise,
				split,
				alone;

	for (int i = 0; i < enc->ncols; i++)
		nnum += enc->cols[i].nlevels == 0;
	weights = o->share[0] + enc->ncols * o->share[1] + nnum * o->share[2];
	units_for_run(relid, relation, &unit);
	eps_noise = dp_epsilon_per_row(unit_private ? eps * (1 - UNIT_BOUND_SHARE) : eps,
								   Max(unit.rows_per_unit, 1));
	split = describe_count_halfwidth(eps_noise * o->share[0] / weights);
	alone = describe_count_halfwidth(eps_noise);
	if (split > 0 && alone > 0)
		ereport(NOTICE,
				(errmsg("dpobj.describe: epsilon %g is shared by %d statistics: the row count is +-%.0f (95 %%), +-%.0f alone%s",
						eps, 1 + enc->ncols + nnum, split, alone,
						unit_private ? " (at most: at the declared rows per unit)" : ""),
				 errhint("Name fewer columns with options {\"columns\": [...]}, or weight them with \"shares\"; dpobj.aggregate_accuracy() gives a statistic's accuracy before any run.")));
}

Datum
dpobj_describe(PG_FUNCTION_ARGS)
{
	Oid			relid;
	char		relkind;
	char	   *relation;
	DescribeOpts o = {NULL, 10, {1, 1, 1}};
	char	  **cols;
	int			ncols;
	Jsonb	   *enc,
			   *what,
			   *pass;
	bool		unit_private;

	for (int i = 0; i < 4; i++)
		if (PG_ARGISNULL(i))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("dpobj.describe: argument %d must not be NULL", i + 1),
					 errhint("Pass '{}' for no options.")));
	relid = PG_GETARG_OID(0);
	InitMaterializedSRF(fcinfo, 0);
	relation = dp_lock_relation(relid, &relkind);
	/* protected?  a budget?  before anything that reads a declaration (runaccess.h) */
	run_check_access(relid, relation);
	/* public grounds only: the options, the catalog, the declarations */
	initStringInfo(&o.pass);
	appendStringInfoChar(&o.pass, '{');
	dp_options_foreach(PG_GETARG_JSONB_P(3), "'{\"columns\": [\"age\", \"sex\"]}'", describe_option, &o);
	appendStringInfoChar(&o.pass, '}');
	cols = o.columns ? describe_named(o.columns, &ncols) : describe_declared(relid, &ncols);
	if (ncols == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("dpobj.describe: the table has no declared columns"),
				 errhint("The table's owner declares levels or bounds with dpobj.declare_domain().")));
	train_query_check_columns(relid, relation, cols, ncols, NULL, NULL);
	enc = domains_encoding(relid, relation, cols, ncols, DOMAINS_REQUIRED);
	what = describe_what(encoding_parse(enc), &o);
	pass = DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(o.pass.data)));
	unit_private = unit_bound_requested(pass, "dpobj.describe");
	aggrun_run(fcinfo, "describe", relid, relation, cols, ncols, enc, what,
			   construct_empty_array(TEXTOID), pass, fcinfo->args[1].value, fcinfo->args[2].value);
	describe_notice(relid, relation, encoding_parse(enc), &o, PG_GETARG_FLOAT8(1), unit_private);
	return (Datum) 0;
}
