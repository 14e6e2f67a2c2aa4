/*-------------------------------------------------------------------------
 *
 * encodemodel.h
 *	  A model's recorded encoding (encodemodel.c): reading it, attaching it
 *	  to a released model, and dpobj.encode(model, raw jsonb), the raw-value
 *	  surface of dpobj.predict_raw()/score_raw()/predict_class_raw().
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_ENCODEMODEL_H
#define DPOBJ_ENCODEMODEL_H

#include "postgres.h"

#include "fmgr.h"
#include "utils/jsonb.h"

/* a model's params->'encoding', or NULL */
extern Jsonb *encoding_of_model(Datum model);

/* the model with params || {"encoding": spec} */
extern Datum encoding_attach(Datum model, Jsonb *spec);

#endif							/* DPOBJ_ENCODEMODEL_H */
