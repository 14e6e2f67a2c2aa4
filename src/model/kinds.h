/*-------------------------------------------------------------------------
 *
 * kinds.h
 *	  Model kinds: how a dpobj.model's weights turn features into a margin
 *	  (kinds.c dispatches, one file per kind holds its code).  Every model
 *	  function -- predict, score, probability, evaluate, explain, the
 *	  catalog's model_kind -- reaches a kind only through this table.
 *
 *	    linear      <w, x> + bias (kindlinear.c); regression: a value
 *	    halfspace   <w, round(Q x)> in integers (kindhalfspace.c)
 *	    multiclass  K linear scores, argmax (predictclass.c)
 *	    additive    bias + one score table per term (families/ebm/ebmmodel.c)
 *
 *	  A stored model's kind is the one its params' markers say, as 0.1.0-
 *	  0.4.0 read models: "classes" multi-class, "Q" halfspace, "terms"
 *	  additive; without one, the kind the mechanism registry gives its
 *	  mechanism name at load (model_kind_register: regression, additive),
 *	  else linear.
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

typedef enum ModelKind
{
	MODEL_KIND_NONE = 0,		/* a registry entry without models */
	MODEL_KIND_LINEAR,
	MODEL_KIND_REGRESSION,		/* linear, its margin a value */
	MODEL_KIND_HALFSPACE,
	MODEL_KIND_MULTICLASS,
	MODEL_KIND_ADDITIVE,
	MODEL_KIND_SYNTHESIZER		/* a synthesizer's graphical model: samples, never predicts */
} ModelKind;

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

/*
 * _PG_init, from the registry: a kind a family implements (its DPFamily's
 * model_kind_ops; kindsint.h), which the dispatch then reads
 */
struct ModelKindOps;
extern void model_kind_register_ops(const struct ModelKindOps *ops);

/* the kind of a dpobj.model datum (validates nothing else) */
extern ModelKind model_kind_of(Datum model);

/* "linear", "regression", "halfspace", "multiclass", "additive", "synthesizer" */
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

/* the error of a forged model: 22023 with hint */
extern pg_noreturn void model_forged(const char *what, const char *hint);

#endif							/* DPOBJ_KINDS_H */
