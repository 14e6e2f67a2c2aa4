/*-------------------------------------------------------------------------
 *
 * agglayout.c
 *	  The public layout of a dpobj.aggregate() run (agglayout.h): which
 *	  coordinates of the encoded row pick the group cell, which slots of a
 *	  cell each statistic fills, and each slot's noise.  Checked on public
 *	  grounds only.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/jsonb.h"

#include "base/options.h"
#include "core/calibrate.h"
#include "state/agglayout.h"
#include "model/encode.h"

static void
agg_bad(const char *msg, const char *detail)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("dpobj.aggregate: %s", msg),
			 detail ? errdetail("%s", detail) : 0,
			 errhint("\"what\" is a JSON array such as [{\"stat\": \"count\"}, {\"stat\": \"mean\", \"column\": \"hours\"}, "
					 "{\"stat\": \"histogram\", \"column\": \"race\"}]; group_by names columns with declared levels.")));
}

static bool
agg_str_is(const JsonbValue *v, const char *s)
{
	return v->type == jbvString && v->val.string.len == strlen(s) &&
		strncmp(v->val.string.val, s, v->val.string.len) == 0;
}

/* the encoding column named by a JSON string, or an error */
static int
agg_column(const Encoding *enc, const JsonbValue *v, const char *what)
{
	if (v == NULL || v->type != jbvString)
		agg_bad(psprintf("%s needs a \"column\" (a string)", what), NULL);
	for (int i = 0; i < enc->ncols; i++)
		if (strlen(enc->cols[i].column) == v->val.string.len &&
			strncmp(enc->cols[i].column, v->val.string.val, v->val.string.len) == 0)
			return i;
	agg_bad(psprintf("column \"%.*s\" is not among the run's declared columns",
					 v->val.string.len, v->val.string.val), NULL);
	return -1;					/* keep compiler quiet */
}

/* the first coordinate of encoding column c */
static int
agg_offset(const Encoding *enc, int c)
{
	int			off = 0;

	for (int i = 0; i < c; i++)
		off += enc->cols[i].nlevels > 0 ? enc->cols[i].nlevels + 1 : 1;
	return off;
}

/* the encoding column name of an expression: its JSON text, as a JSON string */
static JsonbValue *
agg_expr_column(JsonbValue *expr)
{
	JsonbValue *v = palloc0(sizeof(JsonbValue));
	Jsonb	   *ej;

	if (expr->type != jbvBinary || !JsonContainerIsObject(expr->val.binary.data))
		agg_bad("\"expr\" must be a JSON object", NULL);
	ej = JsonbValueToJsonb(expr);
	v->type = jbvString;
	v->val.string.val = JsonbToCString(NULL, &ej->root, VARSIZE(ej));
	v->val.string.len = strlen(v->val.string.val);
	return v;
}

/* only these keys in a statistic's object */
static void
agg_check_keys(JsonbContainer *obj)
{
	JsonbIterator *it = JsonbIteratorInit(obj);
	JsonbValue	v;
	JsonbIteratorToken tok;

	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
		if (tok == WJB_KEY && !agg_str_is(&v, "stat") && !agg_str_is(&v, "column") &&
			!agg_str_is(&v, "expr") && !agg_str_is(&v, "sample") &&
			!agg_str_is(&v, "bins") && !agg_str_is(&v, "q") && !agg_str_is(&v, "share"))
			agg_bad(psprintf("unknown key \"%.*s\" in \"what\"", v.val.string.len, v.val.string.val),
					"A statistic has the keys \"stat\", \"column\" or \"expr\", \"share\", (numeric histograms, quantiles) \"bins\", (quantiles) \"q\" and (variances) \"sample\".");
}

double
agg_edge(double lo, double hi, int k, int n)
{
	char		buf[64];

	if (k <= 0)
		return lo;
	if (k >= n)
		return hi;
	/* 15 digits: the edges as the declared bounds read (10.8, not 10.800000000000001) */
	snprintf(buf, sizeof(buf), "%.15g", lo + k * ((hi - lo) / n));
	return strtod(buf, NULL);
}

/* the edges of column c's n bins as coordinates, in the layout's context */
static double *
agg_xedges(const EncColumn *c, int n)
{
	double	   *x = palloc(sizeof(double) * (n + 1));

	for (int k = 0; k <= n; k++)
		x[k] = encoding_scale(agg_edge(c->lo, c->hi, k, n), c->lo, c->hi);
	return x;
}

/*
 * The largest k < n with x >= xedge[k] (xedge[0] = -1): a value on an edge
 * is in the bin above it, and the encoding being monotone, a value's bin is
 * the one its printed edges hold.  Started from the equal-width guess.
 */
int
agg_bin_of(const double *xedge, int n, double x)
{
	double		v = (x + 1.0) / 2.0 * n;
	int			k = v >= n - 1 ? n - 1 : (v > 0 ? (int) v : 0);

	while (k < n - 1 && x >= xedge[k + 1])
		k++;
	while (k > 0 && x < xedge[k])
		k--;
	return k;
}

int
agg_quant_group(int nleaves)
{
	return nleaves <= AGG_QUANT_FLAT ? nleaves : (int) ceil(sqrt((double) nleaves));
}

/*
 * A quantile: "q" a number or an array of 1 to AGG_MAX_Q numbers in (0, 1),
 * "bins" (default AGG_QUANT_BINS) equal leaves of [lo, hi], and coarse bins
 * of agg_quant_group() leaves (none for a flat one).
 */
static int
agg_quantile(JsonbContainer *obj, JsonbValue *bins, AggStat *s)
{
	JsonbValue *q = getKeyJsonValueFromContainer(obj, "q", 1, NULL);
	JsonbContainer *a = q && q->type == jbvBinary && JsonContainerIsArray(q->val.binary.data) ?
		q->val.binary.data : NULL;

	s->kind = AGG_QUANTILE;
	s->nq = a ? JsonContainerSize(a) : q && q->type == jbvNumeric ? 1 : 0;
	if (s->nq < 1 || s->nq > AGG_MAX_Q)
		agg_bad(psprintf("a quantile needs \"q\": a number or an array of 1 to %d numbers", AGG_MAX_Q), NULL);
	for (int j = 0; j < s->nq; j++)
	{
		JsonbValue *e = a ? getIthJsonbValueFromContainer(a, j) : q;

		s->q[j] = e->type == jbvNumeric ?
			DatumGetFloat8(DirectFunctionCall1(numeric_float8, NumericGetDatum(e->val.numeric))) : -1;
		if (!(s->q[j] > 0 && s->q[j] < 1))
			agg_bad("every \"q\" must be a number strictly between 0 and 1", NULL);
	}
	s->nbins = bins ? dp_option_int(bins, "bins", 2, AGG_MAX_BINS) : AGG_QUANT_BINS;
	s->group = agg_quant_group(s->nbins);
	s->ncoarse = s->group >= s->nbins ? 0 : (s->nbins + s->group - 1) / s->group;
	return s->nbins + s->ncoarse;
}

/* a statistic's "share": a number in [2^-20, 2^20], default 1 */
static double
agg_weight(JsonbValue *v)
{
	double		w = v && v->type == jbvNumeric ?
		DatumGetFloat8(DirectFunctionCall1(numeric_float8, NumericGetDatum(v->val.numeric))) : v ? 0 : 1;

	if (!(w >= ldexp(1.0, -20) && w <= ldexp(1.0, 20)))
		agg_bad("a \"share\" must be a number between 2^-20 and 2^20",
				"Each statistic gets epsilon times its share over the sum of the shares (default 1 each).");
	return w;
}

/* one statistic of "what"; returns its number of slots */
static int
agg_stat(AggLayout *l, JsonbValue *o, AggStat *s)
{
	JsonbValue *st,
			   *col,
			   *expr,
			   *bins,
			   *sample;
	const EncColumn *c;

	if (o->type != jbvBinary || !JsonContainerIsObject(o->val.binary.data))
		agg_bad("every element of \"what\" must be a JSON object", NULL);
	agg_check_keys(o->val.binary.data);
	s->weight = agg_weight(getKeyJsonValueFromContainer(o->val.binary.data, "share", 5, NULL));
	st = getKeyJsonValueFromContainer(o->val.binary.data, "stat", 4, NULL);
	col = getKeyJsonValueFromContainer(o->val.binary.data, "column", 6, NULL);
	expr = getKeyJsonValueFromContainer(o->val.binary.data, "expr", 4, NULL);
	bins = getKeyJsonValueFromContainer(o->val.binary.data, "bins", 4, NULL);
	sample = getKeyJsonValueFromContainer(o->val.binary.data, "sample", 6, NULL);
	if (expr != NULL && col != NULL)
		agg_bad("a statistic has a \"column\" or an \"expr\", not both", NULL);
	/* an expression: the encoding's numeric column named by its JSON text (protected/aggexpr.c) */
	if (expr != NULL)
		col = agg_expr_column(expr);
	if (st == NULL || !(agg_str_is(st, "count") || agg_str_is(st, "sum") ||
						agg_str_is(st, "mean") || agg_str_is(st, "histogram") ||
						agg_str_is(st, "variance") || agg_str_is(st, "quantile") ||
						agg_str_is(st, "units")))
		agg_bad("\"stat\" must be \"count\", \"units\", \"sum\", \"mean\", \"variance\", \"quantile\" or \"histogram\"", NULL);
	if (!agg_str_is(st, "quantile") &&
		getKeyJsonValueFromContainer(o->val.binary.data, "q", 1, NULL) != NULL)
		agg_bad("\"q\" is for a quantile", NULL);
	s->col = -1;
	if (agg_str_is(st, "count"))
	{
		/* of a column or an expression: the rows where it is not NULL */
		if (col != NULL)
		{
			s->col = agg_column(l->enc, col, "\"count\"");
			s->off = agg_offset(l->enc, s->col);
		}
		if (bins != NULL || sample != NULL)
			agg_bad("\"count\" takes no \"bins\" or \"sample\"", NULL);
		s->kind = AGG_COUNT;
		return 1;
	}
	if (agg_str_is(st, "units"))
	{
		/* the distinct units of a cell: its rows whose label is true (agglayout.h) */
		if (col != NULL || bins != NULL || sample != NULL)
			agg_bad("\"units\" takes no \"column\", \"expr\", \"bins\" or \"sample\"", NULL);
		s->kind = AGG_UNITS;
		return 1;
	}
	s->col = agg_column(l->enc, col, psprintf("\"%.*s\"", st->val.string.len, st->val.string.val));
	s->off = agg_offset(l->enc, s->col);
	c = &l->enc->cols[s->col];
	if (sample != NULL && !agg_str_is(st, "variance"))
		agg_bad("\"sample\" (true or false) is for a variance", NULL);
	if (agg_str_is(st, "histogram"))
	{
		s->kind = AGG_HISTOGRAM;
		for (int g = 0; g < l->ngroups; g++)
			if (l->gcol[g] == s->col)
				agg_bad(psprintf("column \"%s\" is grouped by and cannot be a histogram too", c->column), NULL);
		if (c->nlevels > 0 && bins != NULL)
			agg_bad("\"bins\" is for a numeric column; a column with levels has one bin per level and \"other\"", NULL);
		s->nbins = c->nlevels > 0 ? c->nlevels + 1 :
			bins ? dp_option_int(bins, "bins", 1, AGG_MAX_BINS) : 10;
		if (c->nlevels == 0)
			s->xedge = agg_xedges(c, s->nbins);
		return s->nbins;
	}
	if (c->nlevels > 0)
		agg_bad(psprintf("column \"%s\" has declared levels, not bounds: it has no %.*s", c->column,
						 st->val.string.len, st->val.string.val),
				"dpobj.declare_domain(rel, column, lo, hi) declares a numeric column's bounds.");
	if (agg_str_is(st, "quantile"))
	{
		int			w = agg_quantile(o->val.binary.data, bins, s);

		s->xedge = agg_xedges(c, s->nbins);
		return w;
	}
	if (bins != NULL)
		agg_bad("\"bins\" is for a histogram or a quantile", NULL);
	s->kind = agg_str_is(st, "sum") ? AGG_SUM : agg_str_is(st, "mean") ? AGG_MEAN : AGG_VARIANCE;
	if (sample != NULL && (s->kind != AGG_VARIANCE || sample->type != jbvBool))
		agg_bad("\"sample\" (true or false) is for a variance", NULL);
	s->sample = sample != NULL && sample->val.boolean;
	s->step = Max(fabs(c->lo), fabs(c->hi)) / AGG_SUM_UNITS;
	return s->kind == AGG_SUM ? 1 : s->kind == AGG_MEAN ? 2 : 3;
}

/* the group_by columns: declared levels, no repeats; the number of cells */
static void
agg_groups(AggLayout *l, JsonbContainer *arr)
{
	int			n = JsonContainerIsArray(arr) ? JsonContainerSize(arr) : -1;

	if (n < 0 || n > 8)
		agg_bad("group_by names at most 8 columns", NULL);
	l->ngroups = n;
	l->gcol = palloc(sizeof(int) * Max(n, 1));
	l->goff = palloc(sizeof(int) * Max(n, 1));
	l->gsize = palloc(sizeof(int) * Max(n, 1));
	l->ncells = 1;
	for (int g = 0; g < n; g++)
	{
		JsonbValue *v = getIthJsonbValueFromContainer(arr, g);
		const EncColumn *c;

		l->gcol[g] = agg_column(l->enc, v, "group_by");
		c = &l->enc->cols[l->gcol[g]];
		if (c->nlevels == 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("dpobj.aggregate: group_by column \"%s\" has no declared levels", c->column),
					 errhint("Groups are public keys: the table's owner declares them with dpobj.declare_domain(rel, column, levels).")));
		for (int h = 0; h < g; h++)
			if (l->gcol[h] == l->gcol[g])
				agg_bad(psprintf("group_by names column \"%s\" twice", c->column), NULL);
		l->goff[g] = agg_offset(l->enc, l->gcol[g]);
		l->gsize[g] = c->nlevels + 1;
		l->ncells *= l->gsize[g];
		if (l->ncells > AGG_MAX_CELLS)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("dpobj.aggregate: more than %d groups", AGG_MAX_CELLS),
					 errdetail("Every combination of the group columns' levels and \"other\" is a group."),
					 errhint("Group by fewer columns.")));
	}
}

AggLayout *
agg_layout_parse(Jsonb *layout)
{
	AggLayout  *l = palloc0(sizeof(AggLayout));
	JsonbValue *enc = getKeyJsonValueFromContainer(&layout->root, "encoding", 8, NULL);
	JsonbValue *grp = getKeyJsonValueFromContainer(&layout->root, "group_by", 8, NULL);
	JsonbValue *what = getKeyJsonValueFromContainer(&layout->root, "what", 4, NULL);
	JsonbContainer *w;

	if (enc == NULL || grp == NULL || grp->type != jbvBinary || what == NULL)
		agg_bad("the option \"layout\" needs \"encoding\", \"group_by\" and \"what\"", NULL);
	l->enc = encoding_parse(JsonbValueToJsonb(enc));
	agg_groups(l, grp->val.binary.data);
	if (what->type != jbvBinary || !JsonContainerIsArray(what->val.binary.data) ||
		JsonContainerSize(what->val.binary.data) < 1 ||
		JsonContainerSize(what->val.binary.data) > AGG_MAX_STATS)
		agg_bad(psprintf("\"what\" must be a JSON array of 1 to %d statistics", AGG_MAX_STATS), NULL);
	w = what->val.binary.data;
	l->nstats = JsonContainerSize(w);
	l->stats = palloc0(sizeof(AggStat) * l->nstats);
	for (int i = 0; i < l->nstats; i++)
	{
		l->stats[i].slot = l->width;
		l->width += agg_stat(l, getIthJsonbValueFromContainer(w, i), &l->stats[i]);
		l->weights += l->stats[i].weight;
	}
	if ((int64) l->width * l->ncells > AGG_MAX_VALUES)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("dpobj.aggregate: more than %d released values", AGG_MAX_VALUES),
				 errdetail("%d groups times %d values each.", l->ncells, l->width),
				 errhint("Ask for fewer statistics, histogram bins or groups.")));
	return l;
}

AggLayout *
agg_layout_of_options(Jsonb *options)
{
	JsonbValue *v = options ? getKeyJsonValueFromContainer(&options->root, "layout", 6, NULL) : NULL;

	if (v == NULL || v->type != jbvBinary || !JsonContainerIsObject(v->val.binary.data))
		agg_bad("dp_aggregate needs the option \"layout\" (an object)", NULL);
	return agg_layout_parse(JsonbValueToJsonb(v));
}

AggSlotKind
agg_slot_kind(const AggLayout *l, int slot, double *share)
{
	for (int i = l->nstats - 1; i >= 0; i--)
		if (l->stats[i].slot <= slot)
		{
			const AggStat *s = &l->stats[i];
			int			j = slot - s->slot;

			/*
			 * shares per statistic by weight; a mean's halved between its sum
			 * and count, a variance's in three, a quantile's between its
			 * leaves and its coarse bins (each a count vector)
			 */
			*share = s->weight / l->weights / (s->kind == AGG_MEAN ? 2 : s->kind == AGG_VARIANCE ? 3 : 1);
			if (s->kind == AGG_QUANTILE && s->ncoarse > 0)
				*share *= j < s->nbins ? AGG_QUANT_LEAF_SHARE : 1 - AGG_QUANT_LEAF_SHARE;
			if (s->kind == AGG_UNITS)
				return AGG_SLOT_UNITS;
			return s->kind == AGG_SUM || (s->kind == AGG_MEAN && j == 0) ||
				(s->kind == AGG_VARIANCE && j < 2) ? AGG_SLOT_SUM : AGG_SLOT_COUNT;
		}
	elog(ERROR, "dpobj.aggregate: slot %d out of range", slot);
	return AGG_SLOT_COUNT;		/* keep compiler quiet */
}

double
agg_slot_eps(AggSlotKind kind, double eps, int k, int ncells)
{
	k = Max(k, 1);
	return dp_epsilon_per_row(eps, kind == AGG_SLOT_UNITS ? Min(k, Max(ncells, 1)) : k);
}

/* a slot's noise: num / den lattice units (agglayout.h); den 0 when epsilon is too small */
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
