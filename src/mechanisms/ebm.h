/*-------------------------------------------------------------------------
 *
 * ebm.h
 *	  Private additive boosting (ebm.c): dp_ebm's argument check and label,
 *	  named by its registry entry.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_EBM_MECH_H
#define DPOBJ_EBM_MECH_H

#include "postgres.h"

#include "utils/jsonb.h"

#include "context/trainquery.h"

/* dpobj.train()'s argument check, before any row is read */
extern void ebm_check_args(const char *aggname, double epsilon, double delta, int d,
						   Jsonb *options);

/* dp_ebm's label: a float8 with "y_min"/"y_max" in the options, else a boolean */
extern TrainLabel ebm_label_kind(Jsonb *options);

#endif							/* DPOBJ_EBM_MECH_H */
