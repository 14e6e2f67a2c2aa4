/*-------------------------------------------------------------------------
 *
 * synthagg.c
 *	  Transition, combine, flat form and type I/O of dp_synthesize_cols'
 *	  state dpobj.synth_state (synthagg.h).
 *
 *	  dpobj.dp_synthesize_cols(label, epsilon, delta, options, column, ...)
 *	      one argument per column of the options' "domains", in its order:
 *	      text for a column with declared levels, float8 for one with
 *	      declared bounds.  No value is an error: NULL and an undeclared
 *	      level are a level, a number outside [lo, hi] is clamped, NaN is
 *	      NULL; so no row is dropped and none is reported.
 *
 *-------------------------------------------------------------------------
 */
#include "families/synth/synthagg.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "common/base64.h"
#include "libpq/pqformat.h"
#include "port/pg_bswap.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/memutils.h"

#include "base/pg_compat.h"
#include "model/modelargs.h"
#include "state/aggstate.h"
#include "state/claim.h"
#include "state/rowinput.h"

PG_FUNCTION_INFO_V1(dpobj_synth_cols_transfn);
PG_FUNCTION_INFO_V1(dpobj_synth_transfn);
PG_FUNCTION_INFO_V1(dpobj_synth_combinefn);
PG_FUNCTION_INFO_V1(dpobj_synth_state_in);
PG_FUNCTION_INFO_V1(dpobj_synth_state_out);
PG_FUNCTION_INFO_V1(dpobj_synth_state_recv);
PG_FUNCTION_INFO_V1(dpobj_synth_state_send);

#define SYNTHAGG_MAGIC 0x44505331	/* "DPS1" */

static Size synthagg_flat_size(ExpandedObjectHeader *eoh);
static void synthagg_flatten(ExpandedObjectHeader *eoh, void *result, Size size);

static const ExpandedObjectMethods synthagg_methods = {
	synthagg_flat_size,
	synthagg_flatten
};

static pg_noreturn void
synthagg_corrupt(void)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
			 errmsg("invalid dpobj.synth_state value"),
			 errhint("Aggregate states come only from dpobj's own aggregates (text: base64 of the binary form).")));
}

static void
synthagg_free_hash(void *arg)
{
	synth_rows_free((SynthRows *) arg);
}

/* a new empty state of the run (epsilon, delta, options) in a child context of parent */
static SynthAggState *
synthagg_new(MemoryContext parent, double epsilon, double delta, Jsonb *options)
{
	MemoryContext cxt = AllocSetContextCreate(parent, "dpobj synth state", ALLOCSET_DEFAULT_SIZES);
	SynthAggState *st = MemoryContextAllocZero(cxt, sizeof(SynthAggState));
	MemoryContext old;

	EOH_init_header(&st->hdr, &synthagg_methods, cxt);
	old = MemoryContextSwitchTo(cxt);
	st->p = synthparams_parse(options, epsilon, delta, cxt);
	st->epsilon = epsilon;
	st->delta = delta;
	st->options = palloc(VARSIZE(options));
	memcpy(st->options, options, VARSIZE(options));
	st->options_text = JsonbToCString(NULL, &options->root, VARSIZE(options));
	st->counts = MemoryContextAllocExtended(cxt, synth_layout_bytes(&st->p->layout),
											MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	st->sums = palloc0(sizeof(int64) * Max(st->p->nsums, 1));
	if (st->p->hash_slots > 0)
	{
		MemoryContextCallback *cb = palloc0(sizeof(MemoryContextCallback));

		if (synth_rows_init(&st->hash, &st->p->layout, st->counts, st->p->hash_slots) != SYNTH_OK)
			ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory")));
		cb->func = synthagg_free_hash;
		cb->arg = &st->hash;
		MemoryContextRegisterResetCallback(cxt, cb);
		st->hashing = true;
	}
	MemoryContextSwitchTo(old);
	return st;
}

/* every row of the hash into the counts */
static void
synthagg_fold(SynthAggState *st)
{
	if (st->hashing)
		synth_rows_fold(&st->hash);
}

/* ---- flat form ---- */

static Size
synthagg_flat_size(ExpandedObjectHeader *eoh)
{
	SynthAggState *st = (SynthAggState *) eoh;

	return VARHDRSZ + 4 + 8 + 8 + 4 + strlen(st->options_text) + 8 +
		synth_layout_bytes(&st->p->layout) + 8 * (int64) st->p->nsums;
}

static char *
put64(char *p, uint64 v)
{
	v = pg_hton64(v);
	memcpy(p, &v, 8);
	return p + 8;
}

static char *
put32(char *p, uint32 v)
{
	v = pg_hton32(v);
	memcpy(p, &v, 4);
	return p + 4;
}

static void
synthagg_flatten(ExpandedObjectHeader *eoh, void *result, Size size)
{
	SynthAggState *st = (SynthAggState *) eoh;
	size_t		len = strlen(st->options_text);
	int64		cells = st->p->layout.cells;
	char	   *p = (char *) result + VARHDRSZ;
	uint64		u;

	Assert(size == synthagg_flat_size(eoh));
	synthagg_fold(st);
	p = put32(p, SYNTHAGG_MAGIC);
	memcpy(&u, &st->epsilon, 8);
	p = put64(p, u);
	memcpy(&u, &st->delta, 8);
	p = put64(p, u);
	p = put32(p, (uint32) len);
	memcpy(p, st->options_text, len);
	p += len;
	p = put64(p, (uint64) cells);
	for (int64 i = 0; i < cells; i++)
		p = put64(p, (uint64) st->counts[i]);
	for (int i = 0; i < st->p->nsums; i++)
		p = put64(p, (uint64) st->sums[i]);
	SET_VARSIZE(result, size);
}

/* a bounds-checked big-endian reader */
typedef struct SynthReader
{
	const char *p;
	const char *end;
} SynthReader;

static uint64
get64(SynthReader *r)
{
	uint64		v;

	if (r->end - r->p < 8)
		synthagg_corrupt();
	memcpy(&v, r->p, 8);
	r->p += 8;
	return pg_ntoh64(v);
}

static uint32
get32(SynthReader *r)
{
	uint32		v;

	if (r->end - r->p < 4)
		synthagg_corrupt();
	memcpy(&v, r->p, 4);
	r->p += 4;
	return pg_ntoh32(v);
}

static double
getf8(SynthReader *r)
{
	uint64		u = get64(r);
	double		f;

	memcpy(&f, &u, 8);
	return f;
}

/* the flat form's run: epsilon, delta and the options (r past them) */
static void
synthagg_read_header(SynthReader *r, double *epsilon, double *delta, Jsonb **options)
{
	uint32		len;
	char	   *text;

	if (get32(r) != SYNTHAGG_MAGIC)
		synthagg_corrupt();
	*epsilon = getf8(r);
	*delta = getf8(r);
	len = get32(r);
	if ((uint64) (r->end - r->p) < len)
		synthagg_corrupt();
	text = pnstrdup(r->p, len);
	if (strlen(text) != len)
		synthagg_corrupt();
	r->p += len;
	*options = DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(text)));
}

/* adds n non-negative values at r into to */
static void
synthagg_read_add(SynthReader *r, int64 *to, int64 n)
{
	for (int64 i = 0; i < n; i++)
	{
		int64		v = (int64) get64(r);

		if (v < 0 || to[i] > PG_INT64_MAX - v)
			synthagg_corrupt();
		to[i] += v;
	}
}

/* adds the flat counts and offset sums at r into st's */
static void
synthagg_read_counts(SynthReader *r, SynthAggState *st)
{
	int64		cells = st->p->layout.cells;

	if ((int64) get64(r) != cells || (r->end - r->p) / 8 != cells + st->p->nsums ||
		(r->end - r->p) % 8 != 0)
		synthagg_corrupt();
	synthagg_read_add(r, st->counts, cells);
	synthagg_read_add(r, st->sums, st->p->nsums);
}

/* a flat state as a new expanded one under parent */
static SynthAggState *
synthagg_decode(struct varlena *flat, MemoryContext parent)
{
	SynthReader r = {VARDATA_ANY(flat), VARDATA_ANY(flat) + VARSIZE_ANY_EXHDR(flat)};
	double		epsilon,
				delta;
	Jsonb	   *options;
	SynthAggState *st;

	synthagg_read_header(&r, &epsilon, &delta, &options);
	st = synthagg_new(parent, epsilon, delta, options);
	synthagg_read_counts(&r, st);
	return st;
}

/* the expanded state behind d, or NULL for a flat value */
static SynthAggState *
synthagg_expanded(Datum d)
{
	ExpandedObjectHeader *eoh;

	if (!VARATT_IS_EXTERNAL_EXPANDED(DatumGetPointer(d)))
		return NULL;
	eoh = DatumGetEOHP(d);
	if (eoh->eoh_methods != &synthagg_methods)
		synthagg_corrupt();
	return (SynthAggState *) eoh;
}

/* the same run, or the error a row of another run gets */
static void
synthagg_check_same(const SynthAggState *st, double epsilon, double delta,
					const char *options_text)
{
	dp_run_check_same(SYNTH_AGGNAME, epsilon, delta,
					  strcmp(options_text, st->options_text) == 0, st->p->enc_d,
					  st->epsilon, st->delta, st->p->enc_d);
}

/* src's counts into dst (same run) */
static void
synthagg_merge(SynthAggState *dst, Datum src)
{
	SynthAggState *s = synthagg_expanded(src);

	synthagg_fold(dst);
	if (s != NULL)
	{
		synthagg_check_same(dst, s->epsilon, s->delta, s->options_text);
		synthagg_fold(s);
		synth_state_merge(&dst->p->layout, dst->counts, s->counts);
		for (int i = 0; i < dst->p->nsums; i++)
			dst->sums[i] += s->sums[i];
	}
	else
	{
		struct varlena *flat = (struct varlena *) PG_DETOAST_DATUM(src);
		SynthReader r = {VARDATA_ANY(flat), VARDATA_ANY(flat) + VARSIZE_ANY_EXHDR(flat)};
		double		epsilon,
					delta;
		Jsonb	   *options;

		synthagg_read_header(&r, &epsilon, &delta, &options);
		synthagg_check_same(dst, epsilon, delta,
							JsonbToCString(NULL, &options->root, VARSIZE(options)));
		synthagg_read_counts(&r, dst);
	}
}

/* the state behind d, to update in place in aggcontext */
static SynthAggState *
synthagg_writable(Datum d, MemoryContext aggcontext)
{
	SynthAggState *src = synthagg_expanded(d);
	SynthAggState *st;

	if (src == NULL)
		return synthagg_decode((struct varlena *) PG_DETOAST_DATUM(d), aggcontext);
	if (VARATT_IS_EXTERNAL_EXPANDED_RW(DatumGetPointer(d)) &&
		MemoryContextGetParent(src->hdr.eoh_context) == aggcontext)
		return src;
	st = synthagg_new(aggcontext, src->epsilon, src->delta, src->options);
	synthagg_merge(st, d);
	return st;
}

/* ---- transition ---- */

/*
 * per call site: the argument types checked once; with options a constant
 * or a query parameter, the state and options last found the same (the
 * options' bytes then compared once, not on every row)
 */
typedef struct SynthScratch
{
	bool		checked;
	bool		stable_options;
	const SynthAggState *same_st;
	const Jsonb *same_options;
	int			codes[SYNTH_MAX_COLUMNS];
} SynthScratch;

/* one argument per column of "domains", text for levels, else float8 */
static void
synthagg_check_args(FunctionCallInfo fcinfo, const SynthParams *p)
{
	if (get_fn_expr_variadic(fcinfo->flinfo) || PG_NARGS() - DP_ROW_COLS_FIRST != p->d)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: one argument per column of \"domains\" is needed", SYNTH_AGGNAME),
				 errhint("Pass the columns as separate arguments in the order of \"domains\".")));
	for (int j = 0; j < p->d; j++)
		if (get_fn_expr_argtype(fcinfo->flinfo, DP_ROW_COLS_FIRST + j) !=
			(p->enc->cols[j].nlevels > 0 ? TEXTOID : FLOAT8OID))
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("%s: column %d must be %s", SYNTH_AGGNAME, j + 1,
							p->enc->cols[j].nlevels > 0 ? "text" : "double precision"),
					 errhint("Cast a column with declared levels to text, any other to float8.")));
}

/*
 * column j's scan level of a value (never an error): a level's text, else a
 * number, a quantile column's offset within its sub-bin added to sums and
 * its point (if any) counted there
 */
static int
synthagg_code(const SynthParams *p, int j, Datum v, bool isnull, int64 *sums)
{
	const EncColumn *e = &p->enc->cols[j];
	text	   *t;

	if (e->nlevels == 0)
	{
		double		x = isnull ? 0.0 : DatumGetFloat8(v);
		int			code = synth_coding_code(&p->coding[j], x, isnull);

		if (p->sum_at[j] >= 0 && !isnull && !isnan(x))
		{
			int			pt = synth_coding_point(&p->coding[j], x);

			sums[p->sum_at[j] + code] += synth_coding_offset(&p->coding[j], code, x);
			if (pt >= 0)
				sums[p->sum_at[j] + p->col[j].nsub + pt]++;
		}
		return code;
	}
	if (isnull)
		return e->nlevels;
	t = DatumGetTextPP(v);
	return encoding_level(e, VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t));
}

/* the row's scan level per column, one argument each (never an error) */
static void
synthagg_codes(FunctionCallInfo fcinfo, const SynthParams *p, int *codes, int64 *sums)
{
	for (int j = 0; j < p->d; j++)
		codes[j] = synthagg_code(p, j, PG_GETARG_DATUM(DP_ROW_COLS_FIRST + j),
								 PG_ARGISNULL(DP_ROW_COLS_FIRST + j), sums);
}

/* array argument a's elements (of type, n of them); any other shape is refused */
static void
synthagg_array(FunctionCallInfo fcinfo, int a, Oid type, int n, Datum **d, bool **nulls)
{
	ArrayType  *arr = PG_ARGISNULL(a) ? NULL : PG_GETARG_ARRAYTYPE_P(a);
	int			got = -1;

	if (arr != NULL && ARR_ELEMTYPE(arr) == type && ARR_NDIM(arr) <= 1)
		deconstruct_array(arr, type, type == TEXTOID ? -1 : 8, type != TEXTOID,
						  type == TEXTOID ? TYPALIGN_INT : TYPALIGN_DOUBLE, d, nulls, &got);
	if (got != n)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("dp_synthesize: one %s per column of \"domains\" %s is needed",
						type == TEXTOID ? "text" : "float8",
						type == TEXTOID ? "with levels" : "with bounds"),
				 errhint("Pass the columns with levels as text[], the others as float8[], each in the order of \"domains\".")));
}

/* the same from dp_synthesize's two arrays: the columns with levels, the others */
static void
synthagg_array_codes(FunctionCallInfo fcinfo, const SynthParams *p, int *codes, int64 *sums)
{
	Datum	   *td,
			   *nd;
	bool	   *tn,
			   *nn;
	int			it = 0,
				in = 0;

	synthagg_array(fcinfo, DP_ROW_COLS_FIRST, TEXTOID, p->enc->ncat, &td, &tn);
	synthagg_array(fcinfo, DP_ROW_COLS_FIRST + 1, FLOAT8OID, p->enc->nnum, &nd, &nn);
	for (int j = 0; j < p->d; j++)
	{
		if (p->enc->cols[j].nlevels > 0)
		{
			codes[j] = synthagg_code(p, j, td[it], tn[it], sums);
			it++;
		}
		else
		{
			codes[j] = synthagg_code(p, j, nd[in], nn[in], sums);
			in++;
		}
	}
}

/* the state a row goes into: new on the first row, else checked against it */
static SynthAggState *
synthagg_for_row(FunctionCallInfo fcinfo, DPRowInput *row, SynthScratch *c)
{
	Jsonb	   *options = PG_ARGISNULL(4) ? NULL : PG_GETARG_JSONB_P(4);
	SynthAggState *st;

	if (PG_ARGISNULL(0))
	{
		if (options == NULL)
			(void) synthparams_parse(NULL, row->epsilon, row->delta, CurrentMemoryContext);
		return synthagg_new(row->aggcontext, row->epsilon, row->delta, options);
	}
	st = synthagg_writable(PG_GETARG_DATUM(0), row->aggcontext);
	if (c->stable_options && st == c->same_st && options == c->same_options &&
		row->epsilon == st->epsilon && row->delta == st->delta)
		return st;
	if (row->epsilon != st->epsilon || row->delta != st->delta || options == NULL ||
		VARSIZE(options) != VARSIZE(st->options) ||
		memcmp(options, st->options, VARSIZE(options)) != 0)
		dp_run_check_same(SYNTH_AGGNAME, row->epsilon, row->delta,
						  options != NULL && VARSIZE(options) == VARSIZE(st->options) &&
						  memcmp(options, st->options, VARSIZE(options)) == 0,
						  st->p->enc_d, st->epsilon, st->delta, st->p->enc_d);
	c->same_st = st;
	c->same_options = options;
	return st;
}

/* a row into the state: its columns as arguments (dp_synthesize_cols) or as two arrays */
static Datum
synthagg_transition(FunctionCallInfo fcinfo, bool arrays)
{
	DPRowInput	row;
	SynthAggState *st;
	SynthScratch *c;

	if (!dp_row_read_label(fcinfo, SYNTH_AGGNAME, &row))
	{
		if (PG_ARGISNULL(0))
			PG_RETURN_NULL();
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	}
	c = (SynthScratch *) fcinfo->flinfo->fn_extra;
	if (c == NULL)
	{
		c = fcinfo->flinfo->fn_extra = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt,
															  sizeof(SynthScratch));
		c->stable_options = jsonb_arg_stable(fcinfo, 4);
	}
	st = synthagg_for_row(fcinfo, &row, c);
	if (!c->checked && !arrays)
		synthagg_check_args(fcinfo, st->p);
	c->checked = true;
	if (arrays)
		synthagg_array_codes(fcinfo, st->p, c->codes, st->sums);
	else
		synthagg_codes(fcinfo, st->p, c->codes, st->sums);
	if (st->hashing)
		synth_rows_add(&st->hash, c->codes);
	else
		synth_state_add(&st->p->layout, st->counts, c->codes);
	PG_RETURN_DATUM(EOHPGetRWDatum(&st->hdr));
}

Datum
dpobj_synth_cols_transfn(PG_FUNCTION_ARGS)
{
	return synthagg_transition(fcinfo, false);
}

Datum
dpobj_synth_transfn(PG_FUNCTION_ARGS)
{
	return synthagg_transition(fcinfo, true);
}

Datum
dpobj_synth_combinefn(PG_FUNCTION_ARGS)
{
	MemoryContext aggcontext;
	SynthAggState *st;
	Datum		result;

	if (aggstate_combine_start(fcinfo, "dpobj.synth_state", &aggcontext, &result))
		return result;
	if (PG_ARGISNULL(0))
		st = synthagg_writable(PG_GETARG_DATUM(1), aggcontext);
	else
	{
		st = synthagg_writable(PG_GETARG_DATUM(0), aggcontext);
		synthagg_merge(st, PG_GETARG_DATUM(1));
	}
	PG_RETURN_DATUM(EOHPGetRWDatum(&st->hdr));
}

/* ---- type I/O: the flat form (text: base64) ---- */

static bytea *
synthagg_flat(Datum d)
{
	SynthAggState *st = synthagg_expanded(d);
	bytea	   *b;

	if (st == NULL)
	{
		/* validated by decoding */
		(void) synthagg_decode((struct varlena *) PG_DETOAST_DATUM(d), CurrentMemoryContext);
		return (bytea *) PG_DETOAST_DATUM_COPY(d);
	}
	b = palloc(synthagg_flat_size(&st->hdr));
	synthagg_flatten(&st->hdr, b, synthagg_flat_size(&st->hdr));
	return b;
}

static Datum
synthagg_from_bytes(const char *data, int len)
{
	bytea	   *b = palloc(VARHDRSZ + len);
	SynthAggState *st;

	SET_VARSIZE(b, VARHDRSZ + len);
	memcpy(VARDATA(b), data, len);
	st = synthagg_decode((struct varlena *) b, CurrentMemoryContext);
	return EOHPGetRWDatum(&st->hdr);
}

Datum
dpobj_synth_state_in(PG_FUNCTION_ARGS)
{
	const char *str = PG_GETARG_CSTRING(0);
	int			len = strlen(str);
	int			maxlen = pg_b64_dec_len(len);
	char	   *buf = palloc(maxlen + 1);
	int			n = compat_b64_decode(str, len, buf, maxlen);

	if (n < 0)
		synthagg_corrupt();
	return synthagg_from_bytes(buf, n);
}

Datum
dpobj_synth_state_out(PG_FUNCTION_ARGS)
{
	bytea	   *b = synthagg_flat(PG_GETARG_DATUM(0));
	int			len = VARSIZE(b) - VARHDRSZ;
	char	   *out = palloc(pg_b64_enc_len(len) + 1);
	int			n = compat_b64_encode(VARDATA(b), len, out, pg_b64_enc_len(len));

	if (n < 0)
		elog(ERROR, "dpobj: could not encode dpobj.synth_state as base64");
	out[n] = '\0';
	PG_RETURN_CSTRING(out);
}

Datum
dpobj_synth_state_recv(PG_FUNCTION_ARGS)
{
	StringInfo	buf = (StringInfo) PG_GETARG_POINTER(0);
	Datum		d = synthagg_from_bytes(buf->data + buf->cursor, buf->len - buf->cursor);

	buf->cursor = buf->len;
	return d;
}

Datum
dpobj_synth_state_send(PG_FUNCTION_ARGS)
{
	bytea	   *b = synthagg_flat(PG_GETARG_DATUM(0));

	PG_RETURN_BYTEA_P(b);
}

/* ---- what the final function sees ---- */

SynthAggState *
synthagg_final_begin(FunctionCallInfo fcinfo, DPProtectedContext **pctx)
{
	SynthAggState *st = NULL;

	if (!PG_ARGISNULL(0))
	{
		st = synthagg_expanded(PG_GETARG_DATUM(0));
		if (st == NULL)
			st = synthagg_decode((struct varlena *) PG_DETOAST_DATUM(PG_GETARG_DATUM(0)),
								 CurrentMemoryContext);
	}
	*pctx = st ? mechanism_claim(fcinfo, true, st->epsilon, st->delta, st->p->enc_d)
		: mechanism_claim(fcinfo, false, 0, 0, 0);
	/* protected path: run even on no rows, so emptiness is hidden */
	if (st == NULL && *pctx != NULL)
		st = synthagg_new(CurrentMemoryContext, (*pctx)->epsilon_f, (*pctx)->delta_f,
						  (*pctx)->options);
	if (st != NULL)
		synthagg_fold(st);
	return st;
}
