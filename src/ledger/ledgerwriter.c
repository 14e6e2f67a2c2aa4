/*-------------------------------------------------------------------------
 *
 * ledgerwriter.c
 *	  The long-lived ledger writer (a static background worker; with
 *	  shared_preload_libraries = 'dpobj' only).  See ledgershm.c for the
 *	  queue and the assignment of writers to databases.
 *
 *	  start      register in shared memory; wait, unconnected, until the
 *	             writer is assigned a database (or adopts waiting requests)
 *	  connect    to that database as the bootstrap superuser; pin settings
 *	             (ledgerexec.c: search_path, READ COMMITTED, durable commit,
 *	             lock_timeout LEDGER_LOCK_TIMEOUT_MS)
 *	  loop       take up to LEDGER_BATCH_MAX queued requests (oldest first);
 *	             one transaction, one subtransaction per request -- an error
 *	             or a busy lock in one request does not touch the others --;
 *	             COMMIT; then answer.  Idle: wait on the latch; exit (and be
 *	             restarted unconnected) when reassigned or idle too long.
 *
 * A request that hits a busy lock (an administrator's open transaction on
 * a budget row, say) is queued again instead of blocking the database's
 * other requests; its caller's own timeout bounds how long it keeps trying.
 * An error outside the subtransactions (the COMMIT itself) fails the whole
 * batch -- nothing of it was written -- and the writer goes on.  SIGTERM
 * (shutdown, pg_terminate_backend) lets the writer finish its batch and
 * drain the queue for a moment, then exit with code 1, so that it is
 * restarted unless the server is shutting down.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "ledger/ledgerint.h"

#include "access/xact.h"
#include "catalog/pg_authid.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "tcop/tcopprot.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/timestamp.h"

#define LEDGER_LOCK_TIMEOUT_MS	50		/* a busy lock: queue the request again */
#define LEDGER_IDLE_DETACH_MS	(5 * 60 * 1000)
#define LEDGER_DRAIN_MS			2000	/* at shutdown: keep serving this long */

/* the batch in progress (for the error path) */
static int	cur_slots[LEDGER_BATCH_MAX];
static int	cur_n = 0;
static int	my_writer = -1;

/* one request in its own subtransaction; never raises */
static LedgerStatus
writer_run_one(int slot, LedgerReply *reply, int64 *pending)
{
	MemoryContext oldcontext = CurrentMemoryContext;
	ResourceOwner oldowner = CurrentResourceOwner;
	LedgerRequest req;
	volatile LedgerStatus status = LEDGER_DONE;

	ledger_shm_batch_request(slot, &req);
	*pending = 0;
	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(oldcontext);
	PG_TRY();
	{
		ledger_exec(&req, reply, pending);
		ReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(oldcontext);
		CurrentResourceOwner = oldowner;
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(oldcontext);
		edata = CopyErrorData();
		FlushErrorState();
		RollbackAndReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(oldcontext);
		CurrentResourceOwner = oldowner;
		*pending = 0;
		/*
		 * A busy lock, or a cancel that reached the writer (an
		 * administrator's pg_cancel_backend sweep): the request is sound,
		 * queue it again -- an outcome dropped after a few such failures
		 * would leave its run 'charged' for good.
		 */
		if (edata->sqlerrcode == ERRCODE_LOCK_NOT_AVAILABLE ||
			edata->sqlerrcode == ERRCODE_QUERY_CANCELED)
			status = LEDGER_RETRY;
		else
		{
			status = LEDGER_FAILED;
			ereport(LOG,
					(errmsg("dpobj ledger writer: a ledger request failed: %s", edata->message)));
		}
		FreeErrorData(edata);
	}
	PG_END_TRY();
	if (*pending != 0)
		ledger_shm_set_pending(slot, *pending);
	return status;
}

static void
writer_run_batch(int w)
{
	LedgerStatus status[LEDGER_BATCH_MAX];
	LedgerReply replies[LEDGER_BATCH_MAX];
	int64		pending[LEDGER_BATCH_MAX];
	char		activity[64];

	snprintf(activity, sizeof(activity), "dpobj ledger: %d request(s)", cur_n);
	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	pgstat_report_activity(STATE_RUNNING, activity);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "dpobj ledger writer: could not connect to the SPI manager");
	/* the outer snapshot SPI needs; each statement still takes a fresh one */
	PushActiveSnapshot(GetTransactionSnapshot());
	for (int j = 0; j < cur_n; j++)
		status[j] = writer_run_one(cur_slots[j], &replies[j], &pending[j]);
	PopActiveSnapshot();
	SPI_finish();
	CommitTransactionCommand();
	pgstat_report_stat(false);
	pgstat_report_activity(STATE_IDLE, NULL);

	/* only now: "done" means committed */
	ledger_shm_batch_done(w, cur_slots, status, replies, pending, cur_n);
	cur_n = 0;
}

/* the error path: nothing of the batch was committed */
static void
writer_batch_failed(int w)
{
	LedgerStatus status[LEDGER_BATCH_MAX];
	LedgerReply replies[LEDGER_BATCH_MAX];
	int64		pending[LEDGER_BATCH_MAX];

	for (int j = 0; j < cur_n; j++)
	{
		status[j] = LEDGER_FAILED;
		memset(&replies[j], 0, sizeof(LedgerReply));
		pending[j] = 0;
	}
	ledger_shm_batch_done(w, cur_slots, status, replies, pending, cur_n);
	cur_n = 0;
}

/* unconnected: until there is a database to serve */
static Oid
writer_wait_assignment(int w)
{
	for (;;)
	{
		Oid			dboid = ledger_shm_writer_poll(w);

		if (OidIsValid(dboid))
			return dboid;
		if (ShutdownRequestPending)
			proc_exit(1);
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 1000, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
}

/*
 * Leave this database: a background worker connects once, so the writer exits and the
 * postmaster restarts it unconnected (bgw_restart_time), free for any database.  The
 * postmaster logs that exit as "exited with exit code 1"; the line before it says why.
 */
static void
writer_detach(int w)
{
	ereport(LOG,
			(errmsg("dpobj ledger writer %d leaves the database with OID %u (idle, or needed by another database) and restarts unconnected",
					w, MyDatabaseId),
			 errdetail("The exit code 1 logged next is this planned restart, not a failure.")));
	proc_exit(1);
}

static void
writer_loop(int w, Oid dboid)
{
	TimestampTz idle_since = GetCurrentTimestamp();
	TimestampTz drain_until = 0;

	for (;;)
	{
		CHECK_FOR_INTERRUPTS();
		if (ConfigReloadPending)
		{
			ConfigReloadPending = false;
			ProcessConfigFile(PGC_SIGHUP);
			ledger_exec_settings(LEDGER_LOCK_TIMEOUT_MS);
		}
		if (ShutdownRequestPending && drain_until == 0)
			drain_until = TimestampTzPlusMilliseconds(GetCurrentTimestamp(), LEDGER_DRAIN_MS);

		cur_n = ledger_shm_take_batch(w, dboid, cur_slots, LEDGER_BATCH_MAX);
		if (cur_n > 0)
		{
			writer_run_batch(w);
			idle_since = GetCurrentTimestamp();
			if (drain_until == 0 || GetCurrentTimestamp() < drain_until)
				continue;
		}
		if (drain_until != 0)
			proc_exit(1);
		if (ledger_shm_writer_should_exit(w, dboid,
										  TimestampDifferenceExceeds(idle_since, GetCurrentTimestamp(),
																	 LEDGER_IDLE_DETACH_MS)))
			writer_detach(w);
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 1000, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
	}
}

void
dpobj_ledger_writer_main(Datum arg)
{
	sigjmp_buf	local_sigjmp_buf;
	Oid			dboid;

	my_writer = DatumGetInt32(arg);
	pqsignal(SIGTERM, SignalHandlerForShutdownRequest);
	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	BackgroundWorkerUnblockSignals();
	if (!ledger_shm_available())
		proc_exit(0);			/* cannot happen: registered only when preloaded */

	on_shmem_exit(ledger_shm_writer_exit, Int32GetDatum(my_writer));
	ledger_shm_writer_start(my_writer);
	dboid = writer_wait_assignment(my_writer);

	/* a database that cannot be reached fails its requests (ledgershm.c) */
	BackgroundWorkerInitializeConnectionByOid(dboid, BOOTSTRAP_SUPERUSERID, 0);
	pgstat_report_appname("dpobj ledger writer");
	ledger_exec_settings(LEDGER_LOCK_TIMEOUT_MS);
	ledger_shm_writer_ready(my_writer);

	/* errors outside a request's subtransaction: fail the batch, go on */
	if (sigsetjmp(local_sigjmp_buf, 1) != 0)
	{
		error_context_stack = NULL;
		HOLD_INTERRUPTS();
		EmitErrorReport();
		AbortCurrentTransaction();
		writer_batch_failed(my_writer);
		MemoryContextSwitchTo(TopMemoryContext);
		FlushErrorState();
		RESUME_INTERRUPTS();
		/* do not spin on a persistent error */
		pg_usleep(100000L);
	}
	PG_exception_stack = &local_sigjmp_buf;

	writer_loop(my_writer, dboid);
}
