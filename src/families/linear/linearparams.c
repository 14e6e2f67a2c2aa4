/*-------------------------------------------------------------------------
 *
 * linearparams.c
 *	  Options, public parameters and the per-row normalisation of
 *	  dp_linear_regression (linearparams.h; docs/PRIVACY.md "Linear
 *	  regression").
 *
 * Clipping is a fixed per-row map: features to ||x||_2 <= R (as
 * dp_logistic), labels to [y_min, y_max].  Both bounds are public options,
 * never estimated from the data.
 *
 *-------------------------------------------------------------------------
 */
#include "families/linear/linearparams.h"

#include <math.h>

#include "core/auditmutant.h"
#include "base/dpobj.h"
#include "base/options.h"
#include "core/rowclip.h"
#include "mechanisms/operating.h"
#include "state/rowinput.h"

#define LINREG_MAX_BOUND 1e12

static void
parse_method(JsonbValue *v, const char *key, void *field, void *arg)
{
	char	   *s = dp_option_string(v, key, "Use \"adassp\" or \"ssp\".");

	if (strcmp(s, "adassp") == 0)
		*(LinRegMethod *) field = LINREG_ADASSP;
	else if (strcmp(s, "ssp") == 0)
		*(LinRegMethod *) field = LINREG_SSP;
	else
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown method \"%s\" for %s", s, LINREG_AGGNAME),
				 errhint("Use \"adassp\" (the default) or \"ssp\".")));
}

/* dp_passglm's "metric": the operating point's, "balanced_accuracy" or "accuracy" */
static void
passglm_metric(JsonbValue *v, const char *key, void *field, void *arg)
{
	const char *hint = "Use \"balanced_accuracy\" (the default with an intercept: the cut-off at the base rate its released sums estimate) or \"accuracy\" (a probability above 1/2).";
	char	   *s = dp_option_string(v, key, hint);

	if (strcmp(s, "balanced_accuracy") == 0)
		*(int *) field = OP_METRIC_BALANCED;
	else if (strcmp(s, "accuracy") == 0)
		*(int *) field = OP_METRIC_ACCURACY;
	else
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: unknown metric \"%s\"", PASSGLM_AGGNAME, s),
				 errhint("%s", hint)));
}

static void
passglm_no_weights(JsonbValue *v, const char *key, void *field, void *arg)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("%s does not support class weights", PASSGLM_AGGNAME),
			 errhint("Use dpobj.dp_logistic or dpobj.dp_noisysgd with \"class_weight\".")));
}

/* the method is stored as an int (DP_OPTION_INT) */
StaticAssertDecl(sizeof(LinRegMethod) == sizeof(int), "LinRegMethod must be of int size");

#define LIN				LIN_KIND_LINEAR
#define PASS			LIN_KIND_PASSGLM
#define LIN_OPTION(key, type, field, dflt, ...) \
	DP_OPTION(key, type, LinParams, field, dflt, __VA_ARGS__)
#define LIN_BOUND(key, field, lo_, hi_, ...) \
	LIN_OPTION(key, DP_OPTION_DOUBLE, field, 0, .no_default = true, .lo = lo_, .hi = hi_, \
			   __VA_ARGS__)

/*
 * Required: R, and dp_linear_regression's y_min and y_max; dp_passglm's
 * metric defaults by intercept, its method is "ssp" (passglmparams.c)
 */
const DPOptionSpec linparams_options[] = {
	LIN_BOUND("R", R, 0, 1e6, .lo_open = true, .accepts = LIN),
	LIN_BOUND("R", R, 0, 1e6, .lo_open = true, .accepts = PASS, .label = "R (required)"),
	LIN_BOUND("y_min", y_min, -LINREG_MAX_BOUND, LINREG_MAX_BOUND, .accepts = LIN),
	LIN_BOUND("y_max", y_max, -LINREG_MAX_BOUND, LINREG_MAX_BOUND, .accepts = LIN,
			  .label = "y_max (all three required)"),
	LIN_OPTION("intercept", DP_OPTION_BOOL, intercept, true),
	LIN_OPTION("method", DP_OPTION_INT, method, LINREG_ADASSP, .parse = parse_method,
			   .accepts = LIN),
	LIN_OPTION("ridge", DP_OPTION_DOUBLE, ridge, -1, .lo = 0, .hi = 1e6, .accepts = PASS),
	DP_OPTION_FN("metric", passglm_metric, .offset = offsetof(LinParams, metric),
				 .accepts = PASS),
	/* k of a privacy unit: dpobj.train() sets it from the catalog */
	LIN_OPTION("rows_per_unit", DP_OPTION_INT, rows_per_unit, 1, .lo = 1,
			   .hi = DPOBJ_MAX_ROWS_PER_UNIT),
	DP_OPTION_FN("class_weight", passglm_no_weights, .accepts = PASS, .label = DP_HIDDEN),
	{NULL}
};

void
linparams_read(LinParams *p, double epsilon, double delta, int d, Jsonb *options,
			   DPOptionParser *parser, const char *null_hint)
{
	dp_check_privacy_params(epsilon, delta);
	dp_check_dimension(parser->aggname, d);
	memset(p, 0, sizeof(*p));
	p->epsilon = epsilon;
	p->delta = delta;
	dp_options_defaults(linparams_options, p);
	dp_options_require(options, parser->aggname, null_hint);
	parser->spec = linparams_options;
	parser->params = p;
	dp_options_parse(parser, options);
#if DPOBJ_MUTANT_IS(units)
	p->rows_per_unit = DPOBJ_MUTANT_COUNT(p->rows_per_unit);	/* audit mutant */
#endif
}

/* R, y_min < y_max present; derived parameters */
static void
linparams_finish(const DPOptionParser *a, LinParams *p, int d)
{
	if (!dp_option_given(a, "R") || !dp_option_given(a, "y_min") || !dp_option_given(a, "y_max"))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: options \"R\", \"y_min\" and \"y_max\" are required", LINREG_AGGNAME),
				 errhint("Pass public bounds, e.g. '{\"R\": 1, \"y_min\": 0, \"y_max\": 100}': features are clipped to norm R and labels to [y_min, y_max], never estimated from the data.")));
	if (!(p->y_min < p->y_max))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: option \"y_min\" must be less than \"y_max\"", LINREG_AGGNAME),
				 errhint("Declare the public range of the label, e.g. '{\"y_min\": 0, \"y_max\": 100}'.")));
	p->p = d + (p->intercept ? 1 : 0);
	p->Reff = sqrt(p->R * p->R + (p->intercept ? 1.0 : 0.0));
	p->center = p->intercept ? p->y_min / 2 + p->y_max / 2 : 0.0;
	p->By = fmax(fabs(p->y_min - p->center), fabs(p->y_max - p->center));
}

void
linparams_init(LinParams *p, double epsilon, double delta, int d, Jsonb *options)
{
	DPOptionParser parser = {.kind = LIN_KIND_LINEAR, .aggname = LINREG_AGGNAME,
	.example = "'{\"R\": 1, \"y_min\": 0, \"y_max\": 100}'"};

	linparams_read(p, epsilon, delta, d, options, &parser,
				   "Pass the public bounds, e.g. '{\"R\": 1, \"y_min\": 0, \"y_max\": 100}'.");
	linparams_finish(&parser, p, d);
}

/* the clamp of a finite x to [lo, hi]: fmin(fmax(x, lo), hi) without the calls */
static inline double
clamp(double x, double lo, double hi)
{
	return x < lo ? lo : (x > hi ? hi : x);
}

/*
 * u[j] = x[j] / r for j < d, two at a time (one packed division where the
 * compiler makes one; each quotient is the same IEEE division either way)
 */
static inline void
divide_by(double *restrict u, const double *restrict x, int d, double r)
{
	int			j;

	for (j = 0; j + 1 < d; j += 2)
	{
		u[j] = x[j] / r;
		u[j + 1] = x[j + 1] / r;
	}
	if (j < d)
		u[j] = x[j] / r;
}

/*
 * Per row, so written without library calls (fmax, fmin, ldexp), every
 * quantity hoisted out of the loops; each value is computed by the same
 * floating-point operations in the same order as ever, so the normalised
 * row is the same bit for bit (sql/linspeed.sql).  The inputs are finite.
 */
void
linparams_normalise(const LinParams *p, const double *x, int d, double y,
					double *u, double *v)
{
	double		m = 0,
				s = 0;
	bool		clip;
	double		k = 0;
	double		small = (double) p->p * 0x1p-51;
	double		shrink = 1.0 - (double) p->p * 0x1p-50;

	/*
	 * A row certainly inside R (rowclip_certainly_within: ||x||^2 <= R^2 (1 -
	 * 2^-21)) is not clipped, and neither is it below: there m sqrt(s) is
	 * within a factor (1 + u)^((d + 3) / 2 + 2) <= 1 + 2^-32 of ||x|| (u =
	 * 2^-53; x_j / m, its square and each of d - 1 additions of terms summing
	 * to >= 1 round by at most u, sqrt and the product by one each), so it is
	 * below R (1 - 2^-22) (1 + 2^-32) < R and the test is false: the same
	 * branch, without d divisions.
	 */
	if (rowclip_certainly_within(x, d, p->R))
		clip = false;
	else
	{
		/* the l2 norm with scaling, so that huge finite values do not overflow */
		for (int j = 0; j < d; j++)
			m = fabs(x[j]) > m ? fabs(x[j]) : m;
		for (int j = 0; m > 0 && j < d; j++)
			s += (x[j] / m) * (x[j] / m);
		/* clip to R, then divide by R_eff: u = x min(1, R / ||x||) / R_eff */
		clip = m > 0 && m * sqrt(s) > p->R && p->R / (m * sqrt(s)) < 1.0;
	}
	if (clip)
	{
		k = p->R / sqrt(s);
		for (int j = 0; j < d; j++)
			u[j] = (x[j] / m) * k / p->Reff;
	}
	else
		divide_by(u, x, d, p->Reff);
	if (p->intercept)
		u[d] = 1.0 / p->Reff;
	/* rounding may leave ||u|| a hair above 1: shrink until not */
	for (int it = 0; it < 64; it++)
	{
		double		t = 0;

		for (int j = 0; j < p->p; j++)
			t += u[j] * u[j];
		/* below 1 by more than the sum's rounding error (p 2^-53) */
		if (t <= 1.0 - small)
			break;
		for (int j = 0; j < p->p; j++)
			u[j] *= shrink;
	}
	*v = clamp((clamp(y, p->y_min, p->y_max) - p->center) / p->By, -1.0, 1.0);
}

const char *
linparams_method_name(LinRegMethod m)
{
	return m == LINREG_SSP ? "ssp" : "adassp";
}
