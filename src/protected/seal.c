/*-------------------------------------------------------------------------
 *
 * seal.c
 *	  Running dpobj.train()'s one query sealed (seal.h; the
 *	  cross-cutting rule of docs/ALGORITHMS.md, "Public decisions only").
 *
 * 1. Announce the phase "scanning" for every run, before the scan (leak 1:
 *	  the transition function announced it only for non-empty selections),
 *	  and keep the progress phases forward-only for the run (progress.c).
 * 2. Pin, inside the GUC nest level of the role switch to the table owner,
 *	  every setting that could make the scan observable (leak 6):
 *	  sequential scans only (index, bitmap and TID scans would count the
 *	  filtered rows in pg_stat_xact_user_tables.idx_tup_fetch), a parallel
 *	  plan only where the state's flat form is bounded by public values
 *	  (train.c), and then whenever the table's size allows one
 *	  (sealplan.c), no parallel append, no partitionwise aggregation, no JIT (its decision uses the
 *	  planner's row estimates), no function-call statistics, no debug or
 *	  statistics printing, row security on, no synchronized scans, and
 *	  client_min_messages = error: no message from inside the query reaches
 *	  the client except dpobj's own progress lines (progress.c).  The
 *	  solver time limit is pinned to dpobj.protected_time_limit, which only
 *	  a superuser sets: the analyst cannot choose it.  On a Citus
 *	  distributed table the planner settings are pinned in the shard
 *	  sessions too (workerpins.c).
 * 3. Run the query in a subtransaction, with one plan whatever the
 *	  analyst's plan_cache_mode.  Once its executor has started and before
 *	  it reads its first row, its plan is checked, everything the scan can
 *	  touch is prepared and the budget is charged (sealscan.c): from its
 *	  first row on, the run has paid, whatever the rows are.  A private
 *	  rows-per-unit bound on Citus runs a first query the same way, charged
 *	  there, whose k' the query then takes (seal_unit_bound_first).  If it fails:
 *	  - a query cancel stays a cancel (the caller asked for it); the ledger
 *		records it as 'cancelled' once charged;
 *	  - before the charge, on public grounds (parse and plan, which use the
 *		catalog only; the fail-closed checks of the plan and what the scan
 *		is prepared with; the budget refusal DP004, a ledger-writer failure
 *		DP002): the error is passed on, nothing charged;
 *	  - anything else -- after the charge (an error in the scan, a refusal
 *		inside the final function), or before it between the start of the
 *		execution and the plan's check: the run is charged (if it was not
 *		yet), its ledger outcome is 'failed', the cause goes to the server
 *		log only, and the client gets one fixed error: SQLSTATE DP006,
 *		fixed message, detail and hint.  A data-dependent error is never
 *		free and never informs.
 * 4. With a release deadline (deadline.c), every outcome of the query --
 *	  the model, DP006, and also a refusal raised at the charge -- is
 *	  handed over at the deadline, never sooner; only a cancel (the
 *	  caller's own doing) ends the call at once.  Until then the progress
 *	  phases after "scanning" and the ledger's outcome are held.
 * 5. The whole run, deadline included, reports its waits into a private
 *	  sink (waitsink.h): pg_stat_activity shows it with no wait event.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "protected/seal.h"
#include "context/deadline.h"
#include "base/dpobj.h"
#include "base/waitsink.h"
#include "ledger/ledger.h"
#include "base/privileged.h"
#include "base/progress.h"
#include "protected/sealscan.h"
#include "protected/spiplans.h"
#include "context/workerpins.h"

#include "access/xact.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "optimizer/cost.h"
#include "utils/guc.h"
#include "utils/memutils.h"
#include "utils/resowner.h"

/*
 * settings pinned for the protected query (see the file header): those
 * any role may set (workerpins.h, also pinned on Citus workers) and these
 */
static const DPSettingPin seal_pins[] =
{
	{"track_functions", "none"},
	{"log_parser_stats", "off"},
	{"log_planner_stats", "off"},
	{"log_executor_stats", "off"},
	{"log_statement_stats", "off"},
	/* Citus (present when it is loaded): no log lines about the shard tasks */
	{"citus.log_remote_commands", "off"},
	{"citus.multi_task_query_log_level", "off"},

	/*
	 * No statistics of the query: a spilled state or unit bounding writes
	 * temporary files, whose number and size (pg_stat_database, which every
	 * role reads; the server log) follow the distinct rows or units; with
	 * pg_stat_statements loaded and track = all, every role would read the
	 * query's own entry (its blocks, rows and time); no I/O timing, which
	 * pg_stat_database (blk_read_time) would sum.
	 */
	{"track_counts", "off"},
	{"track_io_timing", "off"},
	{"track_wal_io_timing", "off"},
	{"log_temp_files", "-1"},
	{"pg_stat_statements.track", "top"},
	/* its parallel workers wait into the sink from their start (waitsink.h) */
	{"dpobj.sealed_scan", "on"},
};

static void
seal_pin(const char *name, const char *value)
{
	/* optional settings (trace_sort needs TRACE_SORT) may be missing */
	if (GetConfigOption(name, true, false) == NULL)
		return;
	(void) set_config_option(name, value, PGC_SUSET, PGC_S_SESSION,
							 GUC_ACTION_SAVE, true, 0, false);
}

/*
 * A run whose state may travel from parallel workers (train.c): the
 * caller's max_parallel_workers_per_gather again; no parallel append, whose
 * choice against a plain append of the partitions' partial scans weighs
 * their estimated output rows; and a leader that only combines the workers'
 * states, so that it holds one state, as a serial run does.  A privacy
 * unit's run (a linked table's) gathers rows, not states: its leader joins
 * too, as the caller's setting says; each process builds its own hash
 * tables, in its memory and temporary files as a serial join does (a shared
 * one lives in dynamic shared memory, which a skewed key could exhaust).
 * Which plan runs is sealplan.c's.
 */
static void
seal_pin_parallel(const DPProtectedContext *ctx, const char *workers)
{
	seal_pin("max_parallel_workers_per_gather", workers);
	seal_pin("enable_parallel_append", "off");
	if (ctx->rows_per_unit == 0)
		seal_pin("parallel_leader_participation", "off");
	else
		seal_pin("enable_parallel_hash", "off");
}

/* into the current GUC nest level (the role switch's) */
static void
seal_pin_settings(const DPProtectedContext *ctx)
{
	char		limit[64];
	char		workers[32];

	/* the caller's, before the pins below set it to 0 */
	snprintf(workers, sizeof(workers), "%d", max_parallel_workers_per_gather);
	for (int i = 0; i < dp_n_user_pins; i++)
		seal_pin(dp_user_pins[i].name, dp_user_pins[i].value);
	if (ctx->parallel)
		seal_pin_parallel(ctx, workers);
	for (int i = 0; i < lengthof(seal_pins); i++)
		seal_pin(seal_pins[i].name, seal_pins[i].value);

	/*
	 * A privacy unit's bounding keeps its counters in memory within
	 * dpobj.max_state_memory, or, past it, sorts the rows (unitkeep.c); a
	 * state may sort them too (dp_aggregate_keys, aggkeys.c).  The sort's
	 * memory is work_mem: the analyst's, but never more than the cap
	 * (hash nodes, should a plan have any, at most twice that), so that no
	 * setting of the analyst's can make the run need more memory; its files
	 * go to the database's default tablespace, as the GLM states' do, not to
	 * a temp_tablespaces entry the analyst may have chosen (a small one would
	 * make the run fail by the rows' size).  Their statistics are off for
	 * every run (seal_pins).
	 */
	if (ctx->rows_per_unit > 0 || ctx->sorts_rows)
	{
		char		value[64];

		snprintf(value, sizeof(value), "%d", Min(work_mem, dpobj_max_state_memory));
		seal_pin("work_mem", value);
		snprintf(value, sizeof(value), "%g", Min(hash_mem_multiplier, 2.0));
		seal_pin("hash_mem_multiplier", value);
		seal_pin("temp_tablespaces", "");
	}
	snprintf(limit, sizeof(limit), "%g", dpobj_protected_time_limit);
	seal_pin("dpobj.solver_time_limit", limit);

	/*
	 * One kind of plan whatever the analyst's plan_cache_mode: planned for
	 * its constants each run (as Citus wants its queries; the filter's
	 * constants sit inside one expression, trainquery.c, which no planner
	 * estimate compares with the table's statistics), so that the executor
	 * reads no parameter per row.
	 */
	seal_pin("plan_cache_mode", "force_custom_plan");
}

void
seal_generic_error(void)
{
	ereport(ERROR,
			(errcode(ERRCODE_DPOBJ_PROTECTED_FAILURE),
			 errmsg("dpobj.train: the protected run failed and released no model"),
			 errdetail("The privacy budget of this run was charged. "
					   "The cause is not reported because it could depend on the protected rows."),
			 errhint("Your row in dpobj.ledger shows the run's outcome; only the server log, for the administrator, has the cause. A new attempt is charged again.")));
}

/*
 * A charged run's failure in the ledger, before the subtransaction's
 * rollback would record it as failed for a reason of its own: cancelled,
 * or failed (seal_fail then raises DP006)
 */
static void
seal_record_failure(const ErrorData *edata)
{
	DPProtectedStatus st;

	protected_status(&st);
	if (!st.charged)
		return;
	if (edata->sqlerrcode == ERRCODE_QUERY_CANCELED)
		ledger_finish(st.ledger_id, LEDGER_OUTCOME_CANCELLED, "interrupted");
	else
		ledger_finish(st.ledger_id, LEDGER_OUTCOME_FAILED, "failed");
}

/*
 * A failed run (see the file header).  edata is the error, executing says
 * whether the query had started to execute.  Never returns.
 */
static void
seal_fail(const DPProtectedContext *ctx, ErrorData *edata, bool executing)
{
	DPProtectedStatus st;

	protected_status(&st);
	/* recorded before the subtransaction's rollback (seal_execute) */
	if (edata->sqlerrcode == ERRCODE_QUERY_CANCELED)
		ReThrowError(edata);
	if (!st.charged && (!executing || st.public_refusal))
		ReThrowError(edata);

	/* for the administrator only */
	ereport(LOG_SERVER_ONLY,
			(errmsg_internal("dpobj: a protected run on %s for role \"%s\" failed (%s): %s",
							 ctx->relation, ctx->rolname,
							 unpack_sql_state(edata->sqlerrcode),
							 edata->message ? edata->message : "(no message)")));
	/* charged: recorded before the rollback (seal_record_failure) */
	if (!st.charged)
		ledger_finish(dpobj_budget_charge(ctx, ctx->mechanism), LEDGER_OUTCOME_FAILED, "failed");
	seal_generic_error();
}

/*
 * A private k' on Citus (trainquery.h): the first query, prepared with the
 * second (parsing uses the catalog only), run before it, charged before its
 * first row (sealscan.c) and finalised on the coordinator, which draws k'
 * (unitboundshards.c); k' becomes the sorted bounding's $k.  Its plan is
 * checked, and its relations locked, as the second's.
 */
static void
seal_unit_bound_first(const DPProtectedContext *ctx, TrainQuery *q, SPIPlanPtr plan)
{
	int			ret;
	bool		isnull;
	Datum		k;

	seal_scan_arm(ctx, plan);
	ret = SPI_execute_plan(plan, q->values, NULL, true, 0);
	seal_scan_disarm();
	if (ret != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "dpobj.train: the rows-per-unit bound's query failed: SPI result %d", ret);
	k = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	if (isnull || DatumGetInt64(k) != dpobj_protected_peek()->unit_bound)
		elog(ERROR, "dpobj.train: the rows-per-unit bound's query returned no bound");
	q->values[q->unit_bound_param] = k;
	SPI_freeplan(plan);
}

/*
 * The query in a subtransaction, as exec_user with the settings pinned (its
 * buffer and WAL usage never reaches the caller's totals: train.c).
 */
static Datum
seal_execute(const DPProtectedContext *ctx, TrainQuery *q, Oid exec_user,
			 bool *isnull)
{
	MemoryContext oldcxt = CurrentMemoryContext;
	ResourceOwner oldowner = CurrentResourceOwner;
	volatile bool executing = false;
	Datum		result = (Datum) 0;

	*isnull = true;
	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(oldcxt);
	PG_TRY();
	{
		RoleSwitch	rs;
		SPIPlanPtr	plan;
		SPIPlanPtr	bound = NULL;
		int			ret;

		role_switch_begin(&rs, exec_user, true);
		seal_pin_settings(ctx);
		/* a Citus table: the shard sessions' planner settings too */
		if (ctx->citus)
			worker_pins_send(ctx->rows_per_unit > 0 || ctx->sorts_rows);

		/*
		 * A parallel plan only where train() allows it (ctx->parallel):
		 * without CURSOR_OPT_PARALLEL_OK the planner makes none, even under
		 * debug_parallel_query (force_parallel_mode before 16).  Workers
		 * know the protected path from the options' "sealed" key (options.h)
		 * and run under this nest level's
		 * settings and role, which PostgreSQL hands them.  The plan is kept
		 * by its text and cursor options (a run on the same table, columns
		 * and filters plans once; the options are a parameter), made and
		 * replanned under the settings pinned above; a Citus query is
		 * planned anew, with the shard sessions' settings just sent.
		 */
		StaticAssertStmt(lengthof(q->types) <= DP_SPI_TEXT_MAXARGS,
						 "a sealed query's parameters fit a kept plan");
		if (ctx->citus)
			plan = SPI_prepare_cursor(q->sql.data, q->nparams, q->types, 0);
		else
			plan = dp_spi_prepare_text(q->sql.data, q->nparams, q->types,
									   ctx->parallel ? CURSOR_OPT_PARALLEL_OK : 0);
		if (q->unit_bound_sql != NULL)
			bound = SPI_prepare_cursor(q->unit_bound_sql, q->nparams, q->types, 0);
		if (plan == NULL || (q->unit_bound_sql != NULL && bound == NULL))
			elog(ERROR, "dpobj.train: could not prepare the mechanism query: %s",
				 SPI_result_code_string(SPI_result));
		executing = true;
		if (bound != NULL)
			seal_unit_bound_first(ctx, q, bound);
		/* the plan checked and prepared, the budget charged, before its first row */
		seal_scan_arm(ctx, plan);
		/* no row count: a count makes the executor run the plan serially */
		ret = SPI_execute_plan(plan, q->values, NULL, true, 0);
		seal_scan_disarm();
		role_switch_end(&rs);
		if (ret != SPI_OK_SELECT || SPI_processed != 1)
			elog(ERROR, "dpobj.train: mechanism query failed: SPI result %d", ret);
		result = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, isnull);
		if (!*isnull)
			result = SPI_datumTransfer(result, false, -1);

		ReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(oldcxt);
		CurrentResourceOwner = oldowner;
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		seal_scan_disarm();
		MemoryContextSwitchTo(oldcxt);
		edata = CopyErrorData();
		FlushErrorState();
		seal_record_failure(edata);
		RollbackAndReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(oldcxt);
		CurrentResourceOwner = oldowner;
		seal_fail(ctx, edata, executing);
	}
	PG_END_TRY();
	return result;
}

/*
 * after a query that did not fail: charged before its first row, its final
 * function must have claimed the context and returned a model; else the run
 * fails after the charge
 */
static void
seal_check_done(const DPProtectedContext *ctx, bool isnull)
{
	DPProtectedStatus st;

	protected_status(&st);
	if (st.consumed && st.charged && !isnull)
		return;
	ereport(LOG_SERVER_ONLY,
			(errmsg_internal("dpobj: a protected run on %s for role \"%s\" returned no model",
							 ctx->relation, ctx->rolname)));
	ledger_finish(st.charged ? st.ledger_id : dpobj_budget_charge(ctx, ctx->mechanism),
				  LEDGER_OUTCOME_FAILED, "failed");
	seal_generic_error();
}

/* the query's model, after the checks: errors propagate */
static Datum
seal_query(const DPProtectedContext *ctx, TrainQuery *q, Oid exec_user, int64 *ledger_id)
{
	DPProtectedStatus st;
	bool		isnull = true;
	Datum		result;

	result = seal_execute(ctx, q, exec_user, &isnull);
	seal_check_done(ctx, isnull);
	protected_status(&st);
	*ledger_id = st.ledger_id;
	return result;
}

/* the deadline (if any) has come: the held phases resume with "releasing" */
static void
seal_at_deadline(void)
{
	DPProtectedStatus st;

	if (!deadline_active())
		return;
	protected_status(&st);
	deadline_wait(st.charged ? st.ledger_id : 0);
	dpobj_progress_unhold();
	dpobj_progress_phase(DPOBJ_PHASE_RELEASING);
}

/* the query's outcome, model or error, at the deadline (file header, 4.) */
static Datum
seal_released(const DPProtectedContext *ctx, TrainQuery *q, Oid exec_user, int64 *ledger_id)
{
	MemoryContext oldcxt = CurrentMemoryContext;
	volatile Datum result = (Datum) 0;

	PG_TRY();
	{
		result = seal_query(ctx, q, exec_user, ledger_id);
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(oldcxt);
		edata = CopyErrorData();
		FlushErrorState();
		if (edata->sqlerrcode != ERRCODE_QUERY_CANCELED)
			seal_at_deadline();
		/* what the charge spent, with the outcome */
		protected_release_note();
		ReThrowError(edata);
	}
	PG_END_TRY();
	seal_at_deadline();
	protected_release_note();
	return result;
}

Datum
seal_run(const DPProtectedContext *ctx, TrainQuery *q, Oid exec_user, int64 *ledger_id,
		 TimestampTz release_at)
{
	volatile Datum result = (Datum) 0;

	protected_begin(ctx, exec_user);
	deadline_begin(release_at);
	/* the waits of the scan, the bounding, a spill, the solver, the deadline */
	waitsink_begin();
	PG_TRY();
	{
		/* progress: one forward-only run, "scanning" announced every time */
		dpobj_progress_seal(client_min_messages, release_at != 0);
		dpobj_progress_phase(DPOBJ_PHASE_SCANNING);
		result = seal_released(ctx, q, exec_user, ledger_id);
	}
	PG_FINALLY();
	{
		waitsink_end();
		deadline_end();
		protected_end();
		dpobj_progress_seal(-1, false);
	}
	PG_END_TRY();
	return result;
}
