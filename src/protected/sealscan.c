/*-------------------------------------------------------------------------
 *
 * sealscan.c
 *	  The sealed query's last step before its first row (sealscan.h).
 *
 * seal.c prepares the query through SPI and arms this hook with the plan's
 * text; SPI then gets the cached plan (parsing and planning it again if it
 * was invalidated) and starts the executor, which opens the relations and
 * builds every node but reads no row (a parallel plan's workers start at
 * its first row).  When ExecutorRun is called for that query, before the
 * first row is read, in this order:
 *	  1. the plan, as it will run (partitions pruned at its start), scans
 *		 only the protected table's tree below an aggregate (protected.c);
 *	  2. everything the scan can touch is taken and loaded (sealprep.c);
 *	  3. the pg_cast share locks a key's cast check took are released:
 *		 parsing and planning are over (trainquery.c);
 *	  4. the budget is charged: the ledger writer has committed the debit
 *		 when dpobj_budget_charge() returns (protected.c, ledger/).
 * Steps 1 to 4 use public inputs only: an error there is a refusal on
 * public grounds, nothing charged.  From the first row on, a failure, a
 * cancel or a timeout costs the run whatever the rows are (seal.c).
 * The query is recognised by its source text's address: SPI hands the
 * executor its plan's own copy, which no other statement shares.
 *
 * In a parallel worker of the sealed query (dpobj.sealed_scan, which the
 * worker inherits), the TOAST and index locks of the relations it scans
 * are taken before its first row too: pg_locks shows a worker's own locks.
 * A Citus shard task of a sealed run joining tables counts no scan and no
 * temporary file on its worker (seal_executor_start).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "protected/sealscan.h"

#include "access/parallel.h"
#include "base/distributed.h"
#include "base/options.h"
#include "base/pg_compat.h"
#include "base/waitsink.h"
#include "context/protected.h"
#include "context/trainquery.h"
#include "context/workerpins.h"
#include "executor/executor.h"
#include "protected/sealprep.h"
#include "utils/plancache.h"

static ExecutorStart_hook_type prev_ExecutorStart = NULL;
static ExecutorRun_hook_type prev_ExecutorRun = NULL;
static const char *armed_text = NULL;	/* the sealed query's source text */
static const DPProtectedContext *armed_ctx = NULL;

void
seal_scan_arm(const DPProtectedContext *ctx, SPIPlanPtr plan)
{
	List	   *sources = SPI_plan_get_plan_sources(plan);

	if (list_length(sources) != 1)
		elog(ERROR, "dpobj: the sealed query must be one statement");
	armed_text = ((CachedPlanSource *) linitial(sources))->query_string;
	armed_ctx = ctx;
}

void
seal_scan_disarm(void)
{
	armed_text = NULL;
	armed_ctx = NULL;
}

/* steps 1 to 4 of the file header */
static void
seal_before_first_row(const DPProtectedContext *ctx, QueryDesc *queryDesc)
{
	DPProtectedStatus st;

	dpobj_protected_check_plan(queryDesc->planstate);
	seal_prepare(ctx->relid, queryDesc->planstate);
	/* a linked table's path: its tables' trees too (unitlinks.h) */
	for (int i = 0; i < ctx->unit_hops; i++)
		seal_prepare(ctx->unit_path[i], queryDesc->planstate);
	/* the public lookup tables it joins (lookupjoin.h) */
	for (int i = 0; i < ctx->nlookups; i++)
		seal_prepare(ctx->lookups[i], queryDesc->planstate);
	train_query_unlock_casts();
	/* once: a private k' on Citus was drawn by a first query, charged (seal.c) */
	protected_status(&st);
	if (!st.charged)
		(void) dpobj_budget_charge(ctx, ctx->mechanism);
}

/* the plan reads more than one table (a join) */
static bool
seal_plan_joins(const PlannedStmt *stmt)
{
	Oid			first = InvalidOid;
	ListCell   *lc;

	foreach(lc, stmt->rtable)
	{
		RangeTblEntry *rte = lfirst_node(RangeTblEntry, lc);

		if (rte->rtekind != RTE_RELATION)
			continue;
		if (OidIsValid(first) && rte->relid != first)
			return true;
		first = rte->relid;
	}
	return false;
}

/*
 * A Citus shard task of a sealed run (its aggregate's options, options.h)
 * that joins tables (on the unit, or lookups: trainquery.h): which of its
 * scans run, how far, and which temporary files its join writes follow the
 * rows (an empty side ends a join early), so the worker counts none of
 * them: unobserved before its relations are opened, until the query ends
 * (workerpins.h).  A single table's task scans it whole, counted (a unit's
 * bounding pinned from its first bounded row, unitkeep.c).
 */
static void
seal_executor_start(QueryDesc *queryDesc, int eflags)
{
	if (queryDesc->sourceText != NULL && dpobj_protected_peek() == NULL &&
		strstr(queryDesc->sourceText, "\"" DPOBJ_SEALED_KEY "\": true") != NULL &&
		seal_plan_joins(queryDesc->plannedstmt) && dp_citus_task_session())
		worker_pins_unobserved_query(CurrentMemoryContext);
	if (prev_ExecutorStart)
		prev_ExecutorStart(queryDesc, eflags);
	else
		standard_ExecutorStart(queryDesc, eflags);
}

static void
seal_executor_run(COMPAT_EXECUTORRUN_PARAMS)
{
	if (armed_text != NULL && queryDesc->sourceText == armed_text)
	{
		const DPProtectedContext *ctx = armed_ctx;

		seal_scan_disarm();
		seal_before_first_row(ctx, queryDesc);
	}
	else if (IsParallelWorker() && dpobj_sealed_scan())
		seal_prepare_worker(queryDesc->planstate);
	if (prev_ExecutorRun)
		prev_ExecutorRun(COMPAT_EXECUTORRUN_ARGS);
	else
		standard_ExecutorRun(COMPAT_EXECUTORRUN_ARGS);
}

void
seal_scan_init(void)
{
	prev_ExecutorStart = ExecutorStart_hook;
	ExecutorStart_hook = seal_executor_start;
	prev_ExecutorRun = ExecutorRun_hook;
	ExecutorRun_hook = seal_executor_run;
}
