/*-------------------------------------------------------------------------
 *
 * numfeature.h
 *	  A numeric's float8 for the sealed query without a value-dependent
 *	  error (numfeature.c): dpobj.numeric_feature() and dpobj's own C code.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_NUMFEATURE_H
#define DPOBJ_NUMFEATURE_H

#include "postgres.h"

/*
 * *out the numeric d as a float8: false (a NULL) at |x| >= 1e300, NaN and
 * the infinities; 0 for 0 < |x| < 1e-300; never an error
 */
extern bool numeric_feature_value(Datum d, double *out);

#endif							/* DPOBJ_NUMFEATURE_H */
