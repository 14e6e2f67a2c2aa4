/*-------------------------------------------------------------------------
 *
 * glmmulticlass.h
 *	  One-vs-rest multi-class logistic regression and noisy gradient
 *	  descent: dpobj.dp_logistic_multiclass and dpobj.dp_noisysgd_multiclass
 *	  (glmmulticlass.c), and their argument checks for dpobj.train().
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_GLMMULTICLASS_H
#define DPOBJ_GLMMULTICLASS_H

#include "postgres.h"

#include "utils/jsonb.h"

/* dpobj.train()'s argument checks, before any row is read (train.c) */
extern void logistic_mc_check_args(const char *aggname, double epsilon, double delta,
								   int d, Jsonb *options);
extern void noisysgd_mc_check_args(const char *aggname, double epsilon, double delta,
								   int d, Jsonb *options);

#endif							/* DPOBJ_GLMMULTICLASS_H */
