/*-------------------------------------------------------------------------
 *
 * waitsink.c
 *	  Wait events of protected work kept out of pg_stat_activity
 *	  (waitsink.h).
 *
 * PostgreSQL writes a backend's wait event through the pointer
 * my_wait_event_info, which points at the backend's PGPROC slot, the one
 * pg_stat_activity reads.  Protected work points it at a private variable
 * instead, after clearing the slot: the slot reads 0 (no wait event) until
 * the pointer is put back.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "base/waitsink.h"

#include "access/parallel.h"
#include "access/xact.h"
#include "executor/executor.h"
#include "utils/guc.h"
#include "utils/wait_event.h"

static uint32 sink;				/* where the protected waits go */
static uint32 *saved_slot = NULL;	/* the slot they went to before */
static int	depth = 0;
static bool xact_callback_registered = false;
static bool sealed_scan = false;	/* dpobj.sealed_scan */
static ExecutorStart_hook_type prev_ExecutorStart = NULL;

static void
waitsink_restore(void)
{
	pgstat_set_wait_event_storage(saved_slot);
	saved_slot = NULL;
	depth = 0;
}

/* belt and braces: no sink outlives its transaction */
static void
waitsink_xact_callback(XactEvent event, void *arg)
{
	if (depth > 0)
		waitsink_restore();
}

void
waitsink_begin(void)
{
	if (!xact_callback_registered)
	{
		RegisterXactCallback(waitsink_xact_callback, NULL);
		xact_callback_registered = true;
	}
	if (depth++ > 0)
		return;
	pgstat_report_wait_end();	/* the visible slot: no wait event */
	saved_slot = my_wait_event_info;
	sink = 0;
	pgstat_set_wait_event_storage(&sink);
}

void
waitsink_end(void)
{
	if (depth > 0 && --depth == 0)
		waitsink_restore();
}

bool
dpobj_sealed_scan(void)
{
	return sealed_scan;
}

/* a parallel worker of the sealed query: its waits into the sink from the start */
static void
waitsink_ExecutorStart(QueryDesc *queryDesc, int eflags)
{
	if (sealed_scan && IsParallelWorker())
		waitsink_begin();
	if (prev_ExecutorStart)
		prev_ExecutorStart(queryDesc, eflags);
	else
		standard_ExecutorStart(queryDesc, eflags);
}

void
waitsink_init(void)
{
	DefineCustomBoolVariable("dpobj.sealed_scan",
							 "Internal: set by dpobj around a protected run's query, for its parallel workers.",
							 "Its parallel workers report no wait event from their start (pg_stat_activity).",
							 &sealed_scan,
							 false,
							 PGC_SUSET, GUC_SUPERUSER_ONLY | GUC_NOT_IN_SAMPLE | GUC_NO_SHOW_ALL,
							 NULL, NULL, NULL);
	prev_ExecutorStart = ExecutorStart_hook;
	ExecutorStart_hook = waitsink_ExecutorStart;
}
