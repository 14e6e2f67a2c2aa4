/*-------------------------------------------------------------------------
 *
 * jobsint.h
 *	  Internals of the jobs (jobs.h is the public API): the shared memory
 *	  the processes meet in, and the interfaces between the jobs' files.
 *
 *	  jobs.c          the SQL functions (submit, cancel, a job's phase) and
 *	                  the settings
 *	  jobshm.c        shared memory, the launcher's registration, waking it
 *	  joblauncher.c   the launcher process
 *	  jobscheduler.c  the scheduler process (one database)
 *	  jobworker.c     the job worker process (one job)
 *	  jobsettings.c   the settings the scheduler and a job worker pin
 *
 * Processes (all need shared_preload_libraries = 'dpobj'):
 *
 *	  launcher   static background worker, connected to no database (shared
 *	             catalogs only).  At start-up and every
 *	             JOBS_RESCAN_INTERVAL_MS it schedules every database; in
 *	             between, the databases that shared memory says have news
 *	             (a submit committed, a job ended).  It runs one scheduler at
 *	             a time, so two schedulers never compete.
 *	  scheduler  dynamic worker, one database, bootstrap superuser.  If the
 *	             database has dpobj: marks 'running' jobs that have no live
 *	             slot as failed (the server restarted, or the worker died,
 *	             before the job recorded an outcome -- a job is never run
 *	             twice), then claims queued jobs while fewer than
 *	             dpobj.max_jobs slots are in use -- round robin over roles:
 *	             the role with the fewest running jobs first (below
 *	             dpobj.max_runs_per_role), its oldest job not behind an older
 *	             one on the same budget: slot reserved, row set 'running'
 *	             and committed, worker registered.
 *	  worker     dynamic worker, one job.  Connects to the database AS THE
 *	             SUBMITTING ROLE (BackgroundWorkerInitializeConnectionByOid
 *	             when the role may log in; otherwise as the bootstrap
 *	             superuser followed at once by SetSessionAuthorization(role),
 *	             because PostgreSQL 15 refuses NOLOGIN roles to workers) and
 *	             runs "SELECT dpobj.train($1, ...)" -- the protected path
 *	             itself, with its budget checks and autonomous charge.  Only
 *	             the job row's bookkeeping is written as the bootstrap
 *	             superuser, with fixed statements.
 *
 * Shared memory holds one slot per running job: database, job id, owner,
 * worker pid, cancel flag and phase.  The job table holds everything that
 * must survive a restart; a 'running' row without a slot is an orphan.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_JOBSINT_H
#define DPOBJ_JOBSINT_H

#include "postgres.h"

#include "base/progress.h"
#include "jobs/jobs.h"

#include "postmaster/bgworker.h"
#include "storage/latch.h"
#include "storage/spin.h"

/* databases with news the launcher keeps; beyond, it rescans them all */
#define JOBS_PENDING_DBS		64
/* bookkeeping statements of the scheduler and the job workers */
#define JOBS_LOCK_TIMEOUT		"2s"

typedef struct JobSlot
{
	bool		in_use;
	Oid			dboid;
	int64		job_id;
	Oid			owner;
	pid_t		pid;			/* 0 until the worker has started */
	bool		cancel_requested;
	bool		finishing;		/* recording its outcome: no more SIGINT */
	DPObjPhase	phase;
} JobSlot;

typedef struct JobsShared
{
	slock_t		mutex;
	Latch	   *launcher_latch;	/* NULL while no launcher runs */
	pid_t		launcher_pid;
	bool		rescan_all;
	int			npending;
	Oid			pending[JOBS_PENDING_DBS];
	JobSlot		slots[DPOBJ_MAX_JOB_SLOTS];
} JobsShared;

/* what the scheduler hands a job worker (bgw_extra) */
typedef struct JobWorkerArgs
{
	Oid			dboid;
	Oid			owner;
	bool		can_login;
	int64		job_id;
} JobWorkerArgs;

/* shared memory (jobshm.c); NULL without preloading */
extern JobsShared *jobs_shared;

/* an error unless dpobj was preloaded (the SQL functions) */
extern void jobs_require_preload(const char *fname);
/* marks a database (all: every one) as having news for the launcher, wakes it */
extern void jobs_wake_launcher(Oid dboid, bool all);
/* a dynamic background worker of dpobj running function (launcher, scheduler) */
extern void jobs_worker_template(BackgroundWorker *worker, const char *function,
								 const char *type);
extern void job_slot_free(int i);

#endif							/* DPOBJ_JOBSINT_H */
