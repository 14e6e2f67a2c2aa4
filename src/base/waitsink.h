/*-------------------------------------------------------------------------
 *
 * waitsink.h
 *	  Wait events of protected work kept out of pg_stat_activity.
 *	  Implemented in waitsink.c.
 *
 * pg_stat_activity shows every backend's current wait event (a parallel
 * worker's too, with its leader_pid) to the sessions of the same role.
 * Which events protected work meets follows the rows: a spilled state or
 * unit bounding waits on its temporary files (IO:BufFileWrite), the ledger
 * charge on its writer.  While protected work runs, this backend reports
 * its waits into a private sink, and pg_stat_activity shows no wait event.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_WAITSINK_H
#define DPOBJ_WAITSINK_H

#include "postgres.h"

/*
 * From here on this backend's waits go to the sink; calls nest.  Each
 * waitsink_begin() is matched by a waitsink_end() on every exit path; at
 * the end of the transaction the slot is restored at the latest.
 */
extern void waitsink_begin(void);
extern void waitsink_end(void);

/*
 * dpobj.sealed_scan (superuser only, pinned on by seal.c around the sealed
 * query): a parallel worker of that query inherits it and waits into the
 * sink from its executor's start, before its first row, to the end of its
 * transaction (which ends the worker).  Defines the setting and the hook.
 */
extern void waitsink_init(void);

/* dpobj.sealed_scan: this backend runs the sealed query (a parallel worker's test) */
extern bool dpobj_sealed_scan(void);

#endif							/* DPOBJ_WAITSINK_H */
