/*-------------------------------------------------------------------------
 *
 * ledgerrun.c
 *	  The charged runs of this backend, and when their outcome becomes true
 *	  (ledger.h lists the outcomes).
 *
 * A run is open from its charge until its outcome is posted to the ledger
 * writer.  A mechanism reports 'not_certified', 'cancelled' or 'failed'
 * itself (posted at once).  'released' it cannot know: the model it
 * returns may still be lost to an error later in the same statement.  So
 * ledger_finish(..., "released") only marks the run RELEASING, with the
 * executor nesting level of the query that ran the mechanism, and:
 *
 *	  - when a query at a lower level ends normally (ExecutorEnd, or a
 *		utility statement such as FETCH returns), the query that ran the
 *		mechanism has completed: 'released' is posted, and the backend waits
 *		for it to be written (bounded, and never while a cancel is pending);
 *	  - when the (sub)transaction the run belongs to aborts first -- an
 *		error later in the statement, a cancel, statement_timeout, the
 *		session ending --, 'aborted' is posted;
 *	  - at COMMIT anything still RELEASING is 'released'.
 *
 * On the protected path the mechanism runs inside dpobj.train()'s own query
 * and the model goes to train()'s caller, so its level is one lower: the
 * run is released when the query that called train() completes.  A job
 * worker's caller is its transaction, which stores the model
 * (ledger_release_at_commit): its runs are released at the commit only.
 *
 * A run still CHARGED when its (sub)transaction aborts -- an error after
 * the charge that the mechanism did not report -- is 'failed'.  Only a
 * crash (no abort callbacks) leaves a run 'charged'.
 *
 * A protected run with a release deadline (src/protected/deadline.c) holds
 * its outcomes (ledger_hold_outcomes): they are queued but not posted until
 * the deadline, so the ledger's outcome and finished_at do not tell when a
 * run failed.  A 'cancelled' queued while holding replaces the run's
 * earlier held outcome, as a cancel would have ended the still-running
 * run.  The hold ends at the latest when the transaction ends.
 *
 * Outcomes are posted asynchronously: recording one never raises, never
 * waits for a cancel, and works in abort callbacks and at backend exit.
 * Session consistency: before its next statement takes its snapshot (at
 * parse analysis; ExecutorStart for a statement prepared earlier), the
 * backend waits (bounded) until its posted outcomes are written, so a
 * session sees the outcomes of its own runs.  An outcome that finds the queue (or, not
 * preloaded, every worker slot) full is kept and posted at the next chance.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "ledger/ledgerint.h"
#include "base/hooks.h"
#include "base/pg_compat.h"

#include "access/xact.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "parser/analyze.h"
#include "pgstat.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "tcop/utility.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"

typedef enum RunState
{
	RUN_CHARGED,				/* the mechanism is running */
	RUN_RELEASING				/* a model exists; its query has not ended */
} RunState;

typedef struct LedgerRun
{
	int64		id;
	RunState	state;
	bool		protected_path;
	int			level;			/* RELEASING: released below this level */
	SubTransactionId subid;
	char		detail[LEDGER_DETAIL_LEN];
} LedgerRun;

/* growable arrays in TopMemoryContext */
static LedgerRun *runs = NULL;
static int	nruns = 0;
static int	maxruns = 0;
static LedgerTicket *tickets = NULL;	/* posted, not yet known to be written */
static int	ntickets = 0;
static int	maxtickets = 0;
static LedgerRequest *unposted = NULL;	/* found no room: posted later */
static int	nunposted = 0;
static int	maxunposted = 0;
static int	held_from = -1;		/* unposted[held_from..] are held; -1: none */

/* executor/utility nesting level, as pg_stat_statements counts it */
static int	ledger_level = 0;
static bool exit_callback_registered = false;

static post_parse_analyze_hook_type prev_post_parse_analyze = NULL;
static ExecutorStart_hook_type prev_ExecutorStart = NULL;
static ExecutorRun_hook_type prev_ExecutorRun = NULL;
static ExecutorFinish_hook_type prev_ExecutorFinish = NULL;
static ExecutorEnd_hook_type prev_ExecutorEnd = NULL;
static ProcessUtility_hook_type prev_ProcessUtility = NULL;

/*
 * Room for one more element of a growable array; false when memory is out
 * (never raises: used from abort callbacks).
 */
static bool
grow(void **array, int n, int *max, Size elem)
{
	void	   *bigger;
	int			newmax;

	if (n < *max)
		return true;
	newmax = Max(16, *max * 2);
	bigger = MemoryContextAllocExtended(TopMemoryContext, newmax * elem, MCXT_ALLOC_NO_OOM);
	if (bigger == NULL)
		return false;
	if (*array != NULL)
	{
		memcpy(bigger, *array, n * elem);
		pfree(*array);
	}
	*array = bigger;
	*max = newmax;
	return true;
}

/* ---------------------------------------------------------------------
 * Posting outcomes
 * ---------------------------------------------------------------------
 */

/* how many of the unposted outcomes may be posted now (not held) */
static int
postable(void)
{
	return held_from >= 0 ? held_from : nunposted;
}

/* posts what waits, in order, while there is room */
void
ledger_runs_flush(void)
{
	int			done = 0;
	int			limit = postable();

	while (done < limit)
	{
		LedgerTicket t;

		if (!ledger_post(&unposted[done], &t))
			break;
		if (grow((void **) &tickets, ntickets, &maxtickets, sizeof(LedgerTicket)))
			tickets[ntickets++] = t;
		else
			ledger_ticket_forget(&t);
		done++;
	}
	if (done > 0)
	{
		memmove(unposted, unposted + done, (nunposted - done) * sizeof(LedgerRequest));
		nunposted -= done;
		if (held_from >= 0)
			held_from -= done;
	}
}

void
ledger_hold_outcomes(bool hold)
{
	held_from = hold ? nunposted : -1;
	if (!hold)
		ledger_runs_flush();
}

/* while holding: a cancel replaces the run's held outcomes (file header) */
static void
drop_held(int64 id)
{
	int			keep = held_from;

	for (int k = held_from; k < nunposted; k++)
		if (unposted[k].id != id)
			unposted[keep++] = unposted[k];
	nunposted = keep;
}

/* never raises */
static void
post_outcome(int64 id, LedgerOutcome outcome, const char *detail)
{
	if (!grow((void **) &unposted, nunposted, &maxunposted, sizeof(LedgerRequest)))
	{
		ereport(WARNING,
				(errmsg("dpobj: out of memory recording the outcome of ledger entry " INT64_FORMAT, id),
				 errhint("The entry keeps outcome \"charged\".")));
		return;
	}
	if (held_from >= 0 && outcome == LEDGER_OC_CANCELLED)
		drop_held(id);
	ledger_finish_request(&unposted[nunposted++], MyDatabaseId, id, outcome, detail);
	ledger_runs_flush();
}

/*
 * Waits until this backend's posted outcomes are written: at most
 * timeout_ms, and not at all while a cancel or terminate is pending (it
 * is left pending; this never raises).  What is not written by then is
 * no longer waited for (it is still written, later).
 */
static void
wait_posted(int timeout_ms)
{
	TimestampTz deadline = TimestampTzPlusMilliseconds(GetCurrentTimestamp(), timeout_ms);

	for (;;)
	{
		int			keep = 0;

		ledger_runs_flush();
		for (int k = 0; k < ntickets; k++)
		{
			if (ledger_ticket_done(&tickets[k]))
				ledger_ticket_forget(&tickets[k]);
			else
				tickets[keep++] = tickets[k];
		}
		ntickets = keep;
		if ((ntickets == 0 && postable() == 0) || QueryCancelPending || ProcDiePending)
			return;
		if (GetCurrentTimestamp() >= deadline)
		{
			for (int k = 0; k < ntickets; k++)
				ledger_ticket_forget(&tickets[k]);
			ntickets = 0;
			return;
		}
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 10, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
	}
}

static void run_close(int k, bool committed);

/*
 * Backend exit (after the transaction's abort has closed its runs): every
 * outcome still unposted is posted, waiting for room (a queue slot, or
 * without preloading a worker slot) up to dpobj.ledger_timeout -- also when
 * a terminate or cancel is pending, which would otherwise leave the entry
 * "charged" for good.  Then the writer gets a moment to write them.
 */
static void
ledger_runs_at_exit(int code, Datum arg)
{
	TimestampTz deadline = TimestampTzPlusMilliseconds(GetCurrentTimestamp(),
													   Max(dpobj_ledger_timeout, 1000));

	held_from = -1;
	for (int k = nruns - 1; k >= 0; k--)
		run_close(k, false);
	for (;;)
	{
		ledger_runs_flush();
		if (nunposted == 0 || GetCurrentTimestamp() >= deadline)
			break;
		if (WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_POSTMASTER_DEATH,
					  10, PG_WAIT_EXTENSION) & WL_POSTMASTER_DEATH)
			break;
		ResetLatch(MyLatch);
	}
	if (nunposted > 0)
		ereport(LOG,
				(errmsg("dpobj: %d ledger outcome(s) could not be posted before this backend exited", nunposted),
				 errhint("Those entries keep outcome \"charged\"; preload dpobj (shared_preload_libraries) so that outcomes need no free worker slot.")));
	wait_posted(1000);
}

/* ---------------------------------------------------------------------
 * Runs
 * ---------------------------------------------------------------------
 */

static int
run_find(int64 id)
{
	for (int k = 0; k < nruns; k++)
		if (runs[k].id == id)
			return k;
	return -1;
}

static void
run_remove(int k)
{
	runs[k] = runs[--nruns];
}

/* closes run k with the outcome its state implies at an abort or a commit */
static void
run_close(int k, bool committed)
{
	LedgerRun  *r = &runs[k];
	int64		id = r->id;
	char		detail[LEDGER_DETAIL_LEN];

	if (r->state == RUN_RELEASING)
	{
		strlcpy(detail, r->detail, sizeof(detail));
		run_remove(k);
		post_outcome(id, committed ? LEDGER_OC_RELEASED : LEDGER_OC_ABORTED, detail);
	}
	else
	{
		run_remove(k);
		post_outcome(id, LEDGER_OC_FAILED,
					 committed ? "the mechanism reported no outcome" :
					 "ended by an error or interrupt after the charge, before a model existed");
	}
}

void
ledger_run_open(int64 id, bool protected_path)
{
	LedgerRun  *r;

	if (!exit_callback_registered)
	{
		on_shmem_exit(ledger_runs_at_exit, (Datum) 0);
		exit_callback_registered = true;
	}
	if (!grow((void **) &runs, nruns, &maxruns, sizeof(LedgerRun)))
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory")));
	r = &runs[nruns++];
	memset(r, 0, sizeof(LedgerRun));
	r->id = id;
	r->state = RUN_CHARGED;
	r->protected_path = protected_path;
	r->subid = GetCurrentSubTransactionId();
}

void
ledger_run_finish(int64 id, LedgerOutcome outcome, const char *detail)
{
	int			k = run_find(id);

	if (outcome == LEDGER_OC_RELEASED)
	{
		LedgerRun  *r;

		if (k < 0)
		{
			ledger_run_open(id, false);
			k = nruns - 1;
		}
		r = &runs[k];
		r->state = RUN_RELEASING;
		r->level = ledger_level - (r->protected_path ? 1 : 0);
		r->subid = GetCurrentSubTransactionId();
		strlcpy(r->detail, detail ? detail : "", sizeof(r->detail));
		return;
	}
	if (k >= 0)
		run_remove(k);
	post_outcome(id, outcome, detail);
}

/* a job worker: models are received at the commit (ledger.h) */
static bool release_at_commit = false;

void
ledger_release_at_commit(void)
{
	release_at_commit = true;
}

/* a query at level ended normally: the runs released above it */
static void
runs_resolve(int level)
{
	bool		posted = false;

	if (release_at_commit)
		return;

	for (int k = nruns - 1; k >= 0; k--)
	{
		if (runs[k].state == RUN_RELEASING && runs[k].level > level)
		{
			run_close(k, true);
			posted = true;
		}
	}
	if (posted)
		wait_posted(dpobj_ledger_timeout);
}

/* ---------------------------------------------------------------------
 * Hooks and callbacks
 * ---------------------------------------------------------------------
 */

static void
ledger_xact_callback(XactEvent event, void *arg)
{
	/* a hold never outlives its transaction */
	if (event == XACT_EVENT_PRE_COMMIT || event == XACT_EVENT_PRE_PREPARE ||
		event == XACT_EVENT_ABORT)
		held_from = -1;
	switch (event)
	{
		case XACT_EVENT_PRE_COMMIT:
		case XACT_EVENT_PRE_PREPARE:
			while (nruns > 0)
				run_close(nruns - 1, true);
			break;
		case XACT_EVENT_ABORT:
			while (nruns > 0)
				run_close(nruns - 1, false);
			break;
		default:
			break;
	}
}

static void
ledger_subxact_callback(SubXactEvent event, SubTransactionId mySubid,
						SubTransactionId parentSubid, void *arg)
{
	for (int k = nruns - 1; k >= 0; k--)
	{
		if (runs[k].subid != mySubid)
			continue;
		if (event == SUBXACT_EVENT_ABORT_SUB)
			run_close(k, false);
		else if (event == SUBXACT_EVENT_COMMIT_SUB)
			runs[k].subid = parentSubid;
	}
}

/* session consistency: before a statement's snapshot, this session's outcomes */
static void
ledger_post_parse_analyze(ParseState *pstate, Query *query, JumbleState *jstate)
{
	if (ntickets > 0 || nunposted > 0)
		wait_posted(dpobj_ledger_timeout);
	if (prev_post_parse_analyze)
		prev_post_parse_analyze(pstate, query, jstate);
}

static void
ledger_ExecutorStart(QueryDesc *queryDesc, int eflags)
{
	if (ntickets > 0 || nunposted > 0)
		wait_posted(dpobj_ledger_timeout);
	if (prev_ExecutorStart)
		prev_ExecutorStart(queryDesc, eflags);
	else
		standard_ExecutorStart(queryDesc, eflags);
}

static void
ledger_ExecutorRun(COMPAT_EXECUTORRUN_PARAMS)
{
	ledger_level++;
	PG_TRY();
	{
		if (prev_ExecutorRun)
			prev_ExecutorRun(COMPAT_EXECUTORRUN_ARGS);
		else
			standard_ExecutorRun(COMPAT_EXECUTORRUN_ARGS);
	}
	PG_FINALLY();
	{
		ledger_level--;
	}
	PG_END_TRY();
}

static void
ledger_ExecutorFinish(QueryDesc *queryDesc)
{
	ledger_level++;
	PG_TRY();
	{
		if (prev_ExecutorFinish)
			prev_ExecutorFinish(queryDesc);
		else
			standard_ExecutorFinish(queryDesc);
	}
	PG_FINALLY();
	{
		ledger_level--;
	}
	PG_END_TRY();
}

static void
ledger_ExecutorEnd(QueryDesc *queryDesc)
{
	if (prev_ExecutorEnd)
		prev_ExecutorEnd(queryDesc);
	else
		standard_ExecutorEnd(queryDesc);
	if (nruns > 0)
		runs_resolve(ledger_level);
}

static void
ledger_ProcessUtility(PlannedStmt *pstmt, const char *queryString, bool readOnlyTree,
					  ProcessUtilityContext context, ParamListInfo params,
					  QueryEnvironment *queryEnv, DestReceiver *dest, QueryCompletion *qc)
{
	/* DROP DATABASE and friends: no ledger writer may stay connected */
	ledger_shm_utility(pstmt->utilityStmt);

	ledger_level++;
	PG_TRY();
	{
		dp_next_process_utility(prev_ProcessUtility, pstmt, queryString, readOnlyTree, context,
								params, queryEnv, dest, qc);
	}
	PG_FINALLY();
	{
		ledger_level--;
	}
	PG_END_TRY();
	if (nruns > 0)
		runs_resolve(ledger_level);
}

void
ledger_runs_init(void)
{
	prev_post_parse_analyze = post_parse_analyze_hook;
	post_parse_analyze_hook = ledger_post_parse_analyze;
	prev_ExecutorStart = ExecutorStart_hook;
	ExecutorStart_hook = ledger_ExecutorStart;
	prev_ExecutorRun = ExecutorRun_hook;
	ExecutorRun_hook = ledger_ExecutorRun;
	prev_ExecutorFinish = ExecutorFinish_hook;
	ExecutorFinish_hook = ledger_ExecutorFinish;
	prev_ExecutorEnd = ExecutorEnd_hook;
	ExecutorEnd_hook = ledger_ExecutorEnd;
	prev_ProcessUtility = ProcessUtility_hook;
	ProcessUtility_hook = ledger_ProcessUtility;
	RegisterXactCallback(ledger_xact_callback, NULL);
	RegisterSubXactCallback(ledger_subxact_callback, NULL);
}
