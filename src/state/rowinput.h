/*-------------------------------------------------------------------------
 *
 * rowinput.h
 *	  The per-row arguments every training aggregate shares:
 *	  (state, features float8[], label boolean, epsilon, delta [, options]),
 *	  or with the features as trailing float8 arguments (VARIADIC "any"):
 *	  (state, label, epsilon, delta, options, feature, ...).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_ROWINPUT_H
#define DPOBJ_ROWINPUT_H

#include "postgres.h"

#include "fmgr.h"
#include "utils/array.h"
#include "utils/jsonb.h"

typedef struct DPRowInput
{
	MemoryContext aggcontext;	/* the aggregate's memory context */
	double		epsilon;
	double		delta;
	ArrayType  *features;		/* one-dimensional, no NULLs, d > 0; NULL: arguments */
	const float8 *values;		/* the d feature values (arguments: dp_row_cols_values) */
	int			d;
	bool		label;
	/* protected path: drop bad rows, never report them; read by dp_row_drops_bad() */
	int8		drop_bad_rows;	/* -1: not yet known, else 0 or 1 */
	int8		options_arg;	/* the options' argument number */
	FunctionCallInfo fcinfo;	/* the call, for the lazy lookup */
} DPRowInput;

/*
 * Whether bad rows are dropped (protected path) rather than reported: this
 * backend's protected context, or the option "sealed" of the aggregate's own
 * options (options.h).  Looked up on the first call for a row only: the
 * clean rows of a direct run never pay for the options lookup.
 */
extern bool dp_row_drops_bad_lookup(DPRowInput *row);

static inline bool
dp_row_drops_bad(DPRowInput *row)
{
	if (row->drop_bad_rows < 0)
		row->drop_bad_rows = dp_row_drops_bad_lookup(row) ? 1 : 0;
	return row->drop_bad_rows != 0;
}

/*
 * Checks the call context (aggregate, not window) and the row's arguments.
 * Returns false when the row is to be dropped (protected path, NULL
 * features/label/elements); raises an error naming the problem — never the
 * value — on the direct path.  Does not look at the feature values.
 */
extern bool dp_row_read(FunctionCallInfo fcinfo, const char *aggname, DPRowInput *row);

/* dp_row_read() with argument 2 a group key (any type; label true): its errors name the key */
extern bool dp_row_read_key(FunctionCallInfo fcinfo, const char *aggname, DPRowInput *row);

/* the first feature argument of an aggregate that takes them one by one */
#define DP_ROW_COLS_FIRST 5

/*
 * dp_row_read for the features as arguments from DP_ROW_COLS_FIRST on
 * (d = their number, at least one): the same drops and errors, a NULL
 * feature standing for a NULL element.  When *types_checked is false, first
 * checks that every feature argument is float8 (not a VARIADIC array), then
 * sets it: the caller keeps it for the call site (fn_extra).
 */
extern bool dp_row_read_cols(FunctionCallInfo fcinfo, const char *aggname,
							 DPRowInput *row, bool *types_checked);

/*
 * The call and the label (argument 1) of an aggregate whose arguments from
 * DP_ROW_COLS_FIRST on are its caller's to read (any types, NULLs kept):
 * false when the label is NULL on the protected path.
 */
extern bool dp_row_read_label(FunctionCallInfo fcinfo, const char *aggname, DPRowInput *row);

/* the features of a row dp_row_read_cols accepted into x (d values); row->values = x */
extern void dp_row_cols_values(DPRowInput *row, float8 *x);

/*
 * A later row: epsilon, delta, the options (byte-for-byte) and the number
 * of features must equal the first row's.
 */
extern void dp_row_check_same(const char *aggname, const DPRowInput *row,
							  Jsonb *options, double epsilon0, double delta0,
							  Jsonb *options0, int d0);

/*
 * The same checks for run-wide arguments that arrive together (a partial
 * state being combined, aggstate.c): the error a row would get.
 */
extern void dp_run_check_same(const char *aggname, double epsilon, double delta,
							  bool same_options, int d, double epsilon0,
							  double delta0, int d0);

/* epsilon > 0 and finite, 0 < delta < 1; the pure form (epsilon-DP runs): 0 <= delta < 1 */
extern void dp_check_privacy_params(double epsilon, double delta);
extern void dp_check_pure_privacy_params(double epsilon, double delta);

/* d <= DPOBJ_GLM_MAX_DIM (the continuous mechanisms' cap), or an error naming aggname */
extern void dp_check_dimension(const char *aggname, int d);

#endif							/* DPOBJ_ROWINPUT_H */
