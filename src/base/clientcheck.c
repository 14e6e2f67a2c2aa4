/*-------------------------------------------------------------------------
 *
 * clientcheck.c
 *	  Noticing, during a long solve, that the session's client is gone
 *	  (clientcheck.h).
 *
 * Whether the client is still there is the caller's own doing, not the
 * data's: stopping a run for it is like a query cancel (the ledger records
 * the outcome 'cancelled'; the charge stays).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "base/clientcheck.h"

#include "libpq/libpq.h"
#include "libpq/libpq-be.h"
#include "storage/procsignal.h"
#include "tcop/tcopprot.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"

static TimestampTz last_check = 0;

bool
dpobj_client_gone(void)
{
	TimestampTz now;

	if (ClientConnectionLost)
		return true;
	/* only a client backend talking to a client has one to lose */
	if (MyBackendType != B_BACKEND || MyProcPort == NULL || whereToSendOutput != DestRemote)
		return false;
	now = GetCurrentTimestamp();
	if (!TimestampDifferenceExceeds(last_check, now, DPOBJ_CLIENT_CHECK_MS))
		return false;
	last_check = now;
	if (pq_check_connection())
		return false;
	/* as client_connection_check_interval does: CHECK_FOR_INTERRUPTS() ends the session */
	ClientConnectionLost = true;
	InterruptPending = true;
	return true;
}

void
dpobj_absorb_barrier(void)
{
	MemoryContext cxt = CurrentMemoryContext;

	if (!ProcSignalBarrierPending)
		return;
	PG_TRY();
	{
		ProcessProcSignalBarrier();
	}
	PG_CATCH();
	{
		/* PostgreSQL set the barrier's bits again: it is retried later */
		MemoryContextSwitchTo(cxt);
		FlushErrorState();
	}
	PG_END_TRY();
}
