/*-------------------------------------------------------------------------
 *
 * progress.c
 *	  Phase and elapsed time of a mechanism run (see progress.h).
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

#include "base/progress.h"

#include "access/parallel.h"
#include "access/xact.h"
#include "miscadmin.h"
#include "utils/guc.h"
#include "utils/timestamp.h"

bool		dpobj_progress = false;

static DPObjPhase current_phase = DPOBJ_PHASE_NONE;
static TimestampTz last_notice = 0;
static TimestampTz notice_statement = 0;	/* statement start of the notices below */
static DPObjPhase notified_phase = DPOBJ_PHASE_NONE;	/* latest phase announced in it */
static int	sealed_client_level = -1;	/* >= 0: inside a sealed run */
static bool sealed_held = false;	/* a release deadline holds its later phases */
static DPObjPhaseReporter phase_reporter = NULL;	/* a job worker's slot, else none */

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
	int			save_level = client_min_messages;

	TimestampDifference(GetCurrentStatementStartTimestamp(), now, &secs, &usecs);

	/*
	 * In a sealed run the caller's own client_min_messages decides, not the
	 * setting pinned for the protected query (seal.c).
	 */
	if (sealed_client_level >= 0)
		client_min_messages = sealed_client_level;
	PG_TRY();
	{
		/* phase and elapsed wall time only: nothing computed from the rows */
		ereport(NOTICE,
				(errmsg("dpobj progress: %s, %ld s elapsed",
						dpobj_phase_name(current_phase), secs)));
	}
	PG_FINALLY();
	{
		client_min_messages = save_level;
	}
	PG_END_TRY();
}

void
dpobj_progress_seal(int client_level, bool hold)
{
	sealed_client_level = client_level;
	sealed_held = client_level >= 0 && hold;
	if (client_level >= 0)
	{
		/* a new run: each of its phases is announced once, in order */
		current_phase = DPOBJ_PHASE_NONE;
		notified_phase = DPOBJ_PHASE_NONE;
		notice_statement = GetCurrentStatementStartTimestamp();
	}
}

void
dpobj_progress_unhold(void)
{
	sealed_held = false;
}

void
dpobj_progress_set_reporter(DPObjPhaseReporter reporter)
{
	phase_reporter = reporter;
}

void
dpobj_progress_phase(DPObjPhase phase)
{
	TimestampTz now;

	if (IsParallelWorker())
		return;
	/* a sealed run's phases only move forward (progress.h) */
	if (sealed_client_level >= 0 && phase <= current_phase)
		return;
	/* held: only the first phase, announced at the public start */
	if (sealed_held && current_phase != DPOBJ_PHASE_NONE)
		return;
	current_phase = phase;
	if (phase_reporter != NULL)
		phase_reporter(phase);
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

/* dpobj.progress (init.c) */
void
dpobj_progress_define_guc(void)
{
	DefineCustomBoolVariable("dpobj.progress",
							 "Report the phase and elapsed time of a mechanism run as NOTICE lines.",
							 "Only the phase (scanning, solving, releasing) and the elapsed time are reported: nothing computed from the data.",
							 &dpobj_progress,
							 false,
							 PGC_USERSET, 0,
							 NULL, NULL, NULL);
}
