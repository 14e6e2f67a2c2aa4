/*-------------------------------------------------------------------------
 *
 * jobshm.c
 *	  The jobs' shared memory (one slot per running job: database, job id,
 *	  owner, worker pid, cancel flag and phase; the databases with news for
 *	  the launcher), the launcher's registration while preloading, and what
 *	  more than one process does with them (jobsint.h).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "jobs/jobsint.h"

#include "miscadmin.h"
#include "postmaster/bgworker.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"

JobsShared *jobs_shared = NULL;
static bool jobs_preloaded = false;
static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;

static void
jobs_shmem_request(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
	RequestAddinShmemSpace(MAXALIGN(sizeof(JobsShared)));
}

static void
jobs_shmem_startup(void)
{
	bool		found;

	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();
	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	jobs_shared = ShmemInitStruct("dpobj jobs", sizeof(JobsShared), &found);
	if (!found)
	{
		memset(jobs_shared, 0, sizeof(JobsShared));
		SpinLockInit(&jobs_shared->mutex);
	}
	LWLockRelease(AddinShmemInitLock);
}

void
dpobj_jobs_preload_init(void)
{
	BackgroundWorker worker;

	jobs_preloaded = true;
	prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = jobs_shmem_request;
	prev_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = jobs_shmem_startup;

	memset(&worker, 0, sizeof(worker));
	worker.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
	worker.bgw_start_time = BgWorkerStart_RecoveryFinished;
	worker.bgw_restart_time = 5;
	snprintf(worker.bgw_library_name, BGW_MAXLEN, "dpobj");
	snprintf(worker.bgw_function_name, BGW_MAXLEN, "dpobj_jobs_launcher_main");
	snprintf(worker.bgw_name, BGW_MAXLEN, "dpobj job launcher");
	snprintf(worker.bgw_type, BGW_MAXLEN, "dpobj job launcher");
	RegisterBackgroundWorker(&worker);
}

void
jobs_require_preload(const char *fname)
{
	if (!jobs_preloaded || jobs_shared == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("%s needs dpobj in shared_preload_libraries", fname),
				 errhint("Add 'dpobj' to shared_preload_libraries in postgresql.conf and restart the server (docs/USAGE.md, \"Jobs\").")));
}

void
jobs_wake_launcher(Oid dboid, bool all)
{
	Latch	   *latch;

	if (jobs_shared == NULL)
		return;
	SpinLockAcquire(&jobs_shared->mutex);
	if (all)
		jobs_shared->rescan_all = true;
	else
	{
		bool		known = false;

		for (int i = 0; i < jobs_shared->npending; i++)
			if (jobs_shared->pending[i] == dboid)
				known = true;
		if (!known)
		{
			if (jobs_shared->npending < JOBS_PENDING_DBS)
				jobs_shared->pending[jobs_shared->npending++] = dboid;
			else
				jobs_shared->rescan_all = true;
		}
	}
	latch = jobs_shared->launcher_latch;
	SpinLockRelease(&jobs_shared->mutex);
	if (latch)
		SetLatch(latch);
}

/*
 * A dynamic, never-restarted background worker of dpobj with a database
 * connection, running function; the caller sets bgw_name and the arguments.
 */
void
jobs_worker_template(BackgroundWorker *worker, const char *function, const char *type)
{
	memset(worker, 0, sizeof(*worker));
	worker->bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
	worker->bgw_start_time = BgWorkerStart_RecoveryFinished;
	worker->bgw_restart_time = BGW_NEVER_RESTART;
	snprintf(worker->bgw_library_name, BGW_MAXLEN, "dpobj");
	snprintf(worker->bgw_function_name, BGW_MAXLEN, "%s", function);
	snprintf(worker->bgw_type, BGW_MAXLEN, "%s", type);
}

/* frees slot i (the scheduler without a worker; the worker at exit) */
void
job_slot_free(int i)
{
	SpinLockAcquire(&jobs_shared->mutex);
	memset(&jobs_shared->slots[i], 0, sizeof(JobSlot));
	SpinLockRelease(&jobs_shared->mutex);
}
