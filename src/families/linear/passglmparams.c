/*-------------------------------------------------------------------------
 *
 * passglmparams.c
 *	  dp_passglm's options (passglmparams.h).  The run is
 *	  dp_linear_regression's SSP release with the label range [-1, 1]
 *	  fixed (a boolean label enters as -1 or +1), so only R, intercept,
 *	  ridge, metric and rows_per_unit are options (linearparams.c's table).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "mechanisms/operating.h"
#include "families/linear/passglmparams.h"

void
passglmparams_init(LinParams *p, double epsilon, double delta, int d, Jsonb *options)
{
	DPOptionParser parser = {.kind = LIN_KIND_PASSGLM, .aggname = PASSGLM_AGGNAME,
	.example = "'{\"R\": 1}'"};

	linparams_read(p, epsilon, delta, d, options, &parser,
				   "Pass the public clipping bound, e.g. '{\"R\": 1}'.");
	/* fixed, not options: SSP on the labels -1 and +1 */
	p->method = LINREG_SSP;
	p->passglm = true;
	p->y_min = -1;
	p->y_max = 1;
	if (!dp_option_given(&parser, "R"))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: option \"R\" is required", PASSGLM_AGGNAME),
				 errhint("Pass a public bound, e.g. '{\"R\": 1}': features are clipped to norm R, never estimated from the data.")));
	/*
	 * balanced accuracy's base rate comes from the intercept's released sums
	 * (passglm.c): the default with an intercept, refused without
	 */
	if (!dp_option_given(&parser, "metric"))
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
