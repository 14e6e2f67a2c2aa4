/*-------------------------------------------------------------------------
 *
 * protected.c
 *	  The protected context (protected.h): set by dpobj.train() around its
 *	  one query, consumed once by the mechanism's final function, which
 *	  must have scanned exactly the protected table and charges the budget
 *	  before any noise exists.
 *
 * Fail closed (leak 7): the final function is accepted only on
 * top of recognised scans of the protected table or its inheritance
 * children (Citus's distributed scan counts as a scan of the distributed
 * tables it reads, scanrels.c), checked on the whole plan once its
 * executor has started and before it reads a row.  A scan the walker does
 * not recognise (any other custom scan, a foreign scan, ...) or no scan at
 * all is refused before the charge, with an error that depends only on the
 * plan (itself built from public inputs: the catalog, the options, pinned
 * settings).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "context/protected.h"
#include "base/dpobj.h"
#include "base/dpnumeric.h"
#include "ledger/ledger.h"

#include "access/xact.h"
#include "catalog/pg_inherits.h"
#include "miscadmin.h"
#include "nodes/execnodes.h"

static DPProtectedContext protected_ctx;
static Oid	protected_exec_user = InvalidOid;	/* user the query runs as */
static void *protected_agg = NULL;	/* the AggState the plan check found */
static DPProtectedStatus protected_st;
static bool xact_callback_registered = false;

static void
protected_reset(void)
{
	memset(&protected_ctx, 0, sizeof(protected_ctx));
	memset(&protected_st, 0, sizeof(protected_st));
	protected_exec_user = InvalidOid;
	protected_agg = NULL;
}

/* belt and braces: no context survives its transaction, whatever happens */
static void
protected_xact_callback(XactEvent event, void *arg)
{
	if (protected_ctx.active)
		protected_reset();
}

void
protected_begin(const DPProtectedContext *ctx, Oid exec_user)
{
	if (!xact_callback_registered)
	{
		RegisterXactCallback(protected_xact_callback, NULL);
		xact_callback_registered = true;
	}
	if (protected_ctx.active)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("dpobj.train() cannot be called inside the protected path"),
				 errhint("Call dpobj.train() directly.")));
	protected_reset();
	memcpy(&protected_ctx, ctx, sizeof(DPProtectedContext));
	protected_ctx.active = true;
	protected_ctx.consumed = false;
	protected_exec_user = exec_user;
}

void
protected_status(DPProtectedStatus *status)
{
	*status = protected_st;
	status->consumed = protected_ctx.consumed;
}

void
protected_end(void)
{
	protected_reset();
}

const DPProtectedContext *
dpobj_protected_peek(void)
{
	return protected_ctx.active ? &protected_ctx : NULL;
}

void
dpobj_protected_set_unit_bound(int k)
{
	if (!protected_ctx.active || protected_ctx.unit_share <= 0 || protected_ctx.unit_bound != 0 ||
		k < 1 || k > protected_ctx.rows_per_unit)
		elog(ERROR, "dpobj: a rows-per-unit bound outside a run that chooses one");
	protected_ctx.unit_bound = k;
}

/* a refusal on public grounds, before the charge: nothing is charged */
static void
refuse(const char *message, const char *hint)
{
	protected_st.public_refusal = true;
	ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			 errmsg("%s", message),
			 errdetail("Nothing was charged and no noise was drawn."),
			 errhint("%s", hint)));
}

/*
 * every scan below the aggregate is of the protected table, a table on its
 * unit path (unitlinks.h) or a child of one; with
 * tree, the table's tree is still the one train() checked
 */
static void
check_scan(const DPScanRelations *scan, bool tree)
{
	List	   *allowed;
	ListCell   *lc;

	if (!scan->found_agg)
		refuse("a mechanism on the protected path was not called by an aggregate",
			   "Call dpobj.train() directly.");
	if (scan->unrecognised)
		refuse("the protected path found a scan it does not recognise (custom, foreign, function or values scan)",
			   "dpobj.train() trains only on ordinary tables, partitioned tables and materialized views of this server.");
	if (scan->relids == NIL)
		refuse("the protected path found no scan of the protected table",
			   "The plan reads no partition or row of the table (a partitioned table without partitions, or a row-security policy that is always false).");
	/* the tree changed since train() checked it (protecttree.h): a protected table attached? */
	if (tree && dp_inheritance_tree_hash(protected_ctx.relid) != protected_ctx.tree_hash)
		refuse("the protected table's partitions or inheritance children changed during the run",
			   "Run dpobj.train() again once the ALTER TABLE on the table's partitions or inheritance children has committed.");
	allowed = find_all_inheritors(protected_ctx.relid, NoLock, NULL);
	/* a linked table's query also joins the tables on its path (locked by train()) */
	for (int i = 0; i < protected_ctx.unit_hops; i++)
		allowed = list_concat(allowed, find_all_inheritors(protected_ctx.unit_path[i], NoLock, NULL));
	/* and its public lookup tables (lookupjoin.h; checked and locked by train()) */
	for (int i = 0; i < protected_ctx.nlookups; i++)
		allowed = lappend_oid(allowed, protected_ctx.lookups[i]);
	foreach(lc, scan->relids)
	{
		if (!list_member_oid(allowed, lfirst_oid(lc)))
			refuse("a mechanism on the protected path scanned a relation other than the protected table",
				   "dpobj.train() scans only the protected table.");
	}
}

void
dpobj_protected_check_plan(PlanState *top)
{
	DPScanRelations scan;

	if (!protected_ctx.active)
		elog(ERROR, "dpobj: no protected training context");
	/* from here to the charge, every error is a refusal on public grounds */
	protected_st.public_refusal = true;
	if (GetUserId() != protected_exec_user)
		refuse("a mechanism on the protected path ran under an unexpected role",
			   "Call dpobj.train() directly, not from functions that change the current role.");
	dp_plan_relations(top, &scan);
	check_scan(&scan, true);
	protected_agg = scan.agg;
}

DPProtectedContext *
dpobj_protected_take(const DPScanRelations *scan, bool has_state, double epsilon,
					 double delta, int d)
{
	DPProtectedContext *copy;

	if (!protected_ctx.active)
		elog(ERROR, "dpobj: no protected training context");

	/*
	 * Exactly once: a second final function inside the same train() call
	 * (there is none in the statement train() builds) gets nothing.
	 */
	if (protected_ctx.consumed)
		refuse("the protected training context of dpobj.train() was already used",
			   "dpobj.train() runs exactly one mechanism per call.");
	protected_ctx.consumed = true;

	/*
	 * The charge was made before the plan read its first row
	 * (dpobj_protected_check_plan, then dpobj_budget_charge): never without
	 * it, and only for the aggregate that plan check found.
	 */
	if (!protected_st.charged)
		elog(ERROR, "dpobj: a protected run read rows without a charge");

	/* it must be train()'s own query, running as the table owner */
	if (GetUserId() != protected_exec_user)
		refuse("a mechanism on the protected path ran under an unexpected role",
			   "Call dpobj.train() directly, not from functions that change the current role.");

	if (scan->agg == NULL || scan->agg != protected_agg)
		refuse("a mechanism on the protected path ran in an aggregate other than the one charged",
			   "Call dpobj.train() directly.");
	check_scan(scan, false);

	/* ... with the privacy parameters that were charged */
	if (has_state &&
		(epsilon != protected_ctx.epsilon_f || delta != protected_ctx.delta_f ||
		 d != protected_ctx.d))
		refuse("a mechanism on the protected path received parameters other than the ones charged",
			   "Call dpobj.train() directly.");

	copy = palloc(sizeof(DPProtectedContext));
	memcpy(copy, &protected_ctx, sizeof(DPProtectedContext));
	copy->ledger_id = protected_st.ledger_id;
	return copy;
}

void
dpobj_budget_refused(int status, const DPProtectedContext *ctx,
					 const char *remaining_epsilon, const char *remaining_delta)
{
	const char *domain = ctx->budget_domain;

	if (status == LEDGER_BUDGET_NONE && domain[0] != '\0')
		ereport(ERROR,
				(errcode(ERRCODE_DPOBJ_BUDGET_EXCEEDED),
				 errmsg("role \"%s\" has no privacy budget on budget domain \"%s\" of table %s",
						ctx->rolname, domain, ctx->relation),
				 errdetail("Nothing was charged and no noise was drawn."),
				 errhint("The domain's owner or a member of dpobj_admin can grant one with dpobj.grant_domain_budget().")));
	if (status == LEDGER_BUDGET_NONE)
		ereport(ERROR,
				(errcode(ERRCODE_DPOBJ_BUDGET_EXCEEDED),
				 errmsg("role \"%s\" has no privacy budget on table %s", ctx->rolname, ctx->relation),
				 errdetail("Nothing was charged and no noise was drawn."),
				 errhint("The table's owner or a member of dpobj_admin can grant one with dpobj.grant_budget().")));
	ereport(ERROR,
			(errcode(ERRCODE_DPOBJ_BUDGET_EXCEEDED),
			 errmsg("privacy budget exceeded on %s%s%s%s for role \"%s\"",
					domain[0] != '\0' ? "budget domain \"" : "", domain,
					domain[0] != '\0' ? "\" of table " : "table ", ctx->relation, ctx->rolname),
			 errdetail("The request (epsilon %s, delta %s) exceeds the remaining budget. "
					   "Nothing was charged and no noise was drawn.", ctx->epsilon, ctx->delta),
			 errhint("Remaining budget: epsilon %s, delta %s.", dp_budget_text(remaining_epsilon),
					 dp_budget_text(remaining_delta))));
}

/*
 * The charge's one line (train.c wrote it before any row was read): sent
 * now when the charge comes before the protected query, held for
 * protected_release_note() when it comes inside it (or after it failed),
 * where its moment would tell how long the scan took.
 */
static void
charge_note_send(const DPProtectedContext *ctx)
{
	if (ctx->charge_note[0] == '\0')
		return;
	if (protected_ctx.active)
	{
		protected_st.note_held = true;
		return;
	}
	ereport(NOTICE, (errmsg("%s", ctx->charge_note)));
}

int64
dpobj_budget_charge(const DPProtectedContext *ctx, const char *mechanism)
{
	LedgerBudgetStatus status;
	int64		ledger_id = 0;
	char		rem_e[LEDGER_AMOUNT_LEN];
	char		rem_d[LEDGER_AMOUNT_LEN];

	(void) mechanism;			/* the ledger names train()'s mechanism */

	/*
	 * Until the debit commits, an error here is about the budget or the
	 * ledger writer, never about the rows: train() passes it on as is.
	 */
	protected_st.public_refusal = true;
	status = ledger_charge_budget(ctx->relid, ctx->analyst, ctx->rolname,
								  ctx->mechanism, ctx->epsilon, ctx->delta,
								  &ctx->cost, ctx->relation, &ledger_id, rem_e, rem_d);
	if (status != LEDGER_BUDGET_CHARGED)
		dpobj_budget_refused(status, ctx, rem_e, rem_d);
	protected_st.public_refusal = false;
	protected_st.charged = true;
	protected_st.ledger_id = ledger_id;
	charge_note_send(ctx);
	return ledger_id;
}

void
protected_release_note(void)
{
	if (!protected_st.note_held)
		return;
	protected_st.note_held = false;
	ereport(NOTICE, (errmsg("%s", protected_ctx.charge_note)));
}
