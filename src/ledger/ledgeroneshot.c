/*-------------------------------------------------------------------------
 *
 * ledgeroneshot.c
 *	  The ledger without shared_preload_libraries = 'dpobj': one dynamic
 *	  background worker per write (the 0.1.0 design, made cancellable and
 *	  bounded).
 *
 * A charge: the request goes in a DSM segment; the caller registers a
 * worker (waiting for a free worker slot at most dpobj.ledger_timeout,
 * cancellable), and waits for its answer (same bound, cancellable).  The
 * worker connects as the bootstrap superuser, runs the fixed statements
 * (ledgerexec.c), commits, and then hands over: the caller acknowledges
 * the answer, or has abandoned the wait -- a cancel, a timeout, an exit --,
 * in which case the worker itself records the committed charge as
 * 'cancelled'.  The handshake is an atomic exchange on one state word, so
 * exactly one side sees the other's move.
 *
 * An outcome: the request travels in bgw_extra (no DSM to outlive its
 * caller), nobody waits for the worker unless the session wants to see it.
 *
 * Compared with the preloaded writers (ledgershm.c): every write costs a
 * process start and a connection (tens of ms), and when every worker slot
 * is taken -- parallel queries, jobs, other extensions -- a charge waits and
 * then fails (DP002, nothing drawn), and an outcome that finds no slot is
 * kept by the backend and retried at its next statement (it stays
 * 'charged' if the backend exits first).
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
#include "port/atomics.h"
#include "postmaster/bgworker.h"
#include "storage/dsm.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "tcop/tcopprot.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/timestamp.h"

#define ONESHOT_MAGIC		0x64706f31	/* an outcome in bgw_extra */
#define ONESHOT_SLOT_POLL_MS 10

/* the handshake word */
#define ONESHOT_WAITING		0
#define ONESHOT_DONE		1		/* committed; answer in the segment */
#define ONESHOT_ACKED		2		/* the caller took the answer */
#define ONESHOT_ABANDONED	3		/* the caller left */

typedef struct OneshotShared
{
	LedgerRequest req;
	LedgerReply reply;
	pg_atomic_uint32 state;
	int64		pending_id;		/* inserted, commit not yet confirmed */
	Latch	   *caller;
	Latch	   *worker;
} OneshotShared;

typedef struct OneshotPost
{
	uint32		magic;
	Oid			dboid;
	int64		id;
	int32		outcome;
	char		detail[BGW_EXTRALEN - 24];
} OneshotPost;

StaticAssertDecl(sizeof(OneshotPost) <= BGW_EXTRALEN, "outcome must fit in bgw_extra");

static void
oneshot_worker_init(BackgroundWorker *worker)
{
	memset(worker, 0, sizeof(BackgroundWorker));
	worker->bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
	worker->bgw_start_time = BgWorkerStart_RecoveryFinished;
	worker->bgw_restart_time = BGW_NEVER_RESTART;
	snprintf(worker->bgw_library_name, BGW_MAXLEN, "dpobj");
	snprintf(worker->bgw_function_name, BGW_MAXLEN, "dpobj_ledger_worker_main");
	snprintf(worker->bgw_name, BGW_MAXLEN, "dpobj ledger writer for PID %d", MyProcPid);
	snprintf(worker->bgw_type, BGW_MAXLEN, "dpobj ledger writer");
	worker->bgw_notify_pid = MyProcPid;
}

/* ---------------------------------------------------------------------
 * The caller's side
 * ---------------------------------------------------------------------
 */

/* all slots busy: wait for one, cancellable, until the deadline */
static bool
oneshot_register(BackgroundWorker *worker, BackgroundWorkerHandle **handle,
				 TimestampTz deadline)
{
	while (!RegisterDynamicBackgroundWorker(worker, handle))
	{
		if (GetCurrentTimestamp() >= deadline)
			return false;
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 ONESHOT_SLOT_POLL_MS, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
	return true;
}

static void
oneshot_abandon(int code, Datum arg)
{
	OneshotShared *sh = (OneshotShared *) DatumGetPointer(arg);
	Latch	   *worker;

	(void) pg_atomic_exchange_u32(&sh->state, ONESHOT_ABANDONED);
	pg_memory_barrier();
	worker = sh->worker;
	if (worker)
		SetLatch(worker);
}

/* waits for the worker's answer; returns LEDGER_TIMEOUT after abandoning */
static LedgerStatus
oneshot_wait(OneshotShared *sh, BackgroundWorkerHandle *handle, TimestampTz deadline)
{
	LedgerStatus status = LEDGER_TIMEOUT;

	PG_ENSURE_ERROR_CLEANUP(oneshot_abandon, PointerGetDatum(sh));
	{
		for (;;)
		{
			pid_t		pid;
			bool		stopped;

			stopped = (GetBackgroundWorkerPid(handle, &pid) == BGWH_STOPPED);
			pg_read_barrier();
			if (pg_atomic_read_u32(&sh->state) == ONESHOT_DONE)
			{
				status = LEDGER_DONE;
				break;
			}
			if (stopped)
			{
				status = (sh->pending_id != 0) ? LEDGER_LOST : LEDGER_FAILED;
				break;
			}
			if (GetCurrentTimestamp() >= deadline)
				break;
			(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
							 100, PG_WAIT_EXTENSION);
			ResetLatch(MyLatch);
			CHECK_FOR_INTERRUPTS();
		}
	}
	PG_END_ENSURE_ERROR_CLEANUP(oneshot_abandon, PointerGetDatum(sh));

	if (status == LEDGER_DONE)
	{
		uint32		expected = ONESHOT_DONE;

		(void) pg_atomic_compare_exchange_u32(&sh->state, &expected, ONESHOT_ACKED);
	}
	else if (status == LEDGER_TIMEOUT)
		oneshot_abandon(0, PointerGetDatum(sh));
	if (sh->worker)
		SetLatch(sh->worker);
	return status;
}

LedgerStatus
ledger_oneshot_call(const LedgerRequest *req, LedgerReply *reply, const char **why)
{
	TimestampTz deadline = TimestampTzPlusMilliseconds(GetCurrentTimestamp(),
													   dpobj_ledger_timeout);
	BackgroundWorker worker;
	BackgroundWorkerHandle *handle;
	dsm_segment *seg;
	OneshotShared *sh;
	LedgerStatus status;

	seg = dsm_create(sizeof(OneshotShared), 0);
	sh = dsm_segment_address(seg);
	memset(sh, 0, sizeof(OneshotShared));
	memcpy(&sh->req, req, sizeof(LedgerRequest));
	pg_atomic_init_u32(&sh->state, ONESHOT_WAITING);
	sh->caller = MyLatch;

	oneshot_worker_init(&worker);
	worker.bgw_main_arg = UInt32GetDatum(dsm_segment_handle(seg));
	if (!oneshot_register(&worker, &handle, deadline))
	{
		dsm_detach(seg);
		*why = "no background worker slot became free within dpobj.ledger_timeout";
		return LEDGER_FAILED;
	}

	status = oneshot_wait(sh, handle, deadline);
	memcpy(reply, &sh->reply, sizeof(LedgerReply));
	if (status == LEDGER_LOST)
	{
		LedgerRequest fin;
		LedgerTicket ticket;

		/* an unconfirmed row must not stay 'charged' */
		ledger_finish_request(&fin, req->dboid, sh->pending_id, LEDGER_OC_FAILED,
							  "the ledger writer stopped before confirming the charge");
		if (ledger_oneshot_post(&fin, &ticket))
			pfree(ticket.handle);
	}
	dsm_detach(seg);
	pfree(handle);
	if (status == LEDGER_FAILED || status == LEDGER_LOST)
		*why = "the ledger writer failed (see the server log)";
	return status;
}

/* an outcome, without waiting; false if no worker slot is free now */
bool
ledger_oneshot_post(const LedgerRequest *req, LedgerTicket *ticket)
{
	BackgroundWorker worker;
	OneshotPost post;
	MemoryContext old;
	bool		ok;

	Assert(req->op == LEDGER_OP_FINISH);
	memset(&post, 0, sizeof(post));
	post.magic = ONESHOT_MAGIC;
	post.dboid = req->dboid;
	post.id = req->id;
	post.outcome = (int32) req->outcome;
	strlcpy(post.detail, req->detail, sizeof(post.detail));

	oneshot_worker_init(&worker);
	memcpy(worker.bgw_extra, &post, sizeof(post));
	old = MemoryContextSwitchTo(TopMemoryContext);
	ok = RegisterDynamicBackgroundWorker(&worker, &ticket->handle);
	MemoryContextSwitchTo(old);
	ticket->slot = -1;
	if (!ok)
		ticket->handle = NULL;
	return ok;
}

bool
ledger_oneshot_done(const LedgerTicket *ticket)
{
	pid_t		pid;
	BgwHandleStatus status = GetBackgroundWorkerPid(ticket->handle, &pid);

	return status == BGWH_STOPPED || status == BGWH_POSTMASTER_DIED;
}

/* ---------------------------------------------------------------------
 * The worker
 * ---------------------------------------------------------------------
 */

/* one request, one transaction; the pending row id goes to the caller first */
static void
oneshot_transaction(const LedgerRequest *req, LedgerReply *reply, OneshotShared *sh)
{
	int64		pending = 0;

	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	pgstat_report_activity(STATE_RUNNING, "dpobj ledger write");
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "dpobj ledger worker: could not connect to the SPI manager");
	PushActiveSnapshot(GetTransactionSnapshot());
	ledger_exec(req, reply, &pending);
	PopActiveSnapshot();
	if (sh)
	{
		sh->pending_id = pending;
		pg_write_barrier();
	}
	SPI_finish();
	CommitTransactionCommand();
	pgstat_report_stat(false);
	pgstat_report_activity(STATE_IDLE, NULL);
}

/* the caller left after the charge committed: record that truthfully */
static void
oneshot_record_cancel(const LedgerRequest *req, int64 id)
{
	LedgerRequest fin;
	LedgerReply ignored;

	ledger_finish_request(&fin, req->dboid, id, LEDGER_OC_CANCELLED,
						  "cancelled while the charge was being committed");
	oneshot_transaction(&fin, &ignored, NULL);
}

/* after the commit: hand the answer over, or record the cancel */
static void
oneshot_hand_over(OneshotShared *sh, const LedgerReply *reply)
{
	uint32		expected = ONESHOT_WAITING;
	TimestampTz deadline = TimestampTzPlusMilliseconds(GetCurrentTimestamp(),
													   dpobj_ledger_timeout);
	bool		charged = (sh->req.op != LEDGER_OP_FINISH && reply->id != 0);

	memcpy(&sh->reply, reply, sizeof(LedgerReply));
	pg_write_barrier();
	if (!pg_atomic_compare_exchange_u32(&sh->state, &expected, ONESHOT_DONE))
	{
		if (charged)
			oneshot_record_cancel(&sh->req, reply->id);
		return;
	}
	SetLatch(sh->caller);
	while (pg_atomic_read_u32(&sh->state) == ONESHOT_DONE &&
		   GetCurrentTimestamp() < deadline)
	{
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 100, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
	if (pg_atomic_read_u32(&sh->state) == ONESHOT_ABANDONED && charged)
		oneshot_record_cancel(&sh->req, reply->id);
}

void
dpobj_ledger_worker_main(Datum arg)
{
	OneshotPost post;
	dsm_segment *seg = NULL;
	OneshotShared *sh = NULL;
	LedgerRequest req;
	LedgerReply reply;

	pqsignal(SIGTERM, die);
	BackgroundWorkerUnblockSignals();

	memcpy(&post, MyBgworkerEntry->bgw_extra, sizeof(post));
	if (post.magic == ONESHOT_MAGIC)
	{
		post.detail[sizeof(post.detail) - 1] = '\0';
		ledger_finish_request(&req, post.dboid, post.id, (LedgerOutcome) post.outcome,
							  post.detail);
	}
	else
	{
		seg = dsm_attach(DatumGetUInt32(arg));
		if (seg == NULL)
			proc_exit(0);		/* the caller left before we started: nothing to do */
		sh = dsm_segment_address(seg);
		memcpy(&req, &sh->req, sizeof(LedgerRequest));
		sh->worker = MyLatch;
		pg_memory_barrier();
		if (pg_atomic_read_u32(&sh->state) == ONESHOT_ABANDONED)
			proc_exit(0);		/* nothing written */
	}

	BackgroundWorkerInitializeConnectionByOid(req.dboid, BOOTSTRAP_SUPERUSERID, 0);
	pgstat_report_appname("dpobj ledger writer");
	ledger_exec_settings(dpobj_ledger_timeout);
	oneshot_transaction(&req, &reply, sh);
	if (sh)
		oneshot_hand_over(sh, &reply);
	if (seg)
		dsm_detach(seg);
	proc_exit(0);
}
