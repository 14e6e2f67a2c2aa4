/*-------------------------------------------------------------------------
 *
 * aggregate.c
 *	  Private descriptive statistics (docs/PRIVACY.md "Private
 *	  statistics"):
 *
 *	  dpobj.dp_aggregate(features, label, epsilon, delta, options) RETURNS jsonb
 *	      aggregate over encoded rows; options {"layout": ...} (aggregate.h)
 *	  dpobj.dp_aggregate_cols(label, epsilon, delta, options, column, ...)
 *	      the same, the encoding's columns encoded here (no array per row)
 *	  dpobj.aggregate(rel, what, ...): the same on a protected table,
 *	      through dpobj.train()'s sealed path (protected/aggrun.c)
 *
 *	  The state holds every cell's slots (counts, and sums of values
 *	  clamped to [lo, hi] and rounded to a lattice of AGG_SUM_UNITS steps
 *	  per max(|lo|, |hi|)), summed over the rows in one scan.  Replacing one
 *	  row changes each statistic's slots by at most 2 in l1 (counts: one
 *	  cell or bin loses it, one gains it) or 2 AGG_SUM_UNITS (sums), adding
 *	  or removing one by half that; a privacy unit of k rows k times that.
 *	  Each slot gets independent discrete Laplace noise (dpnoise.c) of
 *	  scale sensitivity / (share x epsilon / k): the statistics share
 *	  epsilon equally (a mean half to its sum, half to its count, a
 *	  variance a third to each of its sum of squares, sum and count, a
 *	  quantile's between its leaves' and its coarse bins' counts: two
 *	  histograms, aggregate.h).  The release is epsilon-DP by basic
 *	  composition (delta may be 0; one given is charged, not needed),
 *	  charged once as "aggregate" (pure).
 *
 *-------------------------------------------------------------------------
 */
#include "base/dpobj.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "lib/stringinfo.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/jsonb.h"

#include "base/options.h"
#include "core/calibrate.h"
#include "core/dpnoise.h"
#include "mechanisms/aggregate.h"
#include "state/countstate.h"
#include "mechanisms/mechanism.h"
#include "model/modelargs.h"
#include "state/rowinput.h"

PG_FUNCTION_INFO_V1(dpobj_aggregate_transfn);
PG_FUNCTION_INFO_V1(dpobj_aggregate_cols_transfn);
PG_FUNCTION_INFO_V1(dpobj_aggregate_combinefn);
PG_FUNCTION_INFO_V1(dpobj_aggregate_finalfn);

/*
 * The state: the counts state's run entries (countstate.h), the number of
 * cells C and of slots per cell W, each slot's kind (AggSlotKind) and share
 * of epsilon, then C x W values.
 */
enum
{
	AG_C = CS_K + 1, AG_W, AG_HDR
};
#define AG_NRUN(w)		(AG_HDR + 2 * (w))
#define AG_KIND(s, i)	((AggSlotKind) (s)[AG_HDR + (i)])
#define AG_SHARE(s, w, i) ((s)[AG_HDR + (w) + (i)])

static void *
agg_layout_build(Jsonb *options, MemoryContext cxt)
{
	return agg_layout_of_options(options);
}

/* the layout of the options (argument 5), per aggregate call */
static AggLayout *
agg_cache(FunctionCallInfo fcinfo, Jsonb *options)
{
	if (options == NULL)
		return agg_layout_of_options(NULL);	/* raises: no layout */
	return jsonb_arg_cached(fcinfo, options, 5, agg_layout_build);
}

/* options: "layout", and "rows_per_unit" and "sealed" from dpobj.train() */
int
agg_options_k(Jsonb *options)
{
	JsonbIterator *it;
	JsonbValue	v;
	JsonbIteratorToken tok;
	JsonbValue *vk;

	if (options == NULL || !JB_ROOT_IS_OBJECT(options))
		(void) agg_layout_of_options(NULL);
	it = JsonbIteratorInit(&options->root);
	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
		if (tok == WJB_KEY &&
			!(v.val.string.len == 6 && strncmp(v.val.string.val, "layout", 6) == 0) &&
			!(v.val.string.len == 13 && strncmp(v.val.string.val, "rows_per_unit", 13) == 0) &&
			!(v.val.string.len == DPOBJ_SEALED_KEY_LEN &&
			  strncmp(v.val.string.val, DPOBJ_SEALED_KEY, DPOBJ_SEALED_KEY_LEN) == 0))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("unknown option \"%.*s\" for dp_aggregate", v.val.string.len, v.val.string.val),
					 errhint("dp_aggregate takes \"layout\" and \"rows_per_unit\"; dpobj.aggregate() takes \"filter\" and \"deadline\".")));
	vk = getKeyJsonValueFromContainer(&options->root, DPOBJ_SEALED_KEY, DPOBJ_SEALED_KEY_LEN, NULL);
	if (vk != NULL)
		(void) dp_option_bool(vk, DPOBJ_SEALED_KEY);
	vk = getKeyJsonValueFromContainer(&options->root, "rows_per_unit", 13, NULL);
	return vk ? dp_option_int(vk, "rows_per_unit", 1, DPOBJ_MAX_ROWS_PER_UNIT) : 1;
}

/* a slot's noise: num / den lattice units (aggregate.h); den 0 when epsilon is too small */
void
agg_slot_noise(bool sum, double eps_share, uint64 *num, uint64 *den)
{
	int			bits = sum ? AGG_SUM_BITS : AGG_COUNT_BITS;
	double		unit = ldexp(1.0, bits);
	/* den <= 2^31: at most 2^11 (counts) or 2^15 (sums) of epsilon is used */
	double		cap = ldexp(1.0, 31 - bits);

	*num = (uint64) (sum ? 2 * AGG_SUM_UNITS : 2) << bits;
	*den = (uint64) floor(Min(eps_share, cap) * unit);
}

void
aggregate_check_args(const char *aggname, double epsilon, double delta, int d, Jsonb *options)
{
	int			k;
	AggLayout  *l;

	/* epsilon-DP: delta plays no part, 0 too */
	dp_check_pure_privacy_params(epsilon, delta);
	k = agg_options_k(options);
	l = agg_layout_of_options(options);
	if (l->enc->d != d)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: the layout's encoding has %d coordinates but rows have %d", aggname, l->enc->d, d),
				 errhint("Pass dpobj.encode_features() of the layout's encoding.")));
	for (int i = 0; i < l->width; i++)
	{
		double		share;
		AggSlotKind kind = agg_slot_kind(l, i, &share);
		uint64		num = 1,
					den = 1;

		agg_slot_noise(kind == AGG_SLOT_SUM, dp_epsilon_per_row(epsilon, k) * share, &num, &den);
		if (den < 1 || num < 1)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s: epsilon is too small for %d statistics", aggname, l->nstats),
					 errhint("Each count needs at least 2^-20 of epsilon and each sum 2^-16 (a mean both; with a privacy unit of k rows, k times that).")));
	}
}

/* a new state for layout l: the run's entries, each slot's kind and share, zero values */
static ArrayType *
agg_state_new(MemoryContext cxt, const AggLayout *l, double eps, double delta, int k)
{
	int			nrun = AG_NRUN(l->width);
	ArrayType  *a = countstate_new(cxt, nrun + l->ncells * l->width, eps, delta,
								   l->enc->d, k);
	double	   *s = (double *) ARR_DATA_PTR(a);

	s[AG_C] = l->ncells;
	s[AG_W] = l->width;
	for (int i = 0; i < l->width; i++)
		s[AG_HDR + i] = agg_slot_kind(l, i, &AG_SHARE(s, l->width, i));
	return a;
}

/*
 * A categorical column's level: levels[col] when the encoder gave it, else
 * the first of its n one-hot coordinates xs[] set (n - 1 if none).
 */
static pg_attribute_always_inline int
agg_level(const int *levels, int col, const double *xs, int n)
{
	if (levels != NULL)
		return levels[col];
	for (int j = 0; j < n - 1; j++)
		if (xs[j] > 0.5)
			return j;
	return n - 1;
}

/* the cell of a row: each group column's level, row-major */
static pg_attribute_always_inline int
agg_row_cell_lev(const AggLayout *l, const double *x, const int *levels)
{
	int			cell = 0;

	for (int g = 0; g < l->ngroups; g++)
		cell = cell * l->gsize[g] + agg_level(levels, l->gcol[g], x + l->goff[g], l->gsize[g]);
	return cell;
}

/* a numeric coordinate (scaled to [-1, 1]) as its value on the sum lattice */
static double
agg_lattice(const AggStat *st, const EncColumn *c, double x)
{
	double		v = c->lo + (Min(Max(x, -1.0), 1.0) + 1.0) / 2.0 * (c->hi - c->lo);

	return Min(Max(rint(v / st->step), -AGG_SUM_UNITS), AGG_SUM_UNITS);
}

/* a numeric coordinate's square on the lattice of max(lo^2, hi^2) / AGG_SUM_UNITS */
static double
agg_square(const AggStat *st, const EncColumn *c, double x)
{
	double		v = c->lo + (Min(Max(x, -1.0), 1.0) + 1.0) / 2.0 * (c->hi - c->lo);

	return Min(Max(rint(v * v / (st->step * st->step * AGG_SUM_UNITS)), 0), AGG_SUM_UNITS);
}

/* statistic st's contributions to its slots v (w + st->slot); levels as agg_level's */
static pg_attribute_always_inline void
agg_stat_add(const AggStat *st, const EncColumn *cols, const double *x, const int *levels,
			 double *v)
{
	const double *xs = x + st->off;

	switch (st->kind)
	{
		case AGG_COUNT:
			v[0] += 1;
			break;
		case AGG_MEAN:
			v[1] += 1;
			/* FALLTHROUGH */
		case AGG_SUM:
			v[0] += agg_lattice(st, &cols[st->col], xs[0]);
			break;
		case AGG_VARIANCE:
			v[0] += agg_square(st, &cols[st->col], xs[0]);
			v[1] += agg_lattice(st, &cols[st->col], xs[0]);
			v[2] += 1;
			break;
		case AGG_HISTOGRAM:
			if (cols[st->col].nlevels > 0)
				v[agg_level(levels, st->col, xs, st->nbins)] += 1;
			else
				v[agg_bin_of(st->xedge, st->nbins, xs[0])] += 1;
			break;
		case AGG_QUANTILE:
			{
				/* its leaf, and the coarse bin holding that leaf */
				int			leaf = agg_bin_of(st->xedge, st->nbins, xs[0]);

				v[leaf] += 1;
				if (st->ncoarse > 0)
					v[st->nbins + leaf / st->group] += 1;
			}
			break;
	}
}

bool
agg_row_no_nan(DPRowInput *row, const double *x, const char *aggname)
{
	for (int j = 0; j < row->d; j++)
		if (isnan(x[j]))
		{
			if (dp_row_drops_bad(row))
				return false;
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s: features must not be NaN", aggname),
					 errhint("Pass dpobj.encode_features() of the layout's encoding.")));
		}
	return true;
}

/* a row's contributions to its cell's slots w; levels as agg_level's */
void
agg_row_add(const AggLayout *l, const double *x, const int *levels, double *w)
{
	/* in locals: a store into w may alias any field (-fno-strict-aliasing) */
	const AggStat *stats = l->stats;
	const EncColumn *cols = l->enc->cols;
	int			nstats = l->nstats;

	for (int i = 0; i < nstats; i++)
		agg_stat_add(&stats[i], cols, x, levels, w + stats[i].slot);
}

/*
 * The state for a row (a new one on the run's first row, after the run's
 * arguments are checked) and its values; d is the encoded row's length.
 */
static double *
agg_row_state(ArrayType **state, const DPRowInput *row, const AggLayout *l, int d,
			  Jsonb *options)
{
	double	   *s;

	if (*state == NULL)
	{
		aggregate_check_args(AGG_AGGNAME, row->epsilon, row->delta, d, options);
		*state = agg_state_new(row->aggcontext, l, row->epsilon, row->delta,
							   agg_options_k(options));
	}
	s = countstate_values(*state, AG_NRUN(l->width) + l->ncells * l->width);
	dp_run_check_same(AGG_AGGNAME, row->epsilon, row->delta, true, d,
					  s[CS_EPS], s[CS_DELTA], (int) s[CS_D]);
	return s;
}

Datum
dpobj_aggregate_transfn(PG_FUNCTION_ARGS)
{
	ArrayType  *state = PG_ARGISNULL(0) ? NULL : PG_GETARG_ARRAYTYPE_P(0);
	Jsonb	   *options = PG_ARGISNULL(5) ? NULL : PG_GETARG_JSONB_P(5);
	DPRowInput	row;
	AggLayout  *l;
	double	   *s;
	const double *x;

	if (!dp_row_read(fcinfo, AGG_AGGNAME, &row))
	{
		if (state == NULL)
			PG_RETURN_NULL();
		PG_RETURN_ARRAYTYPE_P(state);
	}
	l = agg_cache(fcinfo, options);
	s = agg_row_state(&state, &row, l, row.d, options);
	x = (const double *) ARR_DATA_PTR(row.features);
	if (!agg_row_no_nan(&row, x, AGG_AGGNAME))
		PG_RETURN_ARRAYTYPE_P(state);
	/* the state is this aggregate's own array: updated in place */
	agg_row_add(l, x, NULL, s + AG_NRUN(l->width) + agg_row_cell_lev(l, x, NULL) * l->width);
	PG_RETURN_ARRAYTYPE_P(state);
}

/*
 * dp_aggregate_cols' call site: the layout and the buffers one row's
 * columns are encoded in (no array per row), built once per options.
 */
typedef struct AggCols
{
	AggLayout  *l;
	bool		checked;		/* the argument types were checked */
	int		   *off;			/* each column's first coordinate */
	double	   *x;				/* the encoded row's numeric coordinates, d values */
	int		   *levels;			/* its categorical columns' levels (agg_level) */
} AggCols;

static void *
agg_cols_build(Jsonb *options, MemoryContext cxt)
{
	AggCols    *c = MemoryContextAllocZero(cxt, sizeof(AggCols));
	const Encoding *enc;

	c->l = agg_layout_of_options(options);
	enc = c->l->enc;
	c->off = MemoryContextAlloc(cxt, sizeof(int) * enc->ncols);
	for (int i = 0, j = 0; i < enc->ncols; i++)
	{
		c->off[i] = j;
		j += enc->cols[i].nlevels > 0 ? enc->cols[i].nlevels + 1 : 1;
	}
	c->x = MemoryContextAllocZero(cxt, sizeof(double) * enc->d);
	c->levels = MemoryContextAllocZero(cxt, sizeof(int) * enc->ncols);
	return c;
}

/* one argument per encoding column, in its order: text for levels, else float8 */
static void
agg_cols_check(FunctionCallInfo fcinfo, const Encoding *enc)
{
	if (get_fn_expr_variadic(fcinfo->flinfo) || PG_NARGS() - DP_ROW_COLS_FIRST != enc->ncols)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: one argument per column of the layout's encoding is needed", AGG_COLS_AGGNAME),
				 errhint("Pass the columns as separate arguments in the encoding's order.")));
	for (int i = 0; i < enc->ncols; i++)
		if (get_fn_expr_argtype(fcinfo->flinfo, DP_ROW_COLS_FIRST + i) !=
			(enc->cols[i].nlevels > 0 ? TEXTOID : FLOAT8OID))
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("%s: column %d must be %s", AGG_COLS_AGGNAME, i + 1,
							enc->cols[i].nlevels > 0 ? "text" : "double precision"),
					 errhint("Cast a column with declared levels to text, any other to float8.")));
}

/*
 * The row's columns as encode_features would encode them (its
 * encoding_level and encoding_scale), straight from the arguments: each
 * categorical column's level into levels (its one-hot coordinates are not
 * written: agg_row_add reads levels), each numeric one's coordinate
 * into x.  False: a numeric NULL or NaN.
 */
static bool
agg_cols_encode(FunctionCallInfo fcinfo, AggCols *c)
{
	const Encoding *enc = c->l->enc;

	for (int i = 0; i < enc->ncols; i++)
	{
		const EncColumn *col = &enc->cols[i];
		int			a = DP_ROW_COLS_FIRST + i;

		if (col->nlevels > 0)
		{
			text	   *t = PG_ARGISNULL(a) ? NULL : PG_GETARG_TEXT_PP(a);

			c->levels[i] = t ? encoding_level(col, VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t))
				: col->nlevels;
		}
		else
		{
			double		v;

			if (PG_ARGISNULL(a) || isnan(v = PG_GETARG_FLOAT8(a)))
				return false;
			c->x[c->off[i]] = encoding_scale(v, col->lo, col->hi);
		}
	}
	return true;
}

/*
 * dpobj.dp_aggregate_cols(label, epsilon, delta, options, column, ...):
 * dp_aggregate with the encoding's columns as arguments, encoded here
 */
Datum
dpobj_aggregate_cols_transfn(PG_FUNCTION_ARGS)
{
	ArrayType  *state = PG_ARGISNULL(0) ? NULL : PG_GETARG_ARRAYTYPE_P(0);
	Jsonb	   *options = PG_ARGISNULL(4) ? NULL : PG_GETARG_JSONB_P(4);
	DPRowInput	row;
	AggCols    *c;
	double	   *s;

	if (!dp_row_read_label(fcinfo, AGG_COLS_AGGNAME, &row))
	{
		if (state == NULL)
			PG_RETURN_NULL();
		PG_RETURN_ARRAYTYPE_P(state);
	}
	if (options == NULL)
		(void) agg_layout_of_options(NULL);	/* raises: no layout */
	c = jsonb_arg_cached(fcinfo, options, 4, agg_cols_build);
	if (!c->checked)
	{
		agg_cols_check(fcinfo, c->l->enc);
		c->checked = true;
	}
	if (!agg_cols_encode(fcinfo, c))
	{
		if (dp_row_drops_bad(&row) && state == NULL)
			PG_RETURN_NULL();
		if (dp_row_drops_bad(&row))
			PG_RETURN_ARRAYTYPE_P(state);
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s: a numeric column must not be NULL or NaN", AGG_COLS_AGGNAME),
				 errhint("Filter out or impute rows with missing values.")));
	}
	s = agg_row_state(&state, &row, c->l, c->l->enc->d, options);
	agg_row_add(c->l, c->x, c->levels, s + AG_NRUN(c->l->width) +
				agg_row_cell_lev(c->l, c->x, c->levels) * c->l->width);
	PG_RETURN_ARRAYTYPE_P(state);
}

/* the state's size, from its own header (checked by countstate_values) */
static void
agg_state_size(ArrayType *a, int *nstate, int *nrun)
{
	double	   *s = (double *) ARR_DATA_PTR(a);
	int			n = ARR_NDIM(a) == 1 ? ARR_DIMS(a)[0] : 0;

	if (n <= AG_HDR || ARR_ELEMTYPE(a) != FLOAT8OID || s[AG_W] < 1 || s[AG_C] < 1 ||
		s[AG_W] > AGG_MAX_VALUES || s[AG_C] > AGG_MAX_CELLS)
		(void) countstate_values(a, -1);
	*nrun = AG_NRUN((int) s[AG_W]);
	*nstate = *nrun + (int) s[AG_C] * (int) s[AG_W];
	(void) countstate_values(a, *nstate);
}

Datum
dpobj_aggregate_combinefn(PG_FUNCTION_ARGS)
{
	int			nstate,
				nrun;

	if (PG_ARGISNULL(1))
	{
		if (PG_ARGISNULL(0))
			PG_RETURN_NULL();
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	}
	agg_state_size(PG_GETARG_ARRAYTYPE_P(1), &nstate, &nrun);
	return countstate_combine(fcinfo, nstate, nrun);
}

/* ---- the release ---- */

typedef struct AggRun
{
	double	   *s;				/* the state's values */
	ArrayType  *state;
	double		eps;
	double		delta;
	double		eps_noise;		/* epsilon / k */
	int			ncells;
	int			width;
	uint64	   *num;			/* per slot: the noise's scale num / den */
	uint64	   *den;
	int64	   *out;			/* the noisy values */
} AggRun;

/*
 * The final state, or on the protected path with no row an empty one of
 * the run's layout (its options are the protected context's).
 */
static void *
agg_admit(FunctionCallInfo fcinfo, int kind, DPProtectedContext **pctx)
{
	AggRun	   *r = palloc0(sizeof(AggRun));
	int			nstate,
				nrun;

	r->state = PG_ARGISNULL(0) ? NULL : PG_GETARG_ARRAYTYPE_P(0);
	if (r->state != NULL)
	{
		agg_state_size(r->state, &nstate, &nrun);
		r->s = countstate_values(r->state, nstate);
	}
	*pctx = r->s ? mechanism_claim(fcinfo, true, r->s[CS_EPS], r->s[CS_DELTA], (int) r->s[CS_D])
		: mechanism_claim(fcinfo, false, 0, 0, 0);
	if (r->s == NULL && *pctx == NULL)
		return NULL;
	if (r->s == NULL)
	{
		AggLayout  *l = agg_layout_of_options((*pctx)->options);

		r->state = agg_state_new(CurrentMemoryContext, l, (*pctx)->epsilon_f, (*pctx)->delta_f,
								 Max((*pctx)->rows_per_unit, 1));
		r->s = (double *) ARR_DATA_PTR(r->state);
	}
	r->eps = r->s[CS_EPS];
	r->delta = r->s[CS_DELTA];
	r->eps_noise = dp_epsilon_per_row(r->eps, (int) r->s[CS_K]);
	r->ncells = (int) r->s[AG_C];
	r->width = (int) r->s[AG_W];
	return r;
}

void
agg_slot_calibrate(const char *aggname, AggSlotKind kind, double share, double eps_noise,
				   uint64 *num, uint64 *den)
{
	agg_slot_noise(kind == AGG_SLOT_SUM, eps_noise * share, num, den);
	if (*den < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: epsilon is too small for these statistics", aggname),
				 errhint("Each count needs at least 2^-20 of epsilon and each sum 2^-16.")));
}

static void
agg_calibrate(DPRun *run)
{
	AggRun	   *r = run->state;

	r->num = palloc(sizeof(uint64) * r->width);
	r->den = palloc(sizeof(uint64) * r->width);
	for (int i = 0; i < r->width; i++)
		agg_slot_calibrate(AGG_AGGNAME, AG_KIND(r->s, i), AG_SHARE(r->s, r->width, i),
						   r->eps_noise, &r->num[i], &r->den[i]);
	r->out = palloc(sizeof(int64) * r->ncells * r->width);
	mechanism_calibrated(run, NULL, "aggregate", r->eps, r->delta);
}

/* after the charge: every slot of every cell plus its noise */
static void
agg_compute(DPRun *run)
{
	AggRun	   *r = run->state;
	const double *v = r->s + AG_NRUN(r->width);

	for (int64 i = 0; i < (int64) r->ncells * r->width; i++)
		r->out[i] = (int64) v[i] + dpnoise_discrete_laplace(run->rng, r->num[i % r->width],
															 r->den[i % r->width]);
	run->detail = "aggregate";
}

/* {"values": [C x W noisy integers], "noise": [[num, den] per slot], "epsilon", "delta"} */
void
agg_append_release(StringInfo b, const int64 *out, int64 n, const uint64 *num,
				   const uint64 *den, int width)
{
	for (int64 i = 0; i < n; i++)
		appendStringInfo(b, "%s" INT64_FORMAT, i ? ", " : "", out[i]);
	appendStringInfoString(b, "], \"noise\": [");
	for (int i = 0; i < width; i++)
		appendStringInfo(b, "%s[" UINT64_FORMAT ", " UINT64_FORMAT "]", i ? ", " : "",
						 num[i], den[i]);
	appendStringInfoChar(b, ']');
}

static Datum
agg_release(DPRun *run)
{
	AggRun	   *r = run->state;
	StringInfoData b;

	initStringInfo(&b);
	appendStringInfoString(&b, "{\"values\": [");
	agg_append_release(&b, r->out, (int64) r->ncells * r->width, r->num, r->den, r->width);
	appendStringInfo(&b, ", \"epsilon\": %s, \"delta\": %s}",
					 float8out_internal(r->eps), float8out_internal(r->delta));
	return DirectFunctionCall1(jsonb_in, CStringGetDatum(b.data));
}

MECHANISM_FINAL_FUNCTION(dpobj_aggregate_finalfn,
						 .admit = agg_admit, .kind = 0,
						 .calibrate = agg_calibrate, .compute = agg_compute,
						 .release = agg_release)
