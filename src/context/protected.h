/*-------------------------------------------------------------------------
 *
 * protected.h
 *	  The protected context: what a mechanism's aggregate learns when it
 *	  runs inside dpobj.train()'s one query (docs/SECURITY.md).
 *	  Implemented in protected.c.
 *
 * The context is a plain C variable in this backend -- not a GUC, not a
 * table, nothing a user can set -- set by train() (seal.c) around its one
 * query, whose plan must scan exactly the protected table (fail closed) and
 * whose budget is charged before the plan reads its first row, and
 * consumed by exactly one final function, the plan's aggregate.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_PROTECTED_H
#define DPOBJ_PROTECTED_H

#include "postgres.h"

#include "fmgr.h"
#include "nodes/pg_list.h"
#include "utils/jsonb.h"

#include "ledger/ledger.h"
#include "base/pg_compat.h"
#include "context/lookupjoin.h"
#include "context/scanrels.h"

/* numeric text of a requested epsilon/delta; longer values are refused */
#define DPOBJ_NUMERIC_TEXT_LEN	64

/* foreign-key hops from a linked table to its privacy unit's table (unitlinks.h) */
#define DPOBJ_MAX_UNIT_HOPS		8

typedef struct DPProtectedContext
{
	bool		active;			/* set by dpobj.train() around its query */
	bool		consumed;		/* a final function has taken it */
	Oid			relid;			/* the protected table train() scans */
	Oid			analyst;		/* role whose budget is charged */
	char		rolname[NAMEDATALEN];
	char		relation[2 * NAMEDATALEN + 8];	/* qualified name, for the ledger */
	char		budget_domain[NAMEDATALEN]; /* the domain whose budget is
											 * charged; "": the table's own */
	char		mechanism[NAMEDATALEN]; /* train()'s mechanism: the ledger's name */
	char		epsilon[DPOBJ_NUMERIC_TEXT_LEN];	/* the charge, numeric text */
	char		delta[DPOBJ_NUMERIC_TEXT_LEN];
	double		epsilon_f;		/* float8 passed to the mechanism (<= epsilon) */
	double		delta_f;		/* float8 passed to the mechanism (<= delta) */
	int			d;				/* number of features */
	Jsonb	   *options;		/* mechanism options (train-level keys removed) */
	int			rows_per_unit;	/* the table's privacy unit bound k; 0: row level */
	double		unit_share;		/* > 0: the share of epsilon choosing k' <= k
								 * privately (protected/unitbound.c) */
	int			unit_bound;		/* that k', once drawn in the run; 0: not yet */
	bool		citus;			/* a Citus distributed table (workerpins.h) */
	bool		parallel;		/* parallel plans allowed: the state's flat form is
								 * bounded by public values (seal.c) */
	bool		sorts_rows;		/* the state sorts the rows (seal.c) */
	LedgerCost	cost;			/* the run's cost: kind and rho (train.c) */
	uint64		tree_hash;		/* relid's inheritance tree when train()
								 * checked it (scanrels.h) */
	int			unit_hops;		/* a linked table: the tables its query joins */
	Oid			unit_path[DPOBJ_MAX_UNIT_HOPS];	/* along to its unit (unitlinks.h) */
	int			nlookups;		/* the public lookup tables its query joins */
	Oid			lookups[DPOBJ_MAX_LOOKUPS];	/* (lookupjoin.h) */
	int64		ledger_id;		/* dpobj_protected_take's copy: the charge's
								 * ledger row */

	/*
	 * what the charge adds to the spent epsilon and why, one line from
	 * public state (train.c); the charge sends it as a NOTICE ("": none)
	 */
	char		charge_note[512];
} DPProtectedContext;

/*
 * The protected context, or NULL when this backend is not inside
 * dpobj.train()'s query.  Transition functions use it to switch to the
 * data-independent row handling of the protected path.
 */
extern const DPProtectedContext *dpobj_protected_peek(void);

/*
 * Records the rows per unit k' the run's query chose privately (unitbound.c),
 * once, 1 <= k' <= rows_per_unit, in a run with unit_share > 0: the final
 * function calibrates for it.  Anything else is an internal error.
 */
extern void dpobj_protected_set_unit_bound(int k);

/*
 * The sealed query's executor has started and reads no row yet (seal.c):
 * fails closed, on public grounds (nothing charged), unless the whole plan
 * reads only through recognised scans of the protected table (or its
 * inheritance children / partitions) -- no custom, foreign, function or
 * values scan, at least one scan -- below an aggregate, and the table's
 * tree is the one train() checked.  Remembers the plan's outermost
 * aggregate.  Every error from here to the charge (dpobj_budget_charge) is
 * a public refusal.
 */
struct PlanState;
extern void dpobj_protected_check_plan(struct PlanState *top);

/*
 * Called by a mechanism's final function on the protected path (through
 * mechanism_claim): checks that the run was charged, that this final
 * function belongs to the aggregate the plan check found, on the same
 * scans, and consumes the context, so no second final function can use it.
 * eps/delta/d are the state's (has_state false: no row reached the
 * transition function) and must be the ones charged.  Any mismatch raises
 * an error after the charge (seal.c: DP006).  Returns a copy of the
 * context, ledger_id the charge's row.
 */
extern DPProtectedContext *dpobj_protected_take(const DPScanRelations *scan,
												bool has_state, double epsilon,
												double delta, int d);

/*
 * Debits the context's (epsilon, delta) -- its cost ctx->cost, composed by
 * the accountant (accountant.h) -- from the analyst's budget on the
 * protected table and records the ledger row (under ctx->mechanism), in
 * one autonomous transaction (ledger.c), and returns the ledger row id.
 * Raises DP004 (budget exceeded, nothing charged) or DP002.  The one call
 * that charges a protected run: seal.c makes it before the sealed query
 * reads its first row (and, should the run fail otherwise uncharged, before
 * its generic error).  The mechanism argument is ignored on purpose: every
 * charge names train()'s mechanism.
 */
extern int64 dpobj_budget_charge(const DPProtectedContext *ctx,
								 const char *mechanism);

/*
 * The budget refusal train()'s pre-check and the charge share (DP004,
 * nothing charged): no budget at all (status LEDGER_BUDGET_NONE) or not
 * enough left (the remaining amounts go into the hint).
 */
extern pg_noreturn void dpobj_budget_refused(int status, const DPProtectedContext *ctx,
											 const char *remaining_epsilon,
											 const char *remaining_delta);

/* ---- train()'s side (seal.c) ----------------------------------------- */

/* What happened to the context during the query. */
typedef struct DPProtectedStatus
{
	bool		consumed;		/* a final function took it */
	bool		charged;		/* the budget debit committed */
	int64		ledger_id;		/* ... as this ledger row */
	bool		public_refusal; /* an error raised on public grounds before
								 * the charge (fail-closed check, budget
								 * refusal, ledger failure) */
	bool		note_held;		/* the charge's NOTICE waits for the release */
} DPProtectedStatus;

/* Activates ctx for the query that runs as exec_user. */
extern void protected_begin(const DPProtectedContext *ctx, Oid exec_user);

/* The status so far (valid until protected_end). */
extern void protected_status(DPProtectedStatus *status);

/*
 * The charge's NOTICE held while the query ran (a charge inside the sealed
 * query sends nothing then: its moment follows the rows): sends it now, at
 * the release.  No-op when none is held.
 */
extern void protected_release_note(void);

/* Deactivates and wipes the context (also done at transaction end). */
extern void protected_end(void);

#endif							/* DPOBJ_PROTECTED_H */
