/*-------------------------------------------------------------------------
 *
 * runlimit.h
 *	  How many mechanism runs one role holds at once: the superuser setting
 *	  dpobj.max_runs_per_role, checked before any charge.
 *
 * A run is dpobj.train() / dpobj.evaluate() or a mechanism's final
 * function called directly; a run nested in another one in the same
 * backend (the final function below train()) is part of it.  Only the
 * caller's own role is counted: the refusal tells nothing about others.
 *
 * With shared_preload_libraries = 'dpobj' the runs are counted in shared
 * memory across the whole cluster; otherwise with transaction-level
 * advisory locks, per database.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_RUNLIMIT_H
#define DPOBJ_RUNLIMIT_H

#include "postgres.h"

extern int	dpobj_max_runs_per_role;	/* GUC dpobj.max_runs_per_role, 0 = none */

/* _PG_init: the setting; the shared memory while preloading */
extern void dpobj_runlimit_init(void);

/*
 * Enters a run for the current user: refused (SQLSTATE 53400) when the role
 * already holds dpobj.max_runs_per_role runs (superusers: never refused).  The run ends when the
 * current memory context is reset or deleted, or at the end of the
 * (sub)transaction.  Call it before the charge.
 */
extern void dpobj_run_enter(void);

/*
 * Runs held now by role in client sessions (not background workers);
 * -1 when they are not counted in shared memory.  For the job scheduler.
 */
extern int	dpobj_runs_in_sessions(Oid role);

/*
 * One run on a budget at a time, so that runs are charged in the order they
 * start, whatever their run times: waits for the budget's lock (database,
 * budget id) and holds it to the end of the transaction.
 */
extern void dpobj_run_budget_lock(int64 budget_id);

#endif							/* DPOBJ_RUNLIMIT_H */
