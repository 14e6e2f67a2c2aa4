/*-------------------------------------------------------------------------
 *
 * linearstate.c
 *	  Transition, combine and type I/O functions of dp_linear_regression's
 *	  state dpobj.linreg_state (linearstate.h), which dp_passglm and the
 *	  aggregates taking the features as separate arguments,
 *	  dp_linear_regression_cols and dp_passglm_cols, share.
 *
 * Bad rows follow the other aggregates' rules (rowinput.c): on the direct
 * path an error naming the problem, never the value; on the protected
 * path (dpobj.train) the row is dropped silently -- NULL features or
 * label, a NULL element, a non-finite feature or label.
 *
 * Portable form (text: base64 of it; binary: itself), big-endian:
 *	  uint32 magic "DPL1", uint16 d, float8 epsilon, delta,
 *	  uint32 length of the options' jsonb text, that text, int64 n,
 *	  linreg_nsums(p) x { int64 high word, uint64 low word }.
 * The reader recomputes every derived parameter from epsilon, delta, d
 * and the options with the first row's checks, and accepts only sums a
 * transition function could have made from n rows (|sum| <= n 2^60,
 * squares non-negative).
 *
 *-------------------------------------------------------------------------
 */
#include "families/linear/linearstate.h"

#include <math.h>

#include "state/claim.h"
#include "families/linear/passglmparams.h"
#include "context/protected.h"
#include "state/rowinput.h"

#include "common/base64.h"
#include "common/int.h"
#include "libpq/pqformat.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"

PG_FUNCTION_INFO_V1(dpobj_linreg_transfn);
PG_FUNCTION_INFO_V1(dpobj_passglm_transfn);
PG_FUNCTION_INFO_V1(dpobj_linreg_cols_transfn);
PG_FUNCTION_INFO_V1(dpobj_passglm_cols_transfn);
PG_FUNCTION_INFO_V1(dpobj_linreg_combine);
PG_FUNCTION_INFO_V1(dpobj_linreg_state_in);
PG_FUNCTION_INFO_V1(dpobj_linreg_state_out);
PG_FUNCTION_INFO_V1(dpobj_linreg_state_recv);
PG_FUNCTION_INFO_V1(dpobj_linreg_state_send);

/*
 * The in-memory layout's magic: "DPL2" dp_linear_regression, "DPP2"
 * dp_passglm (passglmparams.h).  0.3.0's layout ("DPL1", "DPP1": no stage)
 * is refused, not misread, when such a value was stored in a table; the
 * portable form keeps "DPL1"/"DPP1", unchanged.
 */
#define LINSTATE_MAGIC 0x44504C32
#define LINSTATE_MAGIC_PASSGLM 0x44505032
#define LINSTATE_PORTABLE_MAGIC 0x44504C31
#define LINSTATE_PORTABLE_MAGIC_PASSGLM 0x44505031

/* a state of either aggregate: the magic names which one */
static inline bool
linstate_magic_ok(uint32 magic)
{
	return magic == LINSTATE_MAGIC || magic == LINSTATE_MAGIC_PASSGLM;
}

static pg_noreturn void
linstate_corrupt(void)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
			 errmsg("invalid dpobj.linreg_state value"),
			 errhint("Aggregate states come only from dpobj's own aggregates (text: base64 of the binary form).")));
}

/* a new empty state in cxt; the first row's checks of every run parameter */
static LinStateData *
linstate_new(MemoryContext cxt, int d, double epsilon, double delta, Jsonb *options,
			 bool passglm)
{
	LinParams	p;
	LinStateData *s;
	Size		sums,
				size;

	if (passglm)
		passglmparams_init(&p, epsilon, delta, d, options);
	else
		linparams_init(&p, epsilon, delta, d, options);
	/* the 128-bit sums and their stage (linearstate.h) */
	sums = (sizeof(LinRegSum) + sizeof(int64_t)) * linreg_nsums(p.p);
	size = MAXALIGN(sizeof(LinStateData)) + sums + VARSIZE(options);
	s = MemoryContextAllocZero(cxt, size);
	SET_VARSIZE(s, size);
	s->magic = passglm ? LINSTATE_MAGIC_PASSGLM : LINSTATE_MAGIC;
	s->d = d;
	s->options_len = VARSIZE(options);
	s->epsilon = epsilon;
	s->delta = delta;
	s->params = p;
	memcpy(LINSTATE_OPTIONS(s), options, VARSIZE(options));
	return s;
}

/* the row's features and label, finite, or false (dropped / raised) */
static bool
linstate_row_values(DPRowInput *row, double y, const char *aggname)
{
	bool		ok = isfinite(y);

	for (int j = 0; ok && j < row->d; j++)
		ok = isfinite(row->values[j]);
	if (!ok && !dp_row_drops_bad(row))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: features and label must be finite (no NaN or infinity)", aggname),
				 errhint("Filter out or impute rows with non-finite values before training.")));
	return ok;
}

/*
 * What the transition keeps for the whole aggregate call in fn_extra (the
 * per-row path allocates nothing): a buffer of doubles -- the normalised
 * row, then the features read from the arguments -- and whether those
 * arguments' types were checked.
 */
typedef struct LinScratch
{
	bool		types_checked;
	int			size;
	double		buf[FLEXIBLE_ARRAY_MEMBER];
} LinScratch;

/* the call's scratch, its buffer grown to size doubles */
static LinScratch *
linstate_scratch(FunctionCallInfo fcinfo, int size)
{
	LinScratch *c = (LinScratch *) fcinfo->flinfo->fn_extra;

	if (c == NULL || c->size < size)
	{
		bool		checked = c != NULL && c->types_checked;

		c = MemoryContextAlloc(fcinfo->flinfo->fn_mcxt,
							   offsetof(LinScratch, buf) + sizeof(double) * size);
		c->types_checked = checked;
		c->size = size;
		fcinfo->flinfo->fn_extra = c;
	}
	return c;
}

/* the state a row goes into: new on the first row, else checked against it */
static LinStateData *
linstate_for_row(FunctionCallInfo fcinfo, DPRowInput *row, const char *aggname,
				 bool passglm)
{
	int			o = row->options_arg;
	Jsonb	   *options = PG_ARGISNULL(o) ? NULL : PG_GETARG_JSONB_P(o);
	LinStateData *s;

	if (PG_ARGISNULL(0))
		return linstate_new(row->aggcontext, row->d, row->epsilon, row->delta, options,
							passglm);
	/* our own value, in the aggregate context: updated in place */
	s = (LinStateData *) PG_GETARG_POINTER(0);
	if (s->magic != (passglm ? LINSTATE_MAGIC_PASSGLM : LINSTATE_MAGIC))
		linstate_corrupt();
	dp_row_check_same(aggname, row, options, s->epsilon, s->delta, LINSTATE_OPTIONS(s), s->d);
	return s;
}

/*
 * One row into the state: dp_linear_regression's float8 label, or
 * dp_passglm's boolean label as +1 / -1; cols: the *_cols aggregate's
 * arguments (label, epsilon, delta, options, feature, ...), else
 * (features float8[], label, epsilon, delta, options).
 */
static Datum
linstate_transition(FunctionCallInfo fcinfo, bool passglm, bool cols)
{
	const char *aggname = passglm ? PASSGLM_AGGNAME : LINREG_AGGNAME;
	int			label_arg = cols ? 1 : 2;
	LinScratch *c = linstate_scratch(fcinfo, 0);
	DPRowInput	row;
	LinStateData *s;
	double		y;
	double		v;

	if (!(cols ? dp_row_read_cols(fcinfo, aggname, &row, &c->types_checked)
		  : dp_row_read(fcinfo, aggname, &row)))
	{
		/* dropped on the protected path: state unchanged */
		if (PG_ARGISNULL(0))
			PG_RETURN_NULL();
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	}
	s = linstate_for_row(fcinfo, &row, aggname, passglm);
	c = linstate_scratch(fcinfo, s->params.p + (cols ? row.d : 0));
	if (cols)
		dp_row_cols_values(&row, c->buf + s->params.p);
	y = passglm ? (PG_GETARG_BOOL(label_arg) ? 1.0 : -1.0) : PG_GETARG_FLOAT8(label_arg);
	if (!linstate_row_values(&row, y, aggname))
		PG_RETURN_POINTER(s);
	linparams_normalise(&s->params, row.values, row.d, y, c->buf, &v);
	linreg_accumulate(LINSTATE_SUMS(s), LINSTATE_STAGE(s), &s->staged, c->buf, s->params.p, v);
	s->n++;
	PG_RETURN_POINTER(s);
}

Datum
dpobj_linreg_transfn(PG_FUNCTION_ARGS)
{
	return linstate_transition(fcinfo, false, false);
}

Datum
dpobj_passglm_transfn(PG_FUNCTION_ARGS)
{
	return linstate_transition(fcinfo, true, false);
}

Datum
dpobj_linreg_cols_transfn(PG_FUNCTION_ARGS)
{
	return linstate_transition(fcinfo, false, true);
}

Datum
dpobj_passglm_cols_transfn(PG_FUNCTION_ARGS)
{
	return linstate_transition(fcinfo, true, true);
}

/* adds src into dst (same run, else the error a row would get); src is not changed */
static void
linstate_merge(LinStateData *dst, const LinStateData *src)
{
	Jsonb	   *o1 = LINSTATE_OPTIONS(dst);
	Jsonb	   *o2 = LINSTATE_OPTIONS(src);
	bool		same = dst->magic == src->magic &&
		VARSIZE(o1) == VARSIZE(o2) && memcmp(o1, o2, VARSIZE(o1)) == 0;
	int			m = linreg_nsums(dst->params.p);

	dp_run_check_same(LINREG_AGGNAME, src->epsilon, src->delta, same, src->d,
					  dst->epsilon, dst->delta, dst->d);
	if (pg_add_s64_overflow(dst->n, src->n, &dst->n))
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s: too many rows", LINREG_AGGNAME),
				 errhint("At most 2^63 - 1 rows can be aggregated.")));
	linreg_flush(LINSTATE_SUMS(dst), LINSTATE_STAGE(dst), &dst->staged, dst->params.p);
	for (int k = 0; k < m; k++)
		linreg_sum_add(&LINSTATE_SUMS(dst)[k],
					   linreg_sum_staged(LINSTATE_SUMS(src)[k], LINSTATE_STAGE(src)[k]));
}

Datum
dpobj_linreg_combine(PG_FUNCTION_ARGS)
{
	MemoryContext aggcontext;
	LinStateData *dst;
	LinStateData *src;

	if (!AggCheckCallContext(fcinfo, &aggcontext))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("the combine function of dpobj.linreg_state called in non-aggregate context"),
				 errhint("Combine functions run only inside dpobj's aggregates.")));
	if (PG_ARGISNULL(1))
	{
		if (PG_ARGISNULL(0))
			PG_RETURN_NULL();
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	}
	src = (LinStateData *) PG_DETOAST_DATUM(PG_GETARG_DATUM(1));
	if (!linstate_magic_ok(src->magic))
		linstate_corrupt();
	if (PG_ARGISNULL(0))
	{
		dst = MemoryContextAlloc(aggcontext, VARSIZE(src));
		memcpy(dst, src, VARSIZE(src));
		PG_RETURN_POINTER(dst);
	}
	dst = (LinStateData *) PG_GETARG_POINTER(0);
	if (!linstate_magic_ok(dst->magic))
		linstate_corrupt();
	linstate_merge(dst, src);
	PG_RETURN_POINTER(dst);
}

/* ---- portable form ---- */

static bytea *
linstate_portable(LinStateData *s)
{
	StringInfoData buf;
	Jsonb	   *o = LINSTATE_OPTIONS(s);
	char	   *text = JsonbToCString(NULL, &o->root, VARSIZE(o));
	int			m = linreg_nsums(s->params.p);

	pq_begintypsend(&buf);
	pq_sendint32(&buf, s->magic == LINSTATE_MAGIC_PASSGLM ?
				 LINSTATE_PORTABLE_MAGIC_PASSGLM : LINSTATE_PORTABLE_MAGIC);
	pq_sendint16(&buf, (uint16) s->d);
	pq_sendfloat8(&buf, s->epsilon);
	pq_sendfloat8(&buf, s->delta);
	pq_sendint32(&buf, (uint32) strlen(text));
	pq_sendbytes(&buf, text, strlen(text));
	pq_sendint64(&buf, s->n);
	for (int k = 0; k < m; k++)
	{
		unsigned __int128 v = linreg_sum_staged(LINSTATE_SUMS(s)[k], LINSTATE_STAGE(s)[k]);

		pq_sendint64(&buf, (int64) (uint64) (v >> 64));
		pq_sendint64(&buf, (int64) (uint64) v);
	}
	return pq_endtypsend(&buf);
}

/* need bytes left in buf, else corrupt */
static void
need(StringInfo buf, Size n)
{
	if ((Size) (buf->len - buf->cursor) < n)
		linstate_corrupt();
}

/* the sums are ones n rows could have made */
static void
linstate_check_sums(const LinStateData *s)
{
	int			p = s->params.p;
	int			m = linreg_nsums(p);
	linreg_int128 bound = (linreg_int128) s->n << LINREG_FRAC_BITS;
	int			k = 0;

	for (int i = 0; i < p; i++)
		for (int j = i; j < p; j++, k++)
			if (i == j && linreg_sum_get(LINSTATE_SUMS(s)[k]) < 0)
				linstate_corrupt();
	if (linreg_sum_get(LINSTATE_SUMS(s)[m - 1]) < 0)
		linstate_corrupt();
	for (k = 0; k < m; k++)
	{
		linreg_int128 v = linreg_sum_get(LINSTATE_SUMS(s)[k]);

		if (v > bound || v < -bound)
			linstate_corrupt();
	}
}

static Datum
linstate_from_portable(StringInfo buf)
{
	int			d;
	double		eps,
				delta;
	uint32		optlen;
	char	   *text;
	Jsonb	   *options;
	LinStateData *s;
	int			m;
	uint32		magic;

	need(buf, 4 + 2 + 8 + 8 + 4);
	magic = (uint32) pq_getmsgint(buf, 4);
	if (magic != LINSTATE_PORTABLE_MAGIC && magic != LINSTATE_PORTABLE_MAGIC_PASSGLM)
		linstate_corrupt();
	d = pq_getmsgint(buf, 2);
	eps = pq_getmsgfloat8(buf);
	delta = pq_getmsgfloat8(buf);
	optlen = (uint32) pq_getmsgint(buf, 4);
	need(buf, optlen);
	text = pnstrdup(pq_getmsgbytes(buf, optlen), optlen);
	if (d < 1 || strlen(text) != optlen)
		linstate_corrupt();
	options = DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(text)));
	s = linstate_new(CurrentMemoryContext, d, eps, delta, options,
					 magic == LINSTATE_PORTABLE_MAGIC_PASSGLM);
	m = linreg_nsums(s->params.p);
	need(buf, 8 + (Size) m * 16);
	s->n = pq_getmsgint64(buf);
	if (s->n < 0)
		linstate_corrupt();
	for (int k = 0; k < m; k++)
	{
		LINSTATE_SUMS(s)[k].hi = (uint64) pq_getmsgint64(buf);
		LINSTATE_SUMS(s)[k].lo = (uint64) pq_getmsgint64(buf);
	}
	if (buf->cursor != buf->len)
		linstate_corrupt();
	linstate_check_sums(s);
	return PointerGetDatum(s);
}

Datum
dpobj_linreg_state_in(PG_FUNCTION_ARGS)
{
	const char *str = PG_GETARG_CSTRING(0);
	int			len = strlen(str);
	int			maxlen = pg_b64_dec_len(len);
	StringInfoData buf;
	int			n;

	initStringInfo(&buf);
	enlargeStringInfo(&buf, maxlen + 1);
	n = compat_b64_decode(str, len, buf.data, maxlen);
	if (n < 0)
		linstate_corrupt();
	buf.len = n;
	return linstate_from_portable(&buf);
}

Datum
dpobj_linreg_state_out(PG_FUNCTION_ARGS)
{
	LinStateData *s = (LinStateData *) PG_DETOAST_DATUM(PG_GETARG_DATUM(0));
	bytea	   *b = linstate_portable(s);
	int			len = VARSIZE(b) - VARHDRSZ;
	char	   *out = palloc(pg_b64_enc_len(len) + 1);
	int			n = compat_b64_encode(VARDATA(b), len, out, pg_b64_enc_len(len));

	if (n < 0)
		elog(ERROR, "dpobj: could not encode dpobj.linreg_state as base64");
	out[n] = '\0';
	PG_RETURN_CSTRING(out);
}

Datum
dpobj_linreg_state_recv(PG_FUNCTION_ARGS)
{
	return linstate_from_portable((StringInfo) PG_GETARG_POINTER(0));
}

Datum
dpobj_linreg_state_send(PG_FUNCTION_ARGS)
{
	PG_RETURN_BYTEA_P(linstate_portable((LinStateData *) PG_DETOAST_DATUM(PG_GETARG_DATUM(0))));
}

/* ---- what the final function sees ---- */

LinStateData *
linstate_final_begin(FunctionCallInfo fcinfo, DPProtectedContext **pctx, bool passglm)
{
	LinStateData *s = PG_ARGISNULL(0) ? NULL :
		(LinStateData *) PG_DETOAST_DATUM(PG_GETARG_DATUM(0));

	if (AggCheckCallContext(fcinfo, NULL) != AGG_CONTEXT_AGGREGATE)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("a dpobj final function can only run as the final step of its aggregate"),
				 errhint("Call the aggregate, e.g. dpobj.dp_linear_regression(features, label, epsilon, delta, options).")));
	if (s != NULL && s->magic != (passglm ? LINSTATE_MAGIC_PASSGLM : LINSTATE_MAGIC))
		linstate_corrupt();
	/* the sums complete: the stage carried, in a copy (the state is read only here) */
	if (s != NULL && s->staged != 0)
	{
		LinStateData *c = palloc(VARSIZE(s));

		memcpy(c, s, VARSIZE(s));
		linreg_flush(LINSTATE_SUMS(c), LINSTATE_STAGE(c), &c->staged, c->params.p);
		s = c;
	}
	*pctx = s ? mechanism_claim(fcinfo, true, s->epsilon, s->delta, s->d)
		: mechanism_claim(fcinfo, false, 0, 0, 0);
	/* protected path: run even on no rows, so emptiness is hidden */
	if (s == NULL && *pctx != NULL)
		s = linstate_new(CurrentMemoryContext, (*pctx)->d, (*pctx)->epsilon_f,
						 (*pctx)->delta_f, (*pctx)->options, passglm);
	return s;
}
