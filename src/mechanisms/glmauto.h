/*-------------------------------------------------------------------------
 *
 * glmauto.h
 *	  Private model selection: dpobj.dp_auto (glmauto.c), train()'s
 *	  mechanism 'auto'.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_GLMAUTO_H
#define DPOBJ_GLMAUTO_H

#include "postgres.h"

#include "utils/jsonb.h"

/* dpobj.train()'s argument check: options and every calibration, before any row */
extern void auto_check_args(const char *aggname, double epsilon, double delta,
							int d, Jsonb *options);

#endif							/* DPOBJ_GLMAUTO_H */
