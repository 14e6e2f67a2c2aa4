/*-------------------------------------------------------------------------
 *
 * statisticsstate.c
 *	  The state of private statistics (statisticsstate.h): the transition
 *	  functions of dp_aggregate (encoded rows) and dp_aggregate_cols (the
 *	  encoding's columns), which add each row to its cell's slots, and
 *	  their combine function; the release is aggregate.c.
 *
 *-------------------------------------------------------------------------
 */
#include "base/dpobj.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"

#include "base/options.h"
#include "families/statistics/statisticsparams.h"
#include "families/statistics/statisticsstate.h"
#include "model/modelargs.h"

PG_FUNCTION_INFO_V1(dpobj_aggregate_transfn);
PG_FUNCTION_INFO_V1(dpobj_aggregate_cols_transfn);
PG_FUNCTION_INFO_V1(dpobj_aggregate_combinefn);

static void *
agg_layout_build(Jsonb *options, MemoryContext cxt)
{
	return agg_layout_of_options(options);
}

/* the layout of the options (argument 5), per aggregate call */
static AggLayout *
agg_cache(FunctionCallInfo fcinfo, Jsonb *options)
{
	return jsonb_arg_cached(fcinfo, options, 5, agg_layout_build);
}

/* a new state for layout l: the run's entries, each slot's kind and share, zero values */
ArrayType *
agg_state_new(MemoryContext cxt, const AggLayout *l, double eps, double delta, int k)
{
	int			nrun = STAT_NRUN(l->width);
	ArrayType  *a = countstate_new(cxt, nrun + l->ncells * l->width, eps, delta,
								   l->enc->d, k);
	double	   *s = (double *) ARR_DATA_PTR(a);

	s[STAT_C] = l->ncells;
	s[STAT_W] = l->width;
	for (int i = 0; i < l->width; i++)
		s[STAT_HDR + i] = agg_slot_kind(l, i, &STAT_SHARE(s, l->width, i));
	return a;
}

/*
 * A categorical column's level: levels[col] when the encoder gave it (a
 * NULL's AGG_LEVEL_NULL: "other"), else the first of its n one-hot
 * coordinates xs[] set (n - 1 if none: "other", a NULL's too).
 */
static pg_attribute_always_inline int
agg_level(const int *levels, int col, const double *xs, int n)
{
	if (levels != NULL)
		return Min(levels[col], n - 1);
	for (int j = 0; j < n - 1; j++)
		if (xs[j] > 0.5)
			return j;
	return n - 1;
}

/*
 * Whether statistic st's value is present (not NULL): a numeric
 * coordinate's is not NaN; a categorical column's level is not
 * AGG_LEVEL_NULL, or one of its one-hot coordinates is set
 */
static pg_attribute_always_inline bool
agg_present(const AggStat *st, const EncColumn *cols, const double *xs, const int *levels)
{
	int			n = cols[st->col].nlevels;

	if (n == 0)
		return !isnan(xs[0]);
	if (levels != NULL)
		return levels[st->col] <= n;
	for (int j = 0; j <= n; j++)
		if (xs[j] > 0.5)
			return true;
	return false;
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

/*
 * statistic st's contributions to its slots v (w + st->slot); levels as
 * agg_level's; first: the row's label (its unit's first row in its cell)
 */
static pg_attribute_always_inline void
agg_stat_add(const AggStat *st, const EncColumn *cols, const double *x, const int *levels,
			 bool first, double *v)
{
	const double *xs = x + st->off;

	/*
	 * a statistic of a column or expression skips the rows where it is NULL;
	 * a histogram of levels counts them in "other", as a group column does
	 */
	if (st->col >= 0 && !(st->kind == AGG_HISTOGRAM && cols[st->col].nlevels > 0) &&
		!agg_present(st, cols, xs, levels))
		return;
	switch (st->kind)
	{
		case AGG_COUNT:
			v[0] += 1;
			break;
		case AGG_UNITS:
			v[0] += first ? 1 : 0;
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
agg_row_no_nan(DPRowInput *row, const AggLayout *l, const double *x, const char *aggname)
{
	for (int i = 0, j = 0; i < l->enc->ncols && j < row->d; i++)
	{
		/* a numeric coordinate's NaN is its NULL (agg_present); a level's is refused */
		int			e = j + (l->enc->cols[i].nlevels > 0 ? l->enc->cols[i].nlevels + 1 : 1);
		bool		level = l->enc->cols[i].nlevels > 0;

		for (; j < e && j < row->d; j++)
			if (level && isnan(x[j]))
			{
				if (dp_row_drops_bad(row))
					return false;
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("%s: a level's coordinate must not be NaN", aggname),
						 errhint("Pass dpobj.encode_features() of the layout's encoding.")));
			}
	}
	return true;
}

/* a row's contributions to its cell's slots w; levels as agg_level's */
void
agg_row_add(const AggLayout *l, const double *x, const int *levels, bool first, double *w)
{
	/* in locals: a store into w may alias any field (-fno-strict-aliasing) */
	const AggStat *stats = l->stats;
	const EncColumn *cols = l->enc->cols;
	int			nstats = l->nstats;

	for (int i = 0; i < nstats; i++)
		agg_stat_add(&stats[i], cols, x, levels, first, w + stats[i].slot);
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
	s = countstate_values(*state, STAT_NRUN(l->width) + l->ncells * l->width);
	dp_run_check_same(AGG_AGGNAME, row->epsilon, row->delta, true, d,
					  s[STAT_EPS], s[STAT_DELTA], (int) s[STAT_D]);
	/* options that change between rows: their layout must still read d coordinates */
	if (l->enc->d != d)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: the layout's encoding has %d coordinates but rows have %d",
						AGG_AGGNAME, l->enc->d, d),
				 errhint("Pass dpobj.encode_features() of the layout's encoding.")));
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
	if (!agg_row_no_nan(&row, l, x, AGG_AGGNAME))
		PG_RETURN_ARRAYTYPE_P(state);
	/* the state is this aggregate's own array: updated in place */
	agg_row_add(l, x, NULL, row.label, s + STAT_NRUN(l->width) + agg_row_cell_lev(l, x, NULL) * l->width);
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
 * written: agg_row_add reads levels; a NULL's AGG_LEVEL_NULL), each
 * numeric one's coordinate into x (a NULL's or NaN's NaN: agg_present).
 */
static void
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
				: AGG_LEVEL_NULL(col->nlevels);
		}
		else
			c->x[c->off[i]] = PG_ARGISNULL(a) ? NAN :
				encoding_scale(PG_GETARG_FLOAT8(a), col->lo, col->hi);
	}
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
	c = jsonb_arg_cached(fcinfo, options, 4, agg_cols_build);
	if (!c->checked)
	{
		agg_cols_check(fcinfo, c->l->enc);
		c->checked = true;
	}
	agg_cols_encode(fcinfo, c);
	s = agg_row_state(&state, &row, c->l, c->l->enc->d, options);
	agg_row_add(c->l, c->x, c->levels, row.label, s + STAT_NRUN(c->l->width) +
				agg_row_cell_lev(c->l, c->x, c->levels) * c->l->width);
	PG_RETURN_ARRAYTYPE_P(state);
}

/* the state's size, from its own header (checked by countstate_values) */
void
agg_state_size(ArrayType *a, int *nstate, int *nrun)
{
	double	   *s = (double *) ARR_DATA_PTR(a);
	int			n = ARR_NDIM(a) == 1 ? ARR_DIMS(a)[0] : 0;

	if (n <= STAT_HDR || ARR_ELEMTYPE(a) != FLOAT8OID || s[STAT_W] < 1 || s[STAT_C] < 1 ||
		s[STAT_W] > AGG_MAX_VALUES || s[STAT_C] > AGG_MAX_CELLS)
		(void) countstate_values(a, -1);
	*nrun = STAT_NRUN((int) s[STAT_W]);
	*nstate = *nrun + (int) s[STAT_C] * (int) s[STAT_W];
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
