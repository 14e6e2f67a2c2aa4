/*-------------------------------------------------------------------------
 *
 * deadline.c
 *	  The public release deadline of a protected run (deadline.h).
 *
 * Timing channel (Haeberlen, Pierce, Narayan 2011): how long a run takes
 * depends on the rows.  With a deadline the outcome is handed over at a
 * public instant; what else a run shows while it runs is held to it too:
 *	  - the ledger's outcome and finished_at (ledger_hold_outcomes);
 *	  - the progress phases, NOTICE lines and a job's phase
 *		(dpobj_progress_seal with hold);
 *	  - the exact oracle's time limit ends the search before the deadline
 *		(dpobj_deadline_time_limit), so its outcome too is ready in time;
 *	  - the wait itself reports no wait event (wait_event_info 0), so that
 *		pg_stat_activity shows the same while waiting as while computing.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "context/deadline.h"
#include "base/clientcheck.h"
#include "ledger/ledger.h"
#include "base/options.h"

#include "miscadmin.h"
#include "storage/latch.h"
#include "utils/timestamp.h"

/* the current run's release instant; 0: no deadline */
static TimestampTz release_at = 0;

double
deadline_option(Jsonb *options)
{
	JsonbValue *v = getKeyJsonValueFromContainer(&options->root, "deadline", 8, NULL);

	if (v == NULL)
		return 0.0;
	return dp_option_number(v, "deadline", 0.0, DPOBJ_DEADLINE_MAX, false);
}

TimestampTz
deadline_release_at(TimestampTz start, double owner_floor, double analyst)
{
	double		seconds = Max(owner_floor, analyst);

	if (!(seconds > 0))
		return 0;
	return start + (TimestampTz) (seconds * USECS_PER_SEC);
}

void
deadline_begin(TimestampTz at)
{
	release_at = at;
	if (at != 0)
		ledger_hold_outcomes(true);
}

void
deadline_end(void)
{
	if (release_at != 0)
		ledger_hold_outcomes(false);
	release_at = 0;
}

bool
deadline_active(void)
{
	return release_at != 0;
}

/* a stop during the wait: recorded as a cancel of the run, then raised */
static void
deadline_stopped(int64 ledger_id)
{
	if (ledger_id > 0)
		ledger_finish(ledger_id, LEDGER_OUTCOME_CANCELLED, "interrupted");
	CHECK_FOR_INTERRUPTS();
	/* the flag was consumed elsewhere: still never release */
	ereport(ERROR,
			(errcode(ERRCODE_QUERY_CANCELED),
			 errmsg("canceling statement due to user request"),
			 errdetail("No result was released; a charge already made stays in dpobj.ledger."),
			 errhint("The run was waiting for its release deadline.")));
}

void
deadline_wait(int64 ledger_id)
{
	if (release_at == 0)
		return;
	for (;;)
	{
		long		left_ms;

		if (dpobj_stop_requested())
			deadline_stopped(ledger_id);
		left_ms = TimestampDifferenceMilliseconds(GetCurrentTimestamp(), release_at);
		if (left_ms <= 0)
			return;
		/* no wait event: pg_stat_activity must not tell waiting from working */
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 Min(left_ms, DPOBJ_CLIENT_CHECK_MS), 0);
		ResetLatch(MyLatch);
	}
}

double
dpobj_deadline_time_limit(double limit)
{
	double		left;

	if (release_at == 0)
		return limit;
	left = (double) (release_at - GetCurrentTimestamp()) / USECS_PER_SEC - DPOBJ_DEADLINE_MARGIN;
	/* a time limit <= 0 would mean none: stop at once instead */
	left = Max(left, 0.001);
	return (limit > 0 && limit < left) ? limit : left;
}
