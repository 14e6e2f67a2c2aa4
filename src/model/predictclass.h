/*-------------------------------------------------------------------------
 *
 * predictclass.h
 *	  A multi-class dpobj.model unpacked for prediction (predictclass.c):
 *	  validated completely once (public grounds), then the class of any
 *	  feature vector -- the argmax of its K scores -- without raising.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_PREDICTCLASS_H
#define DPOBJ_PREDICTCLASS_H

#include "postgres.h"

#include "fmgr.h"

typedef struct ClassPredictor
{
	int			K;				/* classes */
	int			d;				/* features */
	int			pp;				/* parameters per class: d (+ 1 intercept) */
	double	   *w;				/* K x pp, class by class */
	char	  **classes;		/* their labels, declared order */
} ClassPredictor;

/* whether a model's params declare it multi-class (a "classes" key) */
extern bool model_is_multiclass(Datum model);

/* Unpacks and validates a multi-class model in mcxt; 22023 otherwise. */
extern ClassPredictor *class_predictor(Datum model, MemoryContext mcxt);

/*
 * The class index (argmax of <w_k, x> + b_k, ties to the first class) of x
 * (d values); -1 when a feature is not finite.  Never raises.
 */
extern int	class_predict_row(const ClassPredictor *m, const double *x);

#endif							/* DPOBJ_PREDICTCLASS_H */
