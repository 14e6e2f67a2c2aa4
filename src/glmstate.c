/*-------------------------------------------------------------------------
 *
 * glmstate.c
 *	  Transition, combine, serialise and deserialise functions of the
 *	  continuous-weight mechanisms (dp_logistic, dp_noisysgd, dp_opsamp),
 *	  options parsing, and the smooth losses they share.
 *
 * Clipping (ALGORITHMS.md section 4: "rows clipped to ||x|| <= R; clip;
 * never estimate R from data"): each row x is replaced by x * min(1,
 * R/||x||) with the l2 norm (dp_logistic, dp_noisysgd) or the l1 norm
 * (dp_opsamp, whose Lipschitz constant is w.r.t. l1, section 3).  Clipping
 * is a fixed per-row map, so the sensitivity analyses hold for any data.
 *
 * Bad rows follow dp_halfspace's rules (hsstate.c): on the direct path an
 * error naming the problem, never the value; on the protected path
 * (dpobj.train) the row is dropped silently.
 *
 *-------------------------------------------------------------------------
 */
#include "glmstate.h"

#include <math.h>

#include "budget.h"
#include "mechanism.h"
#include "rowinput.h"

#include "catalog/pg_type.h"
#include "common/hashfn.h"
#include "libpq/pqformat.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/json.h"
#include "utils/memutils.h"
#include "utils/numeric.h"

PG_FUNCTION_INFO_V1(dpobj_logistic_transfn);
PG_FUNCTION_INFO_V1(dpobj_noisysgd_transfn);
PG_FUNCTION_INFO_V1(dpobj_opsamp_transfn);
PG_FUNCTION_INFO_V1(dpobj_glm_combine);
PG_FUNCTION_INFO_V1(dpobj_glm_serial);
PG_FUNCTION_INFO_V1(dpobj_glm_deserial);

#define GLM_INITIAL_ROWS 256

/*
 * Losses in z = y <theta, x> (ALGORITHMS.md section 4):
 *   logistic  l = ln(1 + e^-z)            |l'| <= 1, l'' <= 1/4
 *   huber     l = 0               z > 1 + h
 *               = (1 + h - z)^2/(4h)  |1 - z| <= h
 *               = 1 - z           z < 1 - h     |l'| <= 1, l'' <= 1/(2h)
 *   hinge     l = max(0, 1 - z)   (dp_opsamp scales it, opsamp.c)
 */
void
glm_loss(GLMLoss loss, double h, double z, double *f, double *df, double *d2f)
{
	switch (loss)
	{
		case GLM_LOSS_LOGISTIC:
			if (z > 0)
			{
				double		e = exp(-z);

				*f = log1p(e);
				*df = -e / (1.0 + e);
				*d2f = e / ((1.0 + e) * (1.0 + e));
			}
			else
			{
				double		e = exp(z);

				*f = -z + log1p(e);
				*df = -1.0 / (1.0 + e);
				*d2f = e / ((1.0 + e) * (1.0 + e));
			}
			break;
		case GLM_LOSS_HUBER:
			if (z > 1.0 + h)
			{
				*f = 0;
				*df = 0;
				*d2f = 0;
			}
			else if (z < 1.0 - h)
			{
				*f = 1.0 - z;
				*df = -1.0;
				*d2f = 0;
			}
			else
			{
				*f = (1.0 + h - z) * (1.0 + h - z) / (4.0 * h);
				*df = -(1.0 + h - z) / (2.0 * h);
				*d2f = 1.0 / (2.0 * h);
			}
			break;
		default:
			*f = z < 1.0 ? 1.0 - z : 0.0;
			*df = z < 1.0 ? -1.0 : 0.0;
			*d2f = 0;
			break;
	}
}

void
glm_params_bool(StringInfo buf, const char *key, bool value)
{
	if (buf->len > 1)
		appendStringInfoString(buf, ", ");
	escape_json(buf, key);
	appendStringInfoString(buf, value ? ": true" : ": false");
}

/* ---- the state ---- */

static GLMState *
glmstate_create(MemoryContext mcxt, GLMKind kind, int d, const GLMParams *params,
				Jsonb *options, int maxrows)
{
	MemoryContext old = MemoryContextSwitchTo(mcxt);
	GLMState   *state = palloc0(sizeof(GLMState));

	state->mcxt = mcxt;
	state->kind = kind;
	state->d = d;
	state->params = *params;
	state->options = options ? (Jsonb *) PG_DETOAST_DATUM_COPY(JsonbPGetDatum(options)) : NULL;
	state->maxrows = Max(maxrows, GLM_INITIAL_ROWS);
	state->x = MemoryContextAllocHuge(mcxt, sizeof(double) * d * state->maxrows);
	state->pos = MemoryContextAllocHuge(mcxt, sizeof(int64) * state->maxrows);
	state->neg = MemoryContextAllocHuge(mcxt, sizeof(int64) * state->maxrows);
	memset(state->pos, 0, sizeof(int64) * state->maxrows);
	memset(state->neg, 0, sizeof(int64) * state->maxrows);
	state->hashes = MemoryContextAllocHuge(mcxt, sizeof(uint32) * state->maxrows);
	state->nslots = 1;
	while (state->nslots < (uint32) state->maxrows * 2)
		state->nslots <<= 1;
	state->slots = MemoryContextAllocHuge(mcxt, sizeof(int32) * state->nslots);
	memset(state->slots, 0, sizeof(int32) * state->nslots);
	state->scratch = palloc(sizeof(double) * d);
	MemoryContextSwitchTo(old);
	return state;
}

GLMState *
glmstate_create_empty(GLMKind kind, int d, double epsilon, double delta, Jsonb *options)
{
	GLMParams	p;

	glmparams_init(kind, &p, epsilon, delta, options);
	return glmstate_create(CurrentMemoryContext, kind, d, &p, options, GLM_INITIAL_ROWS);
}

int64
glmstate_count(const GLMState *state)
{
	int64		n = 0;

	for (int u = 0; u < state->nrows; u++)
		n += state->pos[u] + state->neg[u];
	return n;
}

static void
rebuild_index(GLMState *state)
{
	uint32		mask = state->nslots - 1;

	memset(state->slots, 0, sizeof(int32) * state->nslots);
	for (int u = 0; u < state->nrows; u++)
	{
		uint32		i = state->hashes[u] & mask;

		while (state->slots[i] != 0)
			i = (i + 1) & mask;
		state->slots[i] = u + 1;
	}
}

static void
glmstate_grow(GLMState *state)
{
	int			newmax = state->maxrows * 2;

	if (newmax <= 0 || (Size) newmax * state->d * sizeof(double) >= MaxAllocHugeSize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("too many distinct feature vectors"),
				 errhint("Reduce the number of distinct rows, e.g. by rounding continuous features.")));
	state->x = repalloc_huge(state->x, sizeof(double) * state->d * newmax);
	state->pos = repalloc_huge(state->pos, sizeof(int64) * newmax);
	state->neg = repalloc_huge(state->neg, sizeof(int64) * newmax);
	state->hashes = repalloc_huge(state->hashes, sizeof(uint32) * newmax);
	memset(state->pos + state->maxrows, 0, sizeof(int64) * state->maxrows);
	memset(state->neg + state->maxrows, 0, sizeof(int64) * state->maxrows);
	state->maxrows = newmax;
	pfree(state->slots);
	state->nslots = (uint32) newmax * 2;
	state->slots = MemoryContextAllocHuge(state->mcxt, sizeof(int32) * state->nslots);
	rebuild_index(state);
}

/* index of the row equal to vals (d doubles), added with zero counts if new */
static int
glmstate_lookup(GLMState *state, const double *vals)
{
	int			d = state->d;
	uint32		h = hash_bytes((const unsigned char *) vals, sizeof(double) * d);
	uint32		mask = state->nslots - 1;
	uint32		i = h & mask;
	int			u;

	while (state->slots[i] != 0)
	{
		u = state->slots[i] - 1;
		if (state->hashes[u] == h &&
			memcmp(state->x + (Size) u * d, vals, sizeof(double) * d) == 0)
			return u;
		i = (i + 1) & mask;
	}
	if (state->nrows >= state->maxrows)
	{
		glmstate_grow(state);
		return glmstate_lookup(state, vals);
	}
	u = state->nrows++;
	memcpy(state->x + (Size) u * d, vals, sizeof(double) * d);
	state->hashes[u] = h;
	state->slots[i] = u + 1;
	return u;
}

/*
 * Clips x (in place) to norm <= R: l2 norm, or l1 norm when l1.  The norm
 * is computed with scaling so that huge finite values do not overflow.
 */
static void
clip_row(double *x, int d, double R, bool l1)
{
	double		m = 0,
				s = 0,
				norm;

	for (int j = 0; j < d; j++)
		m = Max(m, fabs(x[j]));
	if (m == 0)
		return;
	for (int j = 0; j < d; j++)
		s += l1 ? fabs(x[j] / m) : (x[j] / m) * (x[j] / m);
	norm = l1 ? m * s : m * sqrt(s);
	if (norm > R)
	{
		for (int j = 0; j < d; j++)
		{
			x[j] = (x[j] / m) * (R / (norm / m));
		}
		/* rounding may leave the norm a hair above R: shrink until not */
		for (int k = 0; k < 4; k++)
		{
			double		t = 0;

			for (int j = 0; j < d; j++)
				t += l1 ? fabs(x[j]) : x[j] * x[j];
			t = l1 ? t : sqrt(t);
			if (t <= R)
				break;
			for (int j = 0; j < d; j++)
				x[j] *= (1.0 - 1e-15);
		}
	}
	for (int j = 0; j < d; j++)
		if (x[j] == 0)
			x[j] = 0;			/* -0.0 and 0.0 are the same row */
}

GLMState *
glmstate_accum(FunctionCallInfo fcinfo, GLMState *state, GLMKind kind,
			   const char *aggname)
{
	MemoryContext aggcontext;
	ArrayType  *arr;
	bool		label;
	double		epsilon;
	double		delta;
	int			d;
	float8	   *vals;
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
		GLMParams	params;
		Jsonb	   *options = PG_ARGISNULL(5) ? NULL : PG_GETARG_JSONB_P(5);

		dp_check_privacy_params(epsilon, delta);
		glmparams_check_dimension(aggname, d);
		glmparams_init(kind, &params, epsilon, delta, options);
		state = glmstate_create(aggcontext, kind, d, &params, options, GLM_INITIAL_ROWS);
	}
	else
	{
		dp_row_check_same(aggname, &row, PG_ARGISNULL(5) ? NULL : PG_GETARG_JSONB_P(5),
						  state->params.epsilon, state->params.delta,
						  state->options, state->d);
	}

	vals = (float8 *) ARR_DATA_PTR(arr);
	for (int j = 0; j < d; j++)
	{
		if (!isfinite(vals[j]))
		{
			if (drop_bad_rows)
				return state;
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s: features must be finite (no NaN or infinity)", aggname),
					 errhint("Filter out or impute rows with non-finite features before training.")));
		}
		state->scratch[j] = vals[j];
	}
	clip_row(state->scratch, d, state->params.R, kind == GLM_KIND_OPSAMP);
	{
		int			u = glmstate_lookup(state, state->scratch);

		if (label)
			state->pos[u]++;
		else
			state->neg[u]++;
	}
	return state;
}

Datum
dpobj_logistic_transfn(PG_FUNCTION_ARGS)
{
	GLMState   *state = PG_ARGISNULL(0) ? NULL : (GLMState *) PG_GETARG_POINTER(0);

	state = glmstate_accum(fcinfo, state, GLM_KIND_LOGISTIC, "dp_logistic");
	if (state == NULL)
		PG_RETURN_NULL();
	PG_RETURN_POINTER(state);
}

Datum
dpobj_noisysgd_transfn(PG_FUNCTION_ARGS)
{
	GLMState   *state = PG_ARGISNULL(0) ? NULL : (GLMState *) PG_GETARG_POINTER(0);

	state = glmstate_accum(fcinfo, state, GLM_KIND_SGD, "dp_noisysgd");
	if (state == NULL)
		PG_RETURN_NULL();
	PG_RETURN_POINTER(state);
}

Datum
dpobj_opsamp_transfn(PG_FUNCTION_ARGS)
{
	GLMState   *state = PG_ARGISNULL(0) ? NULL : (GLMState *) PG_GETARG_POINTER(0);

	state = glmstate_accum(fcinfo, state, GLM_KIND_OPSAMP, "dp_opsamp");
	if (state == NULL)
		PG_RETURN_NULL();
	PG_RETURN_POINTER(state);
}

/* ---- parallel aggregation ---- */

static void
merge_rows(GLMState *dst, const GLMState *src)
{
	MemoryContext old = MemoryContextSwitchTo(dst->mcxt);

	for (int u = 0; u < src->nrows; u++)
	{
		int			v = glmstate_lookup(dst, src->x + (Size) u * src->d);

		dst->pos[v] += src->pos[u];
		dst->neg[v] += src->neg[u];
	}
	MemoryContextSwitchTo(old);
}

Datum
dpobj_glm_combine(PG_FUNCTION_ARGS)
{
	MemoryContext aggcontext;
	GLMState   *s1 = PG_ARGISNULL(0) ? NULL : (GLMState *) PG_GETARG_POINTER(0);
	GLMState   *s2 = PG_ARGISNULL(1) ? NULL : (GLMState *) PG_GETARG_POINTER(1);

	if (!AggCheckCallContext(fcinfo, &aggcontext))
		elog(ERROR, "dpobj_glm_combine called in non-aggregate context");
	if (s2 == NULL)
	{
		if (s1 == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(s1);
	}
	if (s1 == NULL)
	{
		s1 = glmstate_create(aggcontext, s2->kind, s2->d, &s2->params, s2->options,
							 s2->nrows);
		merge_rows(s1, s2);
		PG_RETURN_POINTER(s1);
	}
	if (s1->d != s2->d || s1->kind != s2->kind ||
		memcmp(&s1->params, &s2->params, sizeof(GLMParams)) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: parallel workers saw different arguments", glm_kind_aggname(s1->kind)),
				 errhint("Pass the privacy parameters and options as constants and encode every row with the same feature set.")));
	merge_rows(s1, s2);
	PG_RETURN_POINTER(s1);
}

/*
 * Serialised form: kind, d, params (field by field), options (length +
 * bytes, 0 = none), nrows, then per row d float8 and two int8 counts.
 */
Datum
dpobj_glm_serial(PG_FUNCTION_ARGS)
{
	GLMState   *s = (GLMState *) PG_GETARG_POINTER(0);
	StringInfoData buf;

	if (!AggCheckCallContext(fcinfo, NULL))
		elog(ERROR, "dpobj_glm_serial called in non-aggregate context");
	pq_begintypsend(&buf);
	pq_sendint32(&buf, (int32) s->kind);
	pq_sendint32(&buf, s->d);
	pq_sendfloat8(&buf, s->params.epsilon);
	pq_sendfloat8(&buf, s->params.delta);
	pq_sendint32(&buf, (int32) s->params.method);
	pq_sendint32(&buf, (int32) s->params.loss);
	pq_sendfloat8(&buf, s->params.R);
	pq_sendfloat8(&buf, s->params.lambda);
	pq_sendbyte(&buf, s->params.intercept ? 1 : 0);
	pq_sendfloat8(&buf, s->params.h);
	pq_sendint64(&buf, s->params.T);
	pq_sendfloat8(&buf, s->params.radius);
	pq_sendfloat8(&buf, s->params.beta);
	if (s->options)
	{
		pq_sendint32(&buf, VARSIZE(s->options));
		pq_sendbytes(&buf, (const char *) s->options, VARSIZE(s->options));
	}
	else
		pq_sendint32(&buf, 0);
	pq_sendint32(&buf, s->nrows);
	for (int u = 0; u < s->nrows; u++)
	{
		for (int j = 0; j < s->d; j++)
			pq_sendfloat8(&buf, s->x[(Size) u * s->d + j]);
		pq_sendint64(&buf, s->pos[u]);
		pq_sendint64(&buf, s->neg[u]);
	}
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

Datum
dpobj_glm_deserial(PG_FUNCTION_ARGS)
{
	bytea	   *b = PG_GETARG_BYTEA_PP(0);
	StringInfoData buf;
	GLMParams	p;
	GLMKind		kind;
	int			d,
				nrows,
				olen;
	Jsonb	   *options = NULL;
	GLMState   *s;
	double	   *row;

	if (!AggCheckCallContext(fcinfo, NULL))
		elog(ERROR, "dpobj_glm_deserial called in non-aggregate context");
	initStringInfo(&buf);
	appendBinaryStringInfo(&buf, VARDATA_ANY(b), VARSIZE_ANY_EXHDR(b));
	memset(&p, 0, sizeof(p));
	kind = (GLMKind) pq_getmsgint(&buf, 4);
	d = pq_getmsgint(&buf, 4);
	p.epsilon = pq_getmsgfloat8(&buf);
	p.delta = pq_getmsgfloat8(&buf);
	p.method = (GLMMethod) pq_getmsgint(&buf, 4);
	p.loss = (GLMLoss) pq_getmsgint(&buf, 4);
	p.R = pq_getmsgfloat8(&buf);
	p.lambda = pq_getmsgfloat8(&buf);
	p.intercept = pq_getmsgbyte(&buf) != 0;
	p.h = pq_getmsgfloat8(&buf);
	p.T = pq_getmsgint64(&buf);
	p.radius = pq_getmsgfloat8(&buf);
	p.beta = pq_getmsgfloat8(&buf);
	olen = pq_getmsgint(&buf, 4);
	if (olen > 0)
	{
		options = palloc(olen);
		pq_copymsgbytes(&buf, (char *) options, olen);
	}
	nrows = pq_getmsgint(&buf, 4);
	if (d < 1 || d > DPOBJ_GLM_MAX_DIM || nrows < 0)
		elog(ERROR, "dpobj: corrupt serialised aggregate state");
	s = glmstate_create(CurrentMemoryContext, kind, d, &p, options, nrows);
	row = palloc(sizeof(double) * d);
	for (int u = 0; u < nrows; u++)
	{
		int			v;

		for (int j = 0; j < d; j++)
			row[j] = pq_getmsgfloat8(&buf);
		v = glmstate_lookup(s, row);
		s->pos[v] += pq_getmsgint64(&buf);
		s->neg[v] += pq_getmsgint64(&buf);
	}
	pq_getmsgend(&buf);
	PG_RETURN_POINTER(s);
}

GLMState *
glmstate_final_begin(FunctionCallInfo fcinfo, GLMKind kind, DPProtectedContext **pctx)
{
	GLMState   *state = PG_ARGISNULL(0) ? NULL : (GLMState *) PG_GETARG_POINTER(0);

	*pctx = state ? mechanism_claim(fcinfo, true, state->params.epsilon,
									state->params.delta, state->d)
		: mechanism_claim(fcinfo, false, 0, 0, 0);
	/* protected path (issue 4): run even on no rows, so emptiness is hidden */
	if (*pctx != NULL && state == NULL)
		state = glmstate_create_empty(kind, (*pctx)->d, (*pctx)->epsilon_f,
									  (*pctx)->delta_f, (*pctx)->options);
	return state;
}
