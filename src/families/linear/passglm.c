/*-------------------------------------------------------------------------
 *
 * passglm.c
 *	  dp_passglm's final function: one-pass private logistic regression by
 *	  polynomial approximate sufficient statistics (PASS-GLM, Huggins et
 *	  al., NeurIPS 2017; src/core/passglmpoly.h; docs/PRIVACY.md "One-pass
 *	  logistic regression (passglm)").
 *
 * The state is dp_linear_regression's (linearstate.h) with labels -1 / +1, and
 * the release is its SSP release: sum u u^T and sum u v once each, exact
 * discrete Gaussian noise, rho-zCDP with rho = zcdp_rho(eps, delta).  All
 * that differs is post-processing: the ridge solve
 * phi = (A~ + ridge I)^-1 b~ and the factor -b1 / (2 b2) of the Chebyshev
 * approximation, which turn it into the minimiser of the approximate
 * logistic loss.  Nothing after the charge refuses on the data.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "base/calibsql.h"
#include "base/dpobj.h"
#include "families/linear/linear.h"
#include "families/linear/linearstate.h"
#include "mechanisms/mechanism.h"
#include "mechanisms/operating.h"
#include "model/model.h"
#include "core/passglmpoly.h"
#include "families/linear/passglmparams.h"
#include "base/random.h"

PG_FUNCTION_INFO_V1(dpobj_passglm_finalfn);

/*
 * The ridge of the normalised solve: the option, else sigma_xx sqrt(p),
 * the scale of the noise matrix's spectral norm (about 2 sigma sqrt(p)),
 * so the noisy A~ + ridge I stays well conditioned; public either way.
 */
static double
passglm_ridge(const LinParams *p, const LinRegCalibration *c)
{
	return p->ridge >= 0 ? p->ridge : c->xx.sigma * sqrt((double) p->p);
}

/* the public parameters of a model; sigmas in the data's units */
static void
passglm_params(StringInfo buf, const LinParams *p, const LinRegCalibration *c, int d)
{
	model_params_text(buf, "loss", "logistic");
	model_params_int(buf, "d", d);
	model_params_float(buf, "R", p->R);
	model_params_text(buf, "intercept", p->intercept ? "true" : "false");
	model_params_float(buf, "ridge", passglm_ridge(p, c));
	model_params_float(buf, "chebyshev_radius", PASSGLM_RADIUS);
	model_params_text(buf, "noise", "discrete_gaussian");
	model_params_float(buf, "rho", c->rho);
	model_params_float(buf, "sigma_xx", c->xx.sigma * p->Reff * p->Reff);
	model_params_float(buf, "sigma_xy", c->xy.sigma * p->Reff);
	if (p->rows_per_unit > 1)
		model_params_int(buf, "rows_per_unit", p->rows_per_unit);
}

/*
 * The operating point, post-processing of the released sums: with an
 * intercept (u's last coordinate 1 / R_eff) the last diagonal entry of
 * sum u u^T is n / R_eff^2 and the last entry of sum u v is (npos - nneg) /
 * R_eff, so the noisy label counts, and from them balanced accuracy's
 * weights and cut-off (operating.h), come at no cost
 */
static void
passglm_operating(const LinParams *p, const LinearWork *w, OpRun *op)
{
	static const double none[2] = {1.0, 1.0};

	memset(op, 0, sizeof(*op));
	op->metric = p->metric;
	if (p->metric == OP_METRIC_BALANCED)
	{
		double		n = w->tri[linreg_tri(p->p) - 1] * p->Reff * p->Reff,
					s = w->b[p->p - 1] * p->Reff;

		op->noisy[0] = (n + s) / 2;
		op->noisy[1] = (n - s) / 2;
		opoint_weights(op->noisy, OP_WEIGHT_BITS, OP_BALANCE_MIN_WEIGHT, op->w);
	}
	operating_finish(op, none, none, op->w);
}

/* normalised sums -> the released least-squares direction, scaled */
static void
passglm_compute(DPRun *run)
{
	const LinParams *p = &((LinStateData *) run->state)->params;
	LinearWork *w = run->work;
	double		scale = passglm_scale();

	linear_solve(run, passglm_ridge(p, &w->c));
	/* <w, x> + bias = scale <phi, u>, u = (x, 1) / R_eff */
	for (int j = 0; j < p->p; j++)
		w->phi[j] *= scale / p->Reff;
	passglm_operating(p, w, &w->op);
	run->detail = "passglm";
}

static Datum
passglm_release(DPRun *run)
{
	const LinStateData *s = run->state;
	const LinParams *p = &s->params;
	LinearWork *w = run->work;
	StringInfoData params;

	model_params_begin(&params);
	passglm_params(&params, p, &w->c, s->d);
	operating_params(&params, &w->op, true);
	model_params_end(&params);
	return model_build(run->fcinfo, "passglm", w->phi, s->d,
					   p->intercept ? w->phi[s->d] : 0.0,
					   p->epsilon, p->delta, &params);
}

MECHANISM_FINAL_FUNCTION(dpobj_passglm_finalfn,
						 .admit = linear_admit, .kind = true,
						 .calibrate = linear_prepare, .compute = passglm_compute,
						 .release = passglm_release)
