/*-------------------------------------------------------------------------
 *
 * passglmparams.c
 *	  dp_passglm's options (passglmparams.h).  The run is
 *	  dp_linear_regression's SSP release with the label range [-1, 1]
 *	  fixed (a boolean label enters as -1 or +1), so only R, intercept,
 *	  ridge and rows_per_unit are options.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "core/auditmutant.h"
#include "base/dpobj.h"
#include "mechanisms/operating.h"
#include "base/options.h"
#include "families/linear/passglmparams.h"
#include "state/rowinput.h"

typedef struct PassOptionArg
{
	LinParams  *p;
	bool		have_R;
	bool		have_metric;
} PassOptionArg;

/* "metric": the operating point's, "balanced_accuracy" or "accuracy" (passglm.c) */
static int
passglmparams_metric(JsonbValue *v)
{
	const char *hint = "Use \"balanced_accuracy\" (the default with an intercept: the cut-off at the base rate its released sums estimate) or \"accuracy\" (a probability above 1/2).";
	char	   *s = dp_option_string(v, "metric", hint);

	if (strcmp(s, "balanced_accuracy") == 0)
		return OP_METRIC_BALANCED;
	if (strcmp(s, "accuracy") == 0)
		return OP_METRIC_ACCURACY;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("%s: unknown metric \"%s\"", PASSGLM_AGGNAME, s),
			 errhint("%s", hint)));
	return OP_METRIC_ACCURACY;	/* keep compiler quiet */
}

const DPOptionSpec passglmparams_options[] = {
	DP_OPTION("intercept", DP_OPTION_BOOL, LinParams, intercept, true),
	DP_OPTION("ridge", DP_OPTION_DOUBLE, LinParams, ridge, -1),
	DP_OPTION("rows_per_unit", DP_OPTION_INT, LinParams, rows_per_unit, 1),
	{NULL}
};

/* one key of the options object (dp_options_foreach callback) */
static void
passglmparams_option(const char *key, JsonbValue *v, void *arg)
{
	PassOptionArg *a = (PassOptionArg *) arg;

	if (strcmp(key, "R") == 0)
	{
		a->p->R = dp_option_number(v, key, 0, 1e6, true);
		a->have_R = true;
	}
	else if (strcmp(key, "intercept") == 0)
		a->p->intercept = dp_option_bool(v, key);
	else if (strcmp(key, "ridge") == 0)
		a->p->ridge = dp_option_number(v, key, 0, 1e6, false);
	else if (strcmp(key, "metric") == 0)
	{
		a->p->metric = passglmparams_metric(v);
		a->have_metric = true;
	}
	else if (strcmp(key, "rows_per_unit") == 0)
	{
		/* k of a privacy unit: dpobj.train() sets it from the catalog */
		a->p->rows_per_unit = dp_option_int(v, key, 1, DPOBJ_MAX_ROWS_PER_UNIT);
#if DPOBJ_MUTANT_IS(units)
		a->p->rows_per_unit = DPOBJ_MUTANT_COUNT(a->p->rows_per_unit);	/* audit mutant */
#endif
	}
	else if (strcmp(key, "class_weight") == 0)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s does not support class weights", PASSGLM_AGGNAME),
				 errhint("Use dpobj.dp_logistic or dpobj.dp_noisysgd with \"class_weight\".")));
	else if (dp_option_sealed_key(key, v))
		;						/* the protected mode: rowinput.c */
	else
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown option \"%s\" for %s", key, PASSGLM_AGGNAME),
				 errhint("Valid options are R (required), intercept, ridge, metric and rows_per_unit.")));
}

void
passglmparams_init(LinParams *p, double epsilon, double delta, int d, Jsonb *options)
{
	PassOptionArg arg;

	dp_check_privacy_params(epsilon, delta);
	dp_check_dimension(PASSGLM_AGGNAME, d);
	memset(p, 0, sizeof(*p));
	p->epsilon = epsilon;
	p->delta = delta;
	dp_options_defaults(passglmparams_options, p);
	/* fixed, not options: SSP on the labels -1 and +1 */
	p->method = LINREG_SSP;
	p->passglm = true;
	p->y_min = -1;
	p->y_max = 1;
	if (options == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: options must not be NULL", PASSGLM_AGGNAME),
				 errhint("Pass the public clipping bound, e.g. '{\"R\": 1}'.")));
	memset(&arg, 0, sizeof(arg));
	arg.p = p;
	dp_options_foreach(options, "'{\"R\": 1}'", passglmparams_option, &arg);
	if (!arg.have_R)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: option \"R\" is required", PASSGLM_AGGNAME),
				 errhint("Pass a public bound, e.g. '{\"R\": 1}': features are clipped to norm R, never estimated from the data.")));
	/*
	 * balanced accuracy's base rate comes from the intercept's released sums
	 * (passglm.c): the default with an intercept, refused without
	 */
	if (!arg.have_metric)
		p->metric = p->intercept ? OP_METRIC_BALANCED : OP_METRIC_ACCURACY;
	if (p->metric == OP_METRIC_BALANCED && !p->intercept)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s: \"metric\": \"balanced_accuracy\" needs an intercept", PASSGLM_AGGNAME),
				 errhint("Its cut-off is the base rate the intercept's released sums estimate: drop \"intercept\": false, or use \"metric\": \"accuracy\".")));
	/* the label range [-1, 1] has centre 0 and half-width 1 */
	p->p = d + (p->intercept ? 1 : 0);
	p->Reff = sqrt(p->R * p->R + (p->intercept ? 1.0 : 0.0));
	p->center = 0.0;
	p->By = 1.0;
}
