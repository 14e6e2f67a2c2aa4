/*-------------------------------------------------------------------------
 *
 * passglmparams.h
 *	  Public parameters of dp_passglm (one-pass logistic regression,
 *	  src/core/passglmpoly.h): the privacy parameters and the jsonb options R
 *	  (required), intercept, ridge and rows_per_unit, held in a LinParams
 *	  (the run shares dp_linear_regression's state: its sums on labels -1
 *	  and +1, released as SSP).  Never computed from the data.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_PASSGLMPARAMS_H
#define DPOBJ_PASSGLMPARAMS_H

#include "postgres.h"

#include "families/linear/linearparams.h"

#include "utils/jsonb.h"

/* Checks privacy parameters, d and options as a first row would; fills *p. */
extern void passglmparams_init(LinParams *p, double epsilon, double delta, int d,
							   Jsonb *options);

#endif							/* DPOBJ_PASSGLMPARAMS_H */
