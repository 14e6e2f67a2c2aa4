/*-------------------------------------------------------------------------
 *
 * classweights.h
 *	  The option "class_weight" of dp_logistic, dp_noisysgd and dp_auto (whose
 *	  "weighted_accuracy" score uses it too, glmauto.c) and dp_ebm: a public loss weight
 *	  per label, each in (0, 1] (docs/PRIVACY.md, "Class weights").
 *	  Implemented in classweights.c.
 *
 * A row's loss is multiplied by its label's weight.  A weight of at most 1
 * keeps every per-row bound the calibrations use (the loss's Lipschitz
 * constant and curvature, the clipped gradient's norm), so the noise is the
 * unweighted run's; only the objective changes.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_CLASSWEIGHTS_H
#define DPOBJ_CLASSWEIGHTS_H

#include "postgres.h"

#include "lib/stringinfo.h"
#include "utils/jsonb.h"

/*
 * {"true": w1, "false": w0} into *weight_pos and *weight_neg (a label left
 * out keeps its weight); raises on anything else.
 */
extern void classweights_parse(JsonbValue *v, const char *aggname, double *weight_pos,
							 double *weight_neg);

/* the released model's "class_weight" parameter, when a weight is not 1 */
extern void classweights_model_params(StringInfo buf, double weight_pos, double weight_neg);

#endif							/* DPOBJ_CLASSWEIGHTS_H */
