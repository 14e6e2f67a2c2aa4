/*-------------------------------------------------------------------------
 *
 * operating.c
 *	  A binary classifier's operating point (operating.h).
 *
 * Privacy: the balance estimate is a release of its own, at a public share
 * of the run's budget fixed before the charge: adaptive composition with the
 * model's releases, which may depend on it (the weights noisy GD and ebm
 * train with).  Everything else here is post-processing of DP outputs and
 * public options (docs/PRIVACY.md, "Operating point").
 *
 *-------------------------------------------------------------------------
 */
#include "mechanisms/operating.h"

#include <math.h>

#include "utils/float.h"

#include "base/dpobj.h"
#include "base/options.h"
#include "core/calibrate.h"
#include "core/glmsolve.h"
#include "core/tunecalib.h"
#include "model/model.h"

const char *const operating_metric_names[3] = {"accuracy", "weighted_accuracy",
"balanced_accuracy"};

void
operating_check(const OpRun *o, const char *aggname)
{
	if (!o->estimate || o->noise_ok)
		return;
	ereport(ERROR,
			(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			 errmsg("%s: the balance estimate's noise is outside the exact sampler's range",
					aggname),
			 errhint("Use a larger epsilon, or \"metric\": \"accuracy\" (no estimate).")));
}

/* the estimate's share of *budget (rho with gauss, else epsilon) and its noise */
static void
operating_plan(OpRun *o, int metric, double share, int rows_per_unit, double *budget,
			   bool gauss)
{
	double		part;

	memset(o, 0, sizeof(*o));
	o->metric = metric;
	o->estimate = share > 0;
	if (!o->estimate)
		return;
	part = share * *budget;
	*budget = dp_budget_rest(*budget, part);
	if (gauss)
		o->rho = part;
	else
		o->eps = part;
	o->noise_ok = gauss ? opoint_noise_gauss(part, rows_per_unit, &o->z) :
		opoint_noise_laplace(part, rows_per_unit, &o->z);
}

void
operating_plan_rho(OpRun *o, int metric, double balance_share, int rows_per_unit,
				   double *rho)
{
	operating_plan(o, metric, balance_share, rows_per_unit, rho, true);
}

void
operating_plan_eps(OpRun *o, int metric, double balance_share, int rows_per_unit,
				   double *eps)
{
	operating_plan(o, metric, balance_share, rows_per_unit, eps, false);
}

void
operating_count_blocks(const GLMSolveBlocks *B, const double w[2], int64 out[2])
{
	const int64 limit = (int64) 1 << 62;
	const GLMSolveDesign *X;

	out[0] = out[1] = 0;
	for (bool more = B->next(B->arg, true, &X); more; more = B->next(B->arg, false, &X))
		for (int64 k = 0; k < X->nobs; k++)
		{
			int			lab = X->y[k] > 0 ? 0 : 1;

			out[lab] = Min(limit, out[lab] + tune_row_count(X->cnt[k], w[lab]));
		}
}

void
operating_estimate(OpRun *o, gsl_rng *rng, int64 npos, int64 nneg)
{
	opoint_noisy_counts(rng, &o->z, npos, nneg, o->noisy);
	opoint_weights(o->noisy, OP_WEIGHT_BITS, OP_BALANCE_MIN_WEIGHT, o->w);
}

void
operating_weights(const OpRun *o, double w[2])
{
	for (int i = 0; i < 2; i++)
		w[i] = ldexp((double) o->w[i], -OP_WEIGHT_BITS);
}

void
operating_finish(OpRun *o, const double class_w[2], const double train_w[2],
				 const int64 *ba_w)
{
	o->shift = log(train_w[0] / train_w[1]);
	if (o->metric == OP_METRIC_BALANCED && ba_w != NULL)
		o->cut = opoint_cut((double) ba_w[0], (double) ba_w[1]);
	else if (o->metric == OP_METRIC_WEIGHTED)
		o->cut = opoint_cut(class_w[0], class_w[1]);
	else
		o->cut = 0;
}

void
operating_params_plan(StringInfo buf, const OpRun *o)
{
	if (!o->estimate)
		return;
	if (o->z.gauss)
	{
		model_params_float(buf, "balance_rho", o->rho);
		model_params_text(buf, "balance_noise", "discrete_gaussian");
	}
	else
	{
		model_params_float(buf, "balance_epsilon", o->eps);
		model_params_text(buf, "balance_noise", "discrete_laplace");
	}
	model_params_float(buf, "balance_sd", opoint_noise_sd(&o->z));
}

void
operating_params(StringInfo buf, const OpRun *o, bool with_metric)
{
	if (with_metric)
		model_params_text(buf, "metric", operating_metric_names[o->metric - 1]);
	model_params_float(buf, "threshold", o->cut);
	operating_params_plan(buf, o);
	if (o->w[0] <= 0)
		return;
	appendStringInfo(buf, ", \"balance_counts\": [%s, %s]",
					 float8out_internal(o->noisy[0]), float8out_internal(o->noisy[1]));
	model_params_float(buf, "balance_weight_true", ldexp((double) o->w[0], -OP_WEIGHT_BITS));
	model_params_float(buf, "balance_weight_false", ldexp((double) o->w[1], -OP_WEIGHT_BITS));
}

int
operating_metric_parse(JsonbValue *v, const char *key, const char *aggname, const char *what,
					   const char *hint)
{
	char	   *s = dp_option_string(v, key, hint);

	for (int j = 0; j < lengthof(operating_metric_names); j++)
		if (strcmp(s, operating_metric_names[j]) == 0)
			return j + 1;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("%s: unknown %s \"%s\"", aggname, what, s),
			 errhint("%s", hint)));
	return OP_METRIC_ACCURACY;	/* keep compiler quiet */
}

int
operating_metric_option(JsonbValue *v, const char *aggname)
{
	return operating_metric_parse(v, "metric", aggname, "metric",
								  "Use \"balanced_accuracy\" (the default: the cut-off from a private estimate of the label balance), \"accuracy\" (a probability above 1/2) or \"weighted_accuracy\" (the cut-off the \"class_weight\" weights give; the default when they are given).");
}

void
operating_check_balance_weights(double wpos, double wneg, const char *aggname)
{
	if (Min(wpos, wneg) < OP_MIN_CLASS_WEIGHT)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s: \"metric\": \"balanced_accuracy\" needs class weights of at least 2^-10",
						aggname),
				 errhint("Raise the smaller weight of \"class_weight\" to at least 0.0009765625, or leave \"metric\" out (the weights then set the cut-off).")));
}
