/*-------------------------------------------------------------------------
 *
 * sealplan.h
 *	  The shape of the sealed query's plan where train() allows parallel
 *	  workers (seal.c): parallel whenever PostgreSQL can make it so.
 *	  Implemented in sealplan.c.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_SEALPLAN_H
#define DPOBJ_SEALPLAN_H

/* installs the planner hook (_PG_init) */
extern void seal_plan_init(void);

#endif							/* DPOBJ_SEALPLAN_H */
