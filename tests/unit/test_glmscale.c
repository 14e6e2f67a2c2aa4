/*
 * test_glmscale.c -- dp_logistic's plain-C minimiser (src/core/glmsolve.c) on
 * a million distinct rows, where F = J / n is a sum of 10^6 losses whose
 * rounding exceeds the decrease Armijo's test asks for near the optimum
 * while ||grad J|| is still above the tolerance (there the solver used to
 * reject every step, give up on Newton and run the accelerated descent,
 * whose step bound grows with sqrt(n): effectively endless; the first two
 * problems below are two where it did).  For each problem -- d = 10
 * features of norm at most 1 plus an intercept, labels from a linear model
 * (with noise, or separable), with or without a linear term b of standard
 * deviation 10 (objective perturbation's draws), logistic and Huber --
 *   1. Newton converges (GLMSOLVE_CONVERGED, no descent) within a handful
 *      of iterations and full passes over the design, and the warm start on
 *      the thinned problem ran (these designs are above its threshold) and
 *      left the full problem at most 5 Newton steps (8 to 15 without it);
 *   2. the certificate holds when recomputed here from the definitions
 *      (own loss derivatives, dense rows, long double sums): ||grad J||
 *      <= grad_tol, so theta is within grad_tol / reg of the argmin;
 *   3. the solver's own reported ||grad J|| agrees with the recomputed one
 *      to the gradient's rounding level.
 * Prints "N passed, M failed"; exits non-zero on a failure.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "core/glmsolve.h"
#include "unitcheck.h"

#define NROWS	1000000
#define WARM_MEM	((size_t) 64 << 20)
#define D		10
#define P		(D + 1)

typedef struct Big
{
	int64_t    *start;
	int		   *col,
			   *row;
	double	   *val,
			   *y,
			   *cnt,
				b[P];
	GLMSolveDesign X;
	long		passes;			/* passes over the design (first blocks) */
} Big;

/* one block, the whole design; counts the passes */
static bool
big_next(void *arg, bool first, const GLMSolveDesign **block)
{
	Big		   *B = arg;

	if (first)
		B->passes++;
	*block = &B->X;
	return first;
}

/*
 * Rows of seed's draws: d features uniform in [-1, 1] / sqrt(d) (norm at
 * most 1), scaled to norm 1 if unit, and the intercept's 1; labels of the
 * model j - 5.5 plus uniform noise of width noise; b of standard deviation
 * bsd (NULL if 0).
 */
static void
big_fill(Big *B, unsigned long seed, bool unit, double noise, double bsd)
{
	gsl_rng    *r = gsl_rng_alloc(gsl_rng_mt19937);

	gsl_rng_set(r, seed);
	for (int i = 0; i < NROWS; i++)
	{
		double		x[D],
					nrm = 0,
					l = 0;

		for (int j = 0; j < D; j++)
		{
			x[j] = (2.0 * gsl_rng_uniform(r) - 1.0) / sqrt(D);
			nrm += x[j] * x[j];
		}
		B->start[i] = (int64_t) i * P;
		for (int j = 0; j < P; j++)
		{
			B->col[i * P + j] = j;
			B->val[i * P + j] = j == D ? 1.0 : unit ? x[j] / sqrt(nrm) : x[j];
			l += j < D ? (j + 1 - 5.5) * B->val[i * P + j] : 0;
		}
		l = l / D + noise * (gsl_rng_uniform(r) - 0.5);
		B->row[i] = i;
		B->y[i] = l > 0 ? 1.0 : -1.0;
		B->cnt[i] = 1.0;
	}
	B->start[NROWS] = (int64_t) NROWS * P;
	for (int j = 0; j < P; j++)
		B->b[j] = bsd * gsl_ran_gaussian(r, 1.0);
	B->X = (GLMSolveDesign) {P, NROWS, B->start, B->col, B->val, NROWS, B->row, B->y, B->cnt};
	gsl_rng_free(r);
}

/* dl/dz of the losses (docs/ALGORITHMS.md, "L2-regularised GLMs"), written out afresh */
static long double
t_dloss(const GLMSolveSpec *s, long double z)
{
	if (s->loss == GLM_LOSS_LOGISTIC)
		return -1.0L / (1.0L + expl(z));
	if (z >= 1.0L + s->h)
		return 0.0L;
	if (z <= 1.0L - s->h)
		return -1.0L;
	return -(1.0L + s->h - z) / (2.0L * s->h);
}

/* ||grad J(theta)|| from the definition, in long double */
static double
t_gradnorm(const Big *B, const GLMSolveSpec *s, const double *th)
{
	long double g[P],
				n2 = 0;

	for (int j = 0; j < P; j++)
		g[j] = s->reg * (long double) th[j] + B->b[j];
	for (int i = 0; i < NROWS; i++)
	{
		const double *x = B->val + (size_t) i * P;
		long double z = 0,
					d1;

		for (int j = 0; j < P; j++)
			z += (long double) x[j] * th[j];
		d1 = B->cnt[i] * t_dloss(s, B->y[i] * z) * B->y[i];
		for (int j = 0; j < P; j++)
			g[j] += d1 * x[j];
	}
	for (int j = 0; j < P; j++)
		n2 += g[j] * g[j];
	return (double) sqrtl(n2);
}

/*
 * The blocks announcing their observations (GLMSolveBlocks.nobs): the same
 * point bit for bit, with the thinned design copied in the first pass when
 * it is held (no pass of its own); a wrong number is an invalid input.
 */
static void
check_known_nobs(Big *B, const GLMSolveSpec *spec, const double *th,
				 const GLMSolveResult *unknown, const char *name)
{
	GLMSolveBlocks blocks = {P, big_next, B, NROWS};
	GLMSolveResult res;
	GLMSolveStatus st;
	double		th2[P];

	B->passes = 0;
	st = glmsolve_minimise_blocks(&blocks, spec, th2, &res);
	CHECK(st == GLMSOLVE_CONVERGED && memcmp(th, th2, sizeof(th2)) == 0 &&
		  res.newton_passes == unknown->newton_passes,
		  "%s, observations known: the same point (status %d)", name, st);
	CHECK(spec->warm_bytes == 0 ? B->passes - 1 == res.warm_passes + res.newton_passes
		  : B->passes == 1 + res.newton_passes && res.warm_passes == unknown->warm_passes - 1,
		  "%s, observations known: the blocks were read %ld times, %ld by Newton",
		  name, B->passes, (long) res.newton_passes);
	blocks.nobs = NROWS - 1;
	CHECK(glmsolve_minimise_blocks(&blocks, spec, th2, &res) == GLMSOLVE_INVALID,
		  "%s: a wrong count of observations is an invalid input", name);
}

static void
check_big(Big *B, const char *name, GLMLoss loss, double reg, size_t warm_bytes)
{
	GLMSolveBlocks blocks = {P, big_next, B};
	GLMSolveSpec spec = {0};
	GLMSolveResult res;
	GLMSolveStatus st;
	double		th[P],
				gr;

	spec.loss = loss;
	spec.h = 0.5;
	spec.reg = reg;
	spec.b = B->b[0] != 0.0 ? B->b : NULL;
	spec.grad_tol = 1e-6 * sqrt(2.0);	/* GLM_GRAD_TOL L R_eff, R = 1 with an intercept */
	spec.warm_bytes = warm_bytes;
	B->passes = 0;
	st = glmsolve_minimise_blocks(&blocks, &spec, th, &res);
	/* B->passes counts every walk over the blocks: the thinned ones too */
	CHECK(st == GLMSOLVE_CONVERGED && !res.descent && res.iterations <= 20 &&
		  B->passes - res.warm_passes <= 60,
		  "%s: Newton converged (status %d, descent %d) in %d iterations, %ld full passes",
		  name, st, res.descent, res.iterations, B->passes - (long) res.warm_passes);
	CHECK(res.warm_iterations > 0 && res.iterations <= 5,
		  "%s: warm start of %d steps (%ld thinned passes), then %d full Newton steps",
		  name, res.warm_iterations, (long) res.warm_passes, res.iterations);
	CHECK(warm_bytes == 0 ? B->passes - 1 == res.warm_passes + res.newton_passes
		  : B->passes - 1 == 1 + res.newton_passes,
		  "%s: the blocks were read %ld times: once to start, %s, %ld by Newton",
		  name, B->passes, warm_bytes == 0 ? "by every thinned pass" : "once to copy the thinned design",
		  (long) res.newton_passes);
	gr = t_gradnorm(B, &spec, th);
	CHECK(gr <= spec.grad_tol, "%s: recomputed ||grad J|| %g <= grad_tol %g",
		  name, gr, spec.grad_tol);
	CHECK(fabs(gr - res.grad_norm) <= 1e-8, "%s: reported ||grad J|| %g, recomputed %g",
		  name, res.grad_norm, gr);
	check_known_nobs(B, &spec, th, &res, name);
}

int
main(void)
{
	Big			B;

	B.start = malloc(sizeof(int64_t) * (NROWS + 1));
	B.col = malloc(sizeof(int) * (size_t) NROWS * P);
	B.val = malloc(sizeof(double) * (size_t) NROWS * P);
	B.row = malloc(sizeof(int) * NROWS);
	B.y = malloc(sizeof(double) * NROWS);
	B.cnt = malloc(sizeof(double) * NROWS);
	if (!B.start || !B.col || !B.val || !B.row || !B.y || !B.cnt)
	{
		printf("not ok - out of memory for %d rows\n", NROWS);
		return 1;
	}
	/* the first two are problems on which the old line search stalled */
	big_fill(&B, 42, true, 0.2, 0.0);
	/* the warm start's thinned design held in memory (64 MB), or read by strides (0) */
	check_big(&B, "logistic, rows of norm 1, noisy labels, reg 1", GLM_LOSS_LOGISTIC, 1.0, WARM_MEM);
	check_big(&B, "... thinned passes over the blocks", GLM_LOSS_LOGISTIC, 1.0, 0);
	big_fill(&B, 42, false, 0.2, 10.0);
	check_big(&B, "logistic, rows of norm <= 1, b, reg 1", GLM_LOSS_LOGISTIC, 1.0, WARM_MEM);
	big_fill(&B, 42, true, 0.0, 10.0);
	check_big(&B, "logistic, separable labels, b, reg 1e-3", GLM_LOSS_LOGISTIC, 1e-3, WARM_MEM);
	check_big(&B, "huber, separable labels, b, reg 1e-3", GLM_LOSS_HUBER, 1e-3, WARM_MEM);
	check_big(&B, "... thinned passes over the blocks", GLM_LOSS_HUBER, 1e-3, 0);
	free(B.start);
	free(B.col);
	free(B.val);
	free(B.row);
	free(B.y);
	free(B.cnt);
	return unitcheck_report();
}
