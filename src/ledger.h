/*-------------------------------------------------------------------------
 *
 * ledger.h
 *	  The privacy-budget ledger (table dpobj.ledger), written by autonomous
 *	  transactions so that a charge survives the caller's ROLLBACK, a later
 *	  error in the same statement, and a server crash after the charge.
 *
 * Each operation starts a dynamic background worker (ledger.c) that
 * connects to the caller's database, runs one of a fixed set of
 * parameterised statements (never caller-supplied SQL text), commits, and
 * reports back through a dynamic shared memory segment.  The caller waits
 * for the commit before it goes on: noise is drawn only after the charge
 * is durable.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_LEDGER_H
#define DPOBJ_LEDGER_H

#include "postgres.h"

#include "fmgr.h"

/* Result of ledger_charge_budget() (issue 4) */
typedef enum LedgerBudgetStatus
{
	LEDGER_BUDGET_CHARGED = 1,	/* debited and ledger row inserted, committed */
	LEDGER_BUDGET_REFUSED,		/* the remaining budget cannot cover the charge */
	LEDGER_BUDGET_NONE			/* no budget for this (table, role) */
} LedgerBudgetStatus;

/* numeric text of a remaining budget, for the refusal hint */
#define LEDGER_AMOUNT_LEN		64

/* Outcomes of a charged run (column dpobj.ledger.outcome) */
#define LEDGER_OUTCOME_CHARGED		"charged"	/* debited; running or crashed */
#define LEDGER_OUTCOME_RELEASED		"released"	/* certified model released */
#define LEDGER_OUTCOME_NOT_CERTIFIED "not_certified"	/* time limit, no model */
#define LEDGER_OUTCOME_CANCELLED	"cancelled" /* query cancel / timeout */
#define LEDGER_OUTCOME_FAILED		"failed"	/* oracle failure, no model */

/*
 * Debits (epsilon, delta) for one run of a mechanism and commits it
 * independently of the current transaction.  Returns the ledger row id.
 * Raises ERRCODE_DPOBJ_LEDGER_FAILURE (nothing charged, nothing computed)
 * when the charge could not be committed.  relation may be NULL.
 */
extern int64 ledger_charge(const char *mechanism, double epsilon, double delta,
						   const char *relation);

/*
 * The protected path's charge (issue 4): in ONE transaction of the ledger
 * worker, a guarded UPDATE of the (relid, analyst) row of dpobj.budgets
 * (spent + charge <= granted, for epsilon and for delta) and the INSERT of
 * the ledger row that records it (with the relation, the role and the
 * budget id); then COMMIT.  Concurrent charges serialise on the budget
 * row's lock, and each re-checks the guard against the committed spend, so
 * N racing sessions get exactly as many charges as the budget covers.
 *
 * epsilon and delta are numeric text (exact).  On LEDGER_BUDGET_CHARGED
 * *ledger_id is the new ledger row; otherwise nothing was written and
 * remaining_epsilon/remaining_delta (LEDGER_AMOUNT_LEN bytes each) hold
 * the remaining budget ("0" when there is no budget).  Raises
 * ERRCODE_DPOBJ_LEDGER_FAILURE when the worker could not run.
 */
extern LedgerBudgetStatus ledger_charge_budget(Oid relid, Oid analyst,
											   const char *rolname,
											   const char *mechanism,
											   const char *epsilon,
											   const char *delta,
											   const char *relation,
											   int64 *ledger_id,
											   char *remaining_epsilon,
											   char *remaining_delta);

/*
 * Records the outcome of a charged run (autonomously).  Interrupts are held
 * while it waits, so it can run while a cancel is pending; failures are
 * logged as WARNING (the charge itself is already durable).
 */
extern void ledger_finish(int64 id, const char *outcome, const char *detail);

/* background worker entry point */
extern PGDLLEXPORT void dpobj_ledger_worker_main(Datum arg);

#endif							/* DPOBJ_LEDGER_H */
