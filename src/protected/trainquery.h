/*-------------------------------------------------------------------------
 *
 * trainquery.h
 *	  The one query dpobj.train() runs on the protected path, built from
 *	  catalog lookups and bound parameters only (trainquery.c):
 *
 *	    SELECT <aggregate>(ARRAY[<feature>, ...]::float8[], <label>,
 *	                       $1, $2, $3)
 *	      FROM <table> [WHERE <column> OPERATOR(pg_catalog.<op>) $4 ...]
 *
 *	  $1 epsilon, $2 delta (float8), $3 the mechanism's options (jsonb),
 *	  $4... filter constants of the columns' types.  No expression in it
 *	  can raise an error that depends on a row's value (leak 5).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_TRAINQUERY_H
#define DPOBJ_TRAINQUERY_H

#include "postgres.h"

#include "lib/stringinfo.h"
#include "utils/jsonb.h"

/* limits of a structured filter */
#define DPOBJ_MAX_FILTERS		16

typedef struct TrainQuery
{
	StringInfoData sql;
	int			nparams;
	Oid			types[3 + DPOBJ_MAX_FILTERS];
	Datum		values[3 + DPOBJ_MAX_FILTERS];
} TrainQuery;

/*
 * Builds the query.  features are column names (nfeatures > 0, no NULLs);
 * filter is the "filter" option or NULL.  Raises an error naming the
 * caller's argument (never a row value) for unknown columns, unfit types
 * and malformed filters.  class_label: the label is a class, a text or
 * integer column passed as text (multi-class mechanisms); else boolean.
 */
extern void train_query_build(TrainQuery *q, const char *aggregate, Oid relid,
							  const char *relation, char **features, int nfeatures,
							  const char *label, bool class_label, JsonbValue *filter,
							  double epsilon, double delta, Jsonb *options);

#endif							/* DPOBJ_TRAINQUERY_H */
