/*-------------------------------------------------------------------------
 *
 * glmsolveint.h
 *	  Internals shared by dp_logistic's solver files: the objective over the
 *	  distinct rows (glmsolve.c) and the accelerated gradient descent that
 *	  bounds the solver's distance to the argmin (glmdescent.c).  Plain C.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_GLMSOLVEINT_H
#define DPOBJ_GLMSOLVEINT_H

#include "core/glmsolve.h"

/*
 * The objective F = J / n over the distinct rows (glmsolve.h's design, a
 * sequence of blocks), n = max(1, sum of counts); comp is p doubles of
 * work memory for the compensated gradient sums.  Every sum runs over the
 * observations in the blocks' order, carried across blocks, so its value
 * does not depend on where the blocks are cut.
 */
typedef struct GLMProblem
{
	int			p;
	const GLMSolveBlocks *blocks;
	GLMLoss		loss;
	double		h;
	double		reg;
	const double *b;			/* linear term, or NULL */
	double		scale;			/* 1/n */
	double	   *comp;			/* p doubles: compensation of the gradient sums */
	int64_t		nobs;			/* observations in all blocks */
	int64_t		stride;			/* 1; s > 1: only every s-th observation, its count
								 * times s (the warm start's thinned problem) */
} GLMProblem;

/*
 * F(theta) (compensated sum); with g, its gradient (compensated sums);
 * with H (p x p, row-major), its (generalised) Hessian, both triangles
 * filled; with mag, the sum of the magnitudes of F's terms, the scale of
 * F's rounding error.
 */
extern double glmproblem_eval(const GLMProblem *o, const double *th, double *g, double *H,
							  double *mag);

extern double glmproblem_norm2(const double *v, int p);

/* the first (first = true) or the next block of the design; NULL after the last */
static inline const GLMSolveDesign *
glmproblem_block(const GLMProblem *o, bool first)
{
	const GLMSolveDesign *X = NULL;

	return o->blocks->next(o->blocks->arg, first, &X) ? X : NULL;
}

/*
 * Accelerated gradient descent from theta = 0 for its step bound, or
 * until the computed ||grad J|| <= spec->grad_tol (glmdescent.c); work:
 * 3p doubles.  GLMSOLVE_CONVERGED, GLMSOLVE_BOUNDED or GLMSOLVE_STOPPED.
 */
extern GLMSolveStatus glmdescent_run(const GLMProblem *o, const GLMSolveSpec *spec,
									 double *theta, double *work, GLMSolveResult *res);

#endif							/* DPOBJ_GLMSOLVEINT_H */
