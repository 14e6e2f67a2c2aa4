/*-------------------------------------------------------------------------
 *
 * ledger.h
 *	  The privacy-budget ledger (table dpobj.ledger): every mechanism run is
 *	  charged in its own committed transaction before any noise is drawn,
 *	  and later given an outcome that is true (docs/ARCHITECTURE.md,
 *	  "The ledger").
 *
 * PostgreSQL has no autonomous transactions, so the writes are made by
 * background workers connected as the bootstrap superuser, which run fixed,
 * parameterised statements only (never caller-supplied SQL text; search_path
 * pinned to pg_catalog):
 *	  - with shared_preload_libraries = 'dpobj': long-lived ledger writers
 *		(static background workers, so their slots are reserved) serve a
 *		request queue in shared memory, several requests per transaction;
 *	  - without preloading: one dynamic background worker per write.
 * A charge returns only after its COMMIT.  Every wait is cancellable and
 * bounded by dpobj.ledger_timeout.
 *
 * Outcomes (column outcome):
 *	  charged        the run is in flight, or the server crashed before an
 *	                 outcome could be recorded
 *	  released       a model was computed and the query that ran the
 *	                 mechanism -- for dpobj.train(), the query that called
 *	                 train() -- completed; a later ROLLBACK does not change it
 *	  aborted        a model was computed, but that query then failed (a
 *	                 later error, cancel, statement_timeout, session end)
 *	  not_certified  the exact oracle did not certify optimality; no model
 *	  cancelled      interrupted before a model existed (also a cancel that
 *	                 lands while the charge itself is being committed)
 *	  failed         the mechanism failed, or the run ended with an error
 *	                 after the charge and before a model existed
 * The budget stays charged in every case.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_LEDGER_H
#define DPOBJ_LEDGER_H

#include "postgres.h"

#include "fmgr.h"

/* Result of ledger_charge_budget() */
typedef enum LedgerBudgetStatus
{
	LEDGER_BUDGET_CHARGED = 1,	/* debited and ledger row inserted, committed */
	LEDGER_BUDGET_REFUSED,		/* the remaining budget cannot cover the charge */
	LEDGER_BUDGET_NONE			/* no budget for this (table, role) */
} LedgerBudgetStatus;

/* numeric text of a remaining budget, for the refusal hint */
#define LEDGER_AMOUNT_LEN		64

/*
 * The form of a run's privacy cost (column dpobj.ledger.kind): what its
 * mechanism guarantees, so that the accountant composes it as tightly as
 * that allows (accountant.h, docs/PRIVACY.md).
 */
typedef enum LedgerCostKind
{
	LEDGER_COST_APPROX = 0,		/* (epsilon, delta)-DP only */
	LEDGER_COST_PURE,			/* epsilon-DP, hence epsilon^2/2-zCDP */
	LEDGER_COST_ZCDP,			/* calibrated in zCDP: rho */
	LEDGER_COST_GAUSS			/* discrete Gaussian releases of total rho: also GDP */
} LedgerCostKind;

typedef struct LedgerCost
{
	LedgerCostKind kind;
	char		rho[LEDGER_AMOUNT_LEN]; /* exact decimal text >= the rho used; "" for approx */
} LedgerCost;

extern const char *ledger_cost_kind_name(LedgerCostKind kind);

/* Outcomes of a charged run (column dpobj.ledger.outcome) */
#define LEDGER_OUTCOME_CHARGED		"charged"	/* in flight, or crashed */
#define LEDGER_OUTCOME_RELEASED		"released"	/* the model left its query */
#define LEDGER_OUTCOME_NOT_CERTIFIED "not_certified"	/* time limit, no model */
#define LEDGER_OUTCOME_CANCELLED	"cancelled" /* query cancel / timeout */
#define LEDGER_OUTCOME_FAILED		"failed"	/* oracle failure, no model */
#define LEDGER_OUTCOME_ABORTED		"aborted"	/* model computed, query failed */

/*
 * Debits (epsilon, delta) for one run of a mechanism and commits it
 * independently of the current transaction.  Returns the ledger row id.
 * Raises ERRCODE_DPOBJ_LEDGER_FAILURE (nothing computed) when the charge
 * could not be confirmed; a cancel or timeout while it is being committed
 * raises at once, and a charge that commits anyway is recorded 'cancelled'.
 * relation may be NULL.
 */
extern int64 ledger_charge(const char *mechanism, double epsilon, double delta,
						   const LedgerCost *cost, const char *relation);

/*
 * The protected path's charge: in ONE transaction of the ledger
 * worker, a guarded debit of the analyst's budget for runs on relid in
 * dpobj.budgets (dpobj.budget_for(): the table's budget domain's, or its own)
 * (the row locked, then the accountant's rule in C, account_debit(): the
 * composed spend with this run stays within the granted (epsilon, delta);
 * accountant.h) and the
 * INSERT of the ledger row that records it (with the relation, the role,
 * the budget id, the cost's kind and rho); then COMMIT.  Concurrent charges serialise on the budget
 * row's lock, and each re-checks the guard against the committed spend, so
 * N racing sessions get exactly as many charges as the budget covers.
 *
 * epsilon and delta are numeric text (exact).  On LEDGER_BUDGET_CHARGED
 * *ledger_id is the new ledger row; otherwise nothing was written and
 * remaining_epsilon/remaining_delta (LEDGER_AMOUNT_LEN bytes each) hold
 * the remaining budget ("0" when there is no budget).  Raises
 * ERRCODE_DPOBJ_LEDGER_FAILURE when the worker could not run.
 *
 * This is the protected path's charge: dpobj.train() runs the mechanism in
 * exactly one query of its own and hands the model to its caller, so a
 * release of this run is resolved when the query that called train() (one
 * executor level up) completes, not when train()'s own query does.
 */
extern LedgerBudgetStatus ledger_charge_budget(Oid relid, Oid analyst,
											   const char *rolname,
											   const char *mechanism,
											   const char *epsilon,
											   const char *delta,
											   const LedgerCost *cost,
											   const char *relation,
											   int64 *ledger_id,
											   char *remaining_epsilon,
											   char *remaining_delta);

/*
 * Reports the outcome of a charged run; never raises and never waits for a
 * cancel.  Any outcome but 'released' is recorded at once (asynchronously:
 * a pending cancel does not stop it).  'released' marks the model as
 * computed: the outcome becomes 'released' when the query that ran the
 * mechanism completes and 'aborted' if that query fails first.  A run left
 * without a call (an error between the charge and the outcome) is recorded
 * 'failed' when its (sub)transaction aborts.  detail must not depend on the
 * data.
 */
extern void ledger_finish(int64 id, const char *outcome, const char *detail);

/*
 * Holds (true) or posts (false) this backend's outcomes reported from now
 * on: a protected run with a release deadline (src/protected/deadline.c)
 * makes them known at the deadline only.  While holding, a 'cancelled'
 * replaces the run's held outcome.  Never raises.
 */
extern void ledger_hold_outcomes(bool hold);

/*
 * For the rest of this backend (a job worker, whose transaction stores
 * the model): a computed model's run becomes 'released' when the
 * transaction commits and 'aborted' when it aborts; no query's end
 * releases it.  Never raises.
 */
extern void ledger_release_at_commit(void);

/* _PG_init: the ledger's settings, hooks and (when preloading) writers */
extern void dpobj_ledger_init(void);

#endif							/* DPOBJ_LEDGER_H */
