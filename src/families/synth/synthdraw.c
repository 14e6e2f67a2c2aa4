/*-------------------------------------------------------------------------
 *
 * synthdraw.c
 *	  What a released synthesizer model answers, at no charge
 *	  (post-processing of the model alone, no row read):
 *
 *	  the draw every reader shares (synthdraw.h): rows in batches of
 *	      SYNTHDRAW_BATCH (core/synthsample.c: systematic sampling per
 *	      batch), so memory does not grow with n; a cell's value a level,
 *	      NULL (and "other"), or a number drawn within its bin
 *	      (core/synthdomain.h).
 *	  dpobj.sample(model, n)      n synthetic rows, each a jsonb object
 *	      {"column": value}: a level its declared text, NULL null, a
 *	      number as float8 (typed rows: synthtyped.c).
 *	  dpobj.marginal(model, columns)  every cell of the model's marginal on
 *	      the columns: its estimated count and a 95 % interval
 *	      (core/synthci.h: from the first measurement holding the columns,
 *	      else from the last round's selection, else none).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/json.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"

#include "base/random.h"
#include "core/synthci.h"
#include "core/synthsample.h"
#include "families/synth/synthdraw.h"
#include "families/synth/synthmodel.h"
#include "families/synth/synthparams.h"

PG_FUNCTION_INFO_V1(dpobj_synth_sample);
PG_FUNCTION_INFO_V1(dpobj_synth_marginal);

static void
sample_free_rng(void *arg)
{
	dpobj_rng_free((gsl_rng *) arg);
}

SynthDraw *
synthdraw_begin(HeapTupleHeader model, int64 n, MemoryContext cxt, const char *fn)
{
	SynthDraw  *s = MemoryContextAllocZero(cxt, sizeof(SynthDraw));
	MemoryContextCallback *cb = MemoryContextAllocZero(cxt, sizeof(MemoryContextCallback));
	MemoryContext old;

	if (n < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: n must not be negative", fn),
				 errhint("n is the number of synthetic rows to draw.")));
	s->f = synthmodel_unpack(model, cxt);
	s->left = n;
	s->rows = MemoryContextAllocHuge(cxt, sizeof(int) * SYNTHDRAW_BATCH * s->f->d);
	old = MemoryContextSwitchTo(cxt);
	s->rng = dpobj_rng_new();
	MemoryContextSwitchTo(old);
	cb->func = sample_free_rng;
	cb->arg = s->rng;
	MemoryContextRegisterResetCallback(cxt, cb);
	return s;
}

int
synthdraw_batch(SynthDraw *s)
{
	CHECK_FOR_INTERRUPTS();
	s->nbatch = (int) Min(s->left, SYNTHDRAW_BATCH);
	if (s->nbatch > 0 &&
		synth_sample(&s->f->res.model, s->nbatch, s->rng, s->rows) != SYNTH_OK)
		ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory")));
	s->left -= s->nbatch;
	return s->nbatch;
}

bool
synthdraw_value(const SynthFitted *f, int j, int level, gsl_rng *rng, int *level_out, double *x)
{
	const SynthColumn *c = &f->col[j];

	*level_out = -1;
	if (c->kind == SYNTH_COL_LEVELS)
	{
		if (level >= f->enc->cols[j].nlevels)
			return true;
		*level_out = level;
		return false;
	}
	if (c->nullable && level == synth_column_model_levels(c) - 1)
		return true;
	*x = rng != NULL ? synth_column_draw(c, level, rng) : 0.0;
	return false;
}

/* column j's value of model level `level` into b (JSON) */
static void
draw_value(StringInfo b, const SynthFitted *f, int j, int level, gsl_rng *rng)
{
	int			lv;
	double		x = 0;

	if (synthdraw_value(f, j, level, rng, &lv, &x))
		appendStringInfoString(b, "null");
	else if (lv >= 0)
		escape_json(b, f->enc->cols[j].levels[lv]);
	else
		appendStringInfoString(b, float8out_internal(x));
}

/* row i of the batch as a jsonb object */
static Datum
draw_row(SynthDraw *s, int i)
{
	StringInfoData b;
	const SynthFitted *f = s->f;

	initStringInfo(&b);
	appendStringInfoChar(&b, '{');
	for (int j = 0; j < f->d; j++)
	{
		appendStringInfoString(&b, j ? ", " : "");
		escape_json(&b, f->enc->cols[j].column);
		appendStringInfoString(&b, ": ");
		draw_value(&b, f, j, s->rows[(int64) i * f->d + j], s->rng);
	}
	appendStringInfoChar(&b, '}');
	return DirectFunctionCall1(jsonb_in, CStringGetDatum(b.data));
}

/* the draw and the next row of its batch */
typedef struct SampleRun
{
	SynthDraw  *draw;
	int			next;
} SampleRun;

Datum
dpobj_synth_sample(PG_FUNCTION_ARGS)
{
	FuncCallContext *fc;
	SampleRun  *s;

	if (SRF_IS_FIRSTCALL())
	{
		fc = SRF_FIRSTCALL_INIT();
		s = MemoryContextAllocZero(fc->multi_call_memory_ctx, sizeof(SampleRun));
		s->draw = synthdraw_begin(PG_GETARG_HEAPTUPLEHEADER(0), PG_GETARG_INT64(1),
								  fc->multi_call_memory_ctx, "dpobj.sample");
		fc->user_fctx = s;
	}
	fc = SRF_PERCALL_SETUP();
	s = fc->user_fctx;
	if (s->next == s->draw->nbatch)
	{
		if (synthdraw_batch(s->draw) == 0)
			SRF_RETURN_DONE(fc);
		s->next = 0;
	}
	SRF_RETURN_NEXT(fc, draw_row(s->draw, s->next++));
}

/* ---- dpobj.marginal ---- */

/* the columns argument as a set of the model's columns */
static SynthSet
marginal_set(const SynthFitted *f, ArrayType *a)
{
	Datum	   *d;
	bool	   *nulls;
	int			n;
	SynthSet	s = 0;

	if (ARR_NDIM(a) != 1 || ARR_ELEMTYPE(a) != TEXTOID)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("dpobj.marginal: columns must be a one-dimensional text array"),
				 errhint("For example ARRAY['sex', 'race'].")));
	deconstruct_array(a, TEXTOID, -1, false, TYPALIGN_INT, &d, &nulls, &n);
	for (int i = 0; i < n; i++)
	{
		int			j = -1;
		char	   *name = nulls[i] ? NULL : TextDatumGetCString(d[i]);

		for (int k = 0; name != NULL && k < f->d; k++)
			if (strcmp(f->enc->cols[k].column, name) == 0)
				j = k;
		if (j < 0 || (s & SYNTH_BIT(j)))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("dpobj.marginal: \"%s\" is not a column of the model, or named twice",
							name ? name : "NULL"),
					 errhint("Name distinct columns of params->'domains'.")));
		s |= SYNTH_BIT(j);
	}
	if (s == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("dpobj.marginal: columns must name at least one column"),
				 errhint("For example ARRAY['sex', 'race'].")));
	return s;
}

/* a cell's value of column j: its level, null, or its bin [lo, hi] */
static void
marginal_value(StringInfo b, const SynthFitted *f, int j, int level)
{
	const SynthColumn *c = &f->col[j];
	double		lo,
				hi;

	if (c->kind == SYNTH_COL_LEVELS || (c->nullable && level == synth_column_model_levels(c) - 1))
	{
		draw_value(b, f, j, level, NULL);
		return;
	}
	if (c->kind == SYNTH_COL_QUANTILE)
	{
		lo = c->edges[level];
		hi = c->edges[level + 1];
	}
	else
	{
		lo = c->lo + (c->hi - c->lo) * level / c->nbins;
		hi = c->lo + (c->hi - c->lo) * (level + 1) / c->nbins;
	}
	appendStringInfo(b, "[%s, %s]", float8out_internal(lo), float8out_internal(hi));
}

/* the set's columns, "a, b" */
static char *
marginal_names(const SynthFitted *f, SynthSet r)
{
	StringInfoData b;

	initStringInfo(&b);
	for (int j = 0; j < f->d; j++)
		if (r & SYNTH_BIT(j))
			appendStringInfo(&b, "%s%s", b.len ? ", " : "", quote_identifier(f->enc->cols[j].column));
	return b.data;
}

/*
 * The model's marginal and its intervals (core/synthci.h).  A selection
 * bound wider than the model's row count says nothing: no interval then.
 * A set never measured (nor one holding it) without an interval: a NOTICE
 * says so; the estimates are the model's inference alone.
 */
static void
marginal_intervals(const SynthFitted *f, SynthSet r, SynthFactor *cells, double *est,
				   double *lo, double *hi, SynthIntervalKind *kind)
{
	SynthStatus st = synth_ci_marginal(&f->res, r, est, lo, hi, kind);

	if (st != SYNTH_OK)
	{
		synth_factor_free(cells);
		if (st == SYNTH_TOOBIG)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("dpobj.marginal: the model's junction tree with (%s) exceeds its \"max_model_cells\"",
							marginal_names(f, r)),
					 errhint("Ask fewer columns at a time.")));
		ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory")));
	}
	for (int64 x = 0; *kind == SYNTH_CI_SELECTION && x < cells->ncells; x++)
		if (hi[x] - lo[x] > f->rows)
			*kind = SYNTH_CI_NONE;
	if (*kind == SYNTH_CI_NONE)
		ereport(NOTICE,
				(errmsg("dpobj.marginal: the model never measured (%s) nor a set holding it",
						marginal_names(f, r)),
				 errdetail("The estimates are the model's inference alone, without an interval (basis NULL).")));
}

Datum
dpobj_synth_marginal(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	static const char *const basis[] = {NULL, "measured", "selection"};
	SynthFitted *f;
	SynthSet	r;
	int			sizes[SYNTH_MAX_COLUMNS];
	int			codes[SYNTH_MAX_COLUMNS];
	SynthFactor cells;
	double	   *est,
			   *lo,
			   *hi;
	SynthIntervalKind kind;

	InitMaterializedSRF(fcinfo, 0);
	f = synthmodel_unpack(PG_GETARG_HEAPTUPLEHEADER(0), CurrentMemoryContext);
	r = marginal_set(f, PG_GETARG_ARRAYTYPE_P(1));
	for (int j = 0; j < f->d; j++)
		sizes[j] = synth_column_model_levels(&f->col[j]);
	if (synth_set_cells(r, sizes, INT64CONST(1) << 24) < 0)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("dpobj.marginal: the marginal has more than 16777216 cells"),
				 errhint("Ask fewer columns at a time.")));
	if (!synth_factor_init(&cells, r, sizes, 0.0))
		ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory")));
	est = palloc(sizeof(double) * cells.ncells);
	lo = palloc(sizeof(double) * cells.ncells);
	hi = palloc(sizeof(double) * cells.ncells);
	marginal_intervals(f, r, &cells, est, lo, hi, &kind);
	for (int64 x = 0; x < cells.ncells; x++)
	{
		StringInfoData b;
		Datum		values[5];
		bool		nulls[5] = {false, false, kind == SYNTH_CI_NONE, kind == SYNTH_CI_NONE,
		kind == SYNTH_CI_NONE};
		bool		first = true;

		synth_factor_cell(&cells, x, codes);
		initStringInfo(&b);
		appendStringInfoChar(&b, '{');
		for (int j = 0; j < f->d; j++)
			if (r & SYNTH_BIT(j))
			{
				appendStringInfoString(&b, first ? "" : ", ");
				escape_json(&b, f->enc->cols[j].column);
				appendStringInfoString(&b, ": ");
				marginal_value(&b, f, j, codes[j]);
				first = false;
			}
		appendStringInfoChar(&b, '}');
		values[0] = DirectFunctionCall1(jsonb_in, CStringGetDatum(b.data));
		values[1] = Float8GetDatum(est[x]);
		values[2] = Float8GetDatum(lo[x]);
		values[3] = Float8GetDatum(hi[x]);
		values[4] = kind == SYNTH_CI_NONE ? (Datum) 0 : CStringGetTextDatum(basis[kind]);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	synth_factor_free(&cells);
	return (Datum) 0;
}
