/*-------------------------------------------------------------------------
 *
 * glmstate.h
 *	  Transition state of the continuous-weight mechanisms (issue 5):
 *	  dp_logistic (Objective-Gauss, Output-Gauss, CMS), dp_noisysgd and
 *	  dp_opsamp.  Rows are clipped to the declared norm bound R (an option,
 *	  never estimated from the data) and deduplicated: one entry per
 *	  distinct clipped feature vector with its positive and negative label
 *	  counts, in flat arrays in the aggregate memory context.  Memory is
 *	  O(distinct rows * d), not O(n).
 *
 *	  The state has a combine function and serialise/deserialise functions,
 *	  so the aggregates are PARALLEL SAFE.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_GLMSTATE_H
#define DPOBJ_GLMSTATE_H

#include "dpobj.h"

#include "fmgr.h"
#include "lib/stringinfo.h"
#include "utils/jsonb.h"

/* Largest feature dimension of the continuous mechanisms. */
#define DPOBJ_GLM_MAX_DIM		1024

typedef enum GLMKind
{
	GLM_KIND_LOGISTIC = 1,		/* dp_logistic: l2 clipping */
	GLM_KIND_SGD,				/* dp_noisysgd: l2 clipping */
	GLM_KIND_OPSAMP				/* dp_opsamp: l1 clipping */
} GLMKind;

typedef enum GLMMethod
{
	GLM_METHOD_OBJECTIVE = 1,	/* Objective-Gauss (KST12 Thm 2) */
	GLM_METHOD_OUTPUT,			/* Output-Gauss */
	GLM_METHOD_CMS				/* Chaudhuri-Monteleoni-Sarwate, pure eps */
} GLMMethod;

typedef enum GLMLoss
{
	GLM_LOSS_LOGISTIC = 1,
	GLM_LOSS_HUBER,				/* Huber-smoothed hinge, parameter h */
	GLM_LOSS_HINGE				/* scaled hinge (dp_opsamp) */
} GLMLoss;

/* Public parameters of a run, fixed by the first row (all from options). */
typedef struct GLMParams
{
	double		epsilon;
	double		delta;
	GLMMethod	method;
	GLMLoss		loss;
	double		R;				/* clip bound (l2; l1 for opsamp) */
	double		lambda;			/* regulariser (sum form), <= 0: default */
	bool		intercept;
	double		h;				/* Huber parameter */
	int64		T;				/* SGD steps, 0: default */
	double		radius;			/* SGD: C = l2 ball of this radius */
	double		beta;			/* OPSamp failure probability */
} GLMParams;

typedef struct GLMState
{
	MemoryContext mcxt;
	GLMKind		kind;
	int			d;
	GLMParams	params;
	Jsonb	   *options;

	int			nrows;
	int			maxrows;
	double	   *x;				/* nrows x d, clipped */
	int64	   *pos;
	int64	   *neg;

	int32	   *slots;
	uint32		nslots;
	uint32	   *hashes;
	double	   *scratch;
} GLMState;

/* the transition function body shared by the three aggregates */
extern GLMState *glmstate_accum(FunctionCallInfo fcinfo, GLMState *state,
								GLMKind kind, const char *aggname);

/* dpobj.train()'s argument checks */
extern void glm_check_args_logistic(const char *aggname, double epsilon, double delta,
									int d, Jsonb *options);
extern void glm_check_args_sgd(const char *aggname, double epsilon, double delta,
							   int d, Jsonb *options);
extern void glm_check_args_opsamp(const char *aggname, double epsilon, double delta,
								  int d, Jsonb *options);

/* a state with no rows (protected path) in CurrentMemoryContext */
/* As hsstate_final_begin() (hsstate.h), for the GLM-family states. */
struct DPProtectedContext;
extern GLMState *glmstate_final_begin(FunctionCallInfo fcinfo, GLMKind kind,
									  struct DPProtectedContext **pctx);

extern GLMState *glmstate_create_empty(GLMKind kind, int d, double epsilon,
									   double delta, Jsonb *options);

/* total weight n = sum of counts */
extern int64 glmstate_count(const GLMState *state);

/* regulariser with defaults filled in (sum form: sum_i l_i + lambda/2 ||t||^2) */
extern double glm_default_lambda(const GLMParams *p, double Reff);

/* appends "key": true|false to a model params object (model.h) */
extern void glm_params_bool(StringInfo buf, const char *key, bool value);

/* loss value, first and second derivative in z = y <theta, x> */
extern void glm_loss(GLMLoss loss, double h, double z, double *f, double *df, double *d2f);

#endif							/* DPOBJ_GLMSTATE_H */
