/*-------------------------------------------------------------------------
 *
 * runaccess.h
 *	  The first check of every protected entry point (train, submit,
 *	  evaluate, aggregate, describe, synthesize), before any check that
 *	  reads the table's declarations, its privacy unit or a layout built
 *	  from them: the table is protected (DP005) and the caller has a budget
 *	  on it (DP004).  A role without one learns nothing of the declarations
 *	  from a refusal.  Implemented in runaccess.c.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_RUNACCESS_H
#define DPOBJ_RUNACCESS_H

#include "postgres.h"

#include "base/pg_compat.h"

/* relid (its qualified name relation) is protected and the caller has a budget on it */
extern void run_check_access(Oid relid, const char *relation);

/* DP005: relation is not protected */
extern pg_noreturn void run_refuse_unprotected(const char *relation);

#endif							/* DPOBJ_RUNACCESS_H */
