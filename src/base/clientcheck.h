/*-------------------------------------------------------------------------
 *
 * clientcheck.h
 *	  Should a long solve stop?  A query cancel, a terminate, or -- in a
 *	  client session -- a client that has gone away.
 *
 * PostgreSQL notices a vanished client only when it next reads from or
 * writes to the socket (or with client_connection_check_interval, through
 * CHECK_FOR_INTERRUPTS(), which the solvers do not reach while solving).
 * The solvers' polls call dpobj_stop_requested() instead: at most once per
 * DPOBJ_CLIENT_CHECK_MS it asks the socket (pq_check_connection()) whether
 * the peer has closed it, and if so marks the connection lost exactly as
 * PostgreSQL does, so that the next CHECK_FOR_INTERRUPTS() ends the session
 * ("connection to client lost").  Background workers (job workers,
 * parallel workers) have no client and are never checked.
 *
 * Callable from the backend's own thread only (never from oracle helper
 * threads); neither function raises.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_CLIENTCHECK_H
#define DPOBJ_CLIENTCHECK_H

#include "postgres.h"

#include "miscadmin.h"

#define DPOBJ_CLIENT_CHECK_MS	1000

/* true when the session's client has closed its connection */
extern bool dpobj_client_gone(void);

/* a pending cancel or terminate, or a vanished client */
static inline bool
dpobj_stop_requested(void)
{
	return QueryCancelPending || ProcDiePending || dpobj_client_gone();
}

/*
 * Absorbs a pending cluster-wide barrier (DROP DATABASE waits until every
 * backend has absorbed one) from a solver's poll, where no error may be
 * raised: a barrier whose processing fails stays pending and is absorbed
 * after the solve, at the next CHECK_FOR_INTERRUPTS().
 */
extern void dpobj_absorb_barrier(void);

#endif							/* DPOBJ_CLIENTCHECK_H */
