/*-------------------------------------------------------------------------
 *
 * budget.h
 *	  Privacy budgets per (table, role) and the protected training path
 *	  (issue 4, docs/SECURITY.md).
 *
 * A data owner protects a table (dpobj.protect) and grants an analyst a
 * budget on it (dpobj.grant_budget).  The analyst, who cannot SELECT the
 * table, trains through dpobj.train(), which runs the mechanism's
 * aggregate over the table through SPI.  For the duration of that one SPI
 * query a backend-local "protected context" tells the aggregate that it
 * runs on the protected path: which relation, which analyst, which
 * (epsilon, delta) were requested.  The context is a plain C variable in
 * this backend -- not a GUC, not a table, nothing a user can set -- and
 * it is consumed by exactly one final function call.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_BUDGET_H
#define DPOBJ_BUDGET_H

#include "postgres.h"

#include "fmgr.h"
#include "nodes/pg_list.h"
#include "utils/jsonb.h"

/* numeric text of a requested epsilon/delta; longer values are refused */
#define DPOBJ_NUMERIC_TEXT_LEN	64

typedef struct DPProtectedContext
{
	bool		active;			/* set by dpobj.train() around its SPI query */
	bool		consumed;		/* a final function has taken it */
	Oid			relid;			/* the protected table train() scans */
	Oid			analyst;		/* role whose budget is charged */
	char		rolname[NAMEDATALEN];
	char		relation[2 * NAMEDATALEN + 8];	/* qualified name, for the ledger */
	char		epsilon[DPOBJ_NUMERIC_TEXT_LEN];	/* the charge, numeric text */
	char		delta[DPOBJ_NUMERIC_TEXT_LEN];
	double		epsilon_f;		/* float8 passed to the mechanism (<= epsilon) */
	double		delta_f;		/* float8 passed to the mechanism (<= delta) */
	int			d;				/* number of features */
	Jsonb	   *options;		/* mechanism options (train-level keys removed) */
} DPProtectedContext;

/*
 * The protected context, or NULL when this backend is not inside
 * dpobj.train()'s query.  Transition functions use it to switch to the
 * data-independent row handling of the protected path.
 */
extern const DPProtectedContext *dpobj_protected_peek(void);

/*
 * Called by a mechanism's final function on the protected path: checks
 * that the context belongs to this aggregate (the relations actually
 * scanned, the privacy parameters) and consumes it, so no second final
 * function can use it.  scanned is a list of relation OIDs found below the
 * aggregate; eps/delta are the values the aggregate received (has_state
 * false: no row reached the transition function).  Raises an error on any
 * mismatch.  Returns a copy of the context.
 */
extern DPProtectedContext *dpobj_protected_take(List *scanned, bool has_state,
												double epsilon, double delta,
												int d);

/*
 * Debits the context's (epsilon, delta) from the analyst's budget on the
 * protected table and records the ledger row, in one autonomous
 * transaction (ledger.c), and returns the ledger row id.  Raises DP004
 * (budget exceeded, nothing charged) or DP002.  Call before drawing noise.
 */
extern int64 dpobj_budget_charge(const DPProtectedContext *ctx,
								 const char *mechanism);

/*
 * dpobj.submit() (issue 6): runs dpobj.train()'s own argument checks and
 * budget pre-check on fcinfo (train's seven arguments) without scanning or
 * charging anything; raises exactly the errors train() would raise first.
 */
extern void dpobj_train_validate(FunctionCallInfo fcinfo);

#endif							/* DPOBJ_BUDGET_H */
