/*-------------------------------------------------------------------------
 *
 * glmtune.h
 *	  dp_noisysgd's option "tune": a public grid of candidate
 *	  hyperparameters ("T", "R", "radius"); "tune_gamma",
 *	  "tune_score_share" and "tune_metric" are read by glmparams.c
 *	  (docs/PRIVACY.md, "Private hyperparameter tuning"; the run:
 *	  noisysgdtune.c).  Options are public inputs: their
 *	  errors may quote them.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_GLMTUNE_H
#define DPOBJ_GLMTUNE_H

#include "postgres.h"

#include "utils/jsonb.h"

/* at most this many values per key and grid points in all */
#define GLM_TUNE_MAX_VALUES		8
#define GLM_TUNE_MAX_POINTS		64
/* the default share of each run's rho spent on its score */
#define GLM_TUNE_DEFAULT_SHARE	0.1

typedef struct GLMTune
{
	int			npoints;		/* nT * nR * nradius; 0: no tuning */
	int			nT,				/* 0: the key is absent (the option's value) */
				nR,
				nradius;
	int64		T[GLM_TUNE_MAX_VALUES];
	double		R[GLM_TUNE_MAX_VALUES];
	double		radius[GLM_TUNE_MAX_VALUES];
	double		gamma;			/* option "tune_gamma"; <= 0: the default */
	double		score_share;	/* option "tune_score_share" */
	int			metric;			/* option "tune_metric": OP_METRIC_*
								 * (glmparams.h); 0 until defaulted */
	bool		balance_train;	/* balanced_accuracy without "class_weight": the
								 * estimated weights also train */
	bool		have_options;	/* "tune_gamma", "tune_score_share" or "tune_metric" was given */
} GLMTune;

/* "tune" into t (validated: known keys, 1..8 values each, at most 64 points) */
extern void glmtune_parse(JsonbValue *v, GLMTune *t);

/* grid point i's index into each key's values (T, R, radius; -1 for an absent key) */
extern void glmtune_point(const GLMTune *t, int i, int *iT, int *iR, int *iradius);

#endif							/* DPOBJ_GLMTUNE_H */
