/*-------------------------------------------------------------------------
 *
 * aggrun.h
 *	  dpobj.aggregate()'s run on a protected table (aggrun.c), shared with
 *	  dpobj.describe() (describe.c), and its public layout and intervals,
 *	  shared with its accuracy before any run (aggplan.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_AGGRUN_H
#define DPOBJ_AGGRUN_H

#include "postgres.h"

#include "fmgr.h"
#include "utils/array.h"
#include "utils/jsonb.h"

/*
 * The columns a call reads: group_by's, then the statistics' (a count
 * alone: a column with declared levels); the caller checks them.
 */
extern char **aggrun_columns(Oid relid, ArrayType *group_by, Jsonb *what, int *n);

/* a call's public form: what it groups by and the columns it reads */
typedef struct AggCall
{
	Jsonb	   *what;			/* by a key: its selection count added */
	ArrayType  *group_by;		/* by a key: empty */
	char	   *key;			/* a group_by column without declared levels, or NULL */
	Jsonb	   *enc;			/* the key's own encoding (counts only), or NULL */
	char	  **cols;
	int			ncols;
} AggCall;

/*
 * dpobj.aggregate()'s first refusals on public grounds, in its order, for
 * what grouped by group_by on relid (locked): the key column, the columns
 * read (they exist, the caller may read them); the call's form into *c
 */
extern void aggrun_prepare(Oid relid, const char *relation, Jsonb *what, ArrayType *group_by,
						   AggCall *c);

/*
 * Whether options ask for a private k' ("rows_per_unit": "private",
 * unitbound.h); refused (public grounds) by a key column without levels
 */
extern bool aggrun_unit_private(Jsonb *options, const char *key, const char *fname);

/*
 * An integer column whose declared range [lo, hi] holds at most
 * AGG_RANGE_LEVELS integers is grouped by those integers as its levels
 * (rangelevels.c): enc's numeric entries that no statistic of what reads
 * by "column" rewritten so (group_by columns); enc itself if none
 */
#define AGG_RANGE_LEVELS 1000
extern bool aggrun_range_is_levels(Oid relid, const char *name, double lo, double hi);
extern Jsonb *aggrun_range_levels(Oid relid, Jsonb *enc, Jsonb *what);

/* whether a statistic of what reads an expression ("expr", aggexpr.c) */
extern bool aggrun_has_expr(Jsonb *what);

/*
 * enc (NULL: the declared domains of *cols) with a numeric column per
 * distinct expression of what, named by its JSON text, of its derived
 * bounds, its name appended to *cols (aggexpr.c); refusals before any charge
 */
extern Jsonb *aggrun_expr_encoding(Oid relid, const char *relation, Jsonb *enc, Jsonb *what,
								   char ***cols, int *ncols);

/* the layout {"encoding": enc, "group_by": [...], "what": what} */
extern Jsonb *aggrun_layout(Jsonb *enc, ArrayType *group_by, Jsonb *what);

/* the options "filter", "where", "deadline" and "max_keys" only, else a public error */
extern void aggrun_check_options(Jsonb *options);

/*
 * Runs what grouped by group_by on relid (locked, its columns cols checked)
 * through the sealed path (context/sealedrun.h) and fills fcinfo's materialized
 * result (InitMaterializedSRF done) with aggregate()'s rows; enc is the
 * columns' encoding if the caller already has it, else NULL.  entry is
 * the name the ledger records: "aggregate", or "describe" (an alias of it).
 */
extern void aggrun_run(FunctionCallInfo fcinfo, const char *entry, Oid relid,
					   const char *relation, char **cols, int ncols, Jsonb *enc, Jsonb *what,
					   ArrayType *group_by, Jsonb *options, Datum epsilon, Datum delta);

/*
 * A group_by column without declared levels (aggkeyrun.c): the only one
 * (else a public refusal), or NULL; checked to exist
 */
extern char *aggrun_key_column(Oid relid, const char *relation, ArrayType *group_by);

/* what with {"stat": "count"} appended unless it has one: the key's selection count */
extern Jsonb *aggrun_key_what(Jsonb *what);

/*
 * A run of counts only by key: the encoding of the key column itself with
 * one made-up level (public; no row dropped, no declaration needed), or
 * NULL (a statistic names a column, or the key's type is not a level's)
 */
extern Jsonb *aggrun_key_encoding(Oid relid, const char *key, Jsonb *what);

/* refuses the option "max_keys" (declared groups only) */
extern void aggrun_key_no_max(Jsonb *options);

/* {"encoding": enc, "group_by": [], "what": what[, "max_keys": n]} of options' "max_keys" */
extern Jsonb *aggrun_key_layout(Jsonb *enc, Jsonb *what, Jsonb *options);

/*
 * aggrun_run grouped by key (no declared levels): the released keys, in
 * key order, each with what's rows; enc NULL: the columns' declared domains
 */
extern void aggrun_run_keys(FunctionCallInfo fcinfo, Oid relid, const char *relation,
							char **cols, int ncols, Jsonb *enc, const char *key, Jsonb *what,
							Jsonb *options, Datum epsilon, Datum delta);

/*
 * The rows of a release rel of layout l on relid (aggrows.c): per declared
 * cell, or per released key of column keycol (not NULL), each statistic's
 * estimate and 95 % interval, post-processed within the truth's range
 */
struct AggLayout;
extern void aggrows_emit(FunctionCallInfo fcinfo, Oid relid, const struct AggLayout *l,
						 Jsonb *rel, const char *keycol);

/* v to 15 significant digits (127.8, not 127.80000000000001) */
extern double aggrows_clean(double v);

#endif							/* DPOBJ_AGGRUN_H */
