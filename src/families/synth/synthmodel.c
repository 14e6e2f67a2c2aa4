/*-------------------------------------------------------------------------
 *
 * synthmodel.c
 *	  The synthesizer's model (synthmodel.h): written once by the final
 *	  function, read back by dpobj.sample() and dpobj.marginal(), which
 *	  any role may call with any model value, and its model kind.
 *
 *	  The reader checks the model completely before the core reads it, on
 *	  the model alone (public grounds): every key's JSON type, every set's
 *	  columns, every block of values where the one before it ends within
 *	  the weights, the potentials exactly the measured sets (the core
 *	  indexes a potential per measurement), the cliques the rebuilt
 *	  tree's, the rounds the last measurements, the last round's record
 *	  consistent with them.  Anything else is refused with 22023; every
 *	  size stays within the model's public cap and its weights' length.
 *
 *-------------------------------------------------------------------------
 */
#include "families/synth/synthmodel.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "funcapi.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/json.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"

#include "base/dpobj.h"
#include "families/synth/synthparams.h"
#include "model/kindsint.h"
#include "model/model.h"

/*
 * 4: a quantile column's "sums_at" ends with its points' counts
 * (synth_column_points, variance "points_sigma2"), drawn exactly; 3: a
 * quantile column has its sub-bins' offset sums ("sums_at",
 * "sums_sigma2"), its draws' means (core/synthdomain.h); 2 (0.7.0): every
 * column has "closed", and quantile bins merge empty sub-bins; 1 (0.6.0):
 * neither.  Each is read as written then.
 */
#define SYNTHMODEL_VERSION 4

/* ---- writing ---- */

typedef struct ModelOut
{
	StringInfoData js;
	double	   *w;
	int64		nw;
	int64		cap;
} ModelOut;

/* n values appended to the weights; their offset */
static int64
out_values(ModelOut *o, const double *v, int64 n)
{
	int64		at = o->nw;

	if (o->nw + n > o->cap)
	{
		o->cap = Max(o->cap * 2, o->nw + n + 1024);
		o->w = repalloc_huge(o->w, sizeof(double) * o->cap);
	}
	memcpy(o->w + o->nw, v, sizeof(double) * n);
	o->nw += n;
	return at;
}

static void
out_set(StringInfo b, SynthSet s)
{
	bool		first = true;

	appendStringInfoChar(b, '[');
	for (int j = 0; j < SYNTH_MAX_COLUMNS; j++)
		if (s & SYNTH_BIT(j))
		{
			appendStringInfo(b, "%s%d", first ? "" : ", ", j);
			first = false;
		}
	appendStringInfoChar(b, ']');
}

static void
out_float(StringInfo b, const char *key, double v)
{
	appendStringInfo(b, "\"%s\": %s", key, float8out_internal(v));
}

/* one column's synthesis: its kind, bins, draws; a quantile column's released sub-bins */
static void
out_column(ModelOut *o, const SynthColumn *c, const double *noisy, int scan_levels,
		   const double *sums, double sums_sigma2, double points_sigma2)
{
	StringInfo	b = &o->js;
	static const char *const kinds[] = {"levels", "bins", "quantile"};

	appendStringInfo(b, "{\"kind\": \"%s\", \"bins\": %d, \"integer\": %s, \"nullable\": %s, \"closed\": %s",
					 kinds[c->kind], c->nbins, c->integer ? "true" : "false",
					 c->nullable ? "true" : "false", c->closed ? "true" : "false");
	if (c->kind == SYNTH_COL_QUANTILE)
	{
		appendStringInfo(b, ", \"sub_bins\": %d, \"noisy_at\": " INT64_FORMAT,
						 c->nsub, out_values(o, noisy, scan_levels));
		appendStringInfo(b, ", \"sums_at\": " INT64_FORMAT ", ",
						 out_values(o, sums, c->nsub + synth_column_points(c, NULL)));
		out_float(b, "sums_sigma2", sums_sigma2);
		appendStringInfoString(b, ", ");
		out_float(b, "points_sigma2", points_sigma2);
		appendStringInfoString(b, ", \"edges\": [");
		for (int i = 0; i <= c->nmodel; i++)
			appendStringInfo(b, "%s%s", i ? ", " : "", float8out_internal(c->edges[i]));
		appendStringInfoChar(b, ']');
	}
	appendStringInfoChar(b, '}');
}

/* [{"set": [...], "at": offset}] of a model's potentials */
static void
out_potentials(ModelOut *o, const SynthModel *m)
{
	appendStringInfoChar(&o->js, '[');
	for (int i = 0; i < m->nsets; i++)
	{
		appendStringInfoString(&o->js, i ? ", {\"set\": " : "{\"set\": ");
		out_set(&o->js, m->theta[i].set);
		appendStringInfo(&o->js, ", \"at\": " INT64_FORMAT "}",
						 out_values(o, m->theta[i].val, m->theta[i].ncells));
	}
	appendStringInfoChar(&o->js, ']');
}

/* the set's columns by name: ["a", "b"] */
static void
out_set_names(StringInfo b, const Encoding *enc, SynthSet s)
{
	bool		first = true;

	appendStringInfoChar(b, '[');
	for (int j = 0; j < enc->ncols; j++)
		if (s & SYNTH_BIT(j))
		{
			appendStringInfoString(b, first ? "" : ", ");
			escape_json(b, enc->cols[j].column);
			first = false;
		}
	appendStringInfoChar(b, ']');
}

static void
out_measurements(ModelOut *o, const SynthResult *res, const Encoding *enc)
{
	StringInfo	b = &o->js;

	appendStringInfoString(b, ", \"measurements\": [");
	for (int i = 0; i < res->nmeas; i++)
	{
		const SynthMeasure *m = &res->meas[i];
		int64		n = synth_set_cells(m->set, res->model.sizes, INT64CONST(1) << 62);

		appendStringInfoString(b, i ? ", {\"set\": " : "{\"set\": ");
		out_set(b, m->set);
		appendStringInfoString(b, ", \"columns\": ");
		out_set_names(b, enc, m->set);
		appendStringInfoString(b, ", ");
		out_float(b, "sigma2", m->sigma2);
		appendStringInfo(b, ", \"at\": " INT64_FORMAT, out_values(o, m->y, n));
		if (m->var != NULL)
			appendStringInfo(b, ", \"var_at\": " INT64_FORMAT, out_values(o, m->var, n));
		appendStringInfoChar(b, '}');
	}
	appendStringInfoChar(b, ']');
}

static void
out_rounds(StringInfo b, const SynthResult *res)
{
	appendStringInfoString(b, ", \"rounds\": [");
	for (int t = 0; t < res->nrounds; t++)
	{
		const SynthRound *r = &res->rounds[t];

		appendStringInfoString(b, t ? ", {\"set\": " : "{\"set\": ");
		out_set(b, r->chosen);
		appendStringInfoString(b, ", ");
		out_float(b, "sigma2", r->sigma2);
		appendStringInfoString(b, ", ");
		out_float(b, "epsilon", r->epsilon);
		appendStringInfo(b, ", \"candidates\": %d, ", r->ncand);
		out_float(b, "rho", r->rho);
		appendStringInfoChar(b, '}');
	}
	appendStringInfoChar(b, ']');
}

/* the last round's selection, public, for the intervals (core/synthci.h) */
static void
out_last(ModelOut *o, const SynthLastRound *l)
{
	StringInfo	b = &o->js;

	appendStringInfoString(b, ", \"last\": ");
	if (l->cand == NULL)
	{
		appendStringInfoString(b, "null");
		return;
	}
	appendStringInfoString(b, "{\"candidates\": [");
	for (int i = 0; i < l->ncand; i++)
	{
		appendStringInfoString(b, i ? ", " : "");
		out_set(b, l->cand[i]);
	}
	appendStringInfoString(b, "], \"weights\": [");
	for (int i = 0; i < l->ncand; i++)
		appendStringInfo(b, "%s" INT64_FORMAT, i ? ", " : "", (int64) l->weight[i]);
	appendStringInfoString(b, "], ");
	out_float(b, "gamma", l->gamma);
	appendStringInfoString(b, ", ");
	out_float(b, "l1_measured", l->l1_measured);
	appendStringInfo(b, ", \"penalty\": " INT64_FORMAT ", \"potentials\": ", (int64) l->pen_chosen);
	out_potentials(o, &l->before);
	appendStringInfoChar(b, '}');
}

Datum
synthmodel_build(FunctionCallInfo fcinfo, const SynthParams *p, const SynthColumn *col,
				 double *const *noisy, double *const *sums, double sums_sigma2, double points_sigma2,
				 const SynthResult *res, double epsilon, double delta, double rho)
{
	ModelOut	o = {{0}, palloc(sizeof(double) * 1024), 0, 1024};
	StringInfo	b = &o.js;
	Jsonb	   *domains = p->enc_json;

	initStringInfo(b);
	appendStringInfo(b, "{\"synthesizer\": %d, \"domains\": %s, \"columns\": [", SYNTHMODEL_VERSION,
					 JsonbToCString(NULL, &domains->root, VARSIZE(domains)));
	for (int j = 0; j < p->d; j++)
	{
		appendStringInfoString(b, j ? ", " : "");
		out_column(&o, &col[j], noisy[j], p->scan_levels[j], sums[j], sums_sigma2, points_sigma2);
	}
	appendStringInfoString(b, "], ");
	out_float(b, "rows", res->total);
	appendStringInfoString(b, ", ");
	out_float(b, "rho", rho);
	appendStringInfoString(b, ", ");
	out_float(b, "rho_spent", res->rho_spent);
	appendStringInfo(b, ", \"rows_per_unit\": %d, \"max_model_cells\": " INT64_FORMAT
					 ", \"iterations\": %d, \"round_iterations\": %d",
					 p->k, p->max_model_cells, p->iters_final, p->iters_round);
	out_measurements(&o, res, p->enc);
	appendStringInfoString(b, ", \"potentials\": ");
	out_potentials(&o, &res->model);
	appendStringInfoString(b, ", \"cliques\": [");
	for (int c = 0; c < res->model.tree.ncliques; c++)
	{
		appendStringInfoString(b, c ? ", " : "");
		out_set(b, res->model.tree.clique[c]);
	}
	appendStringInfoChar(b, ']');
	out_rounds(b, res);
	out_last(&o, &res->last);
	appendStringInfoChar(b, '}');
	return model_build(fcinfo, "synthesize", o.w, (int) o.nw, 0.0, epsilon, delta, b);
}

/* ---- reading ---- */

/*
 * The largest |log-potential| read: the sum over every set of a clique
 * stays finite, so the beliefs do (a fit moves one by at most 1000 a step)
 */
#define SYNTHMODEL_MAX_THETA	1e250

static pg_noreturn void
synthmodel_forged(const char *what)
{
	model_forged(psprintf("not a synthesizer model: %s", what),
				 "Use a model returned by dpobj.synthesize() (dpobj.get_model(name) of its model_name).");
}

typedef struct ModelIn
{
	JsonbContainer *params;
	const double *w;
	int64		nw;
	int64		next;			/* where the next block of values must begin */
	int			d;
	int			sizes[SYNTH_MAX_COLUMNS];
	int64		max_cells;
	int			version;		/* "synthesizer" */
	double		points[SYNTH_MAX_COLUMNS][SYNTH_MAX_POINTS];	/* version 4: quantile
																 * columns' point counts */
	double		points_sd;
} ModelIn;

/* ---- JSON values ---- */

static JsonbValue *
in_key(JsonbContainer *c, const char *key)
{
	JsonbValue *v = getKeyJsonValueFromContainer(c, key, strlen(key), NULL);

	if (v == NULL)
		synthmodel_forged(psprintf("no \"%s\"", key));
	return v;
}

static double
in_number(JsonbContainer *c, const char *key)
{
	double		f;

	if (!model_json_number(in_key(c, key), &f))
		synthmodel_forged(psprintf("\"%s\" is not a finite number", key));
	return f;
}

static int64
in_int(JsonbContainer *c, const char *key, int64 lo, int64 hi)
{
	int64		i;

	if (!model_json_int(in_key(c, key), lo, hi, &i))
		synthmodel_forged(psprintf("\"%s\" is not an integer in range", key));
	return i;
}

static bool
in_bool(JsonbContainer *c, const char *key)
{
	JsonbValue *v = in_key(c, key);

	if (v->type != jbvBool)
		synthmodel_forged(psprintf("\"%s\" is not a boolean", key));
	return v->val.boolean;
}

/* v as an array's container (n elements), else NULL */
static JsonbContainer *
as_array(JsonbValue *v, int *n)
{
	if (v == NULL || v->type != jbvBinary || !JsonContainerIsArray(v->val.binary.data))
		return NULL;
	*n = JsonContainerSize(v->val.binary.data);
	return v->val.binary.data;
}

static JsonbContainer *
in_array(JsonbContainer *c, const char *key, int *n)
{
	JsonbContainer *a = as_array(in_key(c, key), n);

	if (a == NULL)
		synthmodel_forged(psprintf("\"%s\" is not an array", key));
	return a;
}

/* element i of an array, an object */
static JsonbContainer *
in_object(JsonbContainer *arr, int i)
{
	JsonbValue *v = getIthJsonbValueFromContainer(arr, i);

	if (v == NULL || v->type != jbvBinary || !JsonContainerIsObject(v->val.binary.data))
		synthmodel_forged("an element is not an object");
	return v->val.binary.data;
}

/* a set: a non-empty array of distinct column indices of the model */
static SynthSet
in_set_value(const ModelIn *in, JsonbValue *v)
{
	SynthSet	s = 0;
	int			n;
	JsonbContainer *a = as_array(v, &n);

	if (a == NULL)
		synthmodel_forged("a set is not an array");
	for (int i = 0; i < n; i++)
	{
		int64		j;

		if (!model_json_int(getIthJsonbValueFromContainer(a, i), 0, in->d - 1, &j) ||
			(s & SYNTH_BIT(j)))
			synthmodel_forged("a set names a column twice or out of range");
		s |= SYNTH_BIT(j);
	}
	if (s == 0)
		synthmodel_forged("a set is empty");
	return s;
}

static SynthSet
in_set(const ModelIn *in, JsonbContainer *obj)
{
	return in_set_value(in, in_key(obj, "set"));
}

/* a set's cells within the model's cap */
static int64
in_cells(const ModelIn *in, SynthSet s)
{
	int64		n = synth_set_cells(s, in->sizes, in->max_cells);

	if (n < 0)
		synthmodel_forged("a set exceeds the model's cap");
	return n;
}

/*
 * n values at offset key of obj, the next block of the weights, malloc'd
 * (the core frees them) or palloc'd: the blocks never overlap, so what is
 * read is at most the weights the caller passed
 */
static double *
in_values(ModelIn *in, JsonbContainer *obj, const char *key, int64 n, bool use_malloc)
{
	int64		at = in_int(obj, key, 0, in->nw);
	double	   *v;

	if (at != in->next || n > in->nw - at)
		synthmodel_forged(psprintf("\"%s\" is not where the values before it end, or runs past the weights", key));
	in->next = at + n;
	v = use_malloc ? malloc(sizeof(double) * Max(n, 1)) : palloc(sizeof(double) * Max(n, 1));
	if (v == NULL)
		ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory")));
	memcpy(v, in->w + at, sizeof(double) * n);
	return v;
}

/* ---- the columns ---- */

/* a column's "kind": levels, bins or quantile */
static SynthColumnKind
in_kind(JsonbContainer *c)
{
	JsonbValue *v = in_key(c, "kind");
	static const char *const kinds[] = {"levels", "bins", "quantile"};

	for (int k = 0; v->type == jbvString && k < lengthof(kinds); k++)
		if (v->val.string.len == strlen(kinds[k]) &&
			strncmp(v->val.string.val, kinds[k], v->val.string.len) == 0)
			return (SynthColumnKind) k;
	synthmodel_forged("a column's \"kind\" is not \"levels\", \"bins\" or \"quantile\"");
}

/* a quantile column's offset sums (version 3): its draws' means */
static void
in_sums(ModelIn *in, SynthColumn *col, JsonbContainer *c, int j)
{
	int			np = in->version >= 4 ? synth_column_points(col, NULL) : 0;
	double	   *sums = in_values(in, c, "sums_at", col->nsub + np, false);
	double		s2 = in_number(c, "sums_sigma2");

	if (!(s2 > 0.0) || !isfinite(s2))
		synthmodel_forged("a quantile column's \"sums_sigma2\" is not a variance");
	for (int i = 0; i < col->nsub + np; i++)
		if (!isfinite(sums[i]))
			synthmodel_forged("a quantile column's offset sums are not finite");
	memcpy(in->points[j], sums + col->nsub, sizeof(double) * np);
	if (in->version >= 4)
	{
		double		p2 = in_number(c, "points_sigma2");

		if (!(p2 > 0.0) || !isfinite(p2))
			synthmodel_forged("a quantile column's \"points_sigma2\" is not a variance");
		in->points_sd = sqrt(p2);
	}
	if (!synth_column_set_means(col, sums, sqrt(s2)))
		ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory")));
}

/* a quantile column's bins from its noisy sub-bin counts; "edges" the ones they give */
static void
in_quantile(ModelIn *in, SynthColumn *col, JsonbContainer *c, int j)
{
	double	   *noisy = in_values(in, c, "noisy_at", synth_column_scan_levels(col), false);
	double		tol = 1e-12 * Max(fabs(col->lo), fabs(col->hi));
	int			n;
	JsonbContainer *edges;

	if (!synth_quantile_bins(col, noisy))
		ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory")));
	edges = in_array(c, "edges", &n);
	if (n != col->nmodel + 1)
		synthmodel_forged("a quantile column's \"edges\" are not its bins'");
	for (int i = 0; i < n; i++)
	{
		double		e;

		if (!model_json_number(getIthJsonbValueFromContainer(edges, i), &e) ||
			fabs(e - col->edges[i]) > tol)
			synthmodel_forged("a quantile column's \"edges\" are not its bins'");
	}
	if (in->version >= 3)
		in_sums(in, col, c, j);
}

/* column j's synthesis (its domain from the encoding) */
static void
in_column(ModelIn *in, SynthFitted *f, JsonbContainer *c, int j)
{
	const EncColumn *e = &f->enc->cols[j];
	SynthColumn *col = &f->col[j];
	bool		levels;

	col->kind = in_kind(c);
	levels = col->kind == SYNTH_COL_LEVELS;
	if (levels != (e->nlevels > 0))
		synthmodel_forged("a column's kind is not its domain's");
	col->nlevels = e->nlevels;
	col->lo = e->lo;
	col->hi = e->hi;
	col->nbins = (int) in_int(c, "bins", levels ? 0 : 1, levels ? 0 : SYNTH_MAX_BINS);
	col->nsub = col->kind == SYNTH_COL_QUANTILE ?
		(int) in_int(c, "sub_bins", col->nbins, SYNTH_MAX_BINS) : 0;
	col->integer = in_bool(c, "integer");
	col->nullable = in_bool(c, "nullable");
	col->closed = in->version >= 2 && in_bool(c, "closed");
	col->merge_empty = in->version >= 2;
	/* a level column's last level is "other" (NULL and undeclared values) */
	if ((levels && !col->nullable) || (col->closed && !col->nullable) ||
		!synth_column_valid(col))
		synthmodel_forged("a column's domain is out of range");
	if (col->kind == SYNTH_COL_QUANTILE)
		in_quantile(in, col, c, j);
	in->sizes[j] = synth_column_model_levels(col);
}

static void
in_columns(ModelIn *in, SynthFitted *f)
{
	JsonbValue *dom = in_key(in->params, "domains");
	JsonbContainer *cols;
	int			n;

	if (dom->type != jbvBinary)
		synthmodel_forged("\"domains\" is not an encoding");
	f->enc = encoding_parse(JsonbValueToJsonb(dom));
	cols = in_array(in->params, "columns", &n);
	if (n != f->enc->ncols || n < 1 || n > SYNTH_MAX_COLUMNS)
		synthmodel_forged("\"columns\" and \"domains\" differ");
	/* a drawn row is an object of the columns' names */
	for (int j = 0; j < n; j++)
		for (int k = 0; k < j; k++)
			if (strcmp(f->enc->cols[j].column, f->enc->cols[k].column) == 0)
				synthmodel_forged("\"domains\" names a column twice");
	in->d = f->d = n;
	for (int j = 0; j < n; j++)
		in_column(in, f, in_object(cols, j), j);
}

/* ---- the measurements and rounds ---- */

/* n cells of positive finite variances */
static void
in_variances(const double *var, int64 n)
{
	for (int64 x = 0; x < n; x++)
		if (!(var[x] > 0))
			synthmodel_forged("a measurement's variance is not positive");
}

static void
in_measurements(ModelIn *in, SynthResult *res)
{
	int			n;
	JsonbContainer *arr = in_array(in->params, "measurements", &n);

	if (n < 1 || n > SYNTH_MAX_ROUNDS + SYNTH_MAX_COLUMNS)
		synthmodel_forged("too few or too many measurements");
	res->meas = calloc(n, sizeof(SynthMeasure));
	if (res->meas == NULL)
		ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory")));
	/* zeroed: synth_result_free frees what an error leaves read */
	res->nmeas = n;
	for (int i = 0; i < n; i++)
	{
		JsonbContainer *m = in_object(arr, i);
		SynthMeasure *ms = &res->meas[i];
		int64		cells;

		ms->set = in_set(in, m);
		cells = in_cells(in, ms->set);
		ms->sigma2 = in_number(m, "sigma2");
		if (!(ms->sigma2 > 0))
			synthmodel_forged("a measurement's variance is not positive");
		ms->y = in_values(in, m, "at", cells, true);
		if (getKeyJsonValueFromContainer(m, "var_at", 6, NULL) != NULL)
		{
			ms->var = in_values(in, m, "var_at", cells, false);
			in_variances(ms->var, cells);
		}
	}
}

/*
 * Each measurement's "columns" (its set by name; absent in models from
 * before it): exactly the names of its set's columns, in column order
 */
static void
in_measured_names(ModelIn *in, const SynthFitted *f)
{
	int			n;
	JsonbContainer *arr = in_array(in->params, "measurements", &n);

	for (int i = 0; i < n; i++)
	{
		JsonbValue *v = getKeyJsonValueFromContainer(in_object(arr, i), "columns", 7, NULL);
		SynthSet	s = f->res.meas[i].set;
		JsonbContainer *names;
		int			nnames = 0,
					k = 0;

		if (v == NULL)
			continue;
		names = as_array(v, &nnames);
		if (names == NULL || nnames != synth_set_size(s))
			synthmodel_forged("a measurement's \"columns\" are not its set's");
		for (int j = 0; j < f->d; j++)
			if (s & SYNTH_BIT(j))
			{
				JsonbValue *e = getIthJsonbValueFromContainer(names, k++);
				const char *name = f->enc->cols[j].column;

				if (e == NULL || e->type != jbvString ||
					e->val.string.len != (int) strlen(name) ||
					memcmp(e->val.string.val, name, e->val.string.len) != 0)
					synthmodel_forged("a measurement's \"columns\" are not its set's");
			}
	}
}

/*
 * The rounds: the last measurements, in order, each its measurement's set
 * and variance; the first step's measurements before them cover every column
 */
static void
in_rounds(ModelIn *in, SynthResult *res)
{
	int			n;
	JsonbContainer *arr = in_array(in->params, "rounds", &n);
	int			first = res->nmeas - n;
	SynthSet	covered = 0;

	if (n > SYNTH_MAX_ROUNDS || first < 1 || first > in->d)
		synthmodel_forged("the rounds are not the last measurements");
	for (int i = 0; i < first; i++)
		covered |= res->meas[i].set;
	if (covered != (in->d == 64 ? ~(SynthSet) 0 : SYNTH_BIT(in->d) - 1))
		synthmodel_forged("a column has no measurement before the rounds");
	res->rounds = calloc(Max(n, 1), sizeof(SynthRound));
	if (res->rounds == NULL)
		ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory")));
	for (int t = 0; t < n; t++, res->nrounds++)
	{
		JsonbContainer *r = in_object(arr, t);
		SynthRound *rd = &res->rounds[t];

		rd->chosen = in_set(in, r);
		rd->sigma2 = in_number(r, "sigma2");
		if (rd->chosen != res->meas[first + t].set || rd->sigma2 != res->meas[first + t].sigma2)
			synthmodel_forged("the rounds are not the last measurements");
		rd->epsilon = in_number(r, "epsilon");
		rd->ncand = (int) in_int(r, "candidates", 1, PG_INT32_MAX);
		rd->rho = in_number(r, "rho");
		if (rd->epsilon < 0 || rd->rho < 0)
			synthmodel_forged("a round's \"epsilon\" or \"rho\" is negative");
	}
}

/* ---- the potentials ---- */

/* the distinct sets of the first n measurements, in their first one's order; their count */
static int
measured_sets(const SynthResult *res, int n, SynthSet *sets)
{
	int			k = 0;

	for (int i = 0; i < n; i++)
	{
		int			s = 0;

		while (s < k && sets[s] != res->meas[i].set)
			s++;
		if (s == k)
			sets[k++] = res->meas[i].set;
	}
	return k;
}

/*
 * A model over the sets of the first `upto` measurements: potentials names
 * each once, in order, with its values; the beliefs fitted to the first
 * nfit measurements (no step: post-processing only)
 */
static void
in_model(ModelIn *in, SynthModel *m, JsonbContainer *pots, const SynthResult *res,
		 int upto, int nfit)
{
	SynthMeasure *sets = palloc0(sizeof(SynthMeasure) * Max(upto, 1));
	SynthSet   *want = palloc(sizeof(SynthSet) * Max(upto, 1));
	int			n = measured_sets(res, upto, want);
	SynthStatus st;

	if (JsonContainerSize(pots) != n)
		synthmodel_forged("its potentials are not its measured sets");
	for (int i = 0; i < n; i++)
		if ((sets[i].set = in_set(in, in_object(pots, i))) != want[i])
			synthmodel_forged("its potentials are not its measured sets");
	st = synth_model_init(m, in->d, in->sizes, res->total);
	if (st == SYNTH_OK)
		st = synth_model_add(m, sets, n, in->max_cells);
	if (st == SYNTH_TOOBIG)
		synthmodel_forged("its junction tree exceeds its cap");
	for (int i = 0; st == SYNTH_OK && i < n; i++)
	{
		double	   *v = in_values(in, in_object(pots, i), "at", m->theta[i].ncells, false);

		for (int64 x = 0; x < m->theta[i].ncells; x++)
			if (fabs(v[x]) > SYNTHMODEL_MAX_THETA)
				synthmodel_forged("a potential is out of range");
		memcpy(m->theta[i].val, v, sizeof(double) * m->theta[i].ncells);
	}
	m->step = 1.0;
	if (st == SYNTH_OK)
		st = synth_model_fit(m, res->meas, nfit, 0, NULL, NULL);
	if (st != SYNTH_OK)
		ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory")));
}

/* "cliques": the rebuilt tree's, in order */
static void
in_cliques(ModelIn *in, const SynthModel *m)
{
	int			n;
	JsonbContainer *arr = in_array(in->params, "cliques", &n);

	if (n != m->tree.ncliques)
		synthmodel_forged("its cliques are not its junction tree's");
	for (int c = 0; c < n; c++)
		if (in_set_value(in, getIthJsonbValueFromContainer(arr, c)) != m->tree.clique[c])
			synthmodel_forged("its cliques are not its junction tree's");
}

/* ---- the last round ---- */

/* "candidates" and their "weights": the last round's set among them */
static void
in_candidates(ModelIn *in, const SynthResult *res, JsonbContainer *l, SynthLastRound *lr)
{
	int			n,
				nw;
	JsonbContainer *cand = in_array(l, "candidates", &n);
	JsonbContainer *wts = in_array(l, "weights", &nw);
	bool		chosen = false;

	if (n != nw || n < 1)
		synthmodel_forged("\"last\" has not as many weights as candidates");
	lr->cand = malloc(sizeof(SynthSet) * n);
	lr->weight = malloc(sizeof(int64_t) * n);
	if (lr->cand == NULL || lr->weight == NULL)
		ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory")));
	for (lr->ncand = 0; lr->ncand < n; lr->ncand++)
	{
		int64		w;

		lr->cand[lr->ncand] = in_set_value(in, getIthJsonbValueFromContainer(cand, lr->ncand));
		if (!model_json_int(getIthJsonbValueFromContainer(wts, lr->ncand), 0,
							INT64CONST(1) << 53, &w))
			synthmodel_forged("a candidate's weight is not an integer in range");
		lr->weight[lr->ncand] = w;
		chosen |= lr->cand[lr->ncand] == res->rounds[res->nrounds - 1].chosen;
	}
	if (!chosen)
		synthmodel_forged("the last round's set is not among its candidates");
}

static void
in_last(ModelIn *in, SynthResult *res)
{
	JsonbValue *v = in_key(in->params, "last");
	JsonbContainer *l;
	SynthLastRound *lr = &res->last;
	int			n;

	if (v->type == jbvNull)
		return;
	if (v->type != jbvBinary || !JsonContainerIsObject(v->val.binary.data) || res->nrounds == 0)
		synthmodel_forged("\"last\" is not an object, or there was no round");
	l = v->val.binary.data;
	in_candidates(in, res, l, lr);
	lr->gamma = in_number(l, "gamma");
	lr->l1_measured = in_number(l, "l1_measured");
	if (lr->gamma < 0 || lr->l1_measured < 0)
		synthmodel_forged("\"last\" has a negative \"gamma\" or \"l1_measured\"");
	lr->pen_chosen = in_int(l, "penalty", 0, PG_INT64_MAX / 2);
	/* the model the candidates met: before the last round's measurement */
	in_model(in, &lr->before, in_array(l, "potentials", &n), res, res->nmeas - 1, 0);
}

/* ---- the whole ---- */

/* the weights: a one-dimensional float8 array without NULLs, finite */
static void
in_weights(ModelIn *in, HeapTupleHeader th)
{
	bool		isnull;
	Datum		d = GetAttributeByNum(th, MODEL_ATT_WEIGHTS, &isnull);
	ArrayType  *a;

	if (isnull)
		synthmodel_forged("no weights");
	a = DatumGetArrayTypeP(d);
	if (ARR_NDIM(a) != 1 || ARR_ELEMTYPE(a) != FLOAT8OID || array_contains_nulls(a))
		synthmodel_forged("weights are not a float8 array");
	in->w = (const double *) ARR_DATA_PTR(a);
	in->nw = ArrayGetNItems(1, ARR_DIMS(a));
	for (int64 i = 0; i < in->nw; i++)
		if (!isfinite(in->w[i]))
			synthmodel_forged("a weight is not finite");
}

/* the mechanism 'synthesize', bias 0 (the model's own columns) */
static void
in_header(HeapTupleHeader th)
{
	bool		isnull;
	Datum		mech = GetAttributeByNum(th, MODEL_ATT_MECHANISM, &isnull);
	Datum		bias;

	if (isnull || strcmp(TextDatumGetCString(mech), "synthesize") != 0)
		synthmodel_forged("its mechanism is not 'synthesize'");
	bias = GetAttributeByNum(th, MODEL_ATT_BIAS, &isnull);
	if (isnull || DatumGetFloat8(bias) != 0.0)
		synthmodel_forged("its bias is not 0");
}

/* the run's public parameters: in their ranges, what was spent within the budget */
static void
in_run(ModelIn *in, SynthFitted *f)
{
	double		rho = in_number(in->params, "rho");

	in->max_cells = in_int(in->params, "max_model_cells", SYNTH_MIN_MODEL_CELLS,
						   SYNTH_MAX_MODEL_CELLS);
	(void) in_int(in->params, "rows_per_unit", 1, DPOBJ_MAX_ROWS_PER_UNIT);
	(void) in_int(in->params, "iterations", 0, SYNTH_MAX_ITERATIONS);
	(void) in_int(in->params, "round_iterations", 1, SYNTH_MAX_ITERATIONS);
	f->res.rho_spent = in_number(in->params, "rho_spent");
	if (!(rho > 0) || f->res.rho_spent < 0 || f->res.rho_spent > rho * (1 + 1e-9))
		synthmodel_forged("\"rho_spent\" is not within \"rho\"");
	f->rows = f->res.total = in_number(in->params, "rows");
	/* a table's noisy row count: at least 1, at most 2^53 (an exact float8) */
	if (!(f->rows >= 1.0) || f->rows > 9007199254740992.0)
		synthmodel_forged("\"rows\" is below 1 or above 2^53");
}

static void
synthmodel_free(void *arg)
{
	SynthFitted *f = arg;

	synth_result_free(&f->res);
	for (int j = 0; j < f->d; j++)
		synth_column_free(&f->col[j]);
}

/* the first measurement of column j alone, or NULL */
static const SynthMeasure *
synthmodel_first_single(const SynthResult *res, int j)
{
	for (int i = 0; i < res->nmeas; i++)
		if (res->meas[i].set == SYNTH_BIT(j))
			return &res->meas[i];
	return NULL;
}

SynthFitted *
synthmodel_unpack(HeapTupleHeader th, MemoryContext cxt)
{
	MemoryContext old = MemoryContextSwitchTo(cxt);
	SynthFitted *f = palloc0(sizeof(SynthFitted));
	MemoryContextCallback *cb = palloc0(sizeof(MemoryContextCallback));
	Jsonb	   *params = model_params_object(th);
	ModelIn		in;
	int			n;

	memset(&in, 0, sizeof(in));
	if (params == NULL || model_kind_of(PointerGetDatum(th)) != &synth_model_kind ||
		getKeyJsonValueFromContainer(&params->root, "synthesizer", 11, NULL) == NULL)
		synthmodel_forged("its params are not a synthesizer's");
	in_header(th);
	in.params = &params->root;
	in.version = (int) in_int(in.params, "synthesizer", 1, SYNTHMODEL_VERSION);
	cb->func = synthmodel_free;
	cb->arg = f;
	MemoryContextRegisterResetCallback(cxt, cb);
	in_run(&in, f);
	in_weights(&in, th);
	in_columns(&in, f);
	in_measurements(&in, &f->res);
	in_measured_names(&in, f);
	in_rounds(&in, &f->res);
	in_model(&in, &f->res.model, in_array(in.params, "potentials", &n), &f->res,
			 f->res.nmeas, f->res.nmeas);
	in_cliques(&in, &f->res.model);
	for (int j = 0; j < f->d; j++)
	{
		const SynthMeasure *m = synthmodel_first_single(&f->res, j);

		if (!synth_column_set_shut(&f->col[j], m ? m->y : NULL, m ? m->var : NULL,
								   m ? m->sigma2 : 0.0))
			ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory")));
		if (in.version >= 4 && f->col[j].kind == SYNTH_COL_QUANTILE)
			synth_column_set_points(&f->col[j], in.points[j], in.points_sd, m ? m->y : NULL);
		f->res.model.shut[j] = f->col[j].shut;
		/* a binned column's bins are in order (NULL last, apart) */
		f->res.model.ordered[j] = f->col[j].kind == SYNTH_COL_LEVELS ? 0 :
			synth_column_model_levels(&f->col[j]) - (f->col[j].nullable ? 1 : 0);
	}
	in_last(&in, &f->res);
	if (in.next != in.nw)
		synthmodel_forged("its weights hold values no offset names");
	MemoryContextSwitchTo(old);
	return f;
}

/* the reader's complete check, its unpacked model freed (dpobj.model_kind()) */
static void
synth_model_check(HeapTupleHeader th)
{
	MemoryContext cxt = AllocSetContextCreate(CurrentMemoryContext, "synthesizer model check",
											  ALLOCSET_DEFAULT_SIZES);

	(void) synthmodel_unpack(th, cxt);
	MemoryContextDelete(cxt);
}

const ModelKindOps synth_model_kind = {.name = "synthesizer", .marker = "synthesizer",
	.refuse = "a synthesizer model does not predict, explain or evaluate",
	.refuse_hint = "Draw rows with dpobj.sample(model, n), ask a marginal with dpobj.marginal(model, columns).",
.check = synth_model_check};
