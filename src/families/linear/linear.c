/*-------------------------------------------------------------------------
 *
 * linear.c
 *	  dp_linear_regression's final function: AdaSSP (Wang, NeurIPS 2018,
 *	  Algorithm 2; the default) or plain sufficient-statistics
 *	  perturbation (SSP), in zCDP with exact discrete Gaussian noise
 *	  (src/core/linreg.c; docs/PRIVACY.md "Linear regression").
 *
 * Order of work (mechanism_drive): the calibration and every buffer from
 * public inputs only; the charge; lambda_min of the exact sums (AdaSSP); the snapped
 * releases of sum u u^T, sum u v and lambda_min; AdaSSP's ridge; the
 * total solve (post-processing); the model in the data's units.  Nothing
 * after the charge refuses on the data: the solve raises eigenvalues below
 * the noise scale instead of failing.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "base/calibsql.h"
#include "base/dpobj.h"
#include "base/options.h"
#include "families/linear/linear.h"
#include "families/linear/linearstate.h"
#include "mechanisms/family.h"
#include "mechanisms/mechanism.h"
#include "model/model.h"
#include "families/linear/passglmparams.h"
#include "base/pg_compat.h"
#include "base/random.h"

#include "utils/builtins.h"
#include "utils/fmgrprotos.h"

PG_FUNCTION_INFO_V1(dpobj_linreg_finalfn);

void
linear_calibrate(const LinParams *p, LinRegCalibration *c)
{
	const char *aggname = p->passglm ? PASSGLM_AGGNAME : LINREG_AGGNAME;
	double		rho = dpobj_zcdp_rho_checked(aggname, p->epsilon, p->delta);

	if (!linreg_calibrate(p->method, p->p, p->rows_per_unit, rho, LINREG_FAIL_PROB, c))
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s: the noise for epsilon %g and delta %g is outside the exact sampler's range",
						aggname, p->epsilon, p->delta),
				 errhint("Use an epsilon between about 1e-4 and 1e4.")));
}

/*
 * dpobj.train()'s argument check (train.c): options and calibration, of
 * dp_linear_regression or, by aggname, dp_passglm (the same state)
 */
void
linear_check_args(const char *aggname, double epsilon, double delta, int d,
				  Jsonb *options)
{
	LinParams	p;
	LinRegCalibration c;

	if (strcmp(aggname, PASSGLM_AGGNAME) == 0)
		passglmparams_init(&p, epsilon, delta, d, options);
	else
		linparams_init(&p, epsilon, delta, d, options);
	linear_calibrate(&p, &c);
}

/* the public parameters of a model; sigmas in the data's units */
static void
linear_params(StringInfo buf, const LinParams *p, const LinRegCalibration *c, int d)
{
	model_params_text(buf, "method", linparams_method_name(p->method));
	model_params_int(buf, "d", d);
	model_params_float(buf, "R", p->R);
	model_params_float(buf, "y_min", p->y_min);
	model_params_float(buf, "y_max", p->y_max);
	model_params_text(buf, "intercept", p->intercept ? "true" : "false");
	model_params_text(buf, "noise", "discrete_gaussian");
	model_params_float(buf, "rho", c->rho);
	model_params_float(buf, "sigma_xx", c->xx.sigma * p->Reff * p->Reff);
	model_params_float(buf, "sigma_xy", c->xy.sigma * p->Reff * p->By);
	if (p->rows_per_unit > 1)
		model_params_int(buf, "rows_per_unit", p->rows_per_unit);
	if (p->method == LINREG_ADASSP)
	{
		model_params_float(buf, "sigma_lambda_min", c->lmin.sigma * p->Reff * p->Reff);
		model_params_float(buf, "fail_prob", c->fail_prob);
	}
}

/* linreg_release's poll: a cancel between draws */
static void
linear_poll(void *arg)
{
	mechanism_poll(*(int64 *) arg);
}

/* a failure of GSL after the charge (memory): outcome 'failed', then raise */
static pg_noreturn void
linear_failed(const DPRun *run)
{
	const LinStateData *s = run->state;

	mechanism_fail(run, LEDGER_OUTCOME_FAILED, "linear algebra failed",
				   ERRCODE_DPOBJ_ORACLE_FAILURE,
				   psprintf("%s: the linear algebra failed",
							s->params.passglm ? PASSGLM_AGGNAME : LINREG_AGGNAME),
				   "No model was released. The privacy budget of this run is spent.",
				   "Check the server's memory; fewer features need less.");
}

void *
linear_admit(FunctionCallInfo fcinfo, int passglm, DPProtectedContext **pctx)
{
	return linstate_final_begin(fcinfo, pctx, passglm != 0);
}

void
linear_prepare(DPRun *run)
{
	LinStateData *s = run->state;
	const LinParams *p = &s->params;
	LinearWork *w = palloc(sizeof(LinearWork));

	linear_calibrate(p, &w->c);
	/* every buffer before the charge (public sizes) */
	w->tri = palloc(sizeof(double) * linreg_tri(p->p));
	w->b = palloc(sizeof(double) * p->p);
	w->phi = palloc(sizeof(double) * p->p);
	mechanism_calibrated(run, w, p->passglm ? "passglm" : linparams_method_name(p->method),
						 p->epsilon, p->delta);
}

void
linear_solve(DPRun *run, double ridge)
{
	const LinStateData *s = run->state;
	const LinParams *p = &s->params;
	LinearWork *w = run->work;
	int			nt = linreg_tri(p->p);
	double		lambda = ridge;

	if (p->method == LINREG_ADASSP)
	{
		/* lambda_min of the exact sums (tri as scratch) */
		for (int k = 0; k < nt; k++)
			w->tri[k] = linreg_sum_value(LINSTATE_SUMS(s)[k]);
		lambda = linreg_min_eigen(w->tri, p->p);
		if (isnan(lambda))
			linear_failed(run);
	}
	if (p->method == LINREG_ADASSP)
		lambda = linreg_adassp_lambda(&w->c, linreg_release_value(run->rng, &w->c.lmin, lambda));
	linreg_release(run->rng, &w->c.xx, LINSTATE_SUMS(s), nt, w->tri, linear_poll,
				   &run->ledger_id);
	linreg_release(run->rng, &w->c.xy, LINSTATE_SUMS(s) + nt, p->p, w->b, linear_poll,
				   &run->ledger_id);
	if (!linreg_solve(w->tri, w->b, p->p, lambda, w->c.xx.sigma, w->phi))
		linear_failed(run);
}

/* normalised sums -> released coefficients, in the data's units */
static void
linear_compute(DPRun *run)
{
	const LinParams *p = &((LinStateData *) run->state)->params;
	LinearWork *w = run->work;

	linear_solve(run, 0.0);
	/* back to the data's units: y - centre = <(x, 1), phi> By / R_eff */
	for (int j = 0; j < p->p; j++)
		w->phi[j] *= p->By / p->Reff;
	run->detail = linparams_method_name(p->method);
}

static Datum
linear_release(DPRun *run)
{
	const LinStateData *s = run->state;
	const LinParams *p = &s->params;
	LinearWork *w = run->work;
	StringInfoData params;

	model_params_begin(&params);
	linear_params(&params, p, &w->c, s->d);
	model_params_end(&params);
	return model_build(run->fcinfo, linparams_method_name(p->method), w->phi, s->d,
					   p->intercept ? w->phi[s->d] + p->center : 0.0,
					   p->epsilon, p->delta, &params);
}

MECHANISM_FINAL_FUNCTION(dpobj_linreg_finalfn,
						 .admit = linear_admit, .calibrate = linear_prepare,
						 .compute = linear_compute, .release = linear_release)

int
linear_ledger_pick(Jsonb *options)
{
	const char *method = dp_options_string(options, "method");

	return method != NULL && strcmp(method, "ssp") == 0 ? 1 : 0;
}

/* the family's descriptor (mechanisms/family.h) */
static const DPMechanism linear_mechanisms[] = {LINEAR_FAMILY_MECHANISMS};

const DPFamily linear_family = DP_FAMILY(linear, linear_mechanisms);
