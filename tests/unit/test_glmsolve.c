/*
 * test_glmsolve.c -- the plain-C minimiser of dp_logistic (src/core/glmsolve.c)
 * without PostgreSQL.  The objective, its gradient and the losses are
 * recomputed here from their definitions (dense rows, own loss formulas),
 * independently of the solver and of src/core/glmloss.c:
 *   1. random small problems (logistic and Huber, with and without b and
 *      an intercept column): the solver converges, the independent
 *      ||grad J(theta)|| is within grad_tol, and theta is within the
 *      strong-convexity bound (||grad J(theta)|| + ||grad J(theta_ref)||) /
 *      reg of a slow reference (gradient descent to ||grad J|| <= 1e-10);
 *      J(theta) is within ||grad J(theta)||^2 / (2 reg) of the minimum
 *      value, checked against the reference and random points;
 *   2. planted minimisers (b chosen so that a random theta* is the exact
 *      argmin) and the 1-D closed forms of the Huber loss's three pieces;
 *   3. the poll callback stops the solver before the step it is called
 *      for (GLMSOLVE_STOPPED), a poll that never stops changes nothing;
 *      allocation failure is GLMSOLVE_NO_MEMORY (the solver's malloc is
 *      this file's, see the Makefile); valgrind --leak-check=full shows
 *      nothing lost on any path; a caller's work block (spec.work, sized
 *      by glmsolve_work_doubles, checked up to GLMSOLVE_MAX_P) is used
 *      without any malloc and gives the same point bit for bit;
 *   4. out-of-range inputs are GLMSOLVE_INVALID, tolerance 0 and reg 0
 *      among them (the descent's bound needs both positive);
 *   5. the fallback: with Newton skipped, the accelerated descent
 *      (src/core/glmdescent.c) meets the same checks as 1. within its step
 *      bound; a tolerance below rounding level makes Newton give up (the
 *      old solver's "not converged") and the descent run its whole bound
 *      (GLMSOLVE_BOUNDED), ending next to the reference all the same.
 * Prints "N passed, M failed"; exits non-zero on a failure.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "core/glmsolve.h"
#include "unitcheck.h"

#define MAXP	7
#define MAXR	14
#define MAXO	(2 * MAXR)


/* the solver's malloc (compiled with -Dmalloc=test_glmsolve_malloc): fails call fail_at */
static int	malloc_calls,
			malloc_fail_at;

void	   *test_glmsolve_malloc(size_t n);

void *
test_glmsolve_malloc(size_t n)
{
	if (++malloc_calls == malloc_fail_at)
		return NULL;
	return malloc(n);
}

typedef struct Prob
{
	int			p,
				nrows,
				nobs;
	int64_t		start[MAXR + 1];
	int			col[MAXR * MAXP],
				row[MAXO];
	double		val[MAXR * MAXP],
				y[MAXO],
				cnt[MAXO],
				b[MAXP];
	double		dense[MAXR][MAXP];	/* the rows, for the independent objective */
	GLMSolveDesign X;
	GLMSolveSpec spec;
} Prob;

/* ---- the objective from its definition ---- */

/* loss and derivative in z (docs/ALGORITHMS.md, "L2-regularised GLMs"), written out afresh */
static double
t_loss(const GLMSolveSpec *s, double z, double *d1)
{
	double		h = s->h;

	if (s->loss == GLM_LOSS_LOGISTIC)
	{
		*d1 = -1.0 / (1.0 + exp(z));
		return z > 0 ? log1p(exp(-z)) : -z + log1p(exp(z));
	}
	if (z >= 1.0 + h)
		return *d1 = 0.0;
	if (z <= 1.0 - h)
	{
		*d1 = -1.0;
		return 1.0 - z;
	}
	*d1 = -(1.0 + h - z) / (2.0 * h);
	return (1.0 + h - z) * (1.0 + h - z) / (4.0 * h);
}

/* J(theta) in sum form; grad (if not NULL) its gradient */
static double
t_objective(const Prob *P, const double *th, double *grad)
{
	double		J = 0;

	for (int j = 0; j < P->p; j++)
	{
		J += 0.5 * P->spec.reg * th[j] * th[j] + (P->spec.b ? P->spec.b[j] * th[j] : 0);
		if (grad)
			grad[j] = P->spec.reg * th[j] + (P->spec.b ? P->spec.b[j] : 0);
	}
	for (int k = 0; k < P->nobs; k++)
	{
		const double *x = P->dense[P->row[k]];
		double		z = 0,
					d1;

		for (int j = 0; j < P->p; j++)
			z += x[j] * th[j];
		J += P->cnt[k] * t_loss(&P->spec, P->y[k] * z, &d1);
		if (grad)
			for (int j = 0; j < P->p; j++)
				grad[j] += P->cnt[k] * d1 * P->y[k] * x[j];
	}
	return J;
}

static double
t_norm(const double *v, int p)
{
	double		s = 0;

	for (int j = 0; j < p; j++)
		s += v[j] * v[j];
	return sqrt(s);
}

static double
t_gradnorm(const Prob *P, const double *th)
{
	double		g[MAXP];

	t_objective(P, th, g);
	return t_norm(g, P->p);
}

static double
t_dist(const double *a, const double *b, int p)
{
	double		s = 0;

	for (int j = 0; j < p; j++)
		s += (a[j] - b[j]) * (a[j] - b[j]);
	return sqrt(s);
}

/*
 * The slow reference: gradient descent with step 1/L, L = beta sum_k cnt_k
 * ||x_k||^2 + reg the smoothness constant; returns its ||grad J||.
 */
static double
t_reference(const Prob *P, double *th)
{
	double		beta = P->spec.loss == GLM_LOSS_LOGISTIC ? 0.25 : 1.0 / (2.0 * P->spec.h);
	double		L = P->spec.reg,
				g[MAXP],
				gn = INFINITY;

	for (int k = 0; k < P->nobs; k++)
		L += beta * P->cnt[k] * pow(t_norm(P->dense[P->row[k]], P->p), 2);
	memset(th, 0, sizeof(double) * P->p);
	for (long it = 0; it < 4000000 && gn > 1e-10; it++)
	{
		t_objective(P, th, g);
		gn = t_norm(g, P->p);
		for (int j = 0; j < P->p; j++)
			th[j] -= g[j] / L;
	}
	return t_gradnorm(P, th);
}

/* ---- problems ---- */

/* the sparse design of P's dense rows (entries != 0, ascending columns) */
static void
prob_finish(Prob *P)
{
	int64_t		nnz = 0;

	for (int u = 0; u < P->nrows; u++)
	{
		P->start[u] = nnz;
		for (int j = 0; j < P->p; j++)
			if (P->dense[u][j] != 0.0)
			{
				P->col[nnz] = j;
				P->val[nnz++] = P->dense[u][j];
			}
	}
	P->start[P->nrows] = nnz;
	P->X = (GLMSolveDesign) {P->p, P->nrows, P->start, P->col, P->val,
		P->nobs, P->row, P->y, P->cnt};
}

/* X and b point into P itself (after a struct copy) */
static void
prob_repoint(Prob *P)
{
	P->X.start = P->start;
	P->X.col = P->col;
	P->X.val = P->val;
	P->X.row = P->row;
	P->X.y = P->y;
	P->X.cnt = P->cnt;
	if (P->spec.b)
		P->spec.b = P->b;
}

static void
prob_add_obs(Prob *P, int u, double y, double c)
{
	P->row[P->nobs] = u;
	P->y[P->nobs] = y;
	P->cnt[P->nobs++] = c;
}

/* rows with ||x|| <= 1, about 40 % zeros, an intercept column of ones if asked */
static void
prob_random_rows(Prob *P, gsl_rng *r, bool intercept)
{
	int			d = P->p - (intercept ? 1 : 0);

	for (int u = 0; u < P->nrows; u++)
	{
		double		nrm;

		for (int j = 0; j < d; j++)
			P->dense[u][j] = gsl_rng_uniform(r) < 0.4 ? 0.0 : 2.0 * gsl_rng_uniform(r) - 1.0;
		nrm = t_norm(P->dense[u], d);
		for (int j = 0; j < d && nrm > 1.0; j++)
			P->dense[u][j] /= nrm;
		if (intercept)
			P->dense[u][d] = 1.0;
	}
}

/* a random problem; reg is reg_frac (x 0.2 .. 1.2) of the data's curvature bound */
static void
prob_random(Prob *P, gsl_rng *r, double reg_frac)
{
	static const double hs[] = {0.1, 0.25, 0.5, 1.0};
	bool		intercept = gsl_rng_uniform(r) < 0.5;
	double		beta,
				Ldata = 0;

	memset(P, 0, sizeof(*P));
	P->p = 1 + (int) gsl_rng_uniform_int(r, MAXP - 1) + (intercept ? 1 : 0);
	P->nrows = 1 + (int) gsl_rng_uniform_int(r, MAXR);
	prob_random_rows(P, r, intercept);
	for (int u = 0; u < P->nrows; u++)
		for (int lab = 0; lab < 2; lab++)
		{
			int			c = (int) gsl_rng_uniform_int(r, 5);

			if (c > 0)
				prob_add_obs(P, u, lab == 0 ? 1.0 : -1.0, c);
		}
	P->spec.loss = gsl_rng_uniform(r) < 0.5 ? GLM_LOSS_LOGISTIC : GLM_LOSS_HUBER;
	P->spec.h = hs[gsl_rng_uniform_int(r, 4)];
	beta = P->spec.loss == GLM_LOSS_LOGISTIC ? 0.25 : 1.0 / (2.0 * P->spec.h);
	for (int k = 0; k < P->nobs; k++)
		Ldata += beta * P->cnt[k] * pow(t_norm(P->dense[P->row[k]], P->p), 2);
	P->spec.reg = fmax(Ldata, 0.1) * reg_frac * (0.2 + gsl_rng_uniform(r));
	if (gsl_rng_uniform(r) < 0.7)
	{
		double		sb = gsl_rng_uniform(r) < 0.5 ? 0.1 : 3.0;

		for (int j = 0; j < P->p; j++)
			P->b[j] = gsl_ran_gaussian(r, sb);
		P->spec.b = P->b;
	}
	P->spec.grad_tol = 1e-6 * sqrt(2.0);	/* GLM_GRAD_TOL L R_eff, R = 1, intercept */
	prob_finish(P);
}

/* ---- the design in blocks: the same bits as the whole design ---- */

/* blocks of consecutive rows of P, cut at random; each block's row indices its own */
typedef struct Blocks
{
	int			n;
	int			k;				/* next block */
	GLMSolveDesign X[MAXR];
	int64_t		start[MAXR][MAXR + 1];
	int			row[MAXR][MAXO];
} Blocks;

static bool
blocks_next(void *arg, bool first, const GLMSolveDesign **block)
{
	Blocks	   *B = (Blocks *) arg;

	if (first)
		B->k = 0;
	if (B->k == B->n)
		return false;
	*block = &B->X[B->k++];
	return true;
}

static void
blocks_cut(const Prob *P, gsl_rng *r, Blocks *B)
{
	int			u0 = 0;
	int64_t		k = 0;

	B->n = 0;
	while (u0 < P->nrows)
	{
		int			u1 = u0 + 1 + (int) gsl_rng_uniform_int(r, 4);
		GLMSolveDesign *X = &B->X[B->n];

		u1 = u1 > P->nrows ? P->nrows : u1;
		for (int u = u0; u <= u1; u++)
			B->start[B->n][u - u0] = P->start[u] - P->start[u0];
		*X = P->X;
		X->nrows = u1 - u0;
		X->start = B->start[B->n];
		X->col = P->col + P->start[u0];
		X->val = P->val + P->start[u0];
		X->row = B->row[B->n];
		X->y = P->y + k;
		X->cnt = P->cnt + k;
		X->nobs = 0;
		/* the observations are in row order */
		while (k < P->nobs && P->row[k] < u1)
			B->row[B->n][X->nobs++] = P->row[k++] - u0;
		B->n++;
		u0 = u1;
	}
}

static void
check_blocks(const Prob *P, gsl_rng *r, int id)
{
	for (int skip = 0; skip < 2; skip++)
	{
		Blocks		B;
		GLMSolveBlocks src = {P->p, blocks_next, &B};
		GLMSolveSpec spec = P->spec;
		double		th[MAXP],
					tb[MAXP];
		GLMSolveStatus s1,
					s2;

		spec.skip_newton = skip;
		blocks_cut(P, r, &B);
		s1 = glmsolve_minimise(&P->X, &spec, th, NULL);
		s2 = glmsolve_minimise_blocks(&src, &spec, tb, NULL);
		CHECK(s1 == s2 && memcmp(th, tb, sizeof(double) * P->p) == 0,
			  "problem %d (%s): %d blocks give the whole design's theta bit for bit (status %d, %d)",
			  id, skip ? "descent" : "newton", B.n, s1, s2);
	}
}

/* ---- 1. random problems against the reference ---- */

static void
check_random(const Prob *P, int id)
{
	double		th[MAXP],
				ref[MAXP],
				th2[MAXP],
				gs,
				gr,
				Js,
				reg = P->spec.reg;
	GLMSolveResult res;
	GLMSolveStatus st = glmsolve_minimise(&P->X, &P->spec, th, &res);

	CHECK(st == GLMSOLVE_CONVERGED, "random %d (p=%d nobs=%d loss=%d): converged (status %d)",
		  id, P->p, P->nobs, P->spec.loss, st);
	if (st != GLMSOLVE_CONVERGED)
		return;
	gs = t_gradnorm(P, th);
	/* 1e-12: rounding of the two gradient computations (|terms| <= sum cnt <= 112) */
	CHECK(gs <= P->spec.grad_tol + 1e-12, "random %d: ||grad J|| %g <= tol %g", id, gs, P->spec.grad_tol);
	CHECK(fabs(res.grad_norm - gs) <= 1e-12 + 1e-9 * gs,
		  "random %d: reported gradient norm %g = independent %g", id, res.grad_norm, gs);
	gr = t_reference(P, ref);
	CHECK(gr <= 1e-10, "random %d: the reference converged (%g)", id, gr);
	CHECK(t_dist(th, ref, P->p) <= (gs + gr) / reg + 1e-12 / reg,
		  "random %d: ||theta - theta_ref|| %g <= (%g + %g) / %g", id, t_dist(th, ref, P->p), gs, gr, reg);
	Js = t_objective(P, th, NULL);
	CHECK(Js <= t_objective(P, ref, NULL) + gs * gs / (2 * reg) + 1e-12 * (1 + fabs(Js)),
		  "random %d: J(theta) %.17g within grad^2/(2 reg) of J(theta_ref)", id, Js);
	/* a tighter tolerance still converges: the 1e-6 test is not met by luck */
	{
		GLMSolveSpec s2 = P->spec;

		s2.grad_tol = 1e-9;
		st = glmsolve_minimise(&P->X, &s2, th2, NULL);
		CHECK(st == GLMSOLVE_CONVERGED && t_gradnorm(P, th2) <= 1e-9 + 1e-12,
			  "random %d: converges to grad_tol 1e-9 (status %d)", id, st);
		CHECK(st != GLMSOLVE_CONVERGED || t_dist(th2, ref, P->p) <= (1e-9 + 1e-12 + gr) / reg,
			  "random %d: theta(1e-9) within (1e-9 + %g) / reg of the reference", id, gr);
	}
}

/* strong convexity: no point is more than ||grad J(theta)||^2 / (2 reg) below J(theta) */
static void
check_random_points(const Prob *P, gsl_rng *r, int id)
{
	double		th[MAXP],
				q[MAXP],
				gs,
				Js;
	bool		ok = true;

	if (glmsolve_minimise(&P->X, &P->spec, th, NULL) != GLMSOLVE_CONVERGED)
		return;					/* reported by check_random */
	gs = t_gradnorm(P, th);
	Js = t_objective(P, th, NULL);
	for (int t = 0; t < 50; t++)
	{
		double		rad = pow(10.0, -6.0 + 6.0 * gsl_rng_uniform(r));

		for (int j = 0; j < P->p; j++)
			q[j] = th[j] + gsl_ran_gaussian(r, rad);
		if (t_objective(P, q, NULL) < Js - gs * gs / (2 * P->spec.reg) - 1e-12 * (1 + fabs(Js)))
			ok = false;
	}
	CHECK(ok, "random %d: no random point is lower than J(theta) - grad^2/(2 reg)", id);
}

/* ---- 2. planted minimisers and closed forms ---- */

/* b = -(grad of the loss terms + reg theta*) makes theta* the exact argmin */
static void
check_planted(Prob *P, gsl_rng *r, int id)
{
	double		star[MAXP],
				g[MAXP],
				th[MAXP];
	GLMSolveStatus st;

	for (int j = 0; j < P->p; j++)
		star[j] = gsl_ran_gaussian(r, 2.0);
	P->spec.b = NULL;
	t_objective(P, star, g);
	for (int j = 0; j < P->p; j++)
		P->b[j] = -g[j];
	P->spec.b = P->b;
	st = glmsolve_minimise(&P->X, &P->spec, th, NULL);
	/* 1e-12 / reg: b is rounded, which moves the argmin by at most |rounding| / reg */
	CHECK(st == GLMSOLVE_CONVERGED &&
		  t_dist(th, star, P->p) <= (t_gradnorm(P, th) + 1e-12) / P->spec.reg,
		  "planted %d: theta* recovered (status %d, distance %g)", id, st, t_dist(th, star, P->p));
}

/* p = 1, one observation x = 1, y = +1, count c: argmin in each Huber piece */
static void
check_huber_1d(double c, double h, double reg, double b, double expect, const char *piece)
{
	Prob		P;
	double		th[1];
	GLMSolveStatus st;

	memset(&P, 0, sizeof(P));
	P.p = 1;
	P.nrows = 1;
	P.dense[0][0] = 1.0;
	prob_add_obs(&P, 0, 1.0, c);
	P.b[0] = b;
	P.spec = (GLMSolveSpec) {GLM_LOSS_HUBER, h, reg, P.b, 1e-9, false, 0, NULL, NULL, NULL};
	prob_finish(&P);
	st = glmsolve_minimise(&P.X, &P.spec, th, NULL);
	CHECK(st == GLMSOLVE_CONVERGED && fabs(th[0] - expect) <= 1e-9 / reg + 1e-15,
		  "huber 1-D %s: theta %.17g = %.17g (status %d)", piece, th[0], expect, st);
}

static void
check_closed_forms(void)
{
	/* quadratic piece: c (theta - 1 - h) / (2h) + reg theta + b = 0 */
	check_huber_1d(2, 0.5, 1, 0, (2 * 1.5 / 1.0 - 0) / (2 / 1.0 + 1), "quadratic");
	check_huber_1d(2, 0.5, 1, 0.3, (2 * 1.5 / 1.0 - 0.3) / (2 / 1.0 + 1), "quadratic, b");
	/* linear piece (theta < 1 - h): -c + reg theta + b = 0 */
	check_huber_1d(1, 0.1, 4, 0, 0.25, "linear");
	check_huber_1d(3, 0.2, 10, -1, 0.4, "linear, b");
	/* flat piece (theta > 1 + h): reg theta + b = 0 */
	check_huber_1d(1, 0.25, 2, -10, 5, "flat");
}

/* ---- 3. poll, memory ---- */

typedef struct PollCount
{
	int			calls,
				stop_at;
} PollCount;

static bool
poll_count(void *arg)
{
	PollCount  *pc = arg;

	return ++pc->calls >= pc->stop_at;
}

static void
check_poll(const Prob *P)
{
	double		th0[MAXP],
				th[MAXP];
	GLMSolveResult r0,
				r;
	GLMSolveSpec s = P->spec;
	PollCount	pc;

	CHECK(glmsolve_minimise(&P->X, &P->spec, th0, &r0) == GLMSOLVE_CONVERGED && r0.iterations >= 3,
		  "poll: the problem needs a few steps (%d)", r0.iterations);
	s.poll = poll_count;
	s.poll_arg = &pc;
	for (int k = 1; k <= r0.iterations; k++)
	{
		pc = (PollCount) {0, k};
		CHECK(glmsolve_minimise(&P->X, &s, th, &r) == GLMSOLVE_STOPPED && pc.calls == k &&
			  r.iterations == k - 1,
			  "poll: true at call %d stops before step %d (calls %d, steps %d)", k, k, pc.calls, r.iterations);
	}
	pc = (PollCount) {0, INT_MAX};
	CHECK(glmsolve_minimise(&P->X, &s, th, &r) == GLMSOLVE_CONVERGED && pc.calls == r0.iterations &&
		  memcmp(th, th0, sizeof(double) * P->p) == 0,
		  "poll: a poll that never stops is called once per step and changes nothing");
}

static void
check_memory(const Prob *P)
{
	double		th[MAXP];
	GLMSolveResult r;

	malloc_calls = 0;
	malloc_fail_at = 1;
	CHECK(glmsolve_minimise(&P->X, &P->spec, th, &r) == GLMSOLVE_NO_MEMORY && r.iterations == 0,
		  "memory: a failed malloc is GLMSOLVE_NO_MEMORY");
	malloc_fail_at = 0;
	malloc_calls = 0;
	glmsolve_minimise(&P->X, &P->spec, th, NULL);
	CHECK(malloc_calls == 1, "memory: one work block per solve (%d)", malloc_calls);
}

/*
 * The caller's work memory (spec.work, glmsolve_work_doubles(p) doubles):
 * no malloc at all, and the same point bit for bit as with the solver's own
 * block; the size is p^2 + 5p in size_t, also where it exceeds INT_MAX,
 * and 0 outside 1 .. GLMSOLVE_MAX_P.
 */
static void
check_caller_work(const Prob *P)
{
	double		th0[MAXP],
				th[MAXP],
				work[MAXP * MAXP + 5 * MAXP];
	GLMSolveSpec s = P->spec;
	size_t		maxp = GLMSOLVE_MAX_P;

	CHECK(glmsolve_work_doubles(P->p) == (size_t) (P->p * P->p + 5 * P->p) &&
		  glmsolve_work_doubles(P->p) <= sizeof(work) / sizeof(double),
		  "work: p^2 + 5p doubles for p = %d", P->p);
	CHECK(glmsolve_work_doubles(1) == 6 && glmsolve_work_doubles(0) == 0 &&
		  glmsolve_work_doubles(-1) == 0 && glmsolve_work_doubles(INT_MIN) == 0 &&
		  glmsolve_work_doubles(GLMSOLVE_MAX_P + 1) == 0 &&
		  glmsolve_work_doubles(INT_MAX) == 0,
		  "work: 0 outside 1 .. GLMSOLVE_MAX_P");
	CHECK(glmsolve_work_doubles(GLMSOLVE_MAX_P) == maxp * maxp + 5 * maxp &&
		  glmsolve_work_doubles(GLMSOLVE_MAX_P) > (size_t) INT_MAX,
		  "work: p = GLMSOLVE_MAX_P needs %zu doubles, above INT_MAX, without overflow",
		  maxp * maxp + 5 * maxp);
	glmsolve_minimise(&P->X, &P->spec, th0, NULL);
	memset(work, 0xff, sizeof(work));	/* NaN garbage: the solver must not read it first */
	s.work = work;
	malloc_fail_at = 1;
	malloc_calls = 0;
	CHECK(glmsolve_minimise(&P->X, &s, th, NULL) == GLMSOLVE_CONVERGED && malloc_calls == 0 &&
		  memcmp(th, th0, sizeof(double) * P->p) == 0,
		  "work: the caller's block, no malloc, the same theta bit for bit (%d mallocs)",
		  malloc_calls);
	malloc_fail_at = 0;
	malloc_calls = 0;
}

/* ---- 4. out-of-range inputs ---- */

static void
expect_invalid(const Prob *P, const char *what)
{
	double		th[MAXP];

	CHECK(glmsolve_minimise(&P->X, &P->spec, th, NULL) == GLMSOLVE_INVALID, "invalid: %s", what);
}

static void
check_invalid(const Prob *base)
{
	Prob		P;
	int			col1[MAXR * MAXP];
	double		th[MAXP];

#define MUTATE(what, stmt) do { P = *base; prob_repoint(&P); stmt; expect_invalid(&P, what); } while (0)
	MUTATE("p = 0", P.X.p = 0);
	MUTATE("p > GLMSOLVE_MAX_P", P.X.p = GLMSOLVE_MAX_P + 1);
	MUTATE("nobs < 0", P.X.nobs = -1);
	MUTATE("nrows < 0", P.X.nrows = -1);
	MUTATE("start[0] != 0", P.X.start = P.start + 1);
	MUTATE("column >= p", P.X.p = base->X.col[base->X.start[base->X.nrows] - 1]);
	memcpy(col1, base->col, sizeof(col1));
	col1[0] = -1;
	MUTATE("column < 0", P.X.col = col1);
	MUTATE("row >= nrows", P.X.nrows = base->X.row[base->X.nobs - 1]);
	MUTATE("label 0.5", P.y[0] = 0.5);
	MUTATE("count 0", P.cnt[0] = 0);
	MUTATE("count NaN", P.cnt[0] = NAN);
	MUTATE("count infinite", P.cnt[0] = INFINITY);
	MUTATE("hinge loss", P.spec.loss = GLM_LOSS_HINGE);
	MUTATE("Huber h = 0", (P.spec.loss = GLM_LOSS_HUBER, P.spec.h = 0));
	MUTATE("Huber h NaN", (P.spec.loss = GLM_LOSS_HUBER, P.spec.h = NAN));
	MUTATE("reg < 0", P.spec.reg = -1e-3);
	MUTATE("reg NaN", P.spec.reg = NAN);
	MUTATE("grad_tol < 0", P.spec.grad_tol = -1);
	MUTATE("grad_tol NaN", P.spec.grad_tol = NAN);
	MUTATE("row starts decrease", (P.start[1] = P.start[2] + 1));
	MUTATE("columns not ascending", (P.col[1] = P.col[0]));
	MUTATE("no observation arrays", P.X.row = NULL);
#undef MUTATE
	CHECK(glmsolve_minimise(NULL, &base->spec, th, NULL) == GLMSOLVE_INVALID &&
		  glmsolve_minimise(&base->X, NULL, th, NULL) == GLMSOLVE_INVALID &&
		  glmsolve_minimise(&base->X, &base->spec, NULL, NULL) == GLMSOLVE_INVALID,
		  "invalid: NULL design, spec or theta");
}

/* no observations: theta = -b / reg; tolerance 0: gives up within the iteration bound */
static void
check_edges(const Prob *base)
{
	Prob		P = *base;
	double		th[MAXP];
	GLMSolveResult r;
	GLMSolveStatus st;
	bool		ok = true;

	P.X.nobs = 0;
	P.nobs = 0;
	st = glmsolve_minimise(&P.X, &P.spec, th, NULL);
	for (int j = 0; j < P.p; j++)
		ok = ok && fabs(th[j] + P.b[j] / P.spec.reg) <= 1e-12 * (1 + fabs(P.b[j] / P.spec.reg));
	CHECK(st == GLMSOLVE_CONVERGED && ok, "no observations: theta = -b / reg (status %d)", st);
	P = *base;
	P.spec.grad_tol = 0;
	st = glmsolve_minimise(&P.X, &P.spec, th, &r);
	CHECK(st == GLMSOLVE_INVALID, "tolerance 0: invalid (status %d)", st);
	P = *base;
	P.spec.reg = 0;
	st = glmsolve_minimise(&P.X, &P.spec, th, &r);
	CHECK(st == GLMSOLVE_INVALID, "reg 0: invalid (status %d)", st);
}

/* ---- 5. the fallback ---- */

/* Newton skipped: the descent alone passes check_random's tests */
static void
check_descent(const Prob *base, int id)
{
	Prob		P = *base;
	double		th[MAXP],
				ref[MAXP],
				gs,
				gr;
	GLMSolveResult res;
	GLMSolveStatus st;

	prob_repoint(&P);
	P.spec.skip_newton = true;
	st = glmsolve_minimise(&P.X, &P.spec, th, &res);
	gs = t_gradnorm(&P, th);
	gr = t_reference(&P, ref);
	CHECK((st == GLMSOLVE_CONVERGED || st == GLMSOLVE_BOUNDED) && res.descent &&
		  res.iterations == 0 &&
		  (double) res.descent_steps <= fmax(res.descent_bound - 1.0, 0.0),
		  "descent %d: status %d after %lld of at most %g steps", id, st,
		  (long long) res.descent_steps, res.descent_bound);
	CHECK(gs <= P.spec.grad_tol + 1e-12, "descent %d: ||grad J|| %g <= tol %g", id, gs,
		  P.spec.grad_tol);
	CHECK(t_dist(th, ref, P.p) <= (P.spec.grad_tol + 1e-12 + gr) / P.spec.reg,
		  "descent %d: ||theta - theta_ref|| %g <= (tol + %g) / reg", id, t_dist(th, ref, P.p), gr);
}

/*
 * A tolerance no computed gradient reaches: Newton gives up (the old
 * solver returned "not converged" here), and the descent runs its whole
 * bound and ends at its guaranteed point, next to the reference.
 */
static void
check_descent_bound(const Prob *base)
{
	Prob		P = *base;
	double		th[MAXP],
				ref[MAXP],
				gr;
	GLMSolveResult res;
	GLMSolveStatus st;

	prob_repoint(&P);
	P.spec.grad_tol = 1e-300;
	st = glmsolve_minimise(&P.X, &P.spec, th, &res);
	gr = t_reference(&P, ref);
	CHECK(st == GLMSOLVE_BOUNDED && res.descent && res.iterations >= 1 &&
		  (double) res.descent_steps + 1.0 == res.descent_bound,
		  "below rounding: Newton gave up after %d steps, the descent ran %lld of %g (status %d)",
		  res.iterations, (long long) res.descent_steps, res.descent_bound, st);
	CHECK(t_gradnorm(&P, th) <= 1e-10 && t_dist(th, ref, P.p) <= (1e-10 + gr) / P.spec.reg,
		  "below rounding: ||grad J|| %g, ||theta - theta_ref|| %g", t_gradnorm(&P, th),
		  t_dist(th, ref, P.p));
}

int
main(void)
{
	gsl_rng    *r = gsl_rng_alloc(gsl_rng_mt19937);
	Prob		P;

	gsl_rng_set(r, 20240611);
	for (int i = 0; i < 120; i++)
	{
		/* reg down to 1e-3 of the data's curvature in every tenth problem */
		prob_random(&P, r, i % 10 == 9 ? 1e-3 : 0.05);
		check_random(&P, i);
		check_random_points(&P, r, i);
		if (P.nobs > 0)
			check_planted(&P, r, i);
		check_descent(&P, i);
		check_blocks(&P, r, i);
	}
	check_closed_forms();
	/* a logistic problem that takes a few Newton steps */
	do
		prob_random(&P, r, 0.05);
	while (P.spec.loss != GLM_LOSS_LOGISTIC || P.spec.b == NULL || P.nobs < 6 || P.p < 3 ||
		   P.start[1] - P.start[0] < 2);
	for (int j = 0; j < P.p; j++)
		P.b[j] *= 10;
	check_poll(&P);
	check_memory(&P);
	check_caller_work(&P);
	check_invalid(&P);
	check_edges(&P);
	check_descent_bound(&P);
	gsl_rng_free(r);
	return unitcheck_report();
}
