/*-------------------------------------------------------------------------
 *
 * glmstate.h
 *	  The state of the continuous-weight mechanisms:
 *	  dp_logistic (Objective-Gauss, Output-Gauss, CMS), dp_noisysgd and
 *	  dp_opsamp -- the type dpobj.glm_state (aggstate.h, rowset.h).  Rows
 *	  are clipped to the declared norm bound R (an option; "R": "private" of
 *	  dp_logistic and dp_noisysgd keeps them unclipped, glmprivr.h) and
 *	  deduplicated: one entry per distinct clipped feature vector with its
 *	  positive and negative label counts.  Memory is O(distinct rows * d),
 *	  not O(n).
 *
 *	  The SQL-callable transition, combine and type I/O functions live in
 *	  glmstate.c; final functions start with glmstate_final_begin().
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_GLMSTATE_H
#define DPOBJ_GLMSTATE_H

#include "base/dpobj.h"
#include "families/glm/glmparams.h"
#include "state/keptrows.h"

#include "fmgr.h"
#include "lib/stringinfo.h"
#include "utils/jsonb.h"

/*
 * What a final function sees: GLM's parameters over the kept rows
 * (keptrows.h), read in canonical order, so that the mechanism's input --
 * and hence its output under a fixed seed -- depends only on the multiset
 * of rows.  rows.d counts the class word (glmstate_class_words); rows.x is
 * clipped (unless "R": "private").  dp_logistic and dp_noisysgd may have
 * spilled rows (rows.spill), read through glmblocks.h.
 */
typedef struct GLMState
{
	GLMKind		kind;
	GLMParams	params;
	Jsonb	   *options;
	DPKeptRows	rows;
} GLMState;

/* As hsstate_final_begin() (halfspacestate.h), for the GLM-family states. */
struct DPProtectedContext;
extern GLMState *glmstate_final_begin(FunctionCallInfo fcinfo, GLMKind kind,
									  struct DPProtectedContext **pctx);

/* a state with no rows (protected path) in CurrentMemoryContext */
extern GLMState *glmstate_create_empty(GLMKind kind, int d, double epsilon,
									   double delta, Jsonb *options);

/*
 * Words after the features in a row of this kind: 1 for the multi-class
 * kinds (the class index, glmclasses.h); such a state's d counts it and its
 * rows are all "positive"; else 0.
 */
#define glmstate_class_words(kind)	(glm_kind_multiclass(kind) ? 1 : 0)

/*
 * K of a state of a sampling kind (OPSamp, 'auto', one-vs-rest) of w words:
 * public, from the cap, w and the classes (aggsample.h).
 */
extern int64 glm_sampled_rows(int kind, int w, int nclasses);

/* appends loss, d, R, intercept (and h) to a model params object */
extern void glm_params_model(StringInfo buf, const GLMParams *p, int d);

/* the state's observations: (distinct row, label +-1, count), palloc'd (glmstate.c) */
extern int64 glmstate_observations(const GLMState *s, int **row, double **cnt, double **y);
/* the same into arrays of at least max(2 nrows, 1) entries each */
extern int64 glmstate_observations_into(const GLMState *s, int *row, double *cnt, double *y);

#endif							/* DPOBJ_GLMSTATE_H */
