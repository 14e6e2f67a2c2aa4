/*-------------------------------------------------------------------------
 *
 * glmsolve.h
 *	  The exact minimiser of dp_logistic: damped Newton over distinct rows
 *	  in sparse form (glmsolve.c).  Plain C with GSL: no PostgreSQL header,
 *	  built into the extension and into tests/unit/test_glmsolve.  The
 *	  server side (the design of a glm_state, interrupts, errors) is
 *	  glmminimise.c.
 *
 *	  It minimises the sum-form objective
 *	    J(theta) = sum_k cnt_k l(y_k <theta, x_k>)
 *	               + (reg/2) ||theta||^2 + <b, theta>
 *	  and always returns a point theta with ||grad J(theta)|| <= grad_tol in
 *	  exact arithmetic, hence ||theta - argmin J|| <= grad_tol / reg (J is
 *	  reg-strongly convex): Newton's point when its computed gradient passes
 *	  the test, else the end point of accelerated gradient descent after a
 *	  number of steps that guarantees the bound (glmdescent.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_GLMSOLVE_H
#define DPOBJ_GLMSOLVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/glmloss.h"

/* Newton steps before the solver falls back to gradient descent */
#define GLMSOLVE_MAX_ITER	200

/* the largest p: the p x p Hessian is indexed by int */
#define GLMSOLVE_MAX_P		46340

typedef enum GLMSolveStatus
{
	GLMSOLVE_CONVERGED = 0,		/* the computed ||grad J(theta)|| <= grad_tol */
	GLMSOLVE_BOUNDED,			/* the descent ran its step bound: ||grad J(theta)||
								 * <= grad_tol in exact arithmetic, the computed
								 * one may exceed it by rounding */
	GLMSOLVE_STOPPED,			/* poll returned true */
	GLMSOLVE_NO_MEMORY,
	GLMSOLVE_INVALID			/* an input out of range (below) */
} GLMSolveStatus;

/*
 * The observations in compressed sparse row form: observation k has the
 * feature vector of row row[k] -- the entries [start[u], start[u + 1]) of
 * col/val, columns strictly ascending, an intercept's constant 1 included
 * -- label y[k] (+1 or -1) and count cnt[k] (> 0); a row seen with both
 * labels is stored once and named by two observations.  start[0] = 0.
 * The entry offsets and the number of observations are 64-bit, so that
 * the design's size is bounded by memory only (rows are int: a row index
 * never exceeds nrows).
 */
typedef struct GLMSolveDesign
{
	int			p;				/* parameters, 1 .. GLMSOLVE_MAX_P; columns 0 .. p - 1 */
	int			nrows;
	const int64_t *start;		/* nrows + 1 */
	const int  *col;			/* start[nrows] */
	const double *val;			/* start[nrows] */
	int64_t		nobs;
	const int  *row;			/* nobs */
	const double *y;			/* nobs */
	const double *cnt;			/* nobs */
} GLMSolveDesign;

/*
 * The design as a sequence of blocks, each a GLMSolveDesign of its own
 * rows (its row indices are the block's), so that a caller can hold a
 * design larger than its memory on disk.  next() stores the first block
 * (first = true) or the one after the last it stored in *block and
 * returns true, or returns false after the last block; a block stays valid
 * until the next call.  Every pass must list the same observations in the
 * same order (the solver's sums follow it, so the result depends only on
 * that sequence, never on where it is cut into blocks).  next() may only
 * fail by not returning (a server error), when the work memory is the
 * caller's (spec->work), so nothing leaks.
 */
typedef struct GLMSolveBlocks
{
	int			p;				/* parameters, as in every block */
	bool		(*next) (void *arg, bool first, const GLMSolveDesign **block);
	void	   *arg;

	/*
	 * The observations of all blocks when the caller knows them before a
	 * pass, else 0.  Then the solver's first pass also copies the warm
	 * start's thinned design (glmsolve.c) instead of a pass of its own; a
	 * wrong number makes the input invalid.  The result is the same.
	 */
	int64_t		nobs;
} GLMSolveBlocks;

typedef struct GLMSolveSpec
{
	GLMLoss		loss;			/* GLM_LOSS_LOGISTIC or GLM_LOSS_HUBER */
	double		h;				/* Huber parameter, > 0 (Huber only) */
	double		reg;			/* > 0: J is reg-strongly convex */
	const double *b;			/* the linear term (p entries), or NULL */
	double		grad_tol;		/* absolute bound on ||grad J||, > 0 */
	bool		skip_newton;	/* straight to the descent (tests: its bound) */

	/*
	 * Bytes the warm start on a large design may malloc for its thinned
	 * design, held in memory for its passes (glmsolve.c); 0, or too few:
	 * its passes read the design's blocks and skip the other rows.
	 */
	size_t		warm_bytes;

	/*
	 * Called once before each Newton or descent step, or NULL.  Returning true stops
	 * the solver: it frees its memory and returns GLMSOLVE_STOPPED.  It
	 * must return (never longjmp).
	 */
	bool		(*poll) (void *arg);
	void	   *poll_arg;

	/*
	 * The work memory, glmsolve_work_doubles(p) doubles owned by the
	 * caller, or NULL: then it is malloc'd and freed before every return.
	 */
	double	   *work;
} GLMSolveSpec;

typedef struct GLMSolveResult
{
	int			iterations;		/* Newton steps taken */
	int64_t		newton_passes;	/* Newton's passes over the design (F, g, H) */
	int			warm_iterations;	/* Newton steps on the thinned problem first */
	int64_t		warm_passes;	/* and its passes: each reads the design and
								 * evaluates a share of it (glmsolve.c) */
	bool		descent;		/* Newton did not pass the test: the descent ran */
	int64_t		descent_steps;	/* gradient steps taken by the descent */
	double		descent_bound;	/* its step bound (glmdescent.c) */
	double		grad_norm;		/* computed ||grad J|| at the returned point */
} GLMSolveResult;

/*
 * The doubles of the solver's work memory for p parameters: p^2 + 5p
 * (the Hessian, the gradient, the direction, a trial point and its
 * gradient, the gradient's compensation terms); 0 when p is outside 1 ..
 * GLMSOLVE_MAX_P.  It depends on p only, so a caller can reserve it before
 * reading any row.
 */
extern size_t glmsolve_work_doubles(int p);

/*
 * Minimises J from theta = 0.  theta has p entries; on GLMSOLVE_CONVERGED
 * and GLMSOLVE_BOUNDED it is within grad_tol / reg of argmin J (in exact
 * arithmetic; docs/PRIVACY.md "Approximate minimisers"), on the other
 * statuses unspecified.  result may be NULL.  The work memory is spec->work, or, when that is
 * NULL, comes from malloc() and is freed before every return.
 */
extern GLMSolveStatus glmsolve_minimise(const GLMSolveDesign *X, const GLMSolveSpec *spec,
										double *theta, GLMSolveResult *result);

/* B: the one block X */
extern void glmsolve_single_block(GLMSolveBlocks *B, const GLMSolveDesign *X);

/* As glmsolve_minimise, over a design in blocks (above). */
extern GLMSolveStatus glmsolve_minimise_blocks(const GLMSolveBlocks *B,
											   const GLMSolveSpec *spec, double *theta,
											   GLMSolveResult *result);

#endif							/* DPOBJ_GLMSOLVE_H */
