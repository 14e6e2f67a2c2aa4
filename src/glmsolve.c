/*-------------------------------------------------------------------------
 *
 * glmsolve.c
 *	  The exact minimiser of dp_logistic (glm.c): damped Newton on the
 *	  distinct rows of the state.
 *
 *	  Objective (CMS11 Alg. 1/2, KST12 objective perturbation; glm.c):
 *	    F(theta) = (1/n) [ sum_k cnt_k l(y_k <theta, x_k>)
 *	                       + (reg/2) ||theta||^2 + <b, theta> ]
 *	  strictly convex (reg > 0), once (Huber, logistic) or twice
 *	  (logistic) differentiable; the 1/n scaling only conditions the
 *	  problem.  The point is accepted when n ||grad F|| = ||grad J|| is at
 *	  most GLM_GRAD_TOL L R_eff (glm.h: absolute, independent of n, so that
 *	  the distance to the exact argmin enters Output-Gauss's sensitivity),
 *	  else nothing is released.
 *
 *	  Newton's method converges in a handful of steps on this problem
 *	  (BFGS needed hundreds of iterations on Adult d = 23, 90 % of a run;
 *	  docs/BENCHMARKS.md "dp_logistic").  Rows are walked in a sparse form
 *	  (one-hot features are mostly zero), so one step costs
 *	  O(sum_k nnz_k^2) for the Hessian rather than O(nobs p^2).  Piecewise
 *	  quadratic losses (Huber) use the generalised Hessian; the Armijo line
 *	  search keeps every step a descent step.
 *
 *	  Everything is palloc'd: an interrupt (mechanism_poll) leaks nothing.
 *
 *-------------------------------------------------------------------------
 */
#include "dpobj.h"

#include <math.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>

#include "glm.h"
#include "mechanism.h"

#define GLM_NEWTON_MAX_ITER	200
#define GLM_ARMIJO			1e-4

/*
 * The objective over the distinct rows, in compressed sparse row form:
 * observation k is row row[k] (entries [start[u], start[u + 1]) of
 * col/val, the intercept's constant 1 included) with label y[k] and count
 * cnt[k]; a row seen with both labels is stored once.
 */
typedef struct GLMProblem
{
	int			nobs;
	int			p;
	const int  *row;
	const double *cnt;
	const double *y;
	const int  *start;
	const int  *col;
	const double *val;
	GLMLoss		loss;
	double		h;
	double		reg;
	const double *b;			/* linear term, or NULL */
	double		scale;			/* 1/n */
} GLMProblem;

/* the nonzero entries of the state's rows (and 1 for the intercept), and the observations */
static void
problem_build(GLMProblem *o, const GLMState *s, bool intercept)
{
	int			d = s->d;
	int			nnz = 0,
				k = 0;
	int		   *start = palloc(sizeof(int) * (s->nrows + 1));
	int		   *row = palloc(sizeof(int) * Max(1, 2 * s->nrows));
	double	   *cnt = palloc(sizeof(double) * Max(1, 2 * s->nrows));
	double	   *y = palloc(sizeof(double) * Max(1, 2 * s->nrows));
	int		   *col;
	double	   *val;
	double		n = 0;

	for (Size i = 0; i < (Size) s->nrows * d; i++)
		nnz += (s->x[i] != 0.0);
	nnz += intercept ? s->nrows : 0;
	col = palloc(sizeof(int) * Max(nnz, 1));
	val = palloc(sizeof(double) * Max(nnz, 1));
	nnz = 0;
	for (int u = 0; u < s->nrows; u++)
	{
		const double *x = s->x + (Size) u * d;

		start[u] = nnz;
		for (int j = 0; j < d; j++)
			if (x[j] != 0.0)
			{
				col[nnz] = j;
				val[nnz++] = x[j];
			}
		if (intercept)
		{
			col[nnz] = d;
			val[nnz++] = 1.0;
		}
		for (int lab = 0; lab < 2; lab++)
		{
			int64		c = lab == 0 ? s->pos[u] : s->neg[u];

			if (c == 0)
				continue;
			row[k] = u;
			cnt[k] = (double) c;
			y[k++] = lab == 0 ? 1.0 : -1.0;
			n += (double) c;
		}
	}
	start[s->nrows] = nnz;
	o->nobs = k;
	o->p = d + (intercept ? 1 : 0);
	o->row = row;
	o->cnt = cnt;
	o->y = y;
	o->start = start;
	o->col = col;
	o->val = val;
	o->scale = 1.0 / Max(n, 1.0);
}

/*
 * F(theta); with g, its gradient; with H (p x p, row-major), its
 * (generalised) Hessian, both triangles filled.
 */
static double
problem_eval(const GLMProblem *o, const double *th, double *g, double *H)
{
	int			p = o->p;
	double		f = 0;

	if (g)
		memset(g, 0, sizeof(double) * p);
	if (H)
		memset(H, 0, sizeof(double) * p * p);
	for (int k = 0; k < o->nobs; k++)
	{
		double		z = 0,
					lf,
					ld,
					l2;

		int			e0 = o->start[o->row[k]],
					e1 = o->start[o->row[k] + 1];

		for (int e = e0; e < e1; e++)
			z += th[o->col[e]] * o->val[e];
		glm_loss(o->loss, o->h, o->y[k] * z, &lf, &ld, &l2);
		f += o->cnt[k] * lf;
		if (g)
		{
			double		gk = o->cnt[k] * ld * o->y[k];

			for (int e = e0; e < e1; e++)
				g[o->col[e]] += gk * o->val[e];
		}
		if (H && l2 != 0.0)
		{
			double		hk = o->cnt[k] * l2;	/* y_k^2 = 1 */

			for (int e = e0; e < e1; e++)
			{
				double		a = hk * o->val[e];

				for (int e2 = e0; e2 <= e; e2++)
					H[o->col[e] * p + o->col[e2]] += a * o->val[e2];
			}
		}
	}
	for (int j = 0; j < p; j++)
	{
		f += 0.5 * o->reg * th[j] * th[j] + (o->b ? o->b[j] * th[j] : 0);
		if (g)
			g[j] = (g[j] + o->reg * th[j] + (o->b ? o->b[j] : 0)) * o->scale;
	}
	if (H)
	{
		/* columns are ascending within a row: the lower triangle was filled */
		for (int i = 0; i < p; i++)
		{
			H[i * p + i] = (H[i * p + i] + o->reg) * o->scale;
			for (int j = 0; j < i; j++)
			{
				H[i * p + j] *= o->scale;
				H[j * p + i] = H[i * p + j];
			}
		}
	}
	return f * o->scale;
}

static double
norm2(const double *v, int p)
{
	double		s = 0;

	for (int j = 0; j < p; j++)
		s += v[j] * v[j];
	return sqrt(s);
}

/* the Newton direction: solve H dir = -g (H positive definite: reg > 0) */
static bool
newton_direction(double *H, const double *g, double *dir, int p)
{
	gsl_matrix_view Hm = gsl_matrix_view_array(H, p, p);
	gsl_vector_const_view gv = gsl_vector_const_view_array(g, p);
	gsl_vector_view dv = gsl_vector_view_array(dir, p);

	if (gsl_linalg_cholesky_decomp1(&Hm.matrix) != GSL_SUCCESS ||
		gsl_linalg_cholesky_solve(&Hm.matrix, &gv.vector, &dv.vector) != GSL_SUCCESS)
		return false;
	for (int j = 0; j < p; j++)
		dir[j] = -dir[j];
	return true;
}

/*
 * Backtracking (Armijo) from the full Newton step; theta is updated.  Near the optimum F can stop decreasing at rounding level while
 * the gradient is still above the tolerance: a full step that does not
 * raise F beyond rounding and shrinks the gradient is taken then.
 */
static bool
line_search(const GLMProblem *o, double *th, double f, const double *g,
			const double *dir, double *trial, double *gtrial)
{
	int			p = o->p;
	double		slope = 0;

	for (int j = 0; j < p; j++)
		slope += g[j] * dir[j];
	if (!(slope < 0))
		return false;
	for (double t = 1.0; t > 1e-12; t *= 0.5)
	{
		double		ft;

		for (int j = 0; j < p; j++)
			trial[j] = th[j] + t * dir[j];
		ft = problem_eval(o, trial, NULL, NULL);
		if (ft > f + GLM_ARMIJO * t * slope)
		{
			/* rounding level at the full step: accept if the gradient shrinks */
			if (t < 1.0 || ft > f + 1e-14 * fabs(f))
				continue;
			problem_eval(o, trial, gtrial, NULL);
			if (norm2(gtrial, p) >= norm2(g, p))
				continue;
		}
		memcpy(th, trial, sizeof(double) * p);
		return true;
	}
	return false;
}

bool
glm_minimise(const GLMState *s, bool intercept, GLMLoss loss, double h, double reg,
			 const double *b, double *theta, int64 ledger_id)
{
	GLMProblem	o;
	int			p;
	double		f,
				tol;
	double	   *g,
			   *H,
			   *dir,
			   *trial,
			   *gtrial;

	problem_build(&o, s, intercept);
	o.loss = loss;
	o.h = h;
	o.reg = reg;
	o.b = b;
	p = o.p;
	g = palloc(sizeof(double) * p);
	H = palloc(sizeof(double) * p * p);
	dir = palloc(sizeof(double) * p);
	trial = palloc(sizeof(double) * p);
	gtrial = palloc(sizeof(double) * p);

	/* ||grad J|| = n ||grad F|| <= GLM_GRAD_TOL L R_eff, L = 1 (glm.h) */
	tol = GLM_GRAD_TOL * sqrt(s->params.R * s->params.R + (intercept ? 1.0 : 0.0)) * o.scale;
	gsl_set_error_handler_off();
	memset(theta, 0, sizeof(double) * p);
	for (int iter = 0;; iter++)
	{
		f = problem_eval(&o, theta, g, H);
		if (norm2(g, p) <= tol)
			return true;
		if (iter == GLM_NEWTON_MAX_ITER)
			return false;
		mechanism_poll(ledger_id);
		if (!newton_direction(H, g, dir, p) ||
			!line_search(&o, theta, f, g, dir, trial, gtrial))
			return false;		/* no descent left above the tolerance */
	}
}
