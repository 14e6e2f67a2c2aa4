/*-------------------------------------------------------------------------
 *
 * gbdtmodel.c
 *	  The boosted-trees model kind (kinds.h): margin = bias + one leaf per
 *	  tree, each tree oblivious (every node of a level splits alike).  The
 *	  weights are the trees' leaves, 2^depth each, in tree order; params
 *	  "depth" and "splits", each tree's levels in order (0-based
 *	  coordinates of the feature vector):
 *
 *	    {"index": j, "lo": a, "hi": b, "bins": B, "at": s, "gain": g}
 *	        right iff clamp(floor((x[j] - a) / (b - a) B), 0, B - 1) >= s
 *	        (private edges: B the grid's cells, s the cell the bin starts)
 *	    {"index": j, "size": m, "at": s, "gain": g}
 *	        x[j .. j+m-1] one-hot: right iff its level is s
 *
 *	  A row's leaf is the sum over levels l of (right at l) 2^l.  "gain" is
 *	  the split's released noisy gain (explain only).  "link": "logit" (a
 *	  yes/no label) or "identity" (a float8 label, with its public "y_min",
 *	  "y_max"); params "d" the features a vector has.
 *
 *-------------------------------------------------------------------------
 */
#include "model/kindsint.h"

#include "core/additive.h"
#include "families/gbdt/gbdt.h"

#include <math.h>

#define GBDT_MODEL_MAX_D	(1 << 20)
#define GBDT_EXPLAIN_PAIRS	1024

typedef struct GBSplit
{
	EBMTerm		term;			/* its coordinates and bins (core/additive.h) */
	int			at;
	double		gain;
} GBSplit;

typedef struct GBModel
{
	int			depth;
	int			trees;
	GBSplit    *splits;			/* trees x depth */
} GBModel;

static void
gbdt_bad(const char *what)
{
	model_forged(what, "Use a model returned by dpobj's boosted trees (params \"splits\", \"depth\" and \"link\").");
}

static JsonbValue *
key(JsonbContainer *c, const char *k)
{
	return getKeyJsonValueFromContainer(c, k, strlen(k), NULL);
}

/* a JSON integer in [lo, hi], else lo - 1 */
static int
json_int_in(JsonbValue *v, int lo, int hi)
{
	int64		x;

	return model_json_int(v, lo, hi, &x) ? (int) x : lo - 1;
}

/* one element of "splits", its coordinates within d */
static void
gbdt_split(JsonbValue *e, int d, GBSplit *s)
{
	JsonbContainer *c;
	EBMTerm    *t = &s->term;
	Jsonb	   *o;

	if (e == NULL || e->type != jbvBinary || !JsonContainerIsObject(e->val.binary.data))
		gbdt_bad("boosted trees params: each of \"splits\" must be an object");
	c = e->val.binary.data;
	o = JsonbValueToJsonb(e);
	memset(t, 0, sizeof(EBMTerm));
	t->index = json_int_in(key(c, "index"), 0, d - 1);
	if (t->index < 0 || !model_param_number(o, "gain", &s->gain))
		gbdt_bad("boosted trees params: a split needs an integer \"index\" below \"d\" and a number \"gain\"");
	if (key(c, "size") == NULL)
	{
		t->type = EBM_TERM_NUMERIC;
		t->size = t->grid = json_int_in(key(c, "bins"), 2, EBM_BIN_MAX_GRID);
		if (t->size < 2 || !model_param_number(o, "lo", &t->lo) ||
			!model_param_number(o, "hi", &t->hi) || !(t->lo < t->hi) ||
			!isfinite(t->hi - t->lo))
			gbdt_bad("boosted trees params: a numeric split needs \"bins\" between 2 and 65536 and finite \"lo\" < \"hi\"");
	}
	else
	{
		t->type = EBM_TERM_CATEGORICAL;
		t->size = json_int_in(key(c, "size"), 2, EBM_MAX_BINS);
		if (t->size < 2 || t->index + t->size > d)
			gbdt_bad("boosted trees params: a categorical split needs a \"size\" of 2 to 1024 coordinates within \"d\"");
	}
	s->at = json_int_in(key(c, "at"), 0, t->size);
	if (s->at < 0)
		gbdt_bad("boosted trees params: a split's \"at\" must be an integer from 0 to its bins or size");
}

static void
gbdt_unpack(ModelPredictor *m, HeapTupleHeader th)
{
	GBModel    *g = palloc0(sizeof(GBModel));
	JsonbValue *sv,
			   *link;
	int			nsplits;

	if (m->params == NULL)
		gbdt_bad("boosted trees params must be an object");
	m->d = json_int_in(key(&m->params->root, "d"), 1, GBDT_MODEL_MAX_D);
	g->depth = json_int_in(key(&m->params->root, "depth"), GBDT_MIN_DEPTH, GBDT_MAX_DEPTH);
	if (m->d < 1 || g->depth < GBDT_MIN_DEPTH)
		gbdt_bad("boosted trees params: \"d\" must be a positive integer and \"depth\" an integer from 2 to 4");
	if (m->nw < 1 || m->nw % (1 << g->depth) != 0)
		gbdt_bad("boosted trees weights must be the trees' leaves: 2^depth values a tree");
	g->trees = m->nw >> g->depth;
	sv = key(&m->params->root, "splits");
	nsplits = g->trees * g->depth;
	if (sv == NULL || sv->type != jbvBinary || !JsonContainerIsArray(sv->val.binary.data) ||
		JsonContainerSize(sv->val.binary.data) != nsplits)
		gbdt_bad("boosted trees params: \"splits\" must be an array of depth splits a tree");
	g->splits = palloc(sizeof(GBSplit) * nsplits);
	for (int i = 0; i < nsplits; i++)
		gbdt_split(getIthJsonbValueFromContainer(sv->val.binary.data, i), m->d, &g->splits[i]);
	link = key(&m->params->root, "link");
	if (link != NULL && link->type == jbvString)
	{
		m->logistic = link->val.string.len == 5 &&
			memcmp(link->val.string.val, "logit", 5) == 0;
		m->regression = link->val.string.len == 8 &&
			memcmp(link->val.string.val, "identity", 8) == 0;
	}
	if (!m->logistic && !m->regression)
		gbdt_bad("boosted trees params: \"link\" must be \"logit\" or \"identity\"");
	m->range_ok = m->regression && model_param_number(m->params, "y_min", &m->y_min) &&
		model_param_number(m->params, "y_max", &m->y_max) && m->y_min < m->y_max;
	m->kd = g;
}

/* whether a split's one-hot group is one-hot in x */
static bool
gbdt_one_hot(const EBMTerm *t, const double *x)
{
	int			ones = 0;

	for (int i = 0; i < t->size; i++)
	{
		if (x[t->index + i] == 1.0)
			ones++;
		else if (x[t->index + i] != 0.0)
			return false;
	}
	return ones == 1;
}

static ModelRowStatus
gbdt_margin(const ModelPredictor *m, const double *x, int *sign, long double *value,
			bool *exact)
{
	const GBModel *g = m->kd;
	long double s = m->bias;

	for (int j = 0; j < m->d; j++)
		if (!isfinite(x[j]))
			return MODEL_ROW_NOT_FINITE;
	for (int tr = 0; tr < g->trees; tr++)
	{
		int			leaf = 0;

		for (int l = 0; l < g->depth; l++)
		{
			const GBSplit *sp = &g->splits[tr * g->depth + l];
			int			b;

			if (sp->term.type == EBM_TERM_CATEGORICAL && !gbdt_one_hot(&sp->term, x))
				return MODEL_ROW_NOT_ONE_HOT;
			b = ebm_bin(&sp->term, x);
			if (sp->term.type == EBM_TERM_NUMERIC ? b >= sp->at : b == sp->at)
				leaf |= 1 << l;
		}
		s += m->w[(tr << g->depth) + leaf];
	}
	*sign = (s > 0) ? 1 : (s == 0 ? 0 : -1);
	*value = s;
	*exact = true;
	return MODEL_ROW_OK;
}

/* a split's feature: its column by the encoding (x[j+1] without one) */
static char *
gbdt_feature(ExplainOut *out, const GBSplit *s)
{
	char	   *feature,
			   *level;
	bool		numeric;
	double		lo,
				hi;

	explain_coord_name(out, s->term.index, &feature, &level, &numeric, &lo, &hi);
	return feature;
}

/*
 * Each feature's importance, the released gains (clamped at 0) of the
 * splits on it; then each pair of features one level apart in a tree,
 * weighted by the deeper split's gain (the interactions the trees learned)
 */
static void
gbdt_explain(const ModelPredictor *m, ExplainOut *out)
{
	const GBModel *g = m->kd;
	int			ns = g->trees * g->depth;
	char	  **names = palloc(sizeof(char *) * ns);
	int		   *of = palloc(sizeof(int) * ns);
	int		   *slot = palloc(sizeof(int) * m->d);	/* a coordinate's feature, or -1 */
	int			n = 0;
	double	   *imp,
			   *pair;

	/* a split's feature by its first coordinate (a one-hot group's), each named once */
	memset(slot, -1, sizeof(int) * m->d);
	for (int i = 0; i < ns; i++)
	{
		int			j = g->splits[i].term.index;

		if (slot[j] < 0)
		{
			slot[j] = n;
			names[n++] = gbdt_feature(out, &g->splits[i]);
		}
		of[i] = slot[j];
	}
	imp = palloc0(sizeof(double) * n);
	/* pairs among at most GBDT_EXPLAIN_PAIRS features (a forged model may name more) */
	pair = n <= GBDT_EXPLAIN_PAIRS ? palloc0(sizeof(double) * n * n) : NULL;
	for (int i = 0; i < ns; i++)
	{
		double		gain = Max(g->splits[i].gain, 0.0);

		imp[of[i]] += gain;
		if (pair != NULL && i % g->depth > 0 && of[i - 1] != of[i])
			pair[Min(of[i - 1], of[i]) * n + Max(of[i - 1], of[i])] += gain;
	}
	for (int f = 0; f < n; f++)
	{
		explain_row(out, NULL, names[f], NULL, imp[f]);
		explain_feature_end(out, imp[f]);
	}
	for (int a = 0; a < (pair != NULL ? n : 0); a++)
		for (int b = a + 1; b < n; b++)
			if (pair[a * n + b] > 0)
			{
				explain_row(out, NULL, psprintf("%s & %s", names[a], names[b]), "(interaction)",
							pair[a * n + b]);
				explain_feature_end(out, pair[a * n + b]);
			}
	explain_row(out, NULL, "(intercept)", NULL, m->bias);
	explain_feature_end(out, 0);
}

const ModelKindOps gbdt_model_kind = {.name = "boosted_trees", .marker = "splits",
	.by_mechanism = true, .threshold = true, .reads_features = true, .unpack = gbdt_unpack,
.margin = gbdt_margin, .explain = gbdt_explain};
