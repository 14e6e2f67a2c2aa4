/*-------------------------------------------------------------------------
 *
 * ebmmodel.c
 *	  The additive model kind (kinds.h): margin = bias + one score per
 *	  term, each term a table of scores over a feature's bins or levels.
 *	  The weights are the terms' tables concatenated in term order; params
 *	  "terms" lists them (0-based coordinates of the feature vector):
 *
 *	    {"type": "numeric", "index": j, "lo": a, "hi": b, "bins": B}
 *	        bin = clamp(floor((x[j] - a) / (b - a) * B), 0, B - 1)
 *	    {..., "bins": B, "grid": G, "cuts": [c_1, ..., c_(B-1)]}  (private edges)
 *	        cell = clamp(floor((x[j] - a) / (b - a) * G), 0, G - 1),
 *	        bin = #{i: c_i <= cell}, the cuts increasing in [1, G - 1]
 *	    {"type": "categorical", "index": j, "size": m}
 *	        x[j .. j+m-1] one-hot: the level is the coordinate equal to 1
 *
 *	  "link": "logit" (a yes/no label: the margin is a log-odds) or
 *	  "identity" (a numeric target: the margin is the value, with the
 *	  public "y_min", "y_max" of a regression).  The features a vector has:
 *	  params "d", else its encoding's, else one past the last coordinate a
 *	  term reads.  "counts" (optional; explain only): each score's bin's
 *	  released noisy count, aligned with the weights.
 *
 *-------------------------------------------------------------------------
 */
#include "model/kindsint.h"

#include "core/additive.h"
#include "families/ebm/ebm.h"
#include "model/encode.h"

#include <math.h>

#include "utils/builtins.h"
#include "utils/numeric.h"

#define ADDITIVE_MAX_BINS	4096
#define ADDITIVE_MAX_D		(1 << 20)

typedef struct AddTerm
{
	bool		numeric;
	int			index;
	int			size;			/* scores: bins or levels */
	double		lo;
	double		hi;
	int			offset;			/* its first score in the weights */
	int			grid;			/* numeric: its cells (= size without "cuts") */
	int		   *cuts;			/* "cuts" (size - 1), or NULL: each cell a bin */
	uint16	   *map;			/* each cell's bin, from the cuts */
} AddTerm;

typedef struct Additive
{
	int			nterms;
	AddTerm    *terms;
	double	   *counts;			/* params "counts" (explain), or NULL */
} Additive;

static void
additive_bad(const char *what)
{
	model_forged(what, "Use a model returned by dpobj's additive mechanism (params \"terms\" and \"link\").");
}

/* a JSON integer in [lo, hi], else lo - 1 */
static int
json_int_in(JsonbValue *v, int lo, int hi)
{
	int64		x;

	return model_json_int(v, lo, hi, &x) ? (int) x : lo - 1;
}

static JsonbValue *
key(JsonbContainer *c, const char *k)
{
	return getKeyJsonValueFromContainer(c, k, strlen(k), NULL);
}

/*
 * A numeric term's "grid" and "cuts" (private edges), or neither: cells of
 * the grid, cuts increasing within it, one fewer than the bins
 */
static void
additive_cuts(JsonbContainer *c, AddTerm *t)
{
	JsonbValue *gv = key(c, "grid"),
			   *cv = key(c, "cuts");
	const char *bad = "additive model params: a numeric term's \"grid\" must be a power of 2 up to 65536 and its \"cuts\" \"bins\" - 1 increasing cells inside it";

	t->grid = t->size;
	t->cuts = NULL;
	t->map = NULL;
	if (gv == NULL && cv == NULL)
		return;
	t->grid = json_int_in(gv, 2, EBM_BIN_MAX_GRID);
	if (!ebmbins_grid_ok(t->grid) || cv == NULL || cv->type != jbvBinary ||
		!JsonContainerIsArray(cv->val.binary.data) ||
		JsonContainerSize(cv->val.binary.data) != t->size - 1)
		additive_bad(bad);
	t->cuts = palloc(sizeof(int) * t->size);
	for (int i = 0; i < t->size - 1; i++)
	{
		t->cuts[i] = json_int_in(getIthJsonbValueFromContainer(cv->val.binary.data, i), 1,
								 t->grid - 1);
		if (t->cuts[i] < 1 || (i > 0 && t->cuts[i] <= t->cuts[i - 1]))
			additive_bad(bad);
	}
	t->map = palloc(sizeof(uint16) * t->grid);
	ebmbins_map(t->cuts, t->size - 1, t->grid, t->map);
}

/* one element of "terms" */
static void
additive_term(JsonbValue *e, AddTerm *t)
{
	JsonbContainer *c;
	JsonbValue *type;
	Jsonb	   *o;

	if (e == NULL || e->type != jbvBinary || !JsonContainerIsObject(e->val.binary.data))
		additive_bad("additive model params: each of \"terms\" must be an object");
	c = e->val.binary.data;
	type = key(c, "type");
	t->index = json_int_in(key(c, "index"), 0, ADDITIVE_MAX_D - 1);
	if (type == NULL || type->type != jbvString || t->index < 0)
		additive_bad("additive model params: a term needs a \"type\" and an integer \"index\" of at least 0");
	t->numeric = type->val.string.len == 7 && memcmp(type->val.string.val, "numeric", 7) == 0;
	if (t->numeric)
	{
		o = JsonbValueToJsonb(e);
		t->size = json_int_in(key(c, "bins"), 1, ADDITIVE_MAX_BINS);
		if (t->size < 1 || !model_param_number(o, "lo", &t->lo) ||
			!model_param_number(o, "hi", &t->hi) || !(t->lo < t->hi) || !isfinite(t->hi - t->lo))
			additive_bad("additive model params: a numeric term needs \"bins\" between 1 and 4096 and finite \"lo\" < \"hi\"");
		additive_cuts(c, t);
	}
	else if (type->val.string.len == 11 && memcmp(type->val.string.val, "categorical", 11) == 0)
	{
		t->size = json_int_in(key(c, "size"), 1, ADDITIVE_MAX_D);
		if (t->size < 1 || (int64) t->index + t->size > ADDITIVE_MAX_D)
			additive_bad("additive model params: a categorical term needs an integer \"size\" of at least 1");
	}
	else
		additive_bad("additive model params: a term's \"type\" must be \"numeric\" or \"categorical\"");
}

/* "terms", their sizes summing to the weights' length */
static void
additive_terms(ModelPredictor *m, Additive *a)
{
	JsonbValue *tv = m->params ? key(&m->params->root, "terms") : NULL;
	int64		total = 0;

	if (tv == NULL || tv->type != jbvBinary || !JsonContainerIsArray(tv->val.binary.data) ||
		JsonContainerSize(tv->val.binary.data) < 1)
		additive_bad("additive model params: \"terms\" must be a non-empty array");
	a->nterms = JsonContainerSize(tv->val.binary.data);
	a->terms = palloc(sizeof(AddTerm) * a->nterms);
	for (int i = 0; i < a->nterms; i++)
	{
		additive_term(getIthJsonbValueFromContainer(tv->val.binary.data, i), &a->terms[i]);
		a->terms[i].offset = (int) Min(total, PG_INT32_MAX);
		total += a->terms[i].size;
	}
	if (total != m->nw)
		additive_bad("additive model weights must be the terms' score tables: as many values as their bins and levels together");
}

/* the features a vector has, every term's coordinates within them */
static void
additive_d(ModelPredictor *m, Additive *a)
{
	JsonbValue *dv = key(&m->params->root, "d");
	JsonbValue *ev = key(&m->params->root, "encoding");
	int			need = 0;

	for (int i = 0; i < a->nterms; i++)
		need = Max(need, a->terms[i].index + (a->terms[i].numeric ? 1 : a->terms[i].size));
	m->d = need;
	if (dv != NULL)
		m->d = json_int_in(dv, 1, ADDITIVE_MAX_D);
	else if (ev != NULL)
		m->d = encoding_parse(JsonbValueToJsonb(ev))->d;
	if (m->d < need)
		additive_bad("additive model params: \"d\" must be an integer covering every term's coordinates");
}

/* params "counts": one finite number per weight, or NULL when absent (an older model) */
static double *
additive_counts(const ModelPredictor *m)
{
	JsonbValue *cv = key(&m->params->root, "counts");
	double	   *counts;

	if (cv == NULL)
		return NULL;
	if (cv->type != jbvBinary || !JsonContainerIsArray(cv->val.binary.data) ||
		JsonContainerSize(cv->val.binary.data) != m->nw)
		additive_bad("additive model params: \"counts\" must be an array of one number per weight");
	counts = palloc(sizeof(double) * m->nw);
	for (int j = 0; j < m->nw; j++)
	{
		if (!model_json_number(getIthJsonbValueFromContainer(cv->val.binary.data, j), &counts[j]))
			additive_bad("additive model params: \"counts\" must be an array of one number per weight");
	}
	return counts;
}

static void
additive_unpack(ModelPredictor *m, HeapTupleHeader th)
{
	Additive   *a = palloc0(sizeof(Additive));
	JsonbValue *link;

	additive_terms(m, a);
	additive_d(m, a);
	link = key(&m->params->root, "link");
	if (link == NULL || link->type != jbvString)
		additive_bad("additive model params: \"link\" must be \"logit\" or \"identity\"");
	m->logistic = link->val.string.len == 5 && memcmp(link->val.string.val, "logit", 5) == 0;
	m->regression = link->val.string.len == 8 && memcmp(link->val.string.val, "identity", 8) == 0;
	if (!m->logistic && !m->regression)
		additive_bad("additive model params: \"link\" must be \"logit\" or \"identity\"");
	m->range_ok = m->regression && model_param_number(m->params, "y_min", &m->y_min) &&
		model_param_number(m->params, "y_max", &m->y_max) && m->y_min < m->y_max;
	a->counts = additive_counts(m);
	m->kd = a;
}

/* the bin of a finite x: clamped to the end bins outside [lo, hi) */
static int
additive_bin(const AddTerm *t, double x)
{
	int			c = ebm_grid_cell(x, t->lo, t->hi, t->grid);

	return t->map != NULL ? t->map[c] : c;
}

/* bin b's lower edge (b = size: the upper end), encoded */
static double
additive_edge(const AddTerm *t, int b)
{
	int			c = b == 0 ? 0 : b == t->size ? t->grid : t->cuts ? t->cuts[b - 1] : b;

	return t->lo + (t->hi - t->lo) * c / t->grid;
}

/* the level of a one-hot group, or -1 */
static int
additive_level(const AddTerm *t, const double *x)
{
	int			level = -1;

	for (int i = 0; i < t->size; i++)
	{
		if (x[t->index + i] == 1.0 && level < 0)
			level = i;
		else if (x[t->index + i] != 0.0)
			return -1;
	}
	return level;
}

static ModelRowStatus
additive_margin(const ModelPredictor *m, const double *x, int *sign, long double *value,
				bool *exact)
{
	const Additive *a = m->kd;
	long double s = m->bias;

	for (int j = 0; j < m->d; j++)
		if (!isfinite(x[j]))
			return MODEL_ROW_NOT_FINITE;
	for (int i = 0; i < a->nterms; i++)
	{
		const AddTerm *t = &a->terms[i];
		int			b = t->numeric ? additive_bin(t, x[t->index]) : additive_level(t, x);

		if (b < 0)
			return MODEL_ROW_NOT_ONE_HOT;
		s += m->w[t->offset + b];
	}
	*sign = (s > 0) ? 1 : (s == 0 ? 0 : -1);
	*value = s;
	*exact = true;
	return MODEL_ROW_OK;
}

/* the row's count, when the model has them */
static void
additive_count(ExplainOut *out, const double *counts, int j)
{
	if (counts != NULL)
		explain_row_count(out, counts[j]);
}

/* a numeric term's bins "[a, b)", on the declared scale when encoded */
static void
additive_explain_numeric(const ModelPredictor *m, const AddTerm *t, const double *counts,
						 ExplainOut *out)
{
	char	   *feature,
			   *level;
	bool		numeric;
	double		clo,
				chi;

	explain_coord_name(out, t->index, &feature, &level, &numeric, &clo, &chi);
	for (int b = 0; b < t->size; b++)
	{
		double		e0 = additive_edge(t, b);
		double		e1 = additive_edge(t, b + 1);

		/* encoded x = 2 (raw - lo) / (hi - lo) - 1 */
		if (numeric && level != NULL)
		{
			e0 = clo + (e0 + 1) / 2 * (chi - clo);
			e1 = clo + (e1 + 1) / 2 * (chi - clo);
		}
		explain_row(out, NULL, feature, psprintf("[%.6g, %.6g%s", e0, e1,
												 b == t->size - 1 ? "]" : ")"),
					m->w[t->offset + b]);
		additive_count(out, counts, t->offset + b);
	}
	explain_feature_end(out, -1);
}

/* a categorical term's levels, named by the encoding */
static void
additive_explain(const ModelPredictor *m, ExplainOut *out)
{
	const Additive *a = m->kd;
	const double *counts = a->counts;

	for (int i = 0; i < a->nterms; i++)
	{
		const AddTerm *t = &a->terms[i];
		char	   *feature = NULL;

		if (t->numeric)
		{
			additive_explain_numeric(m, t, counts, out);
			continue;
		}
		for (int l = 0; l < t->size; l++)
		{
			char	   *f,
					   *level;
			bool		numeric;
			double		lo,
						hi;

			explain_coord_name(out, t->index + l, &f, &level, &numeric, &lo, &hi);
			if (feature == NULL)
				feature = f;
			explain_row(out, NULL, feature, numeric ? f : level, m->w[t->offset + l]);
			additive_count(out, counts, t->offset + l);
		}
		explain_feature_end(out, -1);
	}
	explain_row(out, NULL, "(intercept)", NULL, m->bias);
	explain_feature_end(out, 0);
}

const ModelKindOps ebm_model_kind = {.name = "additive", .marker = "terms",
.by_mechanism = true, .threshold = true, .reads_features = true, .unpack = additive_unpack,
.margin = additive_margin, .explain = additive_explain};
