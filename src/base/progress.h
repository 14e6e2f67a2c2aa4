/*-------------------------------------------------------------------------
 *
 * progress.h
 *	  Progress of a mechanism run: which phase it is in and how
 *	  long it has been running -- nothing else.
 *
 * Data independence: the objective, bounds, node counts and iteration
 * counts of a solve depend on the rows, so they never reach an analyst.
 * Progress is the phase (scanning, solving, releasing) and the elapsed
 * wall time only (run time is already visible to the caller; docs/USAGE.md,
 * privacy caveats).
 *
 * Where it goes:
 *   - in a job worker (src/jobs/jobworker.c): the job's shared-memory slot, shown by
 *     the dpobj.jobs view;
 *   - in a session with dpobj.progress = on: NOTICE lines, at the start of
 *     each phase and at most every DPOBJ_PROGRESS_INTERVAL_MS while solving.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_PROGRESS_H
#define DPOBJ_PROGRESS_H

#include "postgres.h"

typedef enum DPObjPhase
{
	DPOBJ_PHASE_NONE = 0,
	DPOBJ_PHASE_SCANNING,
	DPOBJ_PHASE_SOLVING,
	DPOBJ_PHASE_RELEASING
} DPObjPhase;

/* at most one periodic NOTICE per interval while solving */
#define DPOBJ_PROGRESS_INTERVAL_MS	2000

extern bool dpobj_progress;		/* GUC dpobj.progress */
extern void dpobj_progress_define_guc(void);

extern const char *dpobj_phase_name(DPObjPhase phase);

/*
 * Where this process reports each phase besides the client: a job worker
 * sets its slot's reporter once (jobworker.c), so that the progress reporter
 * never needs the job scheduler.  NULL (the default): nowhere else.
 */
typedef void (*DPObjPhaseReporter) (DPObjPhase phase);
extern void dpobj_progress_set_reporter(DPObjPhaseReporter reporter);

/* Enters a phase (may raise like any NOTICE: call it outside the oracles). */
extern void dpobj_progress_phase(DPObjPhase phase);

/*
 * The protected path (seal.c).  dpobj_progress_seal(level) starts
 * a sealed run: its phases only move forward (a phase reported again, e.g.
 * "scanning" by a transition function after train() announced it, is
 * ignored, so the NOTICE lines cannot depend on the rows), and the lines
 * are sent with client_min_messages = level, the caller's setting, while
 * the protected query runs with client messages pinned to errors only.
 * dpobj_progress_seal(-1, false) ends it.
 *
 * hold (a release deadline, src/protected/deadline.c): after the first
 * phase (train() announces "scanning" before the scan) no phase is
 * reported -- neither a NOTICE nor a job's phase -- and no periodic line
 * is sent, because when the solve starts and ends depends on the rows;
 * dpobj_progress_unhold() at the deadline lets the next phase through.
 */
extern void dpobj_progress_seal(int client_level, bool hold);
extern void dpobj_progress_unhold(void);

/*
 * Called from the oracles' stop callback (oracle.c), often: emits a NOTICE
 * when dpobj.progress is on and the interval has passed.  Never raises and
 * never longjmps out: a failure to send the NOTICE is swallowed.
 */
extern void dpobj_progress_tick(void);

#endif							/* DPOBJ_PROGRESS_H */
