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

#include <limits.h>
#include <math.h>

#include "budget.h"
#include "mechanism.h"
#include "rowinput.h"
#include "progress.h"

#include "catalog/pg_type.h"
#include "common/hashfn.h"
#include "access/parallel.h"
#include "libpq/pqformat.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/memutils.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"

#define HS_INITIAL_ROWS 256

/* a state with room for at least capacity distinct rows (a power of two) */
static HSState *
hsstate_create_sized(MemoryContext aggcontext, int d, const HSParams *params,
					 Jsonb *options, int capacity)
{
	MemoryContext old = MemoryContextSwitchTo(aggcontext);
	HSState    *state = palloc0(sizeof(HSState));
	int			maxrows = HS_INITIAL_ROWS;

	while (maxrows < capacity && maxrows < (INT_MAX / 4))
		maxrows *= 2;
	if ((Size) maxrows * d * sizeof(int64) >= MaxAllocHugeSize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("too many distinct feature vectors"),
				 errhint("Reduce the number of distinct rows, e.g. with a smaller quantum Q or fewer continuous features.")));

	state->mcxt = aggcontext;
	state->d = d;
	state->params = *params;
	state->options = options ? (Jsonb *) PG_DETOAST_DATUM_COPY(JsonbPGetDatum(options)) : NULL;
	state->maxrows = maxrows;
	state->x = MemoryContextAllocHuge(aggcontext, sizeof(int64) * d * state->maxrows);
	state->pos = MemoryContextAllocHuge(aggcontext, sizeof(int64) * state->maxrows);
	state->neg = MemoryContextAllocHuge(aggcontext, sizeof(int64) * state->maxrows);
	memset(state->pos, 0, sizeof(int64) * state->maxrows);
	memset(state->neg, 0, sizeof(int64) * state->maxrows);
	state->hashes = MemoryContextAllocHuge(aggcontext, sizeof(uint32) * state->maxrows);
	state->nslots = (uint32) maxrows * 2;
	state->slots = MemoryContextAllocHuge(aggcontext, sizeof(int32) * state->nslots);
	memset(state->slots, 0, sizeof(int32) * state->nslots);
	state->scratch = palloc(sizeof(int64) * d);
	MemoryContextSwitchTo(old);
	return state;
}

static HSState *
hsstate_create(MemoryContext aggcontext, int d, const HSParams *params, Jsonb *options)
{
	return hsstate_create_sized(aggcontext, d, params, options, HS_INITIAL_ROWS);
}

HSState *
hsstate_create_empty(int d, double epsilon, double delta, Jsonb *options)
{
	HSParams	params;

	hsparams_init(&params, epsilon, delta, options);
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
	DPRowInput	row;

	if (!dp_row_read(fcinfo, aggname, &row))
		return state;			/* dropped on the protected path */
	aggcontext = row.aggcontext;
	epsilon = row.epsilon;
	delta = row.delta;
	drop_bad_rows = row.drop_bad_rows;
	arr = row.features;
	label = row.label;
	d = row.d;

	if (state == NULL)
	{
		HSParams	params;
		Jsonb	   *options = NULL;

		dp_check_privacy_params(epsilon, delta);
		hsparams_check_dimension(aggname, d);
		if (has_options && !PG_ARGISNULL(5))
			options = PG_GETARG_JSONB_P(5);
		hsparams_init(&params, epsilon, delta, options);
		state = hsstate_create(aggcontext, d, &params, options);
		/* first row: the scan is under way (phase only, issue 6) */
		if (!IsParallelWorker())
			dpobj_progress_phase(DPOBJ_PHASE_SCANNING);
	}
	else
	{
		dp_row_check_same(aggname, &row,
						  (has_options && !PG_ARGISNULL(5)) ? PG_GETARG_JSONB_P(5) : NULL,
						  state->params.epsilon, state->params.delta,
						  state->options, state->d);
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

/* ---------------------------------------------------------------------
 * Parallel and distributed aggregation (issue 6): combine, serialise,
 * deserialise.
 *
 * PostgreSQL's parallel query (and Citus, docs/SCALING.md) computes a
 * partial state per worker with hsstate_accum, ships it as bytea
 * (serialfn), rebuilds it in the leader (deserialfn) and merges the partial
 * states (combinefn); the final function -- the only place where a charge
 * is made and noise is drawn -- runs once, in the leader, on the combined
 * state.  A combined state holds exactly the (row, label) counts a serial
 * scan would have produced, so the mechanism's input is the same; only the
 * order of the distinct rows may differ, and the exact argmin does not
 * depend on it.
 *
 * The protected path (dpobj.train) never runs in parallel: its row
 * handling depends on a backend-local context that workers cannot see, so
 * train() plans its query without CURSOR_OPT_PARALLEL_OK (budget.c).
 * ---------------------------------------------------------------------
 */

PG_FUNCTION_INFO_V1(dpobj_halfspace_combinefn);
PG_FUNCTION_INFO_V1(dpobj_halfspace_serialfn);
PG_FUNCTION_INFO_V1(dpobj_halfspace_deserialfn);

#define HS_SERIAL_MAGIC		0x48535331	/* "HSS1" */

static MemoryContext
hs_aggcontext(FunctionCallInfo fcinfo, const char *what)
{
	MemoryContext aggcontext;

	if (!AggCheckCallContext(fcinfo, &aggcontext))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("dp_halfspace %s function called in non-aggregate context", what)));
	return aggcontext;
}

/* same run-wide arguments in both partial states, or the error a row would get */
static void
hsstate_check_same(const HSState *a, const HSState *b)
{
	bool		same_options;

	if (a->params.epsilon != b->params.epsilon || a->params.delta != b->params.delta)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("dp_halfspace: epsilon and delta must be the same on every row"),
				 errhint("Pass the privacy parameters as constants.")));
	if (a->options == NULL || b->options == NULL)
		same_options = (a->options == NULL && b->options == NULL);
	else
		same_options = VARSIZE(a->options) == VARSIZE(b->options) &&
			memcmp(a->options, b->options, VARSIZE(a->options)) == 0;
	if (!same_options || a->params.B != b->params.B || a->params.D2 != b->params.D2 ||
		a->params.Q != b->params.Q || a->params.oracle != b->params.oracle ||
		a->params.time_limit != b->params.time_limit)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("dp_halfspace: options must be the same on every row"),
				 errhint("Pass the options as a constant.")));
	if (a->d != b->d)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("dp_halfspace: all feature arrays must have the same length"),
				 errdetail("The first row had %d features.", a->d),
				 errhint("Encode every row with the same feature set.")));
}

/* adds count (pos, neg) of the distinct row a (d values) to state */
static void
hsstate_add_counts(HSState *state, const int64 *a, int64 pos, int64 neg)
{
	int			u;

	memcpy(state->scratch, a, sizeof(int64) * state->d);
	u = hsstate_lookup(state);
	state->pos[u] += pos;
	state->neg[u] += neg;
}

/* merges src into dst (dst lives in its own aggregate context) */
static void
hsstate_merge(HSState *dst, const HSState *src)
{
	for (int u = 0; u < src->nrows; u++)
	{
		CHECK_FOR_INTERRUPTS();
		hsstate_add_counts(dst, src->x + (Size) u * src->d, src->pos[u], src->neg[u]);
	}
}

Datum
dpobj_halfspace_combinefn(PG_FUNCTION_ARGS)
{
	MemoryContext aggcontext = hs_aggcontext(fcinfo, "combine");
	HSState    *s1 = PG_ARGISNULL(0) ? NULL : (HSState *) PG_GETARG_POINTER(0);
	HSState    *s2 = PG_ARGISNULL(1) ? NULL : (HSState *) PG_GETARG_POINTER(1);

	if (s2 == NULL)
	{
		if (s1 == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(s1);
	}
	if (s1 == NULL)
	{
		/* first partial state: copy it into the aggregate context */
		s1 = hsstate_create_sized(aggcontext, s2->d, &s2->params, s2->options,
								  s2->nrows);
		hsstate_merge(s1, s2);
		PG_RETURN_POINTER(s1);
	}
	hsstate_check_same(s1, s2);
	hsstate_merge(s1, s2);
	PG_RETURN_POINTER(s1);
}

/*
 * bytea: magic, d, parameters, options (length + jsonb bytes), nrows, then
 * per distinct row its d quantised values and the two counts -- all in
 * network byte order (pqformat), so a partial state can also travel between
 * machines (Citus).
 */
Datum
dpobj_halfspace_serialfn(PG_FUNCTION_ARGS)
{
	HSState    *state;
	StringInfoData buf;

	(void) hs_aggcontext(fcinfo, "serialise");
	state = (HSState *) PG_GETARG_POINTER(0);

	pq_begintypsend(&buf);
	pq_sendint32(&buf, HS_SERIAL_MAGIC);
	pq_sendint32(&buf, state->d);
	pq_sendfloat8(&buf, state->params.epsilon);
	pq_sendfloat8(&buf, state->params.delta);
	pq_sendint32(&buf, state->params.B);
	pq_sendint32(&buf, state->params.D2);
	pq_sendint32(&buf, state->params.Q);
	pq_sendint32(&buf, (int32) state->params.oracle);
	pq_sendfloat8(&buf, state->params.time_limit);
	if (state->options != NULL)
	{
		pq_sendint32(&buf, VARSIZE(state->options));
		pq_sendbytes(&buf, (const char *) state->options, VARSIZE(state->options));
	}
	else
		pq_sendint32(&buf, 0);
	pq_sendint32(&buf, state->nrows);
	for (int u = 0; u < state->nrows; u++)
	{
		const int64 *a = state->x + (Size) u * state->d;

		for (int j = 0; j < state->d; j++)
			pq_sendint64(&buf, a[j]);
		pq_sendint64(&buf, state->pos[u]);
		pq_sendint64(&buf, state->neg[u]);
	}
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

static void
hs_serial_corrupt(void)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
			 errmsg("invalid dp_halfspace partial state"),
			 errhint("Partial states come only from dpobj's own serialise function.")));
}

Datum
dpobj_halfspace_deserialfn(PG_FUNCTION_ARGS)
{
	MemoryContext aggcontext = hs_aggcontext(fcinfo, "deserialise");
	bytea	   *sstate = PG_GETARG_BYTEA_PP(0);
	StringInfoData buf;
	HSParams	params;
	Jsonb	   *options = NULL;
	HSState    *state;
	int			d;
	int			optlen;
	int			nrows;
	int64	   *a;

	(void) aggcontext;
	buf.data = VARDATA_ANY(sstate);
	buf.len = VARSIZE_ANY_EXHDR(sstate);
	buf.maxlen = buf.len;
	buf.cursor = 0;
	if (buf.len < 8 || pq_getmsgint(&buf, 4) != HS_SERIAL_MAGIC)
		hs_serial_corrupt();
	d = pq_getmsgint(&buf, 4);
	if (d < 1 || d > DPOBJ_HALFSPACE_MAX_DIM)
		hs_serial_corrupt();
	params.epsilon = pq_getmsgfloat8(&buf);
	params.delta = pq_getmsgfloat8(&buf);
	params.B = pq_getmsgint(&buf, 4);
	params.D2 = pq_getmsgint(&buf, 4);
	params.Q = pq_getmsgint(&buf, 4);
	params.oracle = (DPObjOracle) pq_getmsgint(&buf, 4);
	params.time_limit = pq_getmsgfloat8(&buf);
	optlen = pq_getmsgint(&buf, 4);
	if (optlen < 0 || optlen > buf.len - buf.cursor)
		hs_serial_corrupt();
	if (optlen > 0)
	{
		options = palloc(optlen);
		pq_copymsgbytes(&buf, (char *) options, optlen);
		if (VARSIZE(options) != optlen)
			hs_serial_corrupt();
	}
	nrows = pq_getmsgint(&buf, 4);
	if (nrows < 0 || (Size) nrows * (d + 2) * 8 != (Size) (buf.len - buf.cursor))
		hs_serial_corrupt();

	/* short-lived: the combine function copies it into the aggregate context */
	state = hsstate_create_sized(CurrentMemoryContext, d, &params, options, nrows);
	a = palloc(sizeof(int64) * d);
	for (int u = 0; u < nrows; u++)
	{
		int64		pos;
		int64		neg;

		for (int j = 0; j < d; j++)
			a[j] = pq_getmsgint64(&buf);
		pos = pq_getmsgint64(&buf);
		neg = pq_getmsgint64(&buf);
		hsstate_add_counts(state, a, pos, neg);
	}
	pfree(a);
	pq_getmsgend(&buf);
	PG_RETURN_POINTER(state);
}

HSState *
hsstate_final_begin(FunctionCallInfo fcinfo, DPProtectedContext **pctx)
{
	HSState    *state = PG_ARGISNULL(0) ? NULL : (HSState *) PG_GETARG_POINTER(0);

	*pctx = state ? mechanism_claim(fcinfo, true, state->params.epsilon,
									state->params.delta, state->d)
		: mechanism_claim(fcinfo, false, 0, 0, 0);
	/* protected path (issue 4): run even on no rows, so emptiness is hidden */
	if (*pctx != NULL && state == NULL)
		state = hsstate_create_empty((*pctx)->d, (*pctx)->epsilon_f,
									 (*pctx)->delta_f, (*pctx)->options);
	return state;
}
