/*-------------------------------------------------------------------------
 *
 * synthmodel.c
 *	  The synthesizer's model (synthmodel.h): written once by the final
 *	  function, read back by dpobj.sample() and dpobj.marginal().  The
 *	  reader checks a model completely on its own (a hand-made model is
 *	  refused, public grounds) and keeps every size within the model's
 *	  public cap.
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

#include "families/synth/synthparams.h"
#include "model/kindsint.h"
#include "model/model.h"

#define SYNTHMODEL_VERSION 1

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
out_column(ModelOut *o, const SynthColumn *c, const double *noisy, int scan_levels)
{
	StringInfo	b = &o->js;
	static const char *const kinds[] = {"levels", "bins", "quantile"};

	appendStringInfo(b, "{\"kind\": \"%s\", \"bins\": %d, \"integer\": %s, \"nullable\": %s",
					 kinds[c->kind], c->nbins, c->integer ? "true" : "false",
					 c->nullable ? "true" : "false");
	if (c->kind == SYNTH_COL_QUANTILE)
	{
		appendStringInfo(b, ", \"sub_bins\": %d, \"noisy_at\": " INT64_FORMAT ", \"edges\": [",
						 c->nsub, out_values(o, noisy, scan_levels));
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

static void
out_measurements(ModelOut *o, const SynthResult *res)
{
	StringInfo	b = &o->js;

	appendStringInfoString(b, ", \"measurements\": [");
	for (int i = 0; i < res->nmeas; i++)
	{
		const SynthMeasure *m = &res->meas[i];
		int64		n = synth_set_cells(m->set, res->model.sizes, INT64CONST(1) << 62);

		appendStringInfoString(b, i ? ", {\"set\": " : "{\"set\": ");
		out_set(b, m->set);
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
				 double *const *noisy, const SynthResult *res, double epsilon, double delta,
				 double rho)
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
		out_column(&o, &col[j], noisy[j], p->scan_levels[j]);
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
	out_measurements(&o, res);
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
	int			d;
	int			sizes[SYNTH_MAX_COLUMNS];
	int64		max_cells;
} ModelIn;

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
	JsonbValue *v = in_key(c, key);
	double		f;

	if (v->type != jbvNumeric)
		synthmodel_forged(psprintf("\"%s\" is not a number", key));
	f = DatumGetFloat8(DirectFunctionCall1(numeric_float8_no_overflow,
										   NumericGetDatum(v->val.numeric)));
	if (!isfinite(f))
		synthmodel_forged(psprintf("\"%s\" is not finite", key));
	return f;
}

static int64
in_int(JsonbContainer *c, const char *key, int64 lo, int64 hi)
{
	double		f = in_number(c, key);

	if (f != floor(f) || f < lo || f > hi)
		synthmodel_forged(psprintf("\"%s\" is out of range", key));
	return (int64) f;
}

/* an array's container (n elements) */
static JsonbContainer *
in_array(JsonbContainer *c, const char *key, int *n)
{
	JsonbValue *v = in_key(c, key);

	if (v->type != jbvBinary || !JsonContainerIsArray(v->val.binary.data))
		synthmodel_forged(psprintf("\"%s\" is not an array", key));
	*n = JsonContainerSize(v->val.binary.data);
	return v->val.binary.data;
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

/* a set: an array of distinct column indices of the model */
static SynthSet
in_set_value(const ModelIn *in, JsonbValue *v)
{
	SynthSet	s = 0;
	int			n;

	if (v == NULL || v->type != jbvBinary || !JsonContainerIsArray(v->val.binary.data))
		synthmodel_forged("a set is not an array");
	n = JsonContainerSize(v->val.binary.data);
	for (int i = 0; i < n; i++)
	{
		JsonbValue *e = getIthJsonbValueFromContainer(v->val.binary.data, i);
		double		f;

		if (e->type != jbvNumeric)
			synthmodel_forged("a set holds a non-number");
		f = DatumGetFloat8(DirectFunctionCall1(numeric_float8_no_overflow,
											   NumericGetDatum(e->val.numeric)));
		if (f != floor(f) || f < 0 || f >= in->d || (s & SYNTH_BIT((int) f)))
			synthmodel_forged("a set names a column twice or out of range");
		s |= SYNTH_BIT((int) f);
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

/* n values at offset key of obj, malloc'd (the core frees them) or palloc'd */
static double *
in_values(const ModelIn *in, JsonbContainer *obj, const char *key, int64 n, bool use_malloc)
{
	int64		at = in_int(obj, key, 0, in->nw);
	double	   *v;

	if (n > in->nw - at)
		synthmodel_forged("an offset past the weights");
	v = use_malloc ? malloc(sizeof(double) * Max(n, 1)) : palloc(sizeof(double) * Max(n, 1));
	if (v == NULL)
		ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory")));
	memcpy(v, in->w + at, sizeof(double) * n);
	return v;
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

static void
synthmodel_free(void *arg)
{
	SynthFitted *f = arg;

	synth_result_free(&f->res);
	for (int j = 0; j < f->d; j++)
		synth_column_free(&f->col[j]);
}

/* column j's synthesis (its domain from the encoding) */
static void
in_column(ModelIn *in, SynthFitted *f, JsonbContainer *c, int j)
{
	const EncColumn *e = &f->enc->cols[j];
	SynthColumn *col = &f->col[j];
	JsonbValue *v = in_key(c, "kind");
	bool		levels = v->type == jbvString && v->val.string.len == 6 &&
		strncmp(v->val.string.val, "levels", 6) == 0;
	bool		quantile = v->type == jbvString && v->val.string.len == 8 &&
		strncmp(v->val.string.val, "quantile", 8) == 0;

	if (levels != (e->nlevels > 0))
		synthmodel_forged("a column's kind is not its domain's");
	col->kind = levels ? SYNTH_COL_LEVELS : quantile ? SYNTH_COL_QUANTILE : SYNTH_COL_BINS;
	col->nlevels = e->nlevels;
	col->lo = e->lo;
	col->hi = e->hi;
	col->nbins = levels ? 0 : (int) in_int(c, "bins", 1, SYNTH_MAX_BINS);
	col->nsub = quantile ? (int) in_int(c, "sub_bins", col->nbins, SYNTH_MAX_BINS) : 0;
	col->integer = in_key(c, "integer")->type == jbvBool && in_key(c, "integer")->val.boolean;
	col->nullable = levels || (in_key(c, "nullable")->type == jbvBool &&
							   in_key(c, "nullable")->val.boolean);
	if (!synth_column_valid(col))
		synthmodel_forged("a column's domain is out of range");
	if (quantile &&
		!synth_quantile_bins(col, in_values(in, c, "noisy_at",
											synth_column_scan_levels(col), false)))
		ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory")));
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
	in->d = f->d = n;
	for (int j = 0; j < n; j++)
		in_column(in, f, in_object(cols, j), j);
}

static void
in_measurements(ModelIn *in, SynthResult *res)
{
	int			n;
	JsonbContainer *arr = in_array(in->params, "measurements", &n);

	if (n < in->d || n > SYNTH_MAX_ROUNDS + SYNTH_MAX_COLUMNS)
		synthmodel_forged("too few or too many measurements");
	res->meas = calloc(n, sizeof(SynthMeasure));
	if (res->meas == NULL)
		ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory")));
	for (int i = 0; i < n; i++, res->nmeas++)
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
			ms->var = in_values(in, m, "var_at", cells, false);
	}
}

/* a model over the sets of potentials (in measurement order), its potentials and beliefs */
static void
in_model(ModelIn *in, SynthModel *m, JsonbContainer *pots, const SynthResult *res,
		 int nmeas)
{
	int			n = JsonContainerSize(pots);
	SynthMeasure *sets = palloc0(sizeof(SynthMeasure) * Max(n, 1));
	SynthStatus st;

	for (int i = 0; i < n; i++)
		sets[i].set = in_set(in, in_object(pots, i));
	st = synth_model_init(m, in->d, in->sizes, res->total);
	if (st == SYNTH_OK)
		st = synth_model_add(m, sets, n, in->max_cells);
	if (st == SYNTH_TOOBIG || (st == SYNTH_OK && m->nsets != n))
		synthmodel_forged("its potentials' tree exceeds its cap, or a set repeats");
	for (int i = 0; st == SYNTH_OK && i < n; i++)
	{
		double	   *v = in_values(in, in_object(pots, i), "at", m->theta[i].ncells, false);

		memcpy(m->theta[i].val, v, sizeof(double) * m->theta[i].ncells);
	}
	m->step = 1.0;
	if (st == SYNTH_OK)
		st = synth_model_fit(m, res->meas, nmeas, 0, NULL, NULL);
	if (st != SYNTH_OK)
		ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory")));
}

static void
in_rounds(ModelIn *in, SynthResult *res)
{
	int			n;
	JsonbContainer *arr = in_array(in->params, "rounds", &n);

	res->rounds = calloc(Max(n, 1), sizeof(SynthRound));
	if (res->rounds == NULL)
		ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory")));
	for (int t = 0; t < n; t++, res->nrounds++)
	{
		JsonbContainer *r = in_object(arr, t);

		res->rounds[t].chosen = in_set(in, r);
		res->rounds[t].sigma2 = in_number(r, "sigma2");
		res->rounds[t].epsilon = in_number(r, "epsilon");
		res->rounds[t].ncand = (int) in_int(r, "candidates", 0, PG_INT32_MAX);
		res->rounds[t].rho = in_number(r, "rho");
	}
}

static void
in_last(ModelIn *in, SynthResult *res)
{
	JsonbValue *v = in_key(in->params, "last");
	JsonbContainer *l,
			   *cand,
			   *wts;
	int			n,
				nw;
	SynthLastRound *lr = &res->last;

	if (v->type == jbvNull)
		return;
	if (v->type != jbvBinary || !JsonContainerIsObject(v->val.binary.data) || res->nrounds == 0)
		synthmodel_forged("\"last\" is not an object");
	l = v->val.binary.data;
	cand = in_array(l, "candidates", &n);
	wts = in_array(l, "weights", &nw);
	if (n != nw || n < 1)
		synthmodel_forged("\"last\" has as many weights as candidates");
	lr->cand = malloc(sizeof(SynthSet) * n);
	lr->weight = malloc(sizeof(int64_t) * n);
	if (lr->cand == NULL || lr->weight == NULL)
		ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory")));
	for (lr->ncand = 0; lr->ncand < n; lr->ncand++)
	{
		JsonbValue *w = getIthJsonbValueFromContainer(wts, lr->ncand);

		lr->cand[lr->ncand] = in_set_value(in, getIthJsonbValueFromContainer(cand, lr->ncand));
		if (w->type != jbvNumeric)
			synthmodel_forged("a weight is not a number");
		lr->weight[lr->ncand] = DatumGetInt64(DirectFunctionCall1(numeric_int8,
																  NumericGetDatum(w->val.numeric)));
	}
	lr->gamma = in_number(l, "gamma");
	lr->l1_measured = in_number(l, "l1_measured");
	lr->pen_chosen = in_int(l, "penalty", 0, PG_INT64_MAX / 2);
	in_model(in, &lr->before, in_array(l, "potentials", &n), res, 0);
}

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

const ModelKindOps synth_model_kind = {.name = "synthesizer", .marker = "synthesizer",
	.refuse = "a synthesizer model does not predict, explain or evaluate",
.refuse_hint = "Draw rows with dpobj.sample(model, n), ask a marginal with dpobj.marginal(model, columns)."};

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
		synthmodel_forged("its mechanism is not 'synthesize'");
	in.params = &params->root;
	if (in_int(in.params, "synthesizer", 1, 1) != SYNTHMODEL_VERSION)
		synthmodel_forged("unknown version");
	in.max_cells = in_int(in.params, "max_model_cells", SYNTH_MIN_MODEL_CELLS, SYNTH_MAX_MODEL_CELLS);
	cb->func = synthmodel_free;
	cb->arg = f;
	MemoryContextRegisterResetCallback(cxt, cb);
	in_weights(&in, th);
	in_columns(&in, f);
	f->rows = f->res.total = in_number(in.params, "rows");
	/* a table's noisy row count: at least 1, at most 2^53 (an exact float8) */
	if (!(f->rows >= 1.0) || f->rows > 9007199254740992.0)
		synthmodel_forged("\"rows\" is below 1 or above 2^53");
	f->res.rho_spent = in_number(in.params, "rho_spent");
	in_measurements(&in, &f->res);
	in_model(&in, &f->res.model, in_array(in.params, "potentials", &n), &f->res, f->res.nmeas);
	in_rounds(&in, &f->res);
	in_last(&in, &f->res);
	MemoryContextSwitchTo(old);
	return f;
}
