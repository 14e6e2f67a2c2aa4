/*-------------------------------------------------------------------------
 *
 * rowinput.c
 *	  Reading and checking the per-row arguments shared by every training
 *	  aggregate (halfspace family in halfspacestate.c, GLM family in glmstate.c),
 *	  the features as a float8[] or as separate float8 arguments (linearstate.c).
 *
 * Direct path: every bad row raises an error that names the problem and
 * never the value.  Protected path (dpobj.train): rows with NULL
 * features, elements or labels are dropped, so that no error depends on
 * the data; train() builds every row's features from validated columns,
 * so the remaining shape errors cannot depend on the data there.
 *
 *-------------------------------------------------------------------------
 */
#include "state/rowinput.h"

#include <math.h>

#include "base/dpobj.h"
#include "base/options.h"
#include "context/protected.h"

#include "catalog/pg_type.h"
#include "utils/array.h"

/*
 * The call context (an aggregate, not a window) and the arguments that are
 * the same on every row: epsilon and delta at eps_arg and eps_arg + 1, the
 * options right after them.
 */
static void
dp_row_begin(FunctionCallInfo fcinfo, const char *aggname, DPRowInput *row, int eps_arg)
{
	switch (AggCheckCallContext(fcinfo, &row->aggcontext))
	{
		case AGG_CONTEXT_AGGREGATE:
			break;
		case AGG_CONTEXT_WINDOW:
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("%s cannot be used as a window function", aggname),
					 errhint("Every evaluation would be a separately charged mechanism run; aggregate with GROUP BY instead.")));
			break;
		default:
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("%s transition function called in non-aggregate context", aggname),
					 errhint("Call %s as an aggregate.", aggname)));
	}
	if (PG_ARGISNULL(eps_arg) || PG_ARGISNULL(eps_arg + 1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("epsilon and delta must not be NULL"),
				 errhint("Pass the privacy parameters as constants.")));
	row->epsilon = PG_GETARG_FLOAT8(eps_arg);
	row->delta = PG_GETARG_FLOAT8(eps_arg + 1);

	/*
	 * Protected path (dpobj.train): bad rows are dropped, not reported.
	 * train() builds every row's features with the same number of values
	 * from validated columns, so the remaining shape errors cannot depend
	 * on the data there.  The mode comes with the aggregate's own options
	 * ("sealed", options.h), so a Citus worker running this transition
	 * function for a shard knows it too; this backend's protected context
	 * says the same on the coordinator.
	 */
	row->fcinfo = fcinfo;
	row->options_arg = eps_arg + 2;
	row->drop_bad_rows = -1;
}

/* a NULL label (key: a group key) or feature on the direct path: the error names the problem */
static pg_noreturn void
dp_row_null_error(const char *aggname, bool label_null, bool key)
{
	if (label_null && key)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s: key must not be NULL", aggname),
				 errhint("Filter out rows with a NULL key; dpobj.aggregate() drops them.")));
	if (label_null)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s: label must not be NULL", aggname),
				 errhint("Filter out rows with a missing label before training.")));
	ereport(ERROR,
			(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
			 errmsg("%s: feature array must not contain NULL elements", aggname),
			 errhint("Filter out or impute rows with missing features before training.")));
}

/* dp_row_read(), argument 2 a label or (key) a group key */
static bool
dp_row_read_of(FunctionCallInfo fcinfo, const char *aggname, DPRowInput *row, bool key)
{
	ArrayType  *arr;

	dp_row_begin(fcinfo, aggname, row, 3);
	arr = PG_ARGISNULL(1) ? NULL : PG_GETARG_ARRAYTYPE_P(1);
	if (arr == NULL || PG_ARGISNULL(2) || array_contains_nulls(arr))
	{
		if (dp_row_drops_bad(row))
			return false;

		/* row values: errors name the problem, never the value */
		if (arr == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("%s: feature array must not be NULL", aggname),
					 errhint("Filter out or impute rows with missing features before training.")));
		/* NULL elements: reported here unless the shape error below comes first */
		if (PG_ARGISNULL(2) || ARR_NDIM(arr) <= 1)
			dp_row_null_error(aggname, PG_ARGISNULL(2), key);
	}
	row->label = key ? true : PG_GETARG_BOOL(2);

	if (ARR_NDIM(arr) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: feature array must be one-dimensional", aggname),
				 errhint("Pass one float8[] of features per row.")));
	row->d = ArrayGetNItems(ARR_NDIM(arr), ARR_DIMS(arr));
	if (row->d == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: feature array must not be empty", aggname),
				 errhint("Pass at least one feature per row.")));
	row->features = arr;
	row->values = (const float8 *) ARR_DATA_PTR(arr);
	return true;
}

bool
dp_row_read(FunctionCallInfo fcinfo, const char *aggname, DPRowInput *row)
{
	return dp_row_read_of(fcinfo, aggname, row, false);
}

bool
dp_row_read_key(FunctionCallInfo fcinfo, const char *aggname, DPRowInput *row)
{
	return dp_row_read_of(fcinfo, aggname, row, true);
}

/*
 * The feature arguments are float8, passed one by one: checked once per
 * call site (the types are the query's, the same on every row).
 */
static void
dp_row_check_cols(FunctionCallInfo fcinfo, const char *aggname)
{
	if (get_fn_expr_variadic(fcinfo->flinfo))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s: pass the features as separate arguments, not as a VARIADIC array", aggname),
				 errhint("The *_cols aggregates take one float8 argument per feature; pass an array to the aggregate without _cols.")));
	for (int i = DP_ROW_COLS_FIRST; i < PG_NARGS(); i++)
		if (get_fn_expr_argtype(fcinfo->flinfo, i) != FLOAT8OID)
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("%s: feature %d is not of type double precision", aggname,
							i - DP_ROW_COLS_FIRST + 1),
					 errhint("Cast every feature to float8, e.g. x::float8.")));
}

bool
dp_row_read_cols(FunctionCallInfo fcinfo, const char *aggname, DPRowInput *row,
				 bool *types_checked)
{
	bool		null = PG_ARGISNULL(1);

	dp_row_begin(fcinfo, aggname, row, 2);
	if (!*types_checked)
	{
		dp_row_check_cols(fcinfo, aggname);
		*types_checked = true;
	}
	row->d = PG_NARGS() - DP_ROW_COLS_FIRST;
	for (int i = DP_ROW_COLS_FIRST; i < PG_NARGS(); i++)
		null |= PG_ARGISNULL(i);
	if (null)
	{
		if (dp_row_drops_bad(row))
			return false;
		dp_row_null_error(aggname, PG_ARGISNULL(1), false);
	}
	row->label = PG_GETARG_BOOL(1);
	row->features = NULL;
	row->values = NULL;
	return true;
}

bool
dp_row_read_label(FunctionCallInfo fcinfo, const char *aggname, DPRowInput *row)
{
	dp_row_begin(fcinfo, aggname, row, 2);
	row->d = PG_NARGS() - DP_ROW_COLS_FIRST;
	row->features = NULL;
	row->values = NULL;
	if (PG_ARGISNULL(1))
	{
		if (dp_row_drops_bad(row))
			return false;
		dp_row_null_error(aggname, true, false);
	}
	row->label = PG_GETARG_BOOL(1);
	return true;
}

void
dp_row_cols_values(DPRowInput *row, float8 *x)
{
	FunctionCallInfo fcinfo = row->fcinfo;

	for (int j = 0; j < row->d; j++)
		x[j] = PG_GETARG_FLOAT8(DP_ROW_COLS_FIRST + j);
	row->values = x;
}

bool
dp_row_drops_bad_lookup(DPRowInput *row)
{
	FunctionCallInfo fcinfo = row->fcinfo;
	int			o = row->options_arg;

	return dpobj_protected_peek() != NULL ||
		(PG_NARGS() > o && !PG_ARGISNULL(o) && dp_options_sealed(PG_GETARG_JSONB_P(o)));
}

/* epsilon > 0 and finite, delta in [0, 1) (zero_ok) or (0, 1) */
static void
dp_check_params(double epsilon, double delta, bool zero_ok)
{
	if (!isfinite(epsilon) || epsilon <= 0.0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("epsilon must be a finite number greater than zero"),
				 errhint("Typical values are between 0.01 and 10.")));
	if (!isfinite(delta) || delta < 0.0 || (delta == 0.0 && !zero_ok) || delta >= 1.0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("delta must be %s 0 and less than 1", zero_ok ? "at least" : "greater than"),
				 errhint("A common choice is delta = 1/n^2 for n training rows.")));
}

void
dp_check_privacy_params(double epsilon, double delta)
{
	dp_check_params(epsilon, delta, false);
}

void
dp_check_pure_privacy_params(double epsilon, double delta)
{
	dp_check_params(epsilon, delta, true);
}

void
dp_check_dimension(const char *aggname, int d)
{
	if (d > DPOBJ_GLM_MAX_DIM)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s supports at most %d features, got %d",
						aggname, DPOBJ_GLM_MAX_DIM, d),
				 errhint("Reduce the feature set.")));
}

void
dp_run_check_same(const char *aggname, double epsilon, double delta, bool same_options,
				  int d, double epsilon0, double delta0, int d0)
{
	if (epsilon != epsilon0 || delta != delta0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: epsilon and delta must be the same on every row", aggname),
				 errhint("Pass the privacy parameters as constants.")));
	if (!same_options)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: options must be the same on every row", aggname),
				 errhint("Pass the options as a constant.")));
	if (d != d0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: all feature arrays must have the same length", aggname),
				 errdetail("The first row had %d features.", d0),
				 errhint("Encode every row with the same feature set.")));
}

void
dp_row_check_same(const char *aggname, const DPRowInput *row, Jsonb *options,
				  double epsilon0, double delta0, Jsonb *options0, int d0)
{
	bool		same;

	/* the common case first: nothing to report */
	if (options == NULL || options0 == NULL)
		same = (options == NULL && options0 == NULL);
	else
		same = VARSIZE(options) == VARSIZE(options0) &&
			memcmp(options, options0, VARSIZE(options)) == 0;
	if (row->epsilon != epsilon0 || row->delta != delta0 || !same || row->d != d0)
		dp_run_check_same(aggname, row->epsilon, row->delta, same, row->d,
						  epsilon0, delta0, d0);
}
