/*-------------------------------------------------------------------------
 *
 * ledgershm.c
 *	  The ledger's request queue in shared memory and the table of ledger
 *	  writers (with shared_preload_libraries = 'dpobj' only).
 *
 * Writers.  dpobj.ledger_writers static background workers are registered
 * at server start, so their worker slots are reserved: parallel queries or
 * jobs that take every dynamic slot cannot stop the ledger, and a writer
 * that exits is restarted by the postmaster into its own slot.  A process
 * can connect to one database only, so a writer is assigned to a database
 * on demand -- by the first request for a database no writer serves --,
 * connects to it and serves it until it is reassigned (it then exits and
 * is restarted unconnected), detached by DROP/CREATE/ALTER DATABASE, or
 * idle for LEDGER_IDLE_DETACH_MS.
 *
 * Requests.  A fixed pool of slots, each holding one request (an op code
 * and bound values, ledgerint.h) and its reply.  A backend takes a free
 * slot, fills it and queues it (state QUEUED, a FIFO ticket); the writer
 * of the request's database takes up to LEDGER_BATCH_MAX queued slots in
 * ticket order (RUNNING), runs them in one transaction, each in a
 * subtransaction, commits, and only then marks them DONE (or FAILED) and
 * sets the waiters' latches.  Outcomes are posted "async": nobody waits on
 * the slot, and the writer frees it.
 *
 * Cancels and timeouts.  A waiter can leave at any time: a QUEUED request
 * is withdrawn (nothing was written); a RUNNING one is marked abandoned,
 * and if it commits a charge the writer queues the outcome 'cancelled' for
 * it; a charge that was DONE just as the waiter left is turned into that
 * outcome by the waiter itself.  A writer that dies turns its RUNNING
 * requests into LOST (a waiter errors out; an inserted-but-unconfirmed
 * charge gets the outcome 'failed') or queues them again (outcomes).
 *
 * Sizing: every live backend waits on at most one slot; asynchronous
 * outcomes and abandoned requests are few and short-lived, so
 * 4 * MaxBackends + writers * LEDGER_BATCH_MAX + 64 slots cannot run out
 * in practice.  If they do, a charge fails closed (DP002, nothing drawn)
 * and an outcome is kept by the backend until a slot is free.
 *
 * All state is protected by one LWLock; no lock is held while SQL runs.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "ledger/ledgerint.h"

#include "commands/dbcommands.h"
#include "commands/defrem.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "pgstat.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "utils/timestamp.h"

#define LEDGER_TRANCHE			"dpobj ledger"
#define LEDGER_ASYNC_ATTEMPTS	1200	/* retries of an outcome (lock busy, ~1 min) */
#define LEDGER_DETACH_WAIT_MS	10000
#define LEDGER_CONNECT_ATTEMPTS	10		/* an outcome survives this many failed connects */	/* DROP DATABASE waits this long for a writer */

typedef enum SlotState
{
	SLOT_FREE = 0,
	SLOT_QUEUED,
	SLOT_RUNNING,
	SLOT_DONE,
	SLOT_FAILED,
	SLOT_LOST
} SlotState;

typedef struct LedgerSlot
{
	SlotState	state;
	bool		async;			/* nobody waits: the writer frees it */
	bool		abandoned;		/* the waiter left while it was RUNNING */
	int			next_free;
	int			writer;			/* RUNNING: the writer running it */
	int			attempts;		/* async: how often it was queued again */
	uint64		ticket;			/* FIFO order */
	uint64		seq;			/* bumped at every (re)use */
	Latch	   *waiter;
	int64		pending_id;		/* a ledger row inserted, commit unconfirmed */
	LedgerRequest req;
	LedgerReply reply;
} LedgerSlot;

typedef struct LedgerWriterState
{
	Oid			assigned;		/* database to serve; InvalidOid: none */
	Oid			connected;		/* database its process connects/connected to */
	pid_t		pid;			/* 0 while not running */
	Latch	   *latch;
	bool		ready;			/* connected and serving */
	bool		busy;			/* inside a batch */
	TimestampTz last_used;
} LedgerWriterState;

typedef struct LedgerShared
{
	LWLock	   *lock;
	int			nwriters;
	int			nslots;
	int			free_head;
	uint64		next_ticket;
	uint64		next_seq;
	LedgerWriterState writers[LEDGER_MAX_WRITERS];
	LedgerSlot	slots[FLEXIBLE_ARRAY_MEMBER];
} LedgerShared;

static LedgerShared *ledger_shared = NULL;
static int	ledger_nslots = 0;
static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;

/* ---------------------------------------------------------------------
 * Shared memory and the static writers (postmaster)
 * ---------------------------------------------------------------------
 */

static Size
ledger_shmem_size(void)
{
	return add_size(offsetof(LedgerShared, slots),
					mul_size(ledger_nslots, sizeof(LedgerSlot)));
}

static void
ledger_shmem_request(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
	ledger_nslots = 4 * MaxBackends + dpobj_ledger_writers * LEDGER_BATCH_MAX + 64;
	RequestAddinShmemSpace(ledger_shmem_size());
	RequestNamedLWLockTranche(LEDGER_TRANCHE, 1);
}

static void
ledger_shmem_startup(void)
{
	bool		found;

	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();
	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	ledger_shared = ShmemInitStruct("dpobj ledger", ledger_shmem_size(), &found);
	if (!found)
	{
		memset(ledger_shared, 0, ledger_shmem_size());
		ledger_shared->lock = &(GetNamedLWLockTranche(LEDGER_TRANCHE))->lock;
		ledger_shared->nwriters = dpobj_ledger_writers;
		ledger_shared->nslots = ledger_nslots;
		for (int i = 0; i < ledger_nslots; i++)
			ledger_shared->slots[i].next_free = (i + 1 < ledger_nslots) ? i + 1 : -1;
		ledger_shared->free_head = 0;
	}
	LWLockRelease(AddinShmemInitLock);
}

void
ledger_shm_preload_init(void)
{
	prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = ledger_shmem_request;
	prev_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = ledger_shmem_startup;

	for (int w = 0; w < dpobj_ledger_writers; w++)
	{
		BackgroundWorker worker;

		memset(&worker, 0, sizeof(worker));
		worker.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
		worker.bgw_start_time = BgWorkerStart_RecoveryFinished;
		/* exit code 1 (reassignment, failure): restarted into the same slot */
		worker.bgw_restart_time = 1;
		snprintf(worker.bgw_library_name, BGW_MAXLEN, "dpobj");
		snprintf(worker.bgw_function_name, BGW_MAXLEN, "dpobj_ledger_writer_main");
		snprintf(worker.bgw_name, BGW_MAXLEN, "dpobj ledger writer %d", w);
		snprintf(worker.bgw_type, BGW_MAXLEN, "dpobj ledger writer");
		worker.bgw_main_arg = Int32GetDatum(w);
		RegisterBackgroundWorker(&worker);
	}
}

bool
ledger_shm_available(void)
{
	return ledger_shared != NULL;
}

/* ---------------------------------------------------------------------
 * Slots and writers (callers hold the lock exclusively)
 * ---------------------------------------------------------------------
 */

static bool
db_has_work(Oid dboid)
{
	for (int i = 0; i < ledger_shared->nslots; i++)
	{
		LedgerSlot *s = &ledger_shared->slots[i];

		if ((s->state == SLOT_QUEUED || s->state == SLOT_RUNNING) && s->req.dboid == dboid)
			return true;
	}
	return false;
}

static bool
db_has_writer(Oid dboid)
{
	for (int w = 0; w < ledger_shared->nwriters; w++)
		if (ledger_shared->writers[w].assigned == dboid)
			return true;
	return false;
}

/*
 * The writer that serves dboid, assigning one if none does: an unassigned
 * writer (running ones first), else the least recently used idle writer
 * whose database has nothing queued (it exits and comes back connected to
 * dboid).  Returns the latch to set, or NULL (no writer now: an idle writer
 * adopts the request later, see ledger_shm_writer_should_exit()).
 */
static Latch *
writer_for(Oid dboid)
{
	int			victim = -1;

	for (int w = 0; w < ledger_shared->nwriters; w++)
		if (ledger_shared->writers[w].assigned == dboid)
			return ledger_shared->writers[w].latch;
	for (int pass = 0; pass < 2; pass++)
		for (int w = 0; w < ledger_shared->nwriters; w++)
		{
			LedgerWriterState *ws = &ledger_shared->writers[w];

			if (ws->assigned == InvalidOid && (pass == 1 || ws->pid != 0))
			{
				ws->assigned = dboid;
				return ws->latch;
			}
		}
	for (int w = 0; w < ledger_shared->nwriters; w++)
	{
		LedgerWriterState *ws = &ledger_shared->writers[w];

		if (ws->pid != 0 && ws->ready && !ws->busy && !db_has_work(ws->assigned) &&
			(victim < 0 || ws->last_used < ledger_shared->writers[victim].last_used))
			victim = w;
	}
	if (victim < 0)
		return NULL;
	ledger_shared->writers[victim].assigned = dboid;
	return ledger_shared->writers[victim].latch;
}

static void
slot_free(int i)
{
	LedgerSlot *s = &ledger_shared->slots[i];

	s->state = SLOT_FREE;
	s->waiter = NULL;
	s->next_free = ledger_shared->free_head;
	ledger_shared->free_head = i;
}

static void
slot_queue(LedgerSlot *s)
{
	s->state = SLOT_QUEUED;
	s->writer = -1;
	s->abandoned = false;
	s->pending_id = 0;
	s->ticket = ledger_shared->next_ticket++;
}

/*
 * Turns slot i into the asynchronous outcome of ledger row id (a charge
 * nobody waits for any more) and queues it.  Returns the latch to set.
 */
static Latch *
slot_become_outcome(int i, int64 id, LedgerOutcome outcome, const char *detail)
{
	LedgerSlot *s = &ledger_shared->slots[i];
	Oid			dboid = s->req.dboid;

	ledger_finish_request(&s->req, dboid, id, outcome, detail);
	s->async = true;
	s->waiter = NULL;
	s->attempts = 0;
	s->seq = ++ledger_shared->next_seq;
	memset(&s->reply, 0, sizeof(LedgerReply));
	slot_queue(s);
	return writer_for(dboid);
}

static bool
is_charge(const LedgerRequest *req)
{
	return req->op == LEDGER_OP_CHARGE || req->op == LEDGER_OP_BUDGET_CHARGE;
}

/* ---------------------------------------------------------------------
 * The caller's side
 * ---------------------------------------------------------------------
 */

int
ledger_shm_submit(const LedgerRequest *req, bool async, uint64 *seq)
{
	LedgerSlot *s;
	Latch	   *latch;
	int			i;

	LWLockAcquire(ledger_shared->lock, LW_EXCLUSIVE);
	i = ledger_shared->free_head;
	if (i < 0)
	{
		LWLockRelease(ledger_shared->lock);
		return -1;
	}
	s = &ledger_shared->slots[i];
	ledger_shared->free_head = s->next_free;
	memcpy(&s->req, req, sizeof(LedgerRequest));
	memset(&s->reply, 0, sizeof(LedgerReply));
	s->async = async;
	s->attempts = 0;
	s->waiter = MyLatch;		/* async too: the poster may wait to see it */
	s->seq = *seq = ++ledger_shared->next_seq;
	slot_queue(s);
	latch = writer_for(req->dboid);
	LWLockRelease(ledger_shared->lock);
	if (latch)
		SetLatch(latch);
	return i;
}

/*
 * The waiter leaves slot i (cancel, timeout, error, exit).  Never raises:
 * it runs from an error-cleanup callback.
 */
static void
ledger_shm_abandon(int i)
{
	LedgerSlot *s = &ledger_shared->slots[i];
	Latch	   *latch = NULL;

	LWLockAcquire(ledger_shared->lock, LW_EXCLUSIVE);
	switch (s->state)
	{
		case SLOT_QUEUED:
			slot_free(i);		/* withdrawn: nothing was written */
			break;
		case SLOT_RUNNING:
			s->abandoned = true;	/* the writer finishes it */
			s->waiter = NULL;
			break;
		case SLOT_DONE:
			if (is_charge(&s->req) && s->reply.id != 0)
				latch = slot_become_outcome(i, s->reply.id, LEDGER_OC_CANCELLED,
											"cancelled while the charge was being committed");
			else
				slot_free(i);
			break;
		case SLOT_FREE:
			break;
		case SLOT_LOST:
			if (s->pending_id != 0)
				latch = slot_become_outcome(i, s->pending_id, LEDGER_OC_FAILED,
											"the ledger writer stopped before confirming the charge");
			else
				slot_free(i);
			break;
		default:
			slot_free(i);
			break;
	}
	LWLockRelease(ledger_shared->lock);
	if (latch)
		SetLatch(latch);
}

static void
ledger_shm_abandon_cb(int code, Datum arg)
{
	ledger_shm_abandon(DatumGetInt32(arg));
}

/*
 * Waits (cancellable, at most timeout_ms) until the writer has answered
 * slot i; frees the slot.  On LEDGER_TIMEOUT the request was abandoned.
 */
LedgerStatus
ledger_shm_wait(int i, LedgerReply *reply, int timeout_ms)
{
	LedgerSlot *s = &ledger_shared->slots[i];
	TimestampTz deadline = TimestampTzPlusMilliseconds(GetCurrentTimestamp(), timeout_ms);
	LedgerStatus status = LEDGER_TIMEOUT;

	PG_ENSURE_ERROR_CLEANUP(ledger_shm_abandon_cb, Int32GetDatum(i));
	{
		for (;;)
		{
			long		left;
			SlotState	state;

			LWLockAcquire(ledger_shared->lock, LW_SHARED);
			state = s->state;
			if (state == SLOT_DONE || state == SLOT_FAILED || state == SLOT_LOST)
				memcpy(reply, &s->reply, sizeof(LedgerReply));
			LWLockRelease(ledger_shared->lock);
			if (state == SLOT_DONE)
				status = LEDGER_DONE;
			else if (state == SLOT_FAILED)
				status = LEDGER_FAILED;
			else if (state == SLOT_LOST)
				status = LEDGER_LOST;
			if (status != LEDGER_TIMEOUT)
				break;
			left = TimestampDifferenceMilliseconds(GetCurrentTimestamp(), deadline);
			if (left <= 0)
				break;
			(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
							 Min(left, 1000), PG_WAIT_EXTENSION);
			ResetLatch(MyLatch);
			CHECK_FOR_INTERRUPTS();
		}
	}
	PG_END_ENSURE_ERROR_CLEANUP(ledger_shm_abandon_cb, Int32GetDatum(i));

	if (status == LEDGER_DONE || status == LEDGER_FAILED)
	{
		LWLockAcquire(ledger_shared->lock, LW_EXCLUSIVE);
		slot_free(i);
		LWLockRelease(ledger_shared->lock);
	}
	else
		ledger_shm_abandon(i);	/* timeout; or LOST: 'failed' for a pending row */
	return status;
}

/* An asynchronous request has been written when its slot moved on. */
bool
ledger_shm_slot_done(int i, uint64 seq)
{
	LedgerSlot *s = &ledger_shared->slots[i];
	bool		done;

	LWLockAcquire(ledger_shared->lock, LW_SHARED);
	done = (s->seq != seq || s->state == SLOT_FREE);
	LWLockRelease(ledger_shared->lock);
	return done;
}

/* ---------------------------------------------------------------------
 * DROP / CREATE ... TEMPLATE / ALTER DATABASE need no other connection
 * ---------------------------------------------------------------------
 */

static const char *
utility_database(Node *parsetree)
{
	ListCell   *lc;

	switch (nodeTag(parsetree))
	{
		case T_DropdbStmt:
			return ((DropdbStmt *) parsetree)->dbname;
		case T_CreatedbStmt:
			foreach(lc, ((CreatedbStmt *) parsetree)->options)
			{
				DefElem    *opt = lfirst_node(DefElem, lc);

				if (strcmp(opt->defname, "template") == 0 && opt->arg != NULL)
					return defGetString(opt);
			}
			return "template1";
		case T_RenameStmt:
			if (((RenameStmt *) parsetree)->renameType == OBJECT_DATABASE)
				return ((RenameStmt *) parsetree)->subname;
			return NULL;
		case T_AlterDatabaseStmt:
			/* only SET TABLESPACE needs the database to itself */
			foreach(lc, ((AlterDatabaseStmt *) parsetree)->options)
				if (strcmp(lfirst_node(DefElem, lc)->defname, "tablespace") == 0)
					return ((AlterDatabaseStmt *) parsetree)->dbname;
			return NULL;
		default:
			return NULL;
	}
}

/*
 * Before a utility statement that needs a database without other
 * connections: the writers connected to it leave (they are restarted
 * unconnected).  Waits for them, cancellable, at most
 * LEDGER_DETACH_WAIT_MS; the statement then succeeds or fails as it would.
 */
void
ledger_shm_utility(Node *parsetree)
{
	const char *name;
	Oid			dboid;
	TimestampTz deadline;

	if (ledger_shared == NULL || (name = utility_database(parsetree)) == NULL ||
		!OidIsValid(dboid = get_database_oid(name, true)))
		return;

	deadline = TimestampTzPlusMilliseconds(GetCurrentTimestamp(), LEDGER_DETACH_WAIT_MS);
	for (;;)
	{
		bool		connected = false;

		LWLockAcquire(ledger_shared->lock, LW_EXCLUSIVE);
		for (int w = 0; w < ledger_shared->nwriters; w++)
		{
			LedgerWriterState *ws = &ledger_shared->writers[w];

			if (ws->assigned == dboid)
			{
				ws->assigned = InvalidOid;
				if (ws->latch)
					SetLatch(ws->latch);
			}
			if (ws->pid != 0 && ws->connected == dboid)
				connected = true;
		}
		LWLockRelease(ledger_shared->lock);
		if (!connected || GetCurrentTimestamp() >= deadline)
			return;
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 20, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
}

/* ---------------------------------------------------------------------
 * The writer's side
 * ---------------------------------------------------------------------
 */

void
ledger_shm_writer_start(int w)
{
	LedgerWriterState *ws = &ledger_shared->writers[w];

	LWLockAcquire(ledger_shared->lock, LW_EXCLUSIVE);
	ws->pid = MyProcPid;
	ws->latch = MyLatch;
	ws->connected = InvalidOid;
	ws->ready = false;
	ws->busy = false;
	LWLockRelease(ledger_shared->lock);
}

/* an unconnected writer: its assignment, adopting unserved requests */
Oid
ledger_shm_writer_poll(int w)
{
	LedgerWriterState *ws = &ledger_shared->writers[w];
	Oid			dboid;

	LWLockAcquire(ledger_shared->lock, LW_EXCLUSIVE);
	if (ws->assigned == InvalidOid)
	{
		for (int i = 0; i < ledger_shared->nslots; i++)
		{
			LedgerSlot *s = &ledger_shared->slots[i];

			if (s->state == SLOT_QUEUED && !db_has_writer(s->req.dboid))
			{
				ws->assigned = s->req.dboid;
				break;
			}
		}
	}
	dboid = ws->connected = ws->assigned;
	LWLockRelease(ledger_shared->lock);
	return dboid;
}

void
ledger_shm_writer_ready(int w)
{
	LWLockAcquire(ledger_shared->lock, LW_EXCLUSIVE);
	ledger_shared->writers[w].ready = true;
	ledger_shared->writers[w].last_used = GetCurrentTimestamp();
	LWLockRelease(ledger_shared->lock);
}

/* the oldest queued requests for dboid, up to max, now RUNNING */
int
ledger_shm_take_batch(int w, Oid dboid, int *slots, int max)
{
	int			n = 0;

	LWLockAcquire(ledger_shared->lock, LW_EXCLUSIVE);
	for (int i = 0; i < ledger_shared->nslots; i++)
	{
		LedgerSlot *s = &ledger_shared->slots[i];
		int			k;

		if (s->state != SLOT_QUEUED || s->req.dboid != dboid)
			continue;
		if (n == max && s->ticket > ledger_shared->slots[slots[n - 1]].ticket)
			continue;
		/* insertion into the ticket-ordered batch */
		k = (n < max) ? n++ : n - 1;
		while (k > 0 && ledger_shared->slots[slots[k - 1]].ticket > s->ticket)
		{
			slots[k] = slots[k - 1];
			k--;
		}
		slots[k] = i;
	}
	for (int j = 0; j < n; j++)
	{
		ledger_shared->slots[slots[j]].state = SLOT_RUNNING;
		ledger_shared->slots[slots[j]].writer = w;
	}
	ledger_shared->writers[w].busy = (n > 0);
	if (n > 0)
		ledger_shared->writers[w].last_used = GetCurrentTimestamp();
	LWLockRelease(ledger_shared->lock);
	return n;
}

/* the request of a RUNNING slot: stable until the writer answers it */
void
ledger_shm_batch_request(int i, LedgerRequest *req)
{
	memcpy(req, &ledger_shared->slots[i].req, sizeof(LedgerRequest));
}

/* a ledger row inserted by the running batch, not yet committed */
void
ledger_shm_set_pending(int i, int64 id)
{
	LWLockAcquire(ledger_shared->lock, LW_EXCLUSIVE);
	ledger_shared->slots[i].pending_id = id;
	LWLockRelease(ledger_shared->lock);
}

/* an outcome that could not be written: queued again, a bounded number of times */
static void
slot_retry_async(int i, LedgerStatus status, Latch **wake)
{
	LedgerSlot *s = &ledger_shared->slots[i];

	if (++s->attempts > (status == LEDGER_RETRY ? LEDGER_ASYNC_ATTEMPTS : 3))
	{
		ereport(WARNING,
				(errmsg("dpobj ledger writer: gave up recording the outcome of ledger entry " INT64_FORMAT,
						s->req.id),
				 errhint("The entry keeps outcome \"charged\"; see the earlier errors in the server log.")));
		slot_free(i);
		return;
	}
	slot_queue(s);
	*wake = MyLatch;
}

/*
 * After the batch's COMMIT (or its failure: every status LEDGER_FAILED):
 * answer the waiters, free async slots, requeue retries, and turn charges
 * whose waiter left into the outcome 'cancelled'.
 */
void
ledger_shm_batch_done(int w, const int *slots, const LedgerStatus *status,
					  const LedgerReply *replies, const int64 *pending, int n)
{
	Latch	   *wake[LEDGER_BATCH_MAX + 1];
	int			nwake = 0;
	Latch	   *self = NULL;

	LWLockAcquire(ledger_shared->lock, LW_EXCLUSIVE);
	for (int j = 0; j < n; j++)
	{
		int			i = slots[j];
		LedgerSlot *s = &ledger_shared->slots[i];

		if (s->state != SLOT_RUNNING || s->writer != w)
			continue;
		if (s->async)
		{
			if (status[j] == LEDGER_DONE)
			{
				if (s->waiter)
					wake[nwake++] = s->waiter;
				slot_free(i);
			}
			else
				slot_retry_async(i, status[j], &self);
		}
		else if (s->abandoned)
		{
			if (status[j] == LEDGER_DONE && is_charge(&s->req) && replies[j].id != 0)
				(void) slot_become_outcome(i, replies[j].id, LEDGER_OC_CANCELLED,
										   "cancelled while the charge was being committed");
			else
				slot_free(i);	/* not written, or nothing to record */
		}
		else if (status[j] == LEDGER_RETRY)
			slot_queue(s);		/* the waiter keeps waiting (bounded by its timeout) */
		else
		{
			memcpy(&s->reply, &replies[j], sizeof(LedgerReply));
			s->pending_id = pending[j];
			s->state = (status[j] == LEDGER_DONE) ? SLOT_DONE : SLOT_FAILED;
			if (s->waiter)
				wake[nwake++] = s->waiter;
		}
	}
	ledger_shared->writers[w].busy = false;
	LWLockRelease(ledger_shared->lock);
	for (int j = 0; j < nwake; j++)
		SetLatch(wake[j]);
	if (self)
		SetLatch(self);
}

/*
 * An idle writer: should it exit?  Yes when it was reassigned or released
 * (DROP DATABASE), when it has been idle too long, or when requests of
 * another database wait with no writer to serve them (it adopts them).
 */
bool
ledger_shm_writer_should_exit(int w, Oid dboid, bool idle_too_long)
{
	LedgerWriterState *ws = &ledger_shared->writers[w];
	bool		exit = false;

	LWLockAcquire(ledger_shared->lock, LW_EXCLUSIVE);
	if (ws->assigned != dboid)
		exit = true;
	else if (!db_has_work(dboid))
	{
		for (int i = 0; i < ledger_shared->nslots && !exit; i++)
		{
			LedgerSlot *s = &ledger_shared->slots[i];

			if (s->state == SLOT_QUEUED && !db_has_writer(s->req.dboid))
			{
				ws->assigned = s->req.dboid;
				exit = true;
			}
		}
		if (!exit && idle_too_long)
		{
			ws->assigned = InvalidOid;
			exit = true;
		}
	}
	LWLockRelease(ledger_shared->lock);
	return exit;
}

/*
 * on_shmem_exit of a writer: whatever it was running is LOST to its waiter
 * (who errors out; an inserted row gets the outcome 'failed') or queued
 * again (outcomes); if it never managed to connect, the requests for that
 * database fail.  Unless it left for a reassignment, its database is
 * released for another writer.
 */
void
ledger_shm_writer_exit(int code, Datum arg)
{
	int			w = DatumGetInt32(arg);
	LedgerWriterState *ws = &ledger_shared->writers[w];
	Latch	   *wake[LEDGER_BATCH_MAX + 1 + LEDGER_MAX_WRITERS];
	int			nwake = 0;
	bool		connect_failed = (!ws->ready && ws->connected != InvalidOid);

	LWLockAcquire(ledger_shared->lock, LW_EXCLUSIVE);
	for (int i = 0; i < ledger_shared->nslots; i++)
	{
		LedgerSlot *s = &ledger_shared->slots[i];

		if (s->state == SLOT_RUNNING && s->writer == w)
		{
			if (s->async && s->req.op == LEDGER_OP_FINISH)
				slot_queue(s);
			else if ((s->async || s->abandoned) && s->pending_id != 0)
				(void) slot_become_outcome(i, s->pending_id, LEDGER_OC_FAILED,
										   "the ledger writer stopped before confirming the charge");
			else if (s->async || s->abandoned)
				slot_free(i);
			else
			{
				s->state = SLOT_LOST;
				if (s->waiter && nwake < lengthof(wake))
					wake[nwake++] = s->waiter;
			}
		}
		else if (connect_failed && s->state == SLOT_QUEUED && s->req.dboid == ws->connected)
		{
			/*
			 * An outcome stays queued for the next writer (a writer that
			 * was stopped while connecting is no reason to lose it), a
			 * bounded number of times: a database that cannot be reached
			 * at all drops it.
			 */
			if (s->async && ++s->attempts <= LEDGER_CONNECT_ATTEMPTS)
				continue;
			if (s->async)
				slot_free(i);
			else
			{
				s->state = SLOT_FAILED;
				if (s->waiter && nwake < lengthof(wake))
					wake[nwake++] = s->waiter;
			}
		}
	}
	/*
	 * Not a reassignment: drop the assignment, so that a running unassigned
	 * writer adopts the database's requests now instead of waiting for this
	 * one's restart.
	 */
	if (ws->assigned == ws->connected)
	{
		ws->assigned = InvalidOid;
		for (int v = 0; v < ledger_shared->nwriters; v++)
			if (v != w && ledger_shared->writers[v].assigned == InvalidOid &&
				ledger_shared->writers[v].latch && nwake < lengthof(wake))
				wake[nwake++] = ledger_shared->writers[v].latch;
	}
	ws->pid = 0;
	ws->latch = NULL;
	ws->connected = InvalidOid;
	ws->ready = false;
	ws->busy = false;
	LWLockRelease(ledger_shared->lock);
	for (int j = 0; j < nwake; j++)
		SetLatch(wake[j]);
}
