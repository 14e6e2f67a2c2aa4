/*-------------------------------------------------------------------------
 *
 * keptoptions.c
 *	  The shared options of the kept-row boosting families (keptoptions.h).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "mechanisms/keptoptions.h"

#include "base/dpobj.h"
#include "base/options.h"
#include "core/additive.h"
#include "core/auditmutant.h"
#include "mechanisms/classweights.h"

/* what the shared options' readers see */
typedef struct KeptRunArg
{
	OpParams   *p;
	const char *aggname;
	DPOptionParser parser;
} KeptRunArg;

/* "class_weight": a positive's and a negative's weight (classweights.h) */
static void
kept_weights(JsonbValue *v, const char *key, void *field, void *arg)
{
	KeptRunArg *a = (KeptRunArg *) arg;

	classweights_parse(v, a->aggname, &a->p->weight_pos, &a->p->weight_neg);
}

/* "metric": the operating point's (operating.h) */
static void
kept_metric(JsonbValue *v, const char *key, void *field, void *arg)
{
	*(int *) field = operating_metric_option(v, ((KeptRunArg *) arg)->aggname);
}

/* a yes/no label (bit 1) and a float8 label (bit 2) accept them (.accepts) */
#define EC	(1U << 1)
#define ER	(1U << 2)

#define KEPT_RUN_OPTION(key, type, field, dflt, ...) \
	DP_OPTION(key, type, OpParams, field, dflt, __VA_ARGS__)

static const DPOptionSpec kept_run_options[] = {
	KEPT_RUN_OPTION("class_weight", DP_OPTION_DOUBLE, weight_pos, 1.0,
					.parse = kept_weights, .accepts = EC),
	KEPT_RUN_OPTION("class_weight", DP_OPTION_DOUBLE, weight_neg, 1.0, .accepts = DP_NO_KIND),
	DP_OPTION_FN("metric", kept_metric, .offset = offsetof(OpParams, metric),
				 .accepts = EC),
	KEPT_RUN_OPTION("rows_per_unit", DP_OPTION_INT, rows_per_unit, 1, .lo = 1,
					.hi = DPOBJ_MAX_ROWS_PER_UNIT, .accepts = EC | ER),
	KEPT_RUN_OPTION("sample_rows", DP_OPTION_INT64, sample_rows, 0, .lo = 1,
					.hi = PG_INT32_MAX, .accepts = EC | ER),
	{NULL}
};

/*
 * A yes/no label's metric where not given: what the class weights ask for
 * when they are given, else balanced accuracy, whose balance the run
 * estimates at OP_BALANCE_SHARE of its budget and then trains with unless
 * "class_weight" gives the weights
 */
static void
kept_metric_defaults(OpParams *p, const DPOptionParser *parser, const char *aggname)
{
	bool		weights = dp_option_given(parser, "class_weight");

	if (!dp_option_given(parser, "metric"))
		p->metric = weights ? OP_METRIC_WEIGHTED : OP_METRIC_BALANCED;
	if (p->metric != OP_METRIC_BALANCED)
		return;
	operating_check_balance_weights(p->weight_pos, p->weight_neg, aggname);
	p->balance_share = OP_BALANCE_SHARE;
	p->balance_train = !weights;
}

void
keptoptions_run(const KeptOptionsSpec *s, bool regression, OpParams *p, double epsilon,
				double delta, Jsonb *options)
{
	KeptRunArg	arg = {.p = p, .aggname = s->aggname};

	memset(p, 0, sizeof(*p));
	p->epsilon = epsilon;
	p->delta = delta;
	dp_options_defaults(kept_run_options, p);
	dp_options_require(options, s->aggname,
					   psprintf("Pass '{}' for the defaults, e.g. %s.", s->example));
	arg.parser = (DPOptionParser) {
		.spec = kept_run_options, .kind = regression ? ER : EC,
			.example = s->example, .aggname = s->aggname, .params = p, .arg = &arg,
			.hint = regression ? s->hint_reg : s->hint_class,
			.foreign = s->foreign,
	};
	dp_options_parse(&arg.parser, options);
#if DPOBJ_MUTANT_IS(units)
	p->rows_per_unit = DPOBJ_MUTANT_COUNT(p->rows_per_unit);	/* audit mutant */
#endif
	if (!regression)
		kept_metric_defaults(p, &arg.parser, s->aggname);
}

void
keptoptions_groups(JsonbValue *v, const char *aggname, int **groups, int *ngroups)
{
	JsonbIterator *it;
	JsonbValue	e;
	JsonbIteratorToken tok;

	if (v->type != jbvBinary || !JsonContainerIsArray(v->val.binary.data))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: option \"groups\" must be an array of integers", aggname),
				 errhint("\"groups\" lists the row's terms in order: 0 for a numeric coordinate, m >= 2 for a one-hot group of m coordinates; dpobj.train() sets it from the declared domains.")));
	*groups = palloc(sizeof(int) * (JsonContainerSize(v->val.binary.data) + 1));
	*ngroups = 0;
	it = JsonbIteratorInit(v->val.binary.data);
	while ((tok = JsonbIteratorNext(&it, &e, true)) != WJB_DONE)
		if (tok == WJB_ELEM)
			(*groups)[(*ngroups)++] = dp_option_int(&e, "groups", 0, EBM_MAX_BINS);
}

bool
keptoptions_regression(Jsonb *options)
{
	return options != NULL &&
		(getKeyJsonValueFromContainer(&options->root, "y_min", 5, NULL) != NULL ||
		 getKeyJsonValueFromContainer(&options->root, "y_max", 5, NULL) != NULL);
}
