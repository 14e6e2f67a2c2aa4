/*-------------------------------------------------------------------------
 *
 * seal.h
 *	  Running dpobj.train()'s query sealed (docs/SECURITY.md,
 *	  "The sealed run: what the analyst can observe").  Implemented in seal.c.
 *
 * The analyst learns the DP output and nothing else: settings that could
 * make the scan observable are pinned, no message from inside the query
 * reaches the client, and every failure is either a refusal on public
 * grounds before the charge or, after the charge (or instead of a
 * data-dependent refusal, which is charged too), one fixed generic error.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_SEAL_H
#define DPOBJ_SEAL_H

#include "postgres.h"

#include "datatype/timestamp.h"

#include "context/protected.h"
#include "context/trainquery.h"

/*
 * Runs q as the table owner (exec_user) with ctx as the protected context
 * and returns the released model (a datum in the caller's memory context).
 * Call inside SPI (SPI_connect done).  release_at: the public release
 * deadline (deadline.h), 0 for none; the outcome, model or error, comes no
 * sooner (a cancel excepted).
 */
extern Datum seal_run(const DPProtectedContext *ctx, TrainQuery *q, Oid exec_user,
					  int64 *ledger_id, TimestampTz release_at);

/* The generic error of a failed protected run (DP006), for tests and docs. */
extern pg_noreturn void seal_generic_error(void);

#endif							/* DPOBJ_SEAL_H */
