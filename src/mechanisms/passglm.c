/*-------------------------------------------------------------------------
 *
 * passglm.c
 *	  dp_passglm's final function: one-pass private logistic regression by
 *	  polynomial approximate sufficient statistics (PASS-GLM, Huggins et
 *	  al., NeurIPS 2017; src/core/passglm.h; docs/PRIVACY.md "One-pass
 *	  logistic regression (passglm)").
 *
 * The state is dp_linear_regression's (linstate.h) with labels -1 / +1, and
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
#include "mechanisms/linear.h"
#include "state/linstate.h"
#include "mechanisms/mechanism.h"
#include "model/model.h"
#include "core/passglm.h"
#include "state/passglmparams.h"
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

/* linreg_release's poll: a cancel between draws */
static void
passglm_poll(void *arg)
{
	mechanism_poll(*(int64 *) arg);
}

/* normalised sums -> the released least-squares direction phi */
static void
passglm_release(const LinStateData *s, const LinRegCalibration *c, int64 ledger_id,
				double *tri, double *b, double *phi)
{
	const LinParams *p = &s->params;
	gsl_rng    *rng = dpobj_rng_new();

	linreg_release(rng, &c->xx, LINSTATE_SUMS(s), linreg_tri(p->p), tri, passglm_poll, &ledger_id);
	linreg_release(rng, &c->xy, LINSTATE_SUMS(s) + linreg_tri(p->p), p->p, b, passglm_poll,
				   &ledger_id);
	dpobj_rng_free(rng);
	if (!linreg_solve(tri, b, p->p, passglm_ridge(p, c), c->xx.sigma, phi))
	{
		ledger_finish(ledger_id, LEDGER_OUTCOME_FAILED, "linear algebra failed");
		ereport(ERROR,
				(errcode(ERRCODE_DPOBJ_ORACLE_FAILURE),
				 errmsg("%s: the linear algebra failed", PASSGLM_AGGNAME),
				 errdetail("No model was released. The privacy budget of this run is spent."),
				 errhint("Check the server's memory; fewer features need less.")));
	}
}

Datum
dpobj_passglm_finalfn(PG_FUNCTION_ARGS)
{
	DPProtectedContext *pctx;
	LinStateData *s = linstate_final_begin(fcinfo, &pctx, true);
	LinParams  *p;
	LinRegCalibration c;
	double	   *tri,
			   *b,
			   *phi,
				scale = passglm_scale();
	int64		ledger_id;
	StringInfoData params;

	if (s == NULL)
		PG_RETURN_NULL();		/* no rows, direct path: nothing runs */
	p = &s->params;
	linear_calibrate(p, &c);
	/* every buffer before the charge (public sizes) */
	tri = palloc(sizeof(double) * linreg_tri(p->p));
	b = palloc(sizeof(double) * p->p);
	phi = palloc(sizeof(double) * p->p);

	ledger_id = mechanism_charge(fcinfo, pctx, "passglm", p->epsilon, p->delta);
	passglm_release(s, &c, ledger_id, tri, b, phi);
	/* <w, x> + bias = scale <phi, u>, u = (x, 1) / R_eff */
	for (int j = 0; j < p->p; j++)
		phi[j] *= scale / p->Reff;
	ledger_finish(ledger_id, LEDGER_OUTCOME_RELEASED, "passglm");

	model_params_begin(&params);
	passglm_params(&params, p, &c, s->d);
	model_params_end(&params);
	PG_RETURN_DATUM(model_build(fcinfo, "passglm", phi, s->d,
								p->intercept ? phi[s->d] : 0.0,
								p->epsilon, p->delta, &params));
}
