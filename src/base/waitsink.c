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

#include "access/xact.h"
#include "utils/wait_event.h"

static uint32 sink;				/* where the protected waits go */
static uint32 *saved_slot = NULL;	/* the slot they went to before */
static int	depth = 0;
static bool xact_callback_registered = false;

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
