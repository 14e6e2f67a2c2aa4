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

#include "model/kinds.h"

/*
 * Unpacks and validates a dpobj.model datum of a kind with a single margin
 * in mcxt (kinds.h).  Every check is on the model alone (public grounds):
 * weights a one-dimensional float8 array of finite values without NULLs;
 * a finite bias; the kind's own (a halfspace's "Q", an additive model's
 * "terms").  Raises 22023/22004 otherwise, 42809 for a multi-class model.
 */
extern ModelPredictor *model_predictor(Datum model, MemoryContext mcxt);

/* number of features a vector has */
extern int	model_predictor_d(const ModelPredictor *m);

/*
 * Whether the model predicts a value (a regression, or an additive model
 * with "link": "identity"), not a class.  *range_ok says
 * whether its params carry the public label range y_min < y_max (finite
 * numbers), then in *y_min, *y_max.
 */
extern bool model_predictor_regression(const ModelPredictor *m, bool *range_ok,
									   double *y_min, double *y_max);

/*
 * The exact sign (-1, 0, 1) of the margin of x (model_predictor_d values)
 * into *sign; never raises (the kind's margin).
 */
extern ModelRowStatus model_predict_row(const ModelPredictor *m, const double *x, int *sign);

/*
 * model_predict_row's sign and the margin's value (*value: a score's, as
 * dpobj.score() computes it, also when not exact); never raises
 */
extern ModelRowStatus model_predict_row_margin(const ModelPredictor *m, const double *x,
											   int *sign, long double *value);

/* the cut-off predict() applies to the margin: params "threshold", else 0 */
extern double model_predictor_threshold(const ModelPredictor *m);

/* the margin as a value (a regression's prediction) into *value; never raises */
extern ModelRowStatus model_predict_value(const ModelPredictor *m, const double *x,
										  long double *value);

#endif							/* DPOBJ_PREDICT_H */
