/*-------------------------------------------------------------------------
 *
 * kinds.h
 *	  Model kinds: how a dpobj.model's weights turn features into a margin
 *	  (kinds.c dispatches, one file per kind holds its code).  Every model
 *	  function -- predict, score, probability, evaluate, explain, the
 *	  catalog's model_kind -- reaches a kind only through this table.  The
 *	  floor's kinds, any family's models may be of:
 *
 *	    linear      <w, x> + bias (kindlinear.c); regression: a value
 *	    multiclass  K linear scores, argmax (predictclass.c)
 *
 *	  A family's own kind (halfspace's lattice, the synthesizer, additive
 *	  boosting's score tables: ebmmodel.c) is in its <f>model.c, named
 *	  by its descriptor (DPFamily.model_kind) and added to the table at
 *	  load (model_kind_add).
 *
 *	  A stored model's kind is the one its params' marker says, as 0.1.0-
 *	  0.4.0 read models: "classes" multi-class, then the added kinds'
 *	  ("Q" halfspace, "terms" additive, ...); without one, the kind the
 *	  mechanism registry gives its mechanism name at load
 *	  (model_kind_register) if that kind claims it (regression,
 *	  additive), else linear.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_KINDS_H
#define DPOBJ_KINDS_H

#include "postgres.h"

#include "fmgr.h"
#include "access/htup_details.h"
#include "utils/jsonb.h"

#include "base/pg_compat.h"

/* a model kind: its operations (kindsint.h); NULL for a registry entry without models */
typedef struct ModelKindOps ModelKindOps;
typedef const ModelKindOps *ModelKind;

extern const ModelKindOps model_kind_linear;
extern const ModelKindOps model_kind_regression;	/* linear, its margin a value */
extern const ModelKindOps model_kind_multiclass;

#define MODEL_KIND_NONE			NULL
#define MODEL_KIND_LINEAR		(&model_kind_linear)
#define MODEL_KIND_REGRESSION	(&model_kind_regression)
#define MODEL_KIND_MULTICLASS	(&model_kind_multiclass)

/* a model unpacked for prediction (predict.h; kindsint.h defines it) */
typedef struct ModelPredictor ModelPredictor;

/* whether a feature vector could be evaluated (model_predict_row) */
typedef enum ModelRowStatus
{
	MODEL_ROW_OK,
	MODEL_ROW_NOT_FINITE,		/* a feature is NaN or infinite */
	MODEL_ROW_OUT_OF_RANGE,		/* lattice model: |round(Q x)| > 2^31 */
	MODEL_ROW_NOT_ONE_HOT		/* additive model: a categorical term's coordinates */
} ModelRowStatus;

/* the mechanism name models carry -> kind (the registry, at load) */
extern void model_kind_register(const char *mechanism, ModelKind kind);

/* a family's kind into the table, its marker read after those before it (at load) */
extern void model_kind_add(ModelKind kind);

/* the kind of a dpobj.model datum (validates nothing else) */
extern ModelKind model_kind_of(Datum model);

/* its name: "linear", "regression", "multiclass", "additive", a family's */
extern const char *model_kind_name(ModelKind kind);

/* attribute numbers (from 1) of dpobj.model */
#define MODEL_ATT_MECHANISM	1
#define MODEL_ATT_WEIGHTS	2
#define MODEL_ATT_BIAS		3
#define MODEL_ATT_PARAMS	6

/* params as an object, or NULL */
extern Jsonb *model_params_object(HeapTupleHeader th);

/* params->key as a finite number into *out, or false */
extern bool model_param_number(Jsonb *params, const char *key, double *out);

/* a JSON value (or NULL) as a finite number into *out, or false */
extern bool model_json_number(const JsonbValue *v, double *out);

/* a JSON value (or NULL) as a whole number within [lo, hi] into *out, or false */
extern bool model_json_int(const JsonbValue *v, int64 lo, int64 hi, int64 *out);

/*
 * params "encoding", when there is one, encodes d features (the model's
 * dpobj.encode() output is its input), and params "d", when there is one,
 * is d; else a forged model
 */
extern void model_check_features(Jsonb *params, int d);

/* the error of a forged model: 22023 with hint */
extern pg_noreturn void model_forged(const char *what, const char *hint);

#endif							/* DPOBJ_KINDS_H */
