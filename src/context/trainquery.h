/*-------------------------------------------------------------------------
 *
 * trainquery.h
 *	  The one query dpobj.train() runs on the protected path, built from
 *	  catalog lookups and bound parameters only (trainquery.c):
 *
 *	    SELECT <aggregate>(ARRAY[<feature>, ...]::float8[], <label>,
 *	                       $1, $2, $3)
 *	      FROM <table> [WHERE <filter>]
 *
 *	  or, for a mechanism with an aggregate that takes the features as
 *	  separate arguments (dp_linear_regression_cols, dp_passglm_cols: no
 *	  float8[] built per row), SELECT <aggregate>(<label>, $1, $2, $3,
 *	  <feature>, ...) -- except on Citus, and with encoded features unless
 *	  it encodes them itself (dp_aggregate_cols: each column as text or float8).
 *
 *	  $1 epsilon, $2 delta (float8), $3 the mechanism's options (jsonb),
 *	  $4... filter constants of the columns' types.  With declared domains
 *	  the feature array is dpobj.encode_features($4, ...) (encode.h) and
 *	  the filter constants start at $5.  <filter> is one expression that
 *	  evaluates every condition on every row it sees, after the owner's
 *	  row-security conditions:
 *	    pg_catalog.num_nulls(CASE WHEN <column> OPERATOR(pg_catalog.<op>) $4
 *	                         THEN 1 END, ...) = 0
 *	  No expression in the query can raise an error that depends on a row's
 *	  value (leak 5).
 *
 *	  On a table with a privacy unit (units.h) the rows come from
 *
 *	    (SELECT dpobj.unit_counts(<unit>, $k) AS "dpobj unit counts"
 *	       FROM <table> WHERE <cond>) AS "dpobj units"
 *	    CROSS JOIN LATERAL (
 *	      (SELECT <columns> FROM <table>
 *	        WHERE "dpobj unit counts" > 0
 *	          AND CASE WHEN <cond>
 *	                   THEN dpobj.unit_keep(<unit>, "dpobj unit counts")
 *	                   ELSE false END OFFSET 0)
 *	      UNION ALL
 *	      (SELECT <columns> FROM
 *	         (SELECT <columns>, row_number() OVER "dpobj unit" AS "dpobj unit row",
 *	                 count(*) OVER "dpobj unit" AS "dpobj unit size"
 *	            FROM <table> WHERE "dpobj unit counts" = 0
 *	             AND <cond>
 *	          WINDOW "dpobj unit" AS (PARTITION BY <unit>)) AS "dpobj unit sort"
 *	        WHERE dpobj.unit_keep_sorted("dpobj unit row", "dpobj unit size", $k))
 *	      ) AS "dpobj unit rows"
 *
 *	  (<cond>: <filter> with "<unit> IS NOT NULL" as one more term;
 *	  operators written OPERATOR(pg_catalog.op)).  The first scan counts
 *	  each unit's selected rows within dpobj.max_state_memory and returns a
 *	  handle (> 0), or 0 when the units would outgrow it; each branch's
 *	  condition on it is a one-time filter, so exactly one branch reads the
 *	  table: a second scan that keeps a uniformly random k of each unit's
 *	  rows (the CASE makes unit_keep() see exactly the rows the first scan
 *	  counted), or one scan sorted by unit (a sort that spills past
 *	  work_mem) whose units keep a uniformly random k of their rows.  One
 *	  statement, one snapshot; random bits that depend on no row
 *	  (unitkeep.c).  A linked table's rows (<table>: the join of its path,
 *	  unitlinks.h) are selected once, into
 *	    (WITH "dpobj unit selected" AS MATERIALIZED
 *	       (SELECT <columns>, <unit> FROM <table> WHERE <cond>)
 *	     SELECT "dpobj unit rows".* FROM <the above, reading
 *	       "dpobj unit selected" with <cond> true>) AS "dpobj unit rows"
 *	  so that both scans read the same stored rows instead of joining the
 *	  path twice (a tuplestore: temporary files beyond work_mem).  That
 *	  join runs in parallel workers where it can (train.c, sealplan.c);
 *	  the CTE's scans and the bounding's functions (PARALLEL RESTRICTED)
 *	  run in the leader, which counts, keeps and aggregates the rows.
 *
 *	  A layout counting distinct units ({"stat": "units"}) numbers the kept
 *	  rows of each unit within its group cell,
 *	    (SELECT "dpobj unit rows".*, row_number() OVER (PARTITION BY <unit>,
 *	       dpobj.encode_features($4, <group columns, NULL for the others>,
 *	       <zeros>)) AS "dpobj unit first" FROM <the above>) AS "dpobj unit rows"
 *	  (no group column: the unit alone; a sort that spills past work_mem), and the aggregate's label is
 *	  "dpobj unit first" = 1: the first kept row of its unit in its cell.
 *
 *	  On a Citus distributed table (filter_in_aggregate) the filter goes
 *	  into the aggregate instead of a WHERE clause:
 *
 *	    SELECT <aggregate>(...) FILTER (WHERE <filter>)
 *	      FROM <table>
 *
 *	  Citus pushes it down inside worker_partial_agg(...) FILTER (...), so
 *	  every shard's task is a full sequential scan without a qualifier:
 *	  no shard's plan or counters depend on which rows match.  $3 always
 *	  carries {"sealed": true} (options.h): the shards' transition
 *	  functions drop bad rows silently, like the coordinator's.  A Citus
 *	  table distributed by its unit column (protectable.h; joined on it to
 *	  co-located protected tables, unitjoin.h) reads its rows
 *	  from the sorted branch above alone, with <cond> and without the
 *	  handle's condition: its window is partitioned by the distribution
 *	  column, so Citus runs it in each shard's task, under the aggregate's
 *	  partial state, and each shard bounds the units it holds whole.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_TRAINQUERY_H
#define DPOBJ_TRAINQUERY_H

#include "postgres.h"

#include "access/htup.h"
#include "fmgr.h"
#include "lib/stringinfo.h"
#include "utils/jsonb.h"

/* limits of a structured filter */
#define DPOBJ_MAX_FILTERS		16

/* expressions of one query: a statistic's each (AGG_MAX_STATS), and "where" */
#define TRAIN_MAX_EXPRS			33

/*
 * where: the option "where" (context/exprjson.h), or NULL, set before
 * train_query_build: ANDed with the filter.  A run's layout ("layout" in
 * the options) whose "what" has expressions reads, for each encoding
 * column named by an expression's JSON text, dpobj.expr_value() of it.
 */
typedef struct TrainQuery
{
	StringInfoData sql;
	int			nparams;
	Oid			types[5 + DPOBJ_MAX_FILTERS + TRAIN_MAX_EXPRS];
	Datum		values[5 + DPOBJ_MAX_FILTERS + TRAIN_MAX_EXPRS];
	JsonbValue *where;
	JsonbValue *what;			/* the layout's "what", or NULL */
	char	   *unit_cell;		/* "what" counts distinct units: each row's cell, or NULL */
	bool		unit_private;	/* set before train_query_build: k is the k' of
								 * (SELECT dpobj.unit_bound(m_u) FROM <each unit's
								 * selected row count m_u>), drawn before both
								 * scans (protected/unitbound.c), not $k */
	char	   *unit_bound_sql; /* with unit_private on Citus: the query run
								 * first, SELECT dpobj.unit_bound_shards(m_u,
								 * $3) over the same parameters, whose k'
								 * seal.c puts into values[unit_bound_param]
								 * (the sorted bounding's $k); else NULL */
	int			unit_bound_param;
} TrainQuery;

/* what a mechanism's label argument is */
typedef enum TrainLabel
{
	TRAIN_LABEL_BOOLEAN = 0,	/* a boolean or integer column (> 0) */
	TRAIN_LABEL_REAL,			/* a regression's float8: numeric or boolean, like a feature */
	TRAIN_LABEL_CLASS,			/* a class: a text or integer column passed as text */
	TRAIN_LABEL_NONE,			/* no label (dpobj.aggregate): the constant true */
	TRAIN_LABEL_KEY				/* a group key: a column of any type, as text */
} TrainLabel;

/*
 * The most features an aggregate that takes them as separate arguments is
 * given: its transition function's arguments are the state, the label,
 * epsilon, delta, the options and the features (at most FUNC_MAX_ARGS).
 */
#define TRAIN_MAX_FEATURE_ARGS (FUNC_MAX_ARGS - 5)

/*
 * The catalog tuple of column name of relid (exact spelling, no quoting or
 * case folding; a system or dropped column too), or an error naming the
 * caller's own argument with the hint given: for ReleaseSysCache().
 */
extern HeapTuple train_query_column(Oid relid, const char *relation, const char *name,
									const char *hint);

/*
 * Every column named by the caller (features, label unless NULL, the filter's
 * columns unless NULL) exists: 42703 from the catalog alone, before domains,
 * encodings or options.
 */
extern void train_query_check_columns(Oid relid, const char *relation, char **features,
									  int nfeatures, const char *label, JsonbValue *filter);

/*
 * Builds the query.  aggregate takes (features float8[], label, epsilon,
 * delta, options); aggregate_args, or NULL, is the same mechanism taking
 * (label, epsilon, delta, options, feature, ...), which no float8[] is built
 * for per row: used unless the features are encoded (with args_encoded it
 * takes the encoding's columns, text or float8, and encodes them itself),
 * the table is a Citus table (filter_in_aggregate) or there are more than
 * TRAIN_MAX_FEATURE_ARGS.  aggregate_arrays, or NULL: the same mechanism
 * taking the encoding's columns raw in two arrays (label, epsilon, delta,
 * options, text[] of those with levels, float8[] of the others), used on a
 * Citus table (whose partial aggregate takes no VARIADIC "any").
 * features are column names (nfeatures > 0, no NULLs);
 * filter is the "filter" option or NULL; unit_column (quoted) and
 * rows_per_unit k bound each unit's rows, or NULL and 0 at row level
 * (with filter_in_aggregate: the sorted bounding alone, filter in it, no
 * unit_from); unit_from, unless NULL, is read
 * instead of relation where the unit's rows are (a linked table joined to
 * its unit, exposing unit_column).
 * encoding (encode.h) or NULL: with one, the features are
 * dpobj.encode_features($4, ARRAY[categorical]::text[], ARRAY[numeric]::float8[])
 * over the encoding's columns and $4 is the encoding (filters follow).
 * Raises an error naming the caller's argument (never a row value) for
 * unknown columns, unfit types and malformed filters.
 */
extern void train_query_build(TrainQuery *q, const char *aggregate,
							  const char *aggregate_args, bool args_encoded,
							  const char *aggregate_arrays, Oid relid,
							  const char *relation, char **features, int nfeatures,
							  const char *label, TrainLabel label_kind, JsonbValue *filter,
							  double epsilon, double delta, Jsonb *options,
							  const char *unit_column, const char *unit_from,
							  int rows_per_unit, Jsonb *encoding, bool filter_in_aggregate);

/*
 * Releases the pg_cast share locks a key column's check took in this call
 * (trainquery.c): once the sealed query is parsed and planned, and at the
 * end of the call whatever happened.
 */
extern void train_query_unlock_casts(void);

#endif							/* DPOBJ_TRAINQUERY_H */
