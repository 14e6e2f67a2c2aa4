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
#include "state/rowinput.h"

#define LINREG_MAX_BOUND 1e12

typedef struct LinOptionArg
{
	LinParams  *p;
	bool		have_R;
	bool		have_ymin;
	bool		have_ymax;
} LinOptionArg;

static LinRegMethod
parse_method(JsonbValue *v)
{
	char	   *s = dp_option_string(v, "method", "Use \"adassp\" or \"ssp\".");

	if (strcmp(s, "adassp") == 0)
		return LINREG_ADASSP;
	if (strcmp(s, "ssp") == 0)
		return LINREG_SSP;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("unknown method \"%s\" for %s", s, LINREG_AGGNAME),
			 errhint("Use \"adassp\" (the default) or \"ssp\".")));
	return LINREG_ADASSP;		/* keep compiler quiet */
}

/* the method is stored as an int (DP_OPTION_INT) */
StaticAssertDecl(sizeof(LinRegMethod) == sizeof(int), "LinRegMethod must be of int size");

const DPOptionSpec linparams_options[] = {
	DP_OPTION("intercept", DP_OPTION_BOOL, LinParams, intercept, true),
	DP_OPTION("method", DP_OPTION_INT, LinParams, method, LINREG_ADASSP),
	DP_OPTION("rows_per_unit", DP_OPTION_INT, LinParams, rows_per_unit, 1),
	{NULL}
};

/* one key of the options object (dp_options_foreach callback) */
static void
linparams_option(const char *key, JsonbValue *v, void *arg)
{
	LinOptionArg *a = (LinOptionArg *) arg;

	if (strcmp(key, "R") == 0)
	{
		a->p->R = dp_option_number(v, key, 0, 1e6, true);
		a->have_R = true;
	}
	else if (strcmp(key, "y_min") == 0)
	{
		a->p->y_min = dp_option_number(v, key, -LINREG_MAX_BOUND, LINREG_MAX_BOUND, false);
		a->have_ymin = true;
	}
	else if (strcmp(key, "y_max") == 0)
	{
		a->p->y_max = dp_option_number(v, key, -LINREG_MAX_BOUND, LINREG_MAX_BOUND, false);
		a->have_ymax = true;
	}
	else if (strcmp(key, "intercept") == 0)
		a->p->intercept = dp_option_bool(v, key);
	else if (strcmp(key, "method") == 0)
		a->p->method = parse_method(v);
	else if (strcmp(key, "rows_per_unit") == 0)
	{
		/* k of a privacy unit: dpobj.train() sets it from the catalog */
		a->p->rows_per_unit = dp_option_int(v, key, 1, DPOBJ_MAX_ROWS_PER_UNIT);
#if DPOBJ_MUTANT_IS(units)
		a->p->rows_per_unit = DPOBJ_MUTANT_COUNT(a->p->rows_per_unit);	/* audit mutant */
#endif
	}
	else if (dp_option_sealed_key(key, v))
		;						/* the protected mode: rowinput.c */
	else
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown option \"%s\" for %s", key, LINREG_AGGNAME),
				 errhint("Valid options are R, y_min, y_max (all three required), intercept, method and rows_per_unit.")));
}

/* R, y_min < y_max present; derived parameters */
static void
linparams_finish(LinOptionArg *a, int d)
{
	LinParams  *p = a->p;

	if (!a->have_R || !a->have_ymin || !a->have_ymax)
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
	LinOptionArg arg;

	dp_check_privacy_params(epsilon, delta);
	dp_check_dimension(LINREG_AGGNAME, d);
	memset(p, 0, sizeof(*p));
	p->epsilon = epsilon;
	p->delta = delta;
	dp_options_defaults(linparams_options, p);
	if (options == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: options must not be NULL", LINREG_AGGNAME),
				 errhint("Pass the public bounds, e.g. '{\"R\": 1, \"y_min\": 0, \"y_max\": 100}'.")));
	memset(&arg, 0, sizeof(arg));
	arg.p = p;
	dp_options_foreach(options, "'{\"R\": 1, \"y_min\": 0, \"y_max\": 100}'",
					   linparams_option, &arg);
	linparams_finish(&arg, d);
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
