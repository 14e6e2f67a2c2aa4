/*-------------------------------------------------------------------------
 *
 * keptoptions.h
 *	  The options a kept-row boosting family (ebm, gbdt) shares with the
 *	  binary classifiers: class_weight, metric, rows_per_unit and
 *	  sample_rows (keptoptions.c), parsed into the run's OpParams beside the
 *	  family's own keys.  All public.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_KEPTOPTIONS_H
#define DPOBJ_KEPTOPTIONS_H

#include "postgres.h"

#include "utils/jsonb.h"

#include "mechanisms/operating.h"

/* a family's names: its aggregate, example, hints and own keys */
typedef struct KeptOptionsSpec
{
	const char *aggname;
	const char *example;		/* e.g. "'{\"bins\": 32}'" */
	const char *hint_class;		/* the valid options of a yes/no label */
	const char *hint_reg;		/* ... of a float8 label */
	bool		(*foreign) (const char *key);	/* the family's own keys */
} KeptOptionsSpec;

/*
 * The run's parameters (operating.h) from epsilon, delta and the shared
 * options, refusing keys that are neither (regression: a float8 label, no
 * class_weight nor metric); a yes/no label's metric by default balanced
 * accuracy, its balance estimated at OP_BALANCE_SHARE
 */
extern void keptoptions_run(const KeptOptionsSpec *s, bool regression, OpParams *p,
							double epsilon, double delta, Jsonb *options);

/* whether the options are a float8 label's (they have "y_min" or "y_max") */
extern bool keptoptions_regression(Jsonb *options);

/*
 * "groups": an array of integers, 0 (a numeric coordinate) or m >= 2 (a
 * one-hot group of m; at most EBM_MAX_BINS), into *groups (palloc'd), *ngroups
 */
extern void keptoptions_groups(JsonbValue *v, const char *aggname, int **groups,
							   int *ngroups);

#endif							/* DPOBJ_KEPTOPTIONS_H */
