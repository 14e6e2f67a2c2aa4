/*-------------------------------------------------------------------------
 *
 * predict.h
 *	  A dpobj.model unpacked for prediction (predict.c): validated
 *	  completely once, then the exact sign of the margin of any feature
 *	  vector without raising an error.  dpobj.predict(), dpobj.score() and
 *	  the private evaluation (evaluate.c) share this one definition.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_PREDICT_H
#define DPOBJ_PREDICT_H

#include "postgres.h"

#include "fmgr.h"

typedef struct ModelPredictor ModelPredictor;

/* whether a feature vector could be evaluated (model_predict_row) */
typedef enum ModelRowStatus
{
	MODEL_ROW_OK,
	MODEL_ROW_NOT_FINITE,		/* a feature is NaN or infinite */
	MODEL_ROW_OUT_OF_RANGE		/* lattice model: |round(Q x)| > 2^31 */
} ModelRowStatus;

/*
 * Unpacks and validates a dpobj.model datum in mcxt.  Every check is on the
 * model alone (public grounds): weights a one-dimensional float8 array of
 * finite values without NULLs; a finite bias; params->'Q', when present,
 * an integer in [1, DPOBJ_MAX_Q] -- then the weights are integers of at
 * most 1e6 in magnitude and the bias is 0.  Raises 22023/22004 otherwise.
 */
extern ModelPredictor *model_predictor(Datum model, MemoryContext mcxt);

/* number of weights */
extern int	model_predictor_d(const ModelPredictor *m);

/*
 * Whether the model is a linear regression (mechanism "adassp" or "ssp"):
 * its prediction is the value <w, x> + bias, not a class.  *range_ok says
 * whether its params carry the public label range y_min < y_max (finite
 * numbers), then in *y_min, *y_max.
 */
extern bool model_predictor_regression(const ModelPredictor *m, bool *range_ok,
									   double *y_min, double *y_max);

/*
 * The exact sign (-1, 0, 1) of the margin of x (model_predictor_d values)
 * into *sign; never raises.  Lattice models: <w, round(Q x)> summed in
 * 128-bit integers (no overflow for any array size).  Other models:
 * <w, x> + bias summed in long double.
 */
extern ModelRowStatus model_predict_row(const ModelPredictor *m, const double *x, int *sign);

/*
 * The float margin <w, x> + bias in long double (a regression model's
 * predicted value) into *value; never raises.  Float models only.
 */
extern ModelRowStatus model_predict_value(const ModelPredictor *m, const double *x,
										  long double *value);

#endif							/* DPOBJ_PREDICT_H */
