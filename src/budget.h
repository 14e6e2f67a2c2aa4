/*-------------------------------------------------------------------------
 *
 * budget.h
 *	  Privacy budgets per (table, role) and the protected training path
 *	  (issue 4, sealed in issue 9; docs/SECURITY.md).
 *
 * The SQL-callable administration functions (dpobj.protect, unprotect,
 * grant_budget, revoke_budget) live in budget.c and have no C API.  What
 * other files use is declared in
 *	  protected.h  the protected context a mechanism's aggregate consults
 *	               (protected.c);
 *	  train.h      dpobj.train()'s validation, shared with dpobj.submit
 *	               (train.c).
 * This header includes both, so that "budget.h" keeps meaning "the
 * protected path" for the mechanisms and jobs.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_BUDGET_H
#define DPOBJ_BUDGET_H

#include "protected.h"
#include "train.h"

#endif							/* DPOBJ_BUDGET_H */
