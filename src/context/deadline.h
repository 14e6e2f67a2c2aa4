/*-------------------------------------------------------------------------
 *
 * deadline.h
 *	  The public release deadline of a protected run (docs/SECURITY.md,
 *	  "Run time").  Implemented in deadline.c.
 *
 * A run's outcome -- the model, or its error -- is handed to the caller no
 * sooner than a public instant: the start of the train()/submit()/
 * evaluate() call plus the larger of the table owner's floor
 * (dpobj.protected_tables.release_deadline) and the analyst's "deadline"
 * option.  A run that ends before it waits; a run that ends later is
 * delivered when it ends (the overrun is visible).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_DEADLINE_H
#define DPOBJ_DEADLINE_H

#include "postgres.h"

#include "datatype/timestamp.h"
#include "utils/jsonb.h"

/* the largest deadline, seconds (a day): option and owner's floor alike */
#define DPOBJ_DEADLINE_MAX		86400.0

/*
 * The exact oracle stops this long before the deadline, so that a
 * certified or not-certified outcome is ready when it comes (seconds).
 */
#define DPOBJ_DEADLINE_MARGIN	0.25

/* the "deadline" option of train()/submit()/evaluate(), seconds; 0 if absent */
extern double deadline_option(Jsonb *options);

/*
 * The run's release instant: start plus the larger of the owner's floor
 * and the analyst's option (seconds); 0 when both are 0 (no deadline).
 */
extern TimestampTz deadline_release_at(TimestampTz start, double owner_floor,
									   double analyst);

/* seal.c: the run with release instant release_at (0: none) begins / ends */
extern void deadline_begin(TimestampTz release_at);
extern void deadline_end(void);

/* whether the current run has a deadline */
extern bool deadline_active(void);

/*
 * Waits until the deadline (at once if none or passed).  A cancel,
 * terminate or vanished client during the wait is the caller's doing: the
 * charged run ledger_id (0: not charged) is recorded 'cancelled' as a
 * cancel during the run would be, and the interrupt is raised.
 */
extern void deadline_wait(int64 ledger_id);

/*
 * The exact oracle's time limit (seconds, <= 0: none) under the deadline:
 * min(limit, time left - DPOBJ_DEADLINE_MARGIN), at least 1 ms.  Without
 * a deadline, limit.
 */
extern double dpobj_deadline_time_limit(double limit);

#endif							/* DPOBJ_DEADLINE_H */
