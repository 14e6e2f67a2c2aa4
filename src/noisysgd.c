/*-------------------------------------------------------------------------
 *
 * noisysgd.c
 *	  Noisy projected SGD for L2-bounded logistic regression / Huber-SVM:
 *	  dpobj.dp_noisysgd(features, label, epsilon, delta, options).
 *
 * Source: Bassily, Smith, Thakurta 2014, Algorithm 1 (ALGORITHMS.md
 * section 5):  theta_1 = 0 in C (the l2 ball of radius r, option
 * "radius"); for t = 1..T pick a row d uniformly with replacement,
 *   theta_{t+1} = Pi_C(theta_t - eta(t) [n grad l(theta_t; d) + b_t]),
 *   b_t ~ N(0, s^2 I),  s^2 = 32 L^2 n^2 ln(n/delta) ln(1/delta) / eps^2,
 *   eta(t) = ||C||_2 / sqrt(t (n^2 L^2 + p s^2)),  ||C||_2 = 2r,
 * output theta_{T+1}.  L is the Lipschitz constant of theta -> l(theta; x)
 * = |l'| ||x|| <= R_eff (R_eff = sqrt(R^2 + 1) with an intercept).
 *
 * T: the analysis is for T = n^2 steps.  dpobj runs T = min(n^2, T_max)
 * steps, T_max = option "T" (default DPOBJ_SGD_DEFAULT_T = 10^6).  Privacy
 * is unaffected by the cap: s and eta(t) do not depend on T, so the
 * capped run's output is the iterate theta_{T+1} of the full n^2-step run
 * -- a function of the first T steps, whose composition costs no more than
 * that of all n^2 steps (post-processing of a prefix).  Only utility
 * changes (the convergence bound needs all n^2 steps).
 *
 *-------------------------------------------------------------------------
 */
#include "dpobj.h"

#include <math.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_randist.h>

#include "glm.h"
#include "glmstate.h"
#include "mechanism.h"
#include "model.h"
#include "random.h"

PG_FUNCTION_INFO_V1(dpobj_noisysgd_finalfn);
PG_FUNCTION_INFO_V1(dpobj_noisysgd_sigma);

#define DPOBJ_SGD_DEFAULT_T	1000000

/* ALGORITHMS.md section 5: s^2 = 32 L^2 n^2 ln(n/delta) ln(1/delta) / eps^2 */
static double
sgd_sigma(double eps, double delta, double n, double L)
{
	return sqrt(32.0 * L * L * n * n * log(n / delta) * log(1.0 / delta)) / eps;
}

Datum
dpobj_noisysgd_sigma(PG_FUNCTION_ARGS)
{
	double		eps = PG_GETARG_FLOAT8(0);
	double		delta = PG_GETARG_FLOAT8(1);
	int64		n = PG_GETARG_INT64(2);
	double		L = PG_GETARG_FLOAT8(3);

	if (!isfinite(eps) || eps <= 0 || !(delta > 0 && delta < 1) || n < 1 ||
		!isfinite(L) || L <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid noisy SGD parameters"),
				 errhint("Need epsilon > 0, 0 < delta < 1, n >= 1 and L > 0.")));
	PG_RETURN_FLOAT8(sgd_sigma(eps, delta, (double) n, L));
}

Datum
dpobj_noisysgd_finalfn(PG_FUNCTION_ARGS)
{
	GLMState *state;
	DPProtectedContext *pctx;
	GLMParams  *p;
	double	   *X,
			   *cnt,
			   *y,
			   *theta;
	int			nobs,
				pp,
				d;
	double		n,
				Reff,
				s,
				diam,
				denom;
	int64		T,
				Tmax;
	int64		ledger_id;
	gsl_rng    *rng;
	gsl_ran_discrete_t *volatile table = NULL;
	StringInfoData params;

	state = glmstate_final_begin(fcinfo, GLM_KIND_SGD, &pctx);
	if (state == NULL)
		PG_RETURN_NULL();		/* no rows, direct path: nothing runs */

	p = &state->params;
	d = state->d;
	glm_design(state, p->intercept, &X, &cnt, &y, &nobs, &pp);
	n = 0;
	for (int k = 0; k < nobs; k++)
		n += cnt[k];
	Reff = sqrt(p->R * p->R + (p->intercept ? 1.0 : 0.0));
	s = sgd_sigma(p->epsilon, p->delta, Max(n, 1.0), Reff);
	diam = 2.0 * p->radius;
	denom = n * n * Reff * Reff + pp * s * s;
	Tmax = p->T > 0 ? p->T : DPOBJ_SGD_DEFAULT_T;
	T = (n * n < (double) Tmax) ? (int64) (n * n) : Tmax;
	theta = palloc0(sizeof(double) * pp);

	/* 1. charge first */
	ledger_id = mechanism_charge(fcinfo, pctx, "noisysgd", p->epsilon, p->delta);

	/* 2. T noisy projected steps */
	rng = dpobj_rng_new();
	gsl_set_error_handler_off();
	PG_TRY();
	{
		double	   *grad = palloc(sizeof(double) * pp);

		if (nobs > 0)
		{
			table = gsl_ran_discrete_preproc(nobs, cnt);
			if (table == NULL)
				ereport(ERROR,
						(errcode(ERRCODE_OUT_OF_MEMORY),
						 errmsg("out of memory in the GSL sampler")));
		}
		for (int64 t = 1; t <= T; t++)
		{
			double		eta = diam / sqrt((double) t * denom);
			double		norm2 = 0;

			if ((t & 4095) == 0)
				mechanism_poll(ledger_id);
			for (int j = 0; j < pp; j++)
				grad[j] = gsl_ran_gaussian_ziggurat(rng, s);
			if (nobs > 0)
			{
				size_t		k = gsl_ran_discrete(rng, table);
				const double *x = X + k * pp;
				double		z = 0,
							lf,
							ld,
							l2;

				for (int j = 0; j < pp; j++)
					z += theta[j] * x[j];
				glm_loss(p->loss, p->h, y[k] * z, &lf, &ld, &l2);
				for (int j = 0; j < pp; j++)
					grad[j] += n * ld * y[k] * x[j];
			}
			for (int j = 0; j < pp; j++)
			{
				theta[j] -= eta * grad[j];
				norm2 += theta[j] * theta[j];
			}
			if (norm2 > p->radius * p->radius)
			{
				double		f = p->radius / sqrt(norm2);

				for (int j = 0; j < pp; j++)
					theta[j] *= f;
			}
		}
		memset(grad, 0, sizeof(double) * pp);
	}
	PG_FINALLY();
	{
		if (table)
			gsl_ran_discrete_free(table);
		dpobj_rng_free(rng);
	}
	PG_END_TRY();
	ledger_finish(ledger_id, LEDGER_OUTCOME_RELEASED, "sgd");

	/* public parameters only: T and s depend on n, so neither is shown */
	model_params_begin(&params);
	model_params_text(&params, "loss", p->loss == GLM_LOSS_LOGISTIC ? "logistic" : "huber");
	model_params_int(&params, "d", d);
	model_params_float(&params, "R", p->R);
	glm_params_bool(&params, "intercept", p->intercept);
	if (p->loss == GLM_LOSS_HUBER)
		model_params_float(&params, "h", p->h);
	model_params_float(&params, "radius", p->radius);
	model_params_int(&params, "T_max", Tmax);
	model_params_end(&params);
	PG_RETURN_DATUM(model_build(fcinfo, "noisysgd", theta, d,
								p->intercept ? theta[d] : 0.0,
								p->epsilon, p->delta, &params));
}
