/*-------------------------------------------------------------------------
 *
 * ledgertransport.c
 *	  Which transport carries a ledger request, and the bound on every wait:
 *	  the preloaded writers' queue (ledgershm.c) when dpobj is in
 *	  shared_preload_libraries, else a one-shot worker (ledgeroneshot.c).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "ledger/ledgerint.h"

#include "access/parallel.h"
#include "access/xlog.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/latch.h"
#include "utils/timestamp.h"

/* GUCs, defined in dpobj_ledger_init() (ledger.c) */
int			dpobj_ledger_timeout = 10000;
int			dpobj_ledger_writers = 2;

/*
 * Queues a request, waiting (cancellable, up to dpobj.ledger_timeout) while
 * the queue is full: outcomes posted without waiting can fill it while the
 * writers lag behind a burst of runs.  -1: still full.
 */
static int
submit_waiting(const LedgerRequest *req, uint64 *seq)
{
	TimestampTz until = TimestampTzPlusMilliseconds(GetCurrentTimestamp(), dpobj_ledger_timeout);
	int			slot;

	while ((slot = ledger_shm_submit(req, false, seq)) < 0 &&
		   GetCurrentTimestamp() < until)
	{
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 10, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
	return slot;
}

/*
 * Sends a request and waits for its answer: cancellable (the request is
 * withdrawn or abandoned, ledgershm.c) and bounded by dpobj.ledger_timeout.
 * On anything but LEDGER_DONE, *why says what happened.
 */
LedgerStatus
ledger_call(const LedgerRequest *req, LedgerReply *reply, const char **why)
{
	LedgerStatus status;
	uint64		seq;
	int			slot;

	memset(reply, 0, sizeof(LedgerReply));
	if (IsParallelWorker())
		elog(ERROR, "dpobj ledger: a parallel worker cannot charge a run");
	if (RecoveryInProgress())
	{
		*why = "the server is in recovery (read-only); train on the primary";
		return LEDGER_FAILED;
	}
	if (!ledger_shm_available())
		return ledger_oneshot_call(req, reply, why);

	slot = submit_waiting(req, &seq);
	if (slot < 0)
	{
		*why = "the ledger request queue stayed full for dpobj.ledger_timeout";
		return LEDGER_FAILED;
	}
	status = ledger_shm_wait(slot, reply, dpobj_ledger_timeout);
	switch (status)
	{
		case LEDGER_FAILED:
			*why = "the ledger writer could not write it (see the server log)";
			break;
		case LEDGER_LOST:
			*why = "the ledger writer stopped before confirming it";
			break;
		case LEDGER_TIMEOUT:
			*why = "no answer from the ledger writer within dpobj.ledger_timeout";
			break;
		default:
			break;
	}
	return status;
}

/*
 * Queues an asynchronous request (an outcome) without waiting; never
 * raises.  false: no room now (no free queue slot or worker slot); the
 * caller keeps it and tries again later.
 */
bool
ledger_post(const LedgerRequest *req, LedgerTicket *ticket)
{
	memset(ticket, 0, sizeof(LedgerTicket));
	if (RecoveryInProgress())
		return false;
	if (!ledger_shm_available())
		return ledger_oneshot_post(req, ticket);
	ticket->slot = ledger_shm_submit(req, true, &ticket->seq);
	return ticket->slot >= 0;
}

/* has the posted request been written (or given up)? */
bool
ledger_ticket_done(const LedgerTicket *ticket)
{
	if (ticket->handle != NULL)
		return ledger_oneshot_done(ticket);
	return ledger_shm_slot_done(ticket->slot, ticket->seq);
}

void
ledger_ticket_forget(LedgerTicket *ticket)
{
	if (ticket->handle != NULL)
		pfree(ticket->handle);
	ticket->handle = NULL;
}
