/*-------------------------------------------------------------------------
 *
 * synthesize.h
 *	  dpobj.synthesize() (synthesize.c) and its check for a job.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_SYNTHESIZE_H
#define DPOBJ_SYNTHESIZE_H

#include "postgres.h"

#include "fmgr.h"

/*
 * dpobj.submit(rel, 'synthesize', columns, label, epsilon, delta, options):
 * every check synthesize() makes before its charge (options "target" the
 * table to create) and train()'s budget pre-check; nothing is charged.
 */
extern void synthesize_check_job(FunctionCallInfo fcinfo);

#endif							/* DPOBJ_SYNTHESIZE_H */
