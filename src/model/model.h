/*-------------------------------------------------------------------------
 *
 * model.h
 *	  The released model value: composite type dpobj.model
 *	  (mechanism text, weights float8[], bias float8, epsilon float8,
 *	   delta float8, params jsonb).
 *
 * A model holds the DP output (weights, bias) and public parameters only:
 * never a row count, loss, solver objective or anything else computed from
 * the data.  Every mechanism returns this type, so predict()/score() work
 * for every model (predict.h).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_MODEL_H
#define DPOBJ_MODEL_H

#include "postgres.h"

#include "fmgr.h"
#include "lib/stringinfo.h"

/*
 * Public parameters are collected as a JSON object text; only the keys and
 * values a mechanism adds by hand ever reach a model.
 */
extern void model_params_begin(StringInfo buf);
extern void model_params_int(StringInfo buf, const char *key, int64 value);
extern void model_params_float(StringInfo buf, const char *key, double value);
extern void model_params_text(StringInfo buf, const char *key, const char *value);
extern void model_params_bool(StringInfo buf, const char *key, bool value);
extern void model_params_end(StringInfo buf);

/* the OID of type dpobj.model */
extern Oid	model_type_oid(void);

/* Builds a dpobj.model datum for the function called with fcinfo. */
extern Datum model_build(FunctionCallInfo fcinfo, const char *mechanism,
						 const double *weights, int d, double bias,
						 double epsilon, double delta, StringInfo params);

/* model_build() for a grid point (integer weights, bias 0): the halfspace mechanisms */
extern Datum model_build_grid(FunctionCallInfo fcinfo, const char *mechanism,
							  const int *w, int d, double epsilon, double delta,
							  StringInfo params);

#endif							/* DPOBJ_MODEL_H */
