/*-------------------------------------------------------------------------
 *
 * synthparams.c
 *	  The synthesizer's options and public parameters (synthparams.h):
 *	  the columns' domains, the workload, and the one-scan state's layout
 *	  fitted to dpobj.max_state_memory before any charge (synthfit.h).
 *
 *-------------------------------------------------------------------------
 */
#include "families/synth/synthparams.h"

#include <math.h>

#include "base/dpobj.h"
#include "base/calibsql.h"
#include "base/options.h"
#include "base/pg_compat.h"
#include "context/protected.h"
#include "core/synthaim.h"
#include "core/synthjt.h"
#include "families/synth/synthfit.h"
#include "state/rowinput.h"
#include "utils/memutils.h"

/* what the options say, before the columns are known */
typedef struct SynthOpts
{
	SynthParams *p;
	Jsonb	   *encoding;
	Jsonb	   *bins_by;		/* {"column": bins}, or NULL */
	Jsonb	   *quantile;		/* true / [names], or NULL */
	int			sub_bins;		/* 0: 4 x bins */
	Jsonb	   *workload;
	JsonbValue	label;			/* a column name, or jbvNull: none */
	Jsonb	   *integer;
	Jsonb	   *not_null;
} SynthOpts;

static pg_noreturn void
synth_bad(const char *msg, const char *hint)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("%s: %s", SYNTH_AGGNAME, msg),
			 errhint("%s", hint)));
}

/* "bins": a number for every column, or an object of columns' (read by synth_column_bins) */
static void
synth_option_bins(JsonbValue *v, const char *key, void *field, void *arg)
{
	if (v->type != jbvBinary)
		*(int *) field = dp_option_int(v, key, 1, SYNTH_MAX_BINS);
}

static void
synth_option_sub_bins(JsonbValue *v, const char *key, void *field, void *arg)
{
	((SynthOpts *) arg)->sub_bins = dp_option_int(v, key, 1, SYNTH_MAX_BINS);
}

#define SYNTH_OPTION(key, type, field, dflt, ...) \
	DP_OPTION(key, type, SynthParams, field, dflt, __VA_ARGS__)

/*
 * In the hint's order; the keys without a reader are JSON the columns'
 * checks read after the options (synthparams_parse)
 */
const DPOptionSpec synthparams_options[] = {
	{.name = "domains", .label = DP_HIDDEN},
	SYNTH_OPTION("bins", DP_OPTION_INT, bins, 16, .parse = synth_option_bins),
	{.name = "quantile"},
	DP_OPTION_FN("sub_bins", synth_option_sub_bins),
	{.name = "workload"},
	{.name = "label"},
	SYNTH_OPTION("max_model_cells", DP_OPTION_INT64, max_model_cells, 65536, .whole = true,
				 .lo = SYNTH_MIN_MODEL_CELLS, .hi = SYNTH_MAX_MODEL_CELLS,
				 .hint = "Omit it for the default."),
	/* by default a share of dpobj.max_state_memory (synthparams_parse) */
	SYNTH_OPTION("max_state_cells", DP_OPTION_INT64, max_state_cells, 0, .no_default = true,
				 .whole = true, .lo = 1, .hi = (double) (PG_INT64_MAX / 64),
				 .hint = "Omit it for the default."),
	/* the fit's cap on a stored set's cells (synthfit.h), fixed for a Citus run's shards */
	SYNTH_OPTION("max_set_cells", DP_OPTION_INT64, max_set_cells, 0, .whole = true,
				 .lo = 1, .hi = (double) (INT64CONST(1) << 62), .label = DP_HIDDEN),
	SYNTH_OPTION("iterations", DP_OPTION_INT, iters_final, 500, .lo = 0,
				 .hi = SYNTH_MAX_ITERATIONS),
	SYNTH_OPTION("round_iterations", DP_OPTION_INT, iters_round, 50, .lo = 1,
				 .hi = SYNTH_MAX_ITERATIONS),
	{.name = "integer"},
	{.name = "not_null"},
	SYNTH_OPTION("rows_per_unit", DP_OPTION_INT, k, 1, .lo = 1, .hi = DPOBJ_MAX_ROWS_PER_UNIT,
				 .label = DP_HIDDEN),
	{NULL}
};

/* options' key as its own JSON (NULL when absent) */
static Jsonb *
synth_option_json(Jsonb *options, const char *key)
{
	JsonbValue *v = getKeyJsonValueFromContainer(&options->root, key, strlen(key), NULL);

	return v != NULL ? JsonbValueToJsonb(v) : NULL;
}

/* the JSON-valued options, read by the column checks */
static void
synth_options_json(SynthOpts *o, Jsonb *options)
{
	JsonbValue *label = getKeyJsonValueFromContainer(&options->root, "label", 5, NULL);
	JsonbValue *bins = getKeyJsonValueFromContainer(&options->root, "bins", 4, NULL);

	o->encoding = synth_option_json(options, "domains");
	o->quantile = synth_option_json(options, "quantile");
	o->workload = synth_option_json(options, "workload");
	o->integer = synth_option_json(options, "integer");
	o->not_null = synth_option_json(options, "not_null");
	if (label != NULL)
		o->label = *label;
	if (bins != NULL && bins->type == jbvBinary)
		o->bins_by = JsonbValueToJsonb(bins);
}

/* a JSON array of column names (or true: every column, numeric_only: every numeric one) as a mask */
static SynthSet
synth_names_mask(const SynthParams *p, Jsonb *names, const char *key, bool numeric_only)
{
	SynthSet	m = 0;
	int			n;

	if (names == NULL)
		return 0;
	if (JB_ROOT_IS_SCALAR(names))
	{
		JsonbValue *v = getIthJsonbValueFromContainer(&names->root, 0);

		if (v->type != jbvBool)
			synth_bad(psprintf("option \"%s\" must be an array of column names", key),
					  "For example [\"age\", \"hours\"].");
		for (int j = 0; v->val.boolean && j < p->d; j++)
			m |= !numeric_only || p->enc->cols[j].nlevels == 0 ? SYNTH_BIT(j) : 0;
		return m;
	}
	if (!JB_ROOT_IS_ARRAY(names))
		synth_bad(psprintf("option \"%s\" must be an array of column names", key),
				  "For example [\"age\", \"hours\"].");
	n = JB_ROOT_COUNT(names);
	for (int i = 0; i < n; i++)
	{
		JsonbValue *v = getIthJsonbValueFromContainer(&names->root, i);
		int			j = v->type == jbvString ?
			synthparams_column(p, v->val.string.val, v->val.string.len) : -1;

		if (j < 0)
			synth_bad(psprintf("option \"%s\" names a column that is not synthesized", key),
					  "Name the columns by their names, as in \"domains\".");
		if (numeric_only && p->enc->cols[j].nlevels > 0)
			synth_bad(psprintf("option \"%s\" names \"%s\", a column with declared levels", key,
							   p->enc->cols[j].column),
					  "It applies to columns with declared bounds only.");
		m |= SYNTH_BIT(j);
	}
	return m;
}

/* every column with declared bounds */
static SynthSet
synth_bounded_mask(const SynthParams *p)
{
	SynthSet	m = 0;

	for (int j = 0; j < p->d; j++)
		m |= p->enc->cols[j].nlevels == 0 ? SYNTH_BIT(j) : 0;
	return m;
}

int
synthparams_column(const SynthParams *p, const char *name, int len)
{
	for (int j = 0; j < p->d; j++)
		if ((int) strlen(p->enc->cols[j].column) == len &&
			strncmp(p->enc->cols[j].column, name, len) == 0)
			return j;
	return -1;
}

/* column j's bins: "bins" by name, else the default */
static int
synth_column_bins(const SynthOpts *o, int j)
{
	const char *name = o->p->enc->cols[j].column;
	JsonbValue *v;

	if (o->bins_by == NULL)
		return o->p->bins;
	if (!JB_ROOT_IS_OBJECT(o->bins_by))
		synth_bad("option \"bins\" must be a number or an object of numbers by column",
				  "For example 16, or {\"age\": 20, \"hours\": 10}.");
	v = getKeyJsonValueFromContainer(&o->bins_by->root, name, strlen(name), NULL);
	return v == NULL ? o->p->bins : dp_option_int(v, "bins", 1, SYNTH_MAX_BINS);
}

/* every key of "bins" {...} names a numeric column */
static void
synth_check_bins_keys(const SynthOpts *o)
{
	JsonbIterator *it;
	JsonbValue	v;
	JsonbIteratorToken tok;

	if (o->bins_by == NULL || !JB_ROOT_IS_OBJECT(o->bins_by))
		return;
	it = JsonbIteratorInit(&o->bins_by->root);
	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
		if (tok == WJB_KEY)
		{
			int			j = synthparams_column(o->p, v.val.string.val, v.val.string.len);

			if (j < 0 || o->p->enc->cols[j].nlevels > 0)
				synth_bad(psprintf("option \"bins\" names \"%.*s\", not a synthesized column with declared bounds",
								   v.val.string.len, v.val.string.val),
						  "Bins apply to columns with declared bounds (dpobj.declare_domain(rel, column, lo, hi)).");
		}
}

/*
 * A bounded integer column's integers when they are at most "most" and its
 * bounds whole (a bin or sub-bin per integer then holds exactly one), else 0
 */
static int
synth_integer_values(const SynthColumn *c, int most)
{
	double		n = c->hi - c->lo + 1.0;

	return c->kind != SYNTH_COL_LEVELS && c->integer && c->lo == floor(c->lo) &&
		c->hi == floor(c->hi) && n >= 1.0 && n <= most ? (int) n : 0;
}

/* the columns' domains from the encoding and the options */
static void
synth_columns(SynthOpts *o)
{
	SynthParams *p = o->p;
	/* absent: every column with declared bounds */
	SynthSet	quant = o->quantile != NULL ? synth_names_mask(p, o->quantile, "quantile", true) :
		synth_bounded_mask(p);
	SynthSet	integer = synth_names_mask(p, o->integer, "integer", true);
	SynthSet	not_null = synth_names_mask(p, o->not_null, "not_null", false);

	synth_check_bins_keys(o);
	for (int j = 0; j < p->d; j++)
	{
		const EncColumn *e = &p->enc->cols[j];
		SynthColumn *c = &p->col[j];

		memset(c, 0, sizeof(*c));
		c->kind = e->nlevels > 0 ? SYNTH_COL_LEVELS :
			(quant & SYNTH_BIT(j)) ? SYNTH_COL_QUANTILE : SYNTH_COL_BINS;
		c->nlevels = e->nlevels;
		c->lo = e->lo;
		c->hi = e->hi;
		c->nbins = e->nlevels > 0 ? 0 : synth_column_bins(o, j);
		c->integer = (integer & SYNTH_BIT(j)) != 0;
		if (o->quantile == NULL && synth_integer_values(c, c->nbins) > 0)
		{
			/* by default, a bin per integer: exact values, nothing for quantiles to find */
			c->kind = SYNTH_COL_BINS;
			c->nbins = synth_integer_values(c, c->nbins);
		}
		c->nsub = c->kind != SYNTH_COL_QUANTILE ? 0 :
			o->sub_bins > 0 ? o->sub_bins : Min(4 * c->nbins, SYNTH_MAX_BINS);
		/*
		 * by default, an integer column of fewer integers than twice its
		 * sub-bins gets a sub-bin per integer (at least "bins"): none holds
		 * no integer and none two beside ones holding one, which the
		 * denoise's even spread would weigh alike
		 */
		if (c->kind == SYNTH_COL_QUANTILE && o->sub_bins == 0 &&
			synth_integer_values(c, Min(2 * c->nsub - 1, SYNTH_MAX_BINS)) > 0)
			c->nsub = Max(c->nbins, synth_integer_values(c, Min(2 * c->nsub - 1, SYNTH_MAX_BINS)));
		/*
		 * a level column's last level is "other" (NULL and undeclared
		 * values), never drawn when "not_null" names it; a bounded column
		 * named has no NULL level
		 */
		c->nullable = e->nlevels > 0 || !(not_null & SYNTH_BIT(j));
		c->closed = e->nlevels > 0 && (not_null & SYNTH_BIT(j));
		c->merge_empty = true;
		if (c->kind == SYNTH_COL_QUANTILE && c->nsub < c->nbins)
			synth_bad(psprintf("\"sub_bins\" (%d) must be at least the bins of \"%s\" (%d)",
							   c->nsub, e->column, c->nbins),
					  "Raise \"sub_bins\" or lower \"bins\".");
		if (!synth_column_fine(c))
			synth_bad(psprintf("the range of column \"%s\" is too wide for its bins", e->column),
					  "Declare a narrower range: hi - lo times the bins must be a finite float8.");
		if (!synth_column_valid(c))
			synth_bad(psprintf("column \"%s\" has too many levels", e->column),
					  "Declare at most 65535 levels.");
		p->scan_levels[j] = synth_column_scan_levels(c);
		synth_coding_init(c, &p->coding[j]);
		p->sum_at[j] = c->kind == SYNTH_COL_QUANTILE ? p->nsums : -1;
		p->nsums += c->kind == SYNTH_COL_QUANTILE ? c->nsub + synth_column_points(c, NULL) : 0;
	}
}

/* one workload set: an array of 1 to SYNTH_MAX_SET_COLUMNS distinct column names */
static SynthSet
synth_workload_set(const SynthParams *p, JsonbValue *e)
{
	const char *hint = "For example [[\"age\", \"income\"], [\"sex\", \"race\", \"income\"]]; at most 4 columns a set.";
	Jsonb	   *a;
	SynthSet	s;

	if (e->type != jbvBinary || !JsonContainerIsArray(e->val.binary.data))
		synth_bad("option \"workload\" must be an array of arrays of column names", hint);
	a = JsonbValueToJsonb(e);
	if (JB_ROOT_COUNT(a) < 1 || JB_ROOT_COUNT(a) > SYNTH_MAX_SET_COLUMNS)
		synth_bad("a workload set names 1 to 4 columns", hint);
	s = synth_names_mask(p, a, "workload", false);
	if (synth_set_size(s) != (int) JB_ROOT_COUNT(a))
		synth_bad("a workload set names a column twice", hint);
	return s;
}

static void
synth_workload(SynthOpts *o)
{
	SynthParams *p = o->p;

	if (o->workload == NULL)
		return;
	if (!JB_ROOT_IS_ARRAY(o->workload) || JB_ROOT_IS_SCALAR(o->workload) ||
		JB_ROOT_COUNT(o->workload) < 1 || JB_ROOT_COUNT(o->workload) > SYNTH_MAX_WORKLOAD)
		synth_bad("option \"workload\" must be an array of 1 to 4096 column sets",
				  "For example [[\"age\", \"income\"], [\"sex\", \"race\", \"income\"]].");
	p->nworkload = JB_ROOT_COUNT(o->workload);
	p->workload = palloc(sizeof(SynthSet) * p->nworkload);
	for (int i = 0; i < p->nworkload; i++)
		p->workload[i] = synth_workload_set(p, getIthJsonbValueFromContainer(&o->workload->root, i));
}

/* "label": the column the synthetic copy will be used to predict, or none */
static void
synth_label(SynthOpts *o)
{
	o->p->label = -1;
	if (o->label.type == jbvNull)
		return;
	if (o->label.type != jbvString ||
		(o->p->label = synthparams_column(o->p, o->label.val.string.val,
										  o->label.val.string.len)) < 0)
		synth_bad("option \"label\" must name a synthesized column",
				  "For example \"income\": the column a model trained on the copy will predict.");
}

/* p's fit's inputs (synthfit.h); names, model: room for p->d */
static SynthFit
synth_fit_of(SynthParams *p, const char **names, int *model)
{
	SynthFit	f = {.d = p->d, .levels = p->scan_levels, .model_levels = model, .names = names,
		.workload = p->workload, .nworkload = p->nworkload, .label = p->label,
		.max_model_cells = p->max_model_cells,
		.rounds = ceil(1.01 * SYNTH_ROUNDS_FACTOR * p->d) + 2.0, .sums = p->nsums,
		.max_state_cells = p->max_state_cells, .max_set_cells = p->max_set_cells,
		.layout = &p->layout, .hash_slots = p->hash_slots, .run_bytes = p->run_bytes};

	for (int j = 0; j < p->d; j++)
	{
		names[j] = p->enc->cols[j].column;
		/* the rounds count at model levels: a quantile column's at most its bins (and NULL) */
		model[j] = p->col[j].kind == SYNTH_COL_QUANTILE ?
			p->col[j].nbins + (p->col[j].nullable ? 1 : 0) : p->scan_levels[j];
	}
	return f;
}

/* the state's layout and the caps fitted to dpobj.max_state_memory (synthfit.h) */
static void
synth_fit(SynthParams *p, MemoryContext cxt)
{
	const char *names[SYNTH_MAX_COLUMNS];
	int			model[SYNTH_MAX_COLUMNS];
	SynthFit	f = synth_fit_of(p, names, model);

	synthfit_fit(&f, cxt);
	p->max_state_cells = f.max_state_cells;
	p->max_set_cells = f.max_set_cells;
	p->hash_slots = f.hash_slots;
	p->run_bytes = f.run_bytes;
}

bool
synth_label_paired(const SynthParams *p, int j)
{
	return p->label >= 0 && j != p->label &&
		(p->col[j].kind != SYNTH_COL_QUANTILE || p->col[p->label].kind != SYNTH_COL_QUANTILE) &&
		synth_layout_covers(&p->layout, SYNTH_BIT(j) | SYNTH_BIT(p->label)) >= 0;
}

/*
 * The first step's model fits "max_model_cells" (core/synthaim.c,
 * first_step): the junction tree of the single columns, each paired with
 * the "label" where the state holds the pair (a quantile column's bins
 * too, unless the label is a quantile column);
 * its levels at most the model's (a quantile column's: its bins).  Else
 * the run would fail after the charge, on public grounds: refused here.
 */
static void
synth_check_first_model(const SynthParams *p)
{
	int			sizes[SYNTH_MAX_COLUMNS];
	SynthSet	sets[SYNTH_MAX_COLUMNS];
	SynthTree	t;

	for (int j = 0; j < p->d; j++)
	{
		const SynthColumn *c = &p->col[j];

		sizes[j] = c->kind == SYNTH_COL_QUANTILE ? c->nbins + (c->nullable ? 1 : 0) :
			synth_column_model_levels(c);
	}
	for (int j = 0; j < p->d; j++)
		sets[j] = synth_label_paired(p, j) ? SYNTH_BIT(j) | SYNTH_BIT(p->label) : SYNTH_BIT(j);
	if (!synth_tree_build(p->d, sizes, sets, p->d, p->max_model_cells, &t))
		synth_bad(psprintf("the first measurements (every column%s) need a model of more than %lld cells (\"max_model_cells\")",
						   p->label >= 0 ? " with the label" : "", (long long) p->max_model_cells),
				  p->label >= 0 ?
				  "Raise \"max_model_cells\", synthesize fewer columns or declare fewer levels, or choose a label of fewer levels." :
				  "Raise \"max_model_cells\", synthesize fewer columns or declare fewer levels or bins.");
}

double
synthparams_rho(double epsilon, double delta)
{
	return dpobj_zcdp_rho_checked(SYNTH_AGGNAME, epsilon, delta);
}

/*
 * Every measurement's noise fits the exact sampler (synthaim.h): step 1's
 * least (a quantile column's sub-bins, sums, points and bins: shares of a column's) and
 * the least of the rounds', the first round's
 */
static void
synth_check_noise(const SynthParams *p, double epsilon, double delta)
{
	double		rho = synthparams_rho(epsilon, delta);
	double		rho1 = synth_aim_oneway_rho(rho, p->d, SYNTH_FIRST_SHARE_OF(p));
	double		rho_round = synth_aim_round_rho(rho, p->d, SYNTH_ALPHA, SYNTH_ROUNDS_FACTOR);

	if (synth_sigma2(SYNTH_SUB_SHARE * rho1, p->k) == 0.0 ||
		synth_sigma2(SYNTH_SUM_SHARE * rho1, p->k) == 0.0 ||
		synth_sigma2(SYNTH_POINT_SHARE * rho1, p->k) == 0.0 ||
		synth_sigma2(rho_round, p->k) == 0.0)
		synth_bad(psprintf("epsilon %g is too small for %d columns", epsilon, p->d),
				  "Every measurement needs zCDP rho of at least 2^-40 k^2 (k rows a privacy unit); the first round's is 0.9 rho / (16 d) of the run's rho: use a larger epsilon or fewer columns.");
}

/* "domains": the declared domains of 1 to SYNTH_MAX_COLUMNS columns */
static void
synth_encoding(SynthOpts *o)
{
	if (o->encoding == NULL)
		synth_bad("option \"domains\" (the columns' declared domains) is required",
				  "dpobj.synthesize() adds it from the table's declarations; a direct call passes [{\"column\": ..., \"levels\": [...]} or {\"column\": ..., \"lo\": ..., \"hi\": ...}, ...].");
	o->p->enc = encoding_parse(o->encoding);
	o->p->enc_json = o->encoding;
	o->p->d = o->p->enc->ncols;
	o->p->enc_d = o->p->enc->d;
	if (o->p->d < 1 || o->p->d > SYNTH_MAX_COLUMNS)
		synth_bad(psprintf("%d columns: at most %d can be synthesized", o->p->d, SYNTH_MAX_COLUMNS),
				  "Synthesize fewer columns at a time.");
}

SynthParams *
synthparams_parse(Jsonb *options, double epsilon, double delta, MemoryContext cxt)
{
	MemoryContext old = MemoryContextSwitchTo(cxt);
	SynthParams *p = palloc0(sizeof(SynthParams));
	SynthOpts	o;
	DPOptionParser parser = {.spec = synthparams_options, .params = p, .arg = &o,
		.example = "'{\"domains\": [...], \"bins\": 16}'", .prefix = SYNTH_AGGNAME ": ",
		.quoted = true,
	.tail = " (and \"domains\": the declared domains; dpobj.help('synthesize') has them all)"};

	memset(&o, 0, sizeof(o));
	o.p = p;
	o.label.type = jbvNull;
	dp_options_defaults(synthparams_options, p);
	if (options == NULL)
		synth_encoding(&o);		/* raises: required */
	dp_options_parse(&parser, options);
	synth_options_json(&o, options);
	dp_check_privacy_params(epsilon, delta);
	synth_encoding(&o);
	if (!dp_option_given(&parser, "max_state_cells"))
		p->max_state_cells = synthfit_cap_bytes() / 32;
	synth_columns(&o);
	synth_workload(&o);
	synth_label(&o);
	synth_check_noise(p, epsilon, delta);
	synth_fit(p, cxt);
	synth_check_first_model(p);
	MemoryContextSwitchTo(old);
	return p;
}

void
synth_check_args(const char *aggname, double epsilon, double delta, int d, Jsonb *options)
{
	MemoryContext cxt = AllocSetContextCreate(CurrentMemoryContext, "synth check",
											  ALLOCSET_DEFAULT_SIZES);
	const char *names[SYNTH_MAX_COLUMNS];
	int			model[SYNTH_MAX_COLUMNS];
	SynthFit	f = synth_fit_of(synthparams_parse(options, epsilon, delta, cxt), names, model);

	(void) aggname;
	(void) d;
	synthfit_notice(&f);
	MemoryContextDelete(cxt);
}

/*
 * A node's fit follows its own dpobj.max_state_memory, and a Citus
 * worker's may differ from this server's (workerpins.h): the run's fitted
 * "max_state_cells" and "max_set_cells" fixed here, every shard's state
 * has the coordinator's layout, so the states merge by adding (a flat
 * state of another layout is refused as corrupt, synthagg.c).
 */
Jsonb *
synth_citus_options(const struct DPProtectedContext *ctx)
{
	MemoryContext cxt = AllocSetContextCreate(CurrentMemoryContext, "synth citus",
											  ALLOCSET_DEFAULT_SIZES);
	SynthParams *p = synthparams_parse(ctx->options, ctx->epsilon_f, ctx->delta_f, cxt);
	char	   *fixed = psprintf("{\"max_state_cells\": " INT64_FORMAT ", \"max_set_cells\": " INT64_FORMAT "}",
								 p->max_state_cells, p->max_set_cells);

	MemoryContextDelete(cxt);
	return dp_options_add(ctx->options, fixed);
}
