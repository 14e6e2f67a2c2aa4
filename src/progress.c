/*-------------------------------------------------------------------------
 *
 * progress.c
 *	  Phase and elapsed time of a mechanism run (issue 6; see progress.h).
 *
 * dpobj_progress_tick() runs inside the oracles' stop callback, i.e. inside
 * GLPK or the branch-and-bound search, which must never be left by a
 * longjmp.  So the NOTICE is sent with interrupts held (a pending cancel is
 * not processed here: the oracle sees the flag and stops by itself) inside
 * PG_TRY, and a failure to send it is swallowed with FlushErrorState().
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "progress.h"
#include "jobs.h"

#include "access/parallel.h"
#include "access/xact.h"
#include "miscadmin.h"
#include "utils/timestamp.h"

bool		dpobj_progress = false;

static DPObjPhase current_phase = DPOBJ_PHASE_NONE;
static TimestampTz last_notice = 0;
static TimestampTz notice_statement = 0;	/* statement start of the notices below */
static DPObjPhase notified_phase = DPOBJ_PHASE_NONE;	/* latest phase announced in it */

const char *
dpobj_phase_name(DPObjPhase phase)
{
	switch (phase)
	{
		case DPOBJ_PHASE_SCANNING:
			return "scanning";
		case DPOBJ_PHASE_SOLVING:
			return "solving";
		case DPOBJ_PHASE_RELEASING:
			return "releasing";
		default:
			return "none";
	}
}

static void
progress_notice(TimestampTz now)
{
	long		secs;
	int			usecs;

	TimestampDifference(GetCurrentStatementStartTimestamp(), now, &secs, &usecs);
	/* phase and elapsed wall time only: nothing computed from the rows */
	ereport(NOTICE,
			(errmsg("dpobj progress: %s, %ld s elapsed",
					dpobj_phase_name(current_phase), secs)));
}

void
dpobj_progress_phase(DPObjPhase phase)
{
	TimestampTz now;

	if (IsParallelWorker())
		return;
	current_phase = phase;
	dpobj_jobs_report_phase(phase);
	if (!dpobj_progress)
		return;

	/*
	 * Announce a phase at once when it comes later than any announced in
	 * this statement (scanning < solving < releasing); otherwise (GROUP BY:
	 * the phases repeat per group) at most once per interval.
	 */
	now = GetCurrentTimestamp();
	if (GetCurrentStatementStartTimestamp() != notice_statement)
	{
		notice_statement = GetCurrentStatementStartTimestamp();
		notified_phase = DPOBJ_PHASE_NONE;
	}
	if (phase <= notified_phase &&
		!TimestampDifferenceExceeds(last_notice, now, DPOBJ_PROGRESS_INTERVAL_MS))
		return;
	if (phase > notified_phase)
		notified_phase = phase;
	last_notice = now;
	progress_notice(now);
}

void
dpobj_progress_tick(void)
{
	TimestampTz now;
	MemoryContext oldcxt;

	if (!dpobj_progress || current_phase != DPOBJ_PHASE_SOLVING || IsParallelWorker())
		return;
	now = GetCurrentTimestamp();
	if (!TimestampDifferenceExceeds(last_notice, now, DPOBJ_PROGRESS_INTERVAL_MS))
		return;
	last_notice = now;

	oldcxt = CurrentMemoryContext;
	HOLD_INTERRUPTS();
	PG_TRY();
	{
		progress_notice(now);
	}
	PG_CATCH();
	{
		/* never leave the oracle by longjmp: drop the notice */
		MemoryContextSwitchTo(oldcxt);
		FlushErrorState();
	}
	PG_END_TRY();
	RESUME_INTERRUPTS();
}
