/*-------------------------------------------------------------------------
 *
 * hsstate.c
 *	  Transition function of the halfspace aggregates: validate a row,
 *	  quantise it, and count it in a hash table of distinct rows.
 *
 * Quantisation (ALGORITHMS.md section 1, "strict inequality"): each
 * feature is replaced by a_j = round(Q x_j) (half away from zero), i.e. x
 * is rounded to the lattice (1/Q)Z.  Q is a power of two, so Q x_j is
 * computed without rounding error and the result is bit-for-bit
 * deterministic.  With integer weights w, Q <w, x> = <w, a> is an integer,
 * hence <w, x> > 0 exactly when <w, a> >= 1: the MIP's margin constraint
 * and every other oracle decide each row in exact integer arithmetic.  The
 * rounding is a fixed per-row transformation of the data, so it does not
 * affect privacy; predict() applies the same rounding.
 *
 * The protected path (issue 4, dpobj.train()): rows with a NULL feature
 * array, a NULL element, a NULL label, a NaN or infinite feature, or a
 * feature whose quantised value is out of range are dropped -- silently
 * and deterministically -- instead of raising an error.  Whether an error
 * occurs would otherwise depend on the values of individual rows, which
 * the analyst must not learn.  The direct aggregates keep raising errors:
 * their caller can read the rows anyway.
 *
 *-------------------------------------------------------------------------
 */
#include "hsstate.h"

#include <math.h>

#include "budget.h"

#include "catalog/pg_type.h"
#include "common/hashfn.h"
#include "utils/array.h"
#include "utils/memutils.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"

#define HS_INITIAL_ROWS 256

static int
option_int(JsonbValue *v, const char *key, int lo, int hi)
{
	double		f;

	if (v->type != jbvNumeric)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("option \"%s\" must be a number", key),
				 errhint("Pass an integer between %d and %d.", lo, hi)));
	f = DatumGetFloat8(DirectFunctionCall1(numeric_float8,
										   NumericGetDatum(v->val.numeric)));
	if (!(f >= lo && f <= hi) || f != floor(f))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("option \"%s\" must be an integer between %d and %d", key, lo, hi),
				 errhint("Omit the option to use the default.")));
	return (int) f;
}

/* Parses the options jsonb into params (keys: B, D2, Q, oracle, time_limit). */
static void
parse_options(Jsonb *options, HSParams *params)
{
	JsonbIterator *it;
	JsonbValue	v;
	JsonbIteratorToken tok;
	char	   *key = NULL;

	if (!JB_ROOT_IS_OBJECT(options) || JB_ROOT_IS_SCALAR(options))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("options must be a JSON object"),
				 errhint("For example '{\"B\": 2, \"D2\": 4}'.")));

	it = JsonbIteratorInit(&options->root);
	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		if (tok == WJB_KEY)
		{
			key = pnstrdup(v.val.string.val, v.val.string.len);
			continue;
		}
		if (tok != WJB_VALUE)
			continue;
		if (strcmp(key, "B") == 0)
			params->B = option_int(&v, key, 1, DPOBJ_MAX_B);
		else if (strcmp(key, "D2") == 0)
			params->D2 = option_int(&v, key, 1, DPOBJ_MAX_D2);
		else if (strcmp(key, "Q") == 0)
		{
			int			q = option_int(&v, key, 1, DPOBJ_MAX_Q);

			if ((q & (q - 1)) != 0)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("option \"Q\" must be a power of two"),
						 errhint("A power of two makes the quantisation Q*x exact; the default is %d.",
								 DPOBJ_DEFAULT_Q)));
			params->Q = q;
		}
		else if (strcmp(key, "oracle") == 0)
		{
			char	   *s;

			if (v.type != jbvString)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("option \"oracle\" must be a string"),
						 errhint("Use \"auto\", \"mip\" or \"search\".")));
			s = pnstrdup(v.val.string.val, v.val.string.len);
			if (strcmp(s, "auto") == 0)
				params->oracle = DPOBJ_ORACLE_AUTO;
			else if (strcmp(s, "mip") == 0)
				params->oracle = DPOBJ_ORACLE_MIP;
			else if (strcmp(s, "search") == 0)
				params->oracle = DPOBJ_ORACLE_SEARCH;
			else
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("unknown oracle \"%s\"", s),
						 errhint("Use \"auto\", \"mip\" or \"search\".")));
		}
		else if (strcmp(key, "time_limit") == 0)
		{
			double		f = -1;

			if (v.type == jbvNumeric)
				f = DatumGetFloat8(DirectFunctionCall1(numeric_float8,
													   NumericGetDatum(v.val.numeric)));
			if (!(f >= 0 && f <= 86400.0 * 7))
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("option \"time_limit\" must be a number of seconds between 0 and 604800"),
						 errhint("0 means no limit; omit the option to use dpobj.solver_time_limit.")));
			params->time_limit = f;
		}
		else
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("unknown option \"%s\"", key),
					 errhint("Valid options are B, D2, Q, oracle and time_limit.")));
	}
}

static void
check_privacy_params(double epsilon, double delta)
{
	if (!isfinite(epsilon) || epsilon <= 0.0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("epsilon must be a finite number greater than zero"),
				 errhint("Typical values are between 0.01 and 10.")));
	if (!isfinite(delta) || delta <= 0.0 || delta >= 1.0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("delta must be greater than 0 and less than 1"),
				 errhint("A common choice is delta = 1/n^2 for n training rows.")));
}

void
hsstate_resolve_params(const HSState *state, int *B, int *D2)
{
	*B = state->params.B > 0 ? state->params.B : (int) floor(sqrt((double) state->d));
	*D2 = state->params.D2 > 0 ? state->params.D2 : state->d;
}

/* Defaults, then the options (if any). */
static void
init_params(HSParams *params, double epsilon, double delta, Jsonb *options)
{
	params->epsilon = epsilon;
	params->delta = delta;
	params->B = -1;
	params->D2 = -1;
	params->Q = DPOBJ_DEFAULT_Q;
	params->oracle = (DPObjOracle) dpobj_oracle;
	params->time_limit = -1;
	if (options != NULL)
		parse_options(options, params);
}

static void
check_dimension(const char *aggname, int d)
{
	if (d > DPOBJ_HALFSPACE_MAX_DIM)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s supports at most %d features, got %d",
						aggname, DPOBJ_HALFSPACE_MAX_DIM, d),
				 errhint("The exact oracle searches a grid exponential in the dimension; reduce the feature set.")));
}

void
hsstate_check_args(const char *aggname, double epsilon, double delta, int d,
				   Jsonb *options)
{
	HSParams	params;

	check_privacy_params(epsilon, delta);
	check_dimension(aggname, d);
	init_params(&params, epsilon, delta, options);
}

static HSState *
hsstate_create(MemoryContext aggcontext, int d, const HSParams *params, Jsonb *options)
{
	MemoryContext old = MemoryContextSwitchTo(aggcontext);
	HSState    *state = palloc0(sizeof(HSState));

	state->mcxt = aggcontext;
	state->d = d;
	state->params = *params;
	state->options = options ? (Jsonb *) PG_DETOAST_DATUM_COPY(JsonbPGetDatum(options)) : NULL;
	state->maxrows = HS_INITIAL_ROWS;
	state->x = palloc(sizeof(int64) * d * state->maxrows);
	state->pos = palloc0(sizeof(int64) * state->maxrows);
	state->neg = palloc0(sizeof(int64) * state->maxrows);
	state->hashes = palloc(sizeof(uint32) * state->maxrows);
	state->nslots = HS_INITIAL_ROWS * 2;
	state->slots = palloc0(sizeof(int32) * state->nslots);
	state->scratch = palloc(sizeof(int64) * d);
	MemoryContextSwitchTo(old);
	return state;
}

HSState *
hsstate_create_empty(int d, double epsilon, double delta, Jsonb *options)
{
	HSParams	params;

	init_params(&params, epsilon, delta, options);
	return hsstate_create(CurrentMemoryContext, d, &params, options);
}

static void
hsstate_grow(HSState *state)
{
	MemoryContext old = MemoryContextSwitchTo(state->mcxt);
	int			newmax = state->maxrows * 2;

	if ((Size) newmax * state->d * sizeof(int64) >= MaxAllocHugeSize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("too many distinct feature vectors"),
				 errhint("Reduce the number of distinct rows, e.g. with a smaller quantum Q or fewer continuous features.")));
	state->x = repalloc_huge(state->x, sizeof(int64) * state->d * newmax);
	state->pos = repalloc_huge(state->pos, sizeof(int64) * newmax);
	state->neg = repalloc_huge(state->neg, sizeof(int64) * newmax);
	state->hashes = repalloc_huge(state->hashes, sizeof(uint32) * newmax);
	memset(state->pos + state->maxrows, 0, sizeof(int64) * state->maxrows);
	memset(state->neg + state->maxrows, 0, sizeof(int64) * state->maxrows);
	state->maxrows = newmax;

	/* rebuild the index at twice the size: load factor stays <= 1/2 */
	pfree(state->slots);
	state->nslots = (uint32) newmax * 2;
	state->slots = MemoryContextAllocHuge(state->mcxt, sizeof(int32) * state->nslots);
	memset(state->slots, 0, sizeof(int32) * state->nslots);
	for (int u = 0; u < state->nrows; u++)
	{
		uint32		mask = state->nslots - 1;
		uint32		i = state->hashes[u] & mask;

		while (state->slots[i] != 0)
			i = (i + 1) & mask;
		state->slots[i] = u + 1;
	}
	MemoryContextSwitchTo(old);
}

/* Returns the index of the row equal to state->scratch, adding it if new. */
static int
hsstate_lookup(HSState *state)
{
	int			d = state->d;
	uint32		h = hash_bytes((const unsigned char *) state->scratch, sizeof(int64) * d);
	uint32		mask = state->nslots - 1;
	uint32		i = h & mask;
	int			u;

	while (state->slots[i] != 0)
	{
		u = state->slots[i] - 1;
		if (state->hashes[u] == h &&
			memcmp(state->x + (Size) u * d, state->scratch, sizeof(int64) * d) == 0)
			return u;
		i = (i + 1) & mask;
	}
	if (state->nrows >= state->maxrows)
	{
		hsstate_grow(state);
		return hsstate_lookup(state);
	}
	u = state->nrows++;
	memcpy(state->x + (Size) u * d, state->scratch, sizeof(int64) * d);
	state->hashes[u] = h;
	state->slots[i] = u + 1;
	return u;
}

HSState *
hsstate_accum(FunctionCallInfo fcinfo, HSState *state, const char *aggname,
			  bool has_options)
{
	MemoryContext aggcontext;
	ArrayType  *arr;
	bool		label;
	double		epsilon;
	double		delta;
	int			d;
	float8	   *vals;
	int			Q;
	bool		drop_bad_rows;

	switch (AggCheckCallContext(fcinfo, &aggcontext))
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
					 errmsg("%s transition function called in non-aggregate context", aggname)));
	}

	/* arguments that are the same on every row */
	if (PG_ARGISNULL(3) || PG_ARGISNULL(4))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("epsilon and delta must not be NULL"),
				 errhint("Pass the privacy parameters as constants.")));
	epsilon = PG_GETARG_FLOAT8(3);
	delta = PG_GETARG_FLOAT8(4);

	/*
	 * Protected path (dpobj.train): bad rows are dropped, not reported.
	 * train() builds every feature array with the same length from
	 * validated columns, so the remaining shape errors cannot depend on the
	 * data there.
	 */
	drop_bad_rows = (dpobj_protected_peek() != NULL);
	if (drop_bad_rows &&
		(PG_ARGISNULL(1) || PG_ARGISNULL(2) ||
		 array_contains_nulls(PG_GETARG_ARRAYTYPE_P(1))))
		return state;

	/* row values: errors name the problem, never the value */
	if (PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s: feature array must not be NULL", aggname),
				 errhint("Filter out or impute rows with missing features before training.")));
	if (PG_ARGISNULL(2))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s: label must not be NULL", aggname),
				 errhint("Filter out rows with a missing label before training.")));
	arr = PG_GETARG_ARRAYTYPE_P(1);
	label = PG_GETARG_BOOL(2);

	if (ARR_NDIM(arr) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: feature array must be one-dimensional", aggname),
				 errhint("Pass one float8[] of features per row.")));
	d = ArrayGetNItems(ARR_NDIM(arr), ARR_DIMS(arr));
	if (d == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: feature array must not be empty", aggname),
				 errhint("Pass at least one feature per row.")));
	if (array_contains_nulls(arr))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s: feature array must not contain NULL elements", aggname),
				 errhint("Filter out or impute rows with missing features before training.")));

	if (state == NULL)
	{
		HSParams	params;
		Jsonb	   *options = NULL;

		check_privacy_params(epsilon, delta);
		check_dimension(aggname, d);
		if (has_options && !PG_ARGISNULL(5))
			options = PG_GETARG_JSONB_P(5);
		init_params(&params, epsilon, delta, options);
		state = hsstate_create(aggcontext, d, &params, options);
	}
	else
	{
		if (epsilon != state->params.epsilon || delta != state->params.delta)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s: epsilon and delta must be the same on every row", aggname),
					 errhint("Pass the privacy parameters as constants.")));
		if (has_options)
		{
			Jsonb	   *options = PG_ARGISNULL(5) ? NULL : PG_GETARG_JSONB_P(5);
			bool		same;

			if (options == NULL || state->options == NULL)
				same = (options == NULL && state->options == NULL);
			else
				same = VARSIZE(options) == VARSIZE(state->options) &&
					memcmp(options, state->options, VARSIZE(options)) == 0;
			if (!same)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("%s: options must be the same on every row", aggname),
						 errhint("Pass the options as a constant.")));
		}
		if (d != state->d)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s: all feature arrays must have the same length", aggname),
					 errdetail("The first row had %d features.", state->d),
					 errhint("Encode every row with the same feature set.")));
	}

	/* quantise: a_j = round(Q x_j) (half away from zero), Q a power of two */
	vals = (float8 *) ARR_DATA_PTR(arr);
	Q = state->params.Q;
	for (int j = 0; j < d; j++)
	{
		double		q = vals[j] * Q;

		if (drop_bad_rows &&
			(!isfinite(q) || fabs(round(q)) > (double) DPOBJ_MAX_QUANTISED))
			return state;		/* dropped, state unchanged */
		if (!isfinite(q))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s: features must be finite (no NaN or infinity)", aggname),
					 errhint("Filter out or impute rows with non-finite features before training.")));
		q = round(q);
		if (fabs(q) > (double) DPOBJ_MAX_QUANTISED)
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("%s: a feature is out of the supported range", aggname),
					 errhint("Scale features by public bounds so that |x| * Q stays below 2^31 (features in [-1, 1] are typical).")));
		state->scratch[j] = (int64) q;
	}

	{
		int			u = hsstate_lookup(state);

		if (label)
			state->pos[u]++;
		else
			state->neg[u]++;
	}
	return state;
}
