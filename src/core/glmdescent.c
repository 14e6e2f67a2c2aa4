/*-------------------------------------------------------------------------
 *
 * glmdescent.c
 *	  The fallback of dp_logistic's minimiser (glmsolveint.h
 *	  glmdescent_run): Nesterov's accelerated gradient descent for smooth
 *	  strongly convex functions, run for a number of steps after which the
 *	  gradient bound holds in exact arithmetic.  Plain C; the objective is
 *	  glmsolve.c's.
 *
 *	  J (sum form) is reg-strongly convex, and Lsum-smooth with
 *	    Lsum = beta sum_k cnt_k ||x_k||^2 + reg,
 *	  beta the bound on l'' (1/4 logistic, 1/(2h) Huber): the Hessian
 *	  sum_k cnt_k l'' x_k x_k^T + reg I (Huber: wherever it exists; its
 *	  gradient is Lipschitz) has spectral norm at most its trace bound.
 *	  kappa = Lsum / reg.  The constant-momentum scheme (Nesterov 2004,
 *	  "Introductory Lectures on Convex Optimization", scheme (2.2.19);
 *	  Bubeck 2015, "Convex Optimization: Algorithms and Complexity",
 *	  Theorem 3.18), with x_1 = y_1 = 0,
 *	    y_{s+1} = x_s - grad J(x_s) / Lsum,
 *	    x_{s+1} = y_{s+1} + q (y_{s+1} - y_s),  q = (sqrt kappa - 1)/(sqrt kappa + 1),
 *	  has J(y_t) - J* <= (reg + Lsum)/2 ||x_1 - x*||^2 exp(-(t - 1)/sqrt kappa).
 *	  With ||x_1 - x*|| <= g0 / reg (strong convexity, g0 = ||grad J(0)||)
 *	  and ||grad J(y)||^2 <= 2 Lsum (J(y) - J*) (smoothness):
 *	    ||grad J(y_t)||^2 <= kappa (kappa + 1) g0^2 exp(-(t - 1)/sqrt kappa),
 *	  which is at most tol^2 once
 *	    t >= T = 1 + ceil(sqrt kappa (ln(kappa (kappa + 1)) + 2 ln(g0 / tol))).
 *	  So y_T is within tol / reg of the argmin, whatever the rows.
 *
 *	  T depends on kappa and g0, hence on the rows (through n and the row
 *	  norms): it is a bound that makes the solver always end, not a public
 *	  constant; the run time stays data-dependent (docs/SECURITY.md, run
 *	  time).  Rounding: the computed gradients carry an error of about 2u
 *	  times the sum of the magnitudes of their terms (compensated sums,
 *	  glmsolve.c), which the acceleration can accumulate; docs/PRIVACY.md
 *	  "Approximate minimisers" states the residual.
 *
 *-------------------------------------------------------------------------
 */
#include "core/glmsolveint.h"

#include <math.h>
#include <string.h>

/* a step bound no run reaches; only a degenerate kappa (reg near DBL_MIN) hits it */
#define GLMDESCENT_MAX_STEPS	4611686018427387904.0	/* 2^62 */

/* Lsum / n: the smoothness of F = J / n (see the header) */
static double
smoothness(const GLMProblem *o)
{
	double		beta = o->loss == GLM_LOSS_LOGISTIC ? 0.25 : 1.0 / (2.0 * o->h);
	double		s = 0;

	for (const GLMSolveDesign *X = glmproblem_block(o, true); X; X = glmproblem_block(o, false))
		for (int64_t k = 0; k < X->nobs; k++)
		{
			double		x2 = 0;

			for (int64_t e = X->start[X->row[k]]; e < X->start[X->row[k] + 1]; e++)
				x2 += X->val[e] * X->val[e];
			s += X->cnt[k] * x2;
		}
	return (beta * s + o->reg) * o->scale;
}

/* T of the header for kappa, g0 / tol > 1; capped at GLMDESCENT_MAX_STEPS */
static double
step_bound(double kappa, double ratio)
{
	double		T = 1.0 + ceil(sqrt(kappa) * (log(kappa) + log(kappa + 1.0) +
										   2.0 * log(ratio)));

	return (T <= GLMDESCENT_MAX_STEPS) ? T : GLMDESCENT_MAX_STEPS;
}

/* theta = y_T: its computed gradient decides CONVERGED or BOUNDED */
static GLMSolveStatus
descent_end(const GLMProblem *o, double tol, double *theta, const double *y, double *g,
			GLMSolveResult *res)
{
	memcpy(theta, y, sizeof(double) * o->p);
	glmproblem_eval(o, theta, g, NULL, NULL);
	res->grad_norm = glmproblem_norm2(g, o->p) / o->scale;
	return res->grad_norm * o->scale <= tol ? GLMSOLVE_CONVERGED : GLMSOLVE_BOUNDED;
}

GLMSolveStatus
glmdescent_run(const GLMProblem *o, const GLMSolveSpec *spec, double *theta, double *work,
			   GLMSolveResult *res)
{
	int			p = o->p;
	double	   *g = work,
			   *y = g + p,
			   *ynext = y + p;
	double		L = smoothness(o),
				kappa = L / (o->reg * o->scale),
				q = (sqrt(kappa) - 1.0) / (sqrt(kappa) + 1.0),
				tol = spec->grad_tol * o->scale;	/* ||grad J|| <= grad_tol */

	memset(theta, 0, sizeof(double) * p);
	memset(y, 0, sizeof(double) * p);
	for (res->descent_steps = 0;; res->descent_steps++)
	{
		double		gn;

		glmproblem_eval(o, theta, g, NULL, NULL);
		gn = glmproblem_norm2(g, p);
		res->grad_norm = gn / o->scale;
		if (gn <= tol)
			return GLMSOLVE_CONVERGED;	/* x_s passes the test itself */
		if (res->descent_steps == 0)
			res->descent_bound = step_bound(kappa, gn / tol);
		if ((double) res->descent_steps + 1.0 >= res->descent_bound)
			return descent_end(o, tol, theta, y, g, res);
		if (spec->poll && spec->poll(spec->poll_arg))
			return GLMSOLVE_STOPPED;
		for (int j = 0; j < p; j++)
		{
			ynext[j] = theta[j] - g[j] / L;
			theta[j] = ynext[j] + q * (ynext[j] - y[j]);
			y[j] = ynext[j];
		}
	}
}
