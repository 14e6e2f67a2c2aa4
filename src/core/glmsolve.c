/*-------------------------------------------------------------------------
 *
 * glmsolve.c
 *	  The minimiser of dp_logistic (glmsolve.h): damped Newton on the
 *	  distinct rows, with accelerated gradient descent (glmdescent.c) as
 *	  the fallback that always ends within the public bound.  Plain C with
 *	  GSL; the server side is glmminimise.c.
 *
 *	  Objective (CMS11 Alg. 1/2, KST12 objective perturbation; glm.c):
 *	    F(theta) = (1/n) [ sum_k cnt_k l(y_k <theta, x_k>)
 *	                       + (reg/2) ||theta||^2 + <b, theta> ]
 *	  reg-strongly convex in sum form, once (Huber, logistic) or twice
 *	  (logistic) differentiable; the 1/n scaling (n = sum_k cnt_k) only
 *	  conditions the problem.  Newton's point is accepted when n ||grad F||
 *	  = ||grad J|| is at most grad_tol (absolute, independent of n: glm.h's
 *	  GLM_GRAD_TOL L R_eff).  When Newton does not get there -- iteration
 *	  bound, Cholesky failure, no acceptable step -- the descent runs from 0 for
 *	  a number of steps after which ||grad J|| <= grad_tol holds in exact
 *	  arithmetic (glmdescent.c), so the solver never fails for the rows'
 *	  sake and its point is always within grad_tol / reg of the argmin
 *	  (docs/PRIVACY.md "Approximate minimisers").
 *
 *	  Newton's method converges in a handful of steps on this problem
 *	  (BFGS needed hundreds of iterations on Adult d = 23, 90 % of a run).
 *	  Rows are walked in a sparse form
 *	  (one-hot features are mostly zero), so one step costs
 *	  O(sum_k nnz_k^2) for the Hessian rather than O(nobs p^2).  Piecewise
 *	  quadratic losses (Huber) use the generalised Hessian.  The line
 *	  search backtracks from the full step until F passes Armijo's test
 *	  or, where F cannot resolve the decrease the test asks for, F does not
 *	  rise beyond its rounding level and ||grad F|| passes Armijo's test
 *	  on the merit ||grad F||^2 / 2 (line_search).  The second test is what
 *	  ends Newton on large tables: near the optimum the decrease of F is
 *	  about ||grad J||^2 / (2 n^2 lambda(H)) (H = F's Hessian, which does
 *	  not grow with n), below the rounding of a sum
 *	  of n losses while ||grad J|| is still above grad_tol, and the
 *	  function test alone rejected every step there (Newton gave up and
 *	  the descent, whose bound grows with sqrt(n), ran for ever in
 *	  practice).  Which test accepts a step never matters to the released
 *	  point's guarantee: that is the gradient test alone.  Each trial is one
 *	  pass computing F, g and H, so an accepted full step costs one pass.
 *	  The sums of F and of the gradient are compensated (Kahan), so that
 *	  their rounding error is about 2u times the sum of the magnitudes, not
 *	  the number of rows times that.
 *
 *	  The work arrays are one block, the caller's or malloc'd and freed
 *	  before every return;
 *	  an interrupt is the caller's poll callback returning true, so no
 *	  longjmp for it crosses this file.  The design comes as a sequence of
 *	  blocks (glmsolve.h); a server block reader that fails on its file
 *	  raises through here, with the work memory the caller's.
 *
 *-------------------------------------------------------------------------
 */
#include "core/glmsolve.h"
#include "core/glmsolveint.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>

#define GLM_ARMIJO			1e-4

/*
 * F's rounding level relative to the magnitude of its terms: well above
 * the error of the compensated loss sum (a few u) and of the losses'
 * arguments, so that F's rounding is never taken for a rise.
 */
#define GLM_F_ROUNDING		1e-12

#define GLM_MAX(a, b)		((a) > (b) ? (a) : (b))

/* what one line search did: took a step, found none, or was stopped by the poll */
typedef enum LineSearch
{
	LS_TAKEN,
	LS_NONE,
	LS_STOPPED
} LineSearch;

/* Newton's iterate (th, F, its terms' magnitude, g, H) and its work arrays */
typedef struct NewtonWork
{
	double	   *th;
	double		f;
	double		mag;
	double	   *H;
	double	   *g;
	double	   *dir;
	double	   *trial;
	double	   *gtrial;
	int64_t    *passes;			/* counts the passes (glmproblem_eval) */
} NewtonWork;


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
 * Backtracking from the full Newton step, halving t.  Each trial is one
 * pass that evaluates F, its gradient and its Hessian (the Cholesky factor
 * in w->H is not needed once the direction is solved), so the accepted
 * trial is the next iterate without another pass.  A step is taken when
 *   (a) F passes Armijo's test, F(t) <= F + c t g.dir, or
 *   (b) F does not rise beyond its rounding level (GLM_F_ROUNDING times
 *       the magnitude of its terms) and the gradient passes Armijo's test
 *       on the merit ||grad F||^2 / 2, whose slope along the Newton
 *       direction d = -H^-1 g is -||g||^2: ||g(t)||^2 <= (1 - 2 c t) ||g||^2.
 * (b) is what ends Newton on large tables: near the optimum the decrease
 * (a) asks for, about ||grad J||^2 / (n^2 lambda(H)), falls below F's
 * rounding while ||grad J|| is still above the tolerance; the gradient's
 * compensated sums resolve it (their error is about 2u times the sum of
 * their terms' magnitudes, far below the tolerance).
 */
static LineSearch
line_search(const GLMProblem *o, const GLMSolveSpec *spec, NewtonWork *w)
{
	int			p = o->p;
	double		slope = 0,
				gn2 = 0;

	for (int j = 0; j < p; j++)
	{
		slope += w->g[j] * w->dir[j];
		gn2 += w->g[j] * w->g[j];
	}
	if (!(slope < 0))
		return LS_NONE;
	for (double t = 1.0; t > 1e-12; t *= 0.5)
	{
		double		ft,
					mt,
					gt2 = 0;

		/* every trial is a pass: a cancel need not wait for the search */
		if (t < 1.0 && spec->poll && spec->poll(spec->poll_arg))
			return LS_STOPPED;
		for (int j = 0; j < p; j++)
			w->trial[j] = w->th[j] + t * w->dir[j];
		ft = glmproblem_eval(o, w->trial, w->gtrial, w->H, &mt);
		(*w->passes)++;
		for (int j = 0; j < p; j++)
			gt2 += w->gtrial[j] * w->gtrial[j];
		if (ft <= w->f + GLM_ARMIJO * t * slope ||
			(ft <= w->f + GLM_F_ROUNDING * GLM_MAX(w->mag, mt) &&
			 gt2 <= (1.0 - 2.0 * GLM_ARMIJO * t) * gn2))
		{
			memcpy(w->th, w->trial, sizeof(double) * p);
			memcpy(w->g, w->gtrial, sizeof(double) * p);
			w->f = ft;
			w->mag = mt;
			return LS_TAKEN;
		}
	}
	return LS_NONE;
}

/* the design is well formed: indices in range, columns strictly ascending */
static bool
design_valid(const GLMSolveDesign *X)
{
	if (X->p < 1 || X->p > GLMSOLVE_MAX_P || X->nrows < 0 || X->nobs < 0 ||
		(X->nrows > 0 && (X->start == NULL || X->start[0] != 0)) ||
		(X->nobs > 0 && (X->row == NULL || X->y == NULL || X->cnt == NULL)))
		return false;
	for (int u = 0; u < X->nrows; u++)
	{
		if (X->start[u + 1] < X->start[u] ||
			(X->start[u + 1] > X->start[u] && (X->col == NULL || X->val == NULL)))
			return false;
		for (int64_t e = X->start[u]; e < X->start[u + 1]; e++)
			if (X->col[e] < 0 || X->col[e] >= X->p ||
				(e > X->start[u] && X->col[e] <= X->col[e - 1]))
				return false;
	}
	for (int64_t k = 0; k < X->nobs; k++)
		if (X->row[k] < 0 || X->row[k] >= X->nrows ||
			(X->y[k] != 1.0 && X->y[k] != -1.0) ||
			!(X->cnt[k] > 0 && isfinite(X->cnt[k])))
			return false;
	return true;
}

/* the loss is smooth, reg and grad_tol are positive numbers */
static bool
spec_valid(const GLMSolveSpec *spec)
{
	if (spec->loss == GLM_LOSS_HUBER)
	{
		if (!(spec->h > 0 && isfinite(spec->h)))
			return false;
	}
	else if (spec->loss != GLM_LOSS_LOGISTIC)
		return false;
	/* strong convexity and a positive tolerance: the descent's bound needs both */
	return spec->reg >= DBL_MIN && isfinite(spec->reg) &&
		spec->grad_tol > 0 && isfinite(spec->grad_tol);
}

#define GLM_WARM_MIN_OBS	(INT64_C(1) << 18)
#define GLM_WARM_OBS		(INT64_C(1) << 15)

/* the thinned observations in memory: one block of their own rows */
typedef struct ThinDesign
{
	GLMSolveDesign X;
	int64_t    *start;
	int		   *col;
	double	   *val;
	int		   *row;
	double	   *y;
	double	   *cnt;
	int64_t		n;				/* observations copied */
} ThinDesign;

static void
thin_free(ThinDesign *t)
{
	free(t->start);
	free(t->col);
	free(t->val);
	free(t->row);
	free(t->y);
	free(t->cnt);
}

/*
 * The arrays for the thinned observations of a design of nobs observations
 * (every stride-th, each with its own copy of its row), malloc'd, if their
 * largest size (every row with all p entries) is at most max_bytes; false
 * (nothing held) if not.
 */
static bool
thin_alloc(ThinDesign *t, int p, int64_t nobs, int64_t stride, size_t max_bytes)
{
	int64_t		n = nobs / stride + 1,
				nnz = n * p;

	memset(t, 0, sizeof(*t));
	if ((size_t) (n + 1) * 36 + (size_t) nnz * 12 > max_bytes)
		return false;
	t->start = malloc(sizeof(int64_t) * (n + 1));
	t->col = malloc(sizeof(int) * nnz);
	t->val = malloc(sizeof(double) * nnz);
	t->row = malloc(sizeof(int) * n);
	t->y = malloc(sizeof(double) * n);
	t->cnt = malloc(sizeof(double) * n);
	if (!t->start || !t->col || !t->val || !t->row || !t->y || !t->cnt)
	{
		thin_free(t);
		return false;
	}
	t->start[0] = 0;
	return true;
}

/*
 * Copies block X's thinned observations -- those whose index in the whole
 * design is a multiple of stride, their counts times stride -- into t;
 * seen: the design's observations before X.
 */
static void
thin_add(ThinDesign *t, const GLMSolveDesign *X, int64_t stride, int64_t seen)
{
	int64_t		n = t->n,
				nnz = t->start[n];

	for (int64_t k = (stride - seen % stride) % stride; k < X->nobs; k += stride)
	{
		for (int64_t e = X->start[X->row[k]]; e < X->start[X->row[k] + 1]; e++)
		{
			t->col[nnz] = X->col[e];
			t->val[nnz++] = X->val[e];
		}
		t->row[n] = (int) n;
		t->y[n] = X->y[k];
		t->cnt[n] = X->cnt[k] * (double) stride;
		t->start[++n] = nnz;
	}
	t->n = n;
}

/* t's observations as one design of p parameters */
static void
thin_finish(ThinDesign *t, int p)
{
	t->X = (GLMSolveDesign) {p, (int) t->n, t->start, t->col, t->val, t->n, t->row, t->y, t->cnt};
}

/*
 * Copies o's thinned observations (every o->stride-th, its count times the
 * stride) into t in one pass, if they fit in max_bytes (thin_alloc); false
 * (nothing held, no pass) if not.
 */
static bool
thin_copy(const GLMProblem *o, size_t max_bytes, ThinDesign *t)
{
	int64_t		seen = 0;

	if (!thin_alloc(t, o->p, o->nobs, o->stride, max_bytes))
		return false;
	for (const GLMSolveDesign *X = glmproblem_block(o, true); X; X = glmproblem_block(o, false))
	{
		thin_add(t, X, o->stride, seen);
		seen += X->nobs;
	}
	thin_finish(t, o->p);
	return true;
}

/* problem_init's failure: no thinned design held */
static bool
problem_fail(ThinDesign *t, bool *thinned)
{
	if (*thinned)
		thin_free(t);
	*thinned = false;
	return false;
}

/*
 * the problem over the blocks B with spec's loss; scale = 1/max(n, 1), n =
 * sum of counts; comp: p doubles of work.  False if a block is malformed
 * or B->nobs is not their number.  When B->nobs announces a design the
 * warm start thins (warm_start), the same pass copies the thinned
 * observations into *t (*thinned; free them with thin_free).
 */
static bool
problem_init(GLMProblem *o, const GLMSolveBlocks *B, const GLMSolveSpec *spec, double *comp,
			 ThinDesign *t, bool *thinned)
{
	double		n = 0;
	int64_t		stride = B->nobs / GLM_WARM_OBS;

	o->p = B->p;
	o->blocks = B;
	o->nobs = 0;
	o->stride = 1;
	*thinned = B->nobs >= GLM_WARM_MIN_OBS && !spec->skip_newton &&
		thin_alloc(t, B->p, B->nobs, stride, spec->warm_bytes);
	for (const GLMSolveDesign *X = glmproblem_block(o, true); X; X = glmproblem_block(o, false))
	{
		/* thin_alloc's room holds B->nobs observations' share, no more */
		if (X->p != B->p || !design_valid(X) ||
			(*thinned && X->nobs > B->nobs - o->nobs))
			return problem_fail(t, thinned);
		for (int64_t k = 0; k < X->nobs; k++)
			n += X->cnt[k];
		if (*thinned)
			thin_add(t, X, stride, o->nobs);
		o->nobs += X->nobs;
	}
	if (B->nobs > 0 && o->nobs != B->nobs)
		return problem_fail(t, thinned);
	if (*thinned)
		thin_finish(t, o->p);
	o->loss = spec->loss;
	o->h = spec->h;
	o->reg = spec->reg;
	o->b = spec->b;
	o->scale = 1.0 / (n > 1.0 ? n : 1.0);
	o->comp = comp;
	return true;
}

/*
 * Newton steps from theta = 0 (from_zero) or from theta until the gradient test passes
 * (GLMSOLVE_CONVERGED), the poll stops it (GLMSOLVE_STOPPED; polled before
 * each step and before each line-search trial after the first), or it gives
 * up -- the iteration bound, a failed Cholesky factorisation, no acceptable
 * step -- and returns GLMSOLVE_BOUNDED: the caller runs the descent then.
 * work: p^2 + 4p.
 */
static GLMSolveStatus
newton(const GLMProblem *o, const GLMSolveSpec *spec, bool from_zero, double *theta,
	   double *work, GLMSolveResult *res)
{
	int			p = o->p;
	NewtonWork	w;
	/* ||grad J|| = n ||grad F|| <= grad_tol */
	double		tol = spec->grad_tol * o->scale;

	w.th = theta;
	w.H = work;
	w.g = w.H + (size_t) p * p;
	w.dir = w.g + p;
	w.trial = w.dir + p;
	w.gtrial = w.trial + p;
	gsl_set_error_handler_off();
	if (from_zero)
		memset(theta, 0, sizeof(double) * p);
	w.f = glmproblem_eval(o, theta, w.g, w.H, &w.mag);
	w.passes = &res->newton_passes;
	(*w.passes)++;
	for (res->iterations = 0;; res->iterations++)
	{
		double		gn = glmproblem_norm2(w.g, p);

		res->grad_norm = gn / o->scale;
		if (gn <= tol)
			return GLMSOLVE_CONVERGED;
		if (res->iterations == GLMSOLVE_MAX_ITER)
			return GLMSOLVE_BOUNDED;
		if (spec->poll && spec->poll(spec->poll_arg))
			return GLMSOLVE_STOPPED;
		if (!newton_direction(w.H, w.g, w.dir, p))
			return GLMSOLVE_BOUNDED;
		switch (line_search(o, spec, &w))
		{
			case LS_TAKEN:
				break;
			case LS_STOPPED:
				return GLMSOLVE_STOPPED;
			case LS_NONE:
				return GLMSOLVE_BOUNDED;	/* no descent left above the tolerance */
		}
	}
}

size_t
glmsolve_work_doubles(int p)
{
	size_t		np = (size_t) p;

	if (p < 1 || p > GLMSOLVE_MAX_P)
		return 0;
	return np * np + 5 * np;
}

/*
 * On a design of at least GLM_WARM_MIN_OBS observations, Newton first
 * minimises the thinned problem -- every s-th observation of the design's
 * order, its count times s, s = nobs / GLM_WARM_OBS (rounded down): about
 * GLM_WARM_OBS observations, held in memory when spec->warm_bytes allows
 * (else each of its passes reads the design and skips the other rows) --
 * and the full problem's Newton starts from that point, a few steps from
 * its own minimiser instead of many (each a pass over every row).  The
 * start changes neither what is returned (the full problem's gradient test,
 * or the descent from 0) nor its guarantee (docs/PRIVACY.md, "Approximate
 * minimisers"); it depends only on the design, so the result stays a
 * function of the observation sequence.  *warm: theta holds the start.
 * pre: the thinned design problem_init copied (freed here), or NULL.
 */
static GLMSolveStatus
warm_start(const GLMProblem *o, const GLMSolveSpec *spec, double *theta, double *work,
		   bool *warm, GLMSolveResult *res, ThinDesign *pre)
{
	GLMProblem	thin = *o;
	GLMSolveResult tres = {0};
	GLMSolveStatus status;
	GLMSolveBlocks one = {0};
	ThinDesign	t;
	bool		copied;

	*warm = false;
	if (o->nobs < GLM_WARM_MIN_OBS)
		return GLMSOLVE_CONVERGED;
	thin.stride = o->nobs / GLM_WARM_OBS;
	if (pre != NULL)
		t = *pre;
	copied = pre != NULL || thin_copy(&thin, spec->warm_bytes, &t);
	if (copied)
	{
		/* the same objective: F's scale stays the full design's 1/n */
		glmsolve_single_block(&one, &t.X);
		thin.blocks = &one;
		thin.stride = 1;
		thin.nobs = t.X.nobs;
	}
	status = newton(&thin, spec, true, theta, work, &tres);
	if (copied)
		thin_free(&t);
	res->warm_iterations = tres.iterations;
	/* the copy is a pass of its own unless problem_init's pass made it */
	res->warm_passes = tres.newton_passes + (copied && pre == NULL ? 1 : 0);
	/* a point Newton gave up on may still be far off: then the full one starts from 0 */
	*warm = (status == GLMSOLVE_CONVERGED);
	return status;
}

/*
 * Newton first (unless skipped); where it gives up, the descent, whose
 * step bound guarantees the tolerance (glmdescent.c).  work: p^2 + 5p.
 */
static GLMSolveStatus
solve(const GLMSolveBlocks *B, const GLMSolveSpec *spec, double *theta, double *work,
	  GLMSolveResult *res)
{
	size_t		pp = (size_t) B->p * B->p;
	GLMProblem	o;
	GLMSolveStatus status = GLMSOLVE_BOUNDED;
	ThinDesign	t;
	bool		thinned;

	if (!problem_init(&o, B, spec, work + pp + 4 * (size_t) B->p, &t, &thinned))
		return GLMSOLVE_INVALID;
	if (!spec->skip_newton)
	{
		bool		warm = false;

		status = warm_start(&o, spec, theta, work, &warm, res, thinned ? &t : NULL);
		if (status != GLMSOLVE_STOPPED)
			status = newton(&o, spec, !warm, theta, work, res);
	}
	if (status != GLMSOLVE_BOUNDED)
		return status;
	res->descent = true;
	return glmdescent_run(&o, spec, theta, work + pp, res);
}

GLMSolveStatus
glmsolve_minimise_blocks(const GLMSolveBlocks *B, const GLMSolveSpec *spec, double *theta,
						 GLMSolveResult *result)
{
	GLMSolveResult res = {0, 0, 0, 0, false, 0, 0, NAN};
	GLMSolveStatus status = GLMSOLVE_NO_MEMORY;

	if (B == NULL || B->next == NULL || spec == NULL || theta == NULL ||
		B->p < 1 || B->p > GLMSOLVE_MAX_P || !spec_valid(spec))
		status = GLMSOLVE_INVALID;
	else
	{
		/* H, g, dir, trial, gtrial, comp */
		double	   *work = spec->work ? spec->work :
			malloc(sizeof(double) * glmsolve_work_doubles(B->p));

		if (work)
		{
			status = solve(B, spec, theta, work, &res);
			if (work != spec->work)
				free(work);
		}
	}
	if (result)
		*result = res;
	return status;
}

/* one block: the whole design */
static bool
single_block(void *arg, bool first, const GLMSolveDesign **block)
{
	*block = (const GLMSolveDesign *) arg;
	return first;
}

void
glmsolve_single_block(GLMSolveBlocks *B, const GLMSolveDesign *X)
{
	B->p = X ? X->p : 0;
	B->next = single_block;
	B->arg = (void *) X;
	B->nobs = X ? X->nobs : 0;
}

GLMSolveStatus
glmsolve_minimise(const GLMSolveDesign *X, const GLMSolveSpec *spec, double *theta,
				  GLMSolveResult *result)
{
	GLMSolveBlocks B;

	glmsolve_single_block(&B, X);
	return glmsolve_minimise_blocks(&B, spec, theta, result);
}
