/*-------------------------------------------------------------------------
 *
 * jobscheduler.c
 *	  The job scheduler: a dynamic worker for one database, as the bootstrap
 *	  superuser, run by the launcher.  Marks orphaned 'running' jobs failed,
 *	  claims queued jobs for the free slots (round robin over roles) and
 *	  starts their workers (jobsint.h).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "base/privileged.h"
#include "context/runlimit.h"
#include "jobs/jobsettings.h"
#include "jobs/jobsint.h"

#include "access/xact.h"
#include "catalog/pg_authid.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "storage/ipc.h"
#include "tcop/tcopprot.h"
#include "utils/guc.h"
#include "utils/snapmgr.h"

static const char sched_has_dpobj_sql[] =
"SELECT pg_catalog.to_regclass('dpobj.job_queue') IS NOT NULL "
"   AND EXISTS (SELECT 1 FROM pg_catalog.pg_extension WHERE extname OPERATOR(pg_catalog.=) 'dpobj')";

static const char sched_running_sql[] =
"SELECT id FROM dpobj.job_queue WHERE state OPERATOR(pg_catalog.=) 'running'";

static const char sched_orphan_sql[] =
"UPDATE dpobj.job_queue SET state = 'failed', finished_at = pg_catalog.clock_timestamp(), "
"       sqlstate = '57P01', "
"       error = 'the job was interrupted (server restart or worker exit) before it recorded an outcome; "
"it is not run again, and a charge it made stays in dpobj.ledger' "
" WHERE id OPERATOR(pg_catalog.=) (SELECT id FROM dpobj.job_queue WHERE id OPERATOR(pg_catalog.=) $1 "
"                                    AND state OPERATOR(pg_catalog.=) 'running' FOR UPDATE SKIP LOCKED)";

/* the roles with queued jobs, each with its oldest one */
static const char sched_owners_sql[] =
"SELECT owner::pg_catalog.oid, pg_catalog.min(id) FROM dpobj.job_queue "
" WHERE state OPERATOR(pg_catalog.=) 'queued' GROUP BY owner";

/* one role's oldest queued job that nobody holds locked */
/*
 * The role's oldest queued job whose budget no older job of the role still
 * waits for or runs on: one budget's jobs (the same table, or tables of
 * one budget domain) run one after another in submission order, so they
 * are charged in that order whatever their run times -- the accounting
 * path of each (linear or reserve, Gaussian or Renyi) depends on the
 * order (docs/USAGE.md, "Jobs").
 */
static const char sched_claim_sql[] =
"SELECT j.id, COALESCE(a.rolcanlogin, false) "
"  FROM dpobj.job_queue j LEFT JOIN pg_catalog.pg_authid a ON a.oid OPERATOR(pg_catalog.=) j.owner::pg_catalog.oid "
"  LEFT JOIN dpobj.protected_tables pj ON pj.relid OPERATOR(pg_catalog.=) j.rel "
" WHERE j.state OPERATOR(pg_catalog.=) 'queued' AND j.owner::pg_catalog.oid OPERATOR(pg_catalog.=) $1 "
"   AND NOT EXISTS (SELECT 1 FROM dpobj.job_queue e "
"         LEFT JOIN dpobj.protected_tables pe ON pe.relid OPERATOR(pg_catalog.=) e.rel "
"        WHERE e.owner OPERATOR(pg_catalog.=) j.owner AND e.id OPERATOR(pg_catalog.<) j.id "
"          AND e.state OPERATOR(pg_catalog.=) ANY ('{queued,running}'::pg_catalog.text[]) "
"          AND (e.rel OPERATOR(pg_catalog.=) j.rel "
"               OR pe.budget_domain OPERATOR(pg_catalog.=) pj.budget_domain)) "
" ORDER BY j.id LIMIT 1 FOR UPDATE OF j SKIP LOCKED";

static const char sched_start_sql[] =
"UPDATE dpobj.job_queue SET state = 'running', started_at = pg_catalog.clock_timestamp() "
" WHERE id OPERATOR(pg_catalog.=) $1";

static const char sched_requeue_sql[] =
"UPDATE dpobj.job_queue SET state = 'queued', started_at = NULL "
" WHERE id OPERATOR(pg_catalog.=) $1 AND state OPERATOR(pg_catalog.=) 'running'";

static bool
job_has_slot(Oid dboid, int64 job_id)
{
	bool		found = false;

	SpinLockAcquire(&jobs_shared->mutex);
	for (int i = 0; i < DPOBJ_MAX_JOB_SLOTS; i++)
		if (jobs_shared->slots[i].in_use && jobs_shared->slots[i].dboid == dboid &&
			jobs_shared->slots[i].job_id == job_id)
			found = true;
	SpinLockRelease(&jobs_shared->mutex);
	return found;
}

/* reserves a slot unless dpobj.max_jobs are in use; -1 if none */
static int
job_slot_reserve(Oid dboid, int64 job_id, Oid owner)
{
	int			used = 0;
	int			free_slot = -1;
	int			limit = Min(dpobj_max_jobs, DPOBJ_MAX_JOB_SLOTS);

	SpinLockAcquire(&jobs_shared->mutex);
	for (int i = 0; i < DPOBJ_MAX_JOB_SLOTS; i++)
	{
		if (jobs_shared->slots[i].in_use)
			used++;
		else if (free_slot < 0)
			free_slot = i;
	}
	if (used >= limit || free_slot < 0)
		free_slot = -1;
	else
	{
		JobSlot    *slot = &jobs_shared->slots[free_slot];

		memset(slot, 0, sizeof(JobSlot));
		slot->in_use = true;
		slot->dboid = dboid;
		slot->job_id = job_id;
		slot->owner = owner;
	}
	SpinLockRelease(&jobs_shared->mutex);
	return free_slot;
}

/* 1. orphans: 'running' without a live slot -> failed, never re-run */
static void
sched_fail_orphans(Oid dboid)
{
	uint64		nrun;
	SPITupleTable *tt;
	bool		isnull;

	if (SPI_execute(sched_running_sql, false, 0) != SPI_OK_SELECT)
		elog(ERROR, "dpobj job scheduler: lookup failed");
	nrun = SPI_processed;
	tt = SPI_tuptable;
	for (uint64 r = 0; r < nrun; r++)
	{
		int64		id = DatumGetInt64(SPI_getbinval(tt->vals[r], tt->tupdesc, 1, &isnull));
		Oid			t[1] = {INT8OID};
		Datum		v[1] = {Int64GetDatum(id)};

		if (job_has_slot(dboid, id))
			continue;
		if (SPI_execute_with_args(sched_orphan_sql, 1, t, v, NULL, false, 0) != SPI_OK_UPDATE)
			elog(ERROR, "dpobj job scheduler: update failed");
		if (SPI_processed == 1)
			elog(LOG, "dpobj job " INT64_FORMAT " was running when its worker or the server stopped; marked failed", id);
	}
}

/* the slots in use, and those of one role (every database: roles are global) */
static int
jobs_slots_used(Oid owner, int *of_owner)
{
	int			used = 0;

	*of_owner = 0;
	SpinLockAcquire(&jobs_shared->mutex);
	for (int i = 0; i < DPOBJ_MAX_JOB_SLOTS; i++)
		if (jobs_shared->slots[i].in_use)
		{
			used++;
			if (jobs_shared->slots[i].owner == owner)
				(*of_owner)++;
		}
	SpinLockRelease(&jobs_shared->mutex);
	return used;
}

/*
 * Round robin over roles: a role with queued jobs, its oldest job first;
 * the role with the fewest running jobs goes first, ties by the oldest
 * job.  A role whose session runs and running jobs already reach
 * dpobj.max_runs_per_role waits (its job would be refused).
 */
typedef struct SchedCandidate
{
	Oid			owner;
	int64		oldest;
	int			running;
} SchedCandidate;

static int
sched_candidate_cmp(const void *a, const void *b)
{
	const SchedCandidate *x = a;
	const SchedCandidate *y = b;

	if (x->running != y->running)
		return x->running < y->running ? -1 : 1;
	return x->oldest < y->oldest ? -1 : (x->oldest > y->oldest ? 1 : 0);
}

/* the roles with queued jobs, in the order they are served; returns how many */
static int
sched_candidates(SchedCandidate **out)
{
	uint64		n;
	int			k = 0;
	SchedCandidate *c;
	bool		isnull;

	if (SPI_execute(sched_owners_sql, false, 0) != SPI_OK_SELECT)
		elog(ERROR, "dpobj job scheduler: lookup failed");
	n = SPI_processed;
	c = palloc0(sizeof(SchedCandidate) * Max(n, 1));
	for (uint64 r = 0; r < n; r++)
	{
		Oid			owner = DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[r], SPI_tuptable->tupdesc, 1, &isnull));
		int			sessions = dpobj_runs_in_sessions(owner);

		c[k].owner = owner;
		c[k].oldest = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[r], SPI_tuptable->tupdesc, 2, &isnull));
		(void) jobs_slots_used(owner, &c[k].running);
		if (dpobj_max_runs_per_role > 0 &&
			Max(sessions, 0) + c[k].running >= dpobj_max_runs_per_role)
			continue;
		k++;
	}
	qsort(c, k, sizeof(SchedCandidate), sched_candidate_cmp);
	*out = c;
	return k;
}

/* claims the first unlocked queued job of the first role that has one */
static bool
sched_claim_one(Oid dboid, JobWorkerArgs *job, int *slot)
{
	SchedCandidate *c;
	int			n = sched_candidates(&c);
	bool		isnull;

	for (int k = 0; k < n; k++)
	{
		Oid			t[1] = {OIDOID};
		Datum		v[1] = {ObjectIdGetDatum(c[k].owner)};
		Oid			t2[1] = {INT8OID};
		Datum		v2[1];

		if (SPI_execute_with_args(sched_claim_sql, 1, t, v, NULL, false, 1) != SPI_OK_SELECT)
			elog(ERROR, "dpobj job scheduler: claim failed");
		if (SPI_processed != 1)
			continue;
		job->dboid = dboid;
		job->owner = c[k].owner;
		job->job_id = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
		job->can_login = DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull));
		*slot = job_slot_reserve(dboid, job->job_id, job->owner);
		if (*slot < 0)
			break;
		v2[0] = Int64GetDatum(job->job_id);
		if (SPI_execute_with_args(sched_start_sql, 1, t2, v2, NULL, false, 0) != SPI_OK_UPDATE)
			elog(ERROR, "dpobj job scheduler: update failed");
		pfree(c);
		return true;
	}
	pfree(c);
	return false;
}

/* 2. claim queued jobs for the free slots (marked 'running'); returns how many */
static int
sched_claim_jobs(Oid dboid, JobWorkerArgs *claimed, int *claimed_slot)
{
	int			nclaimed = 0;
	int			unused;

	while (nclaimed < DPOBJ_MAX_JOB_SLOTS &&
		   jobs_slots_used(InvalidOid, &unused) < Min(dpobj_max_jobs, DPOBJ_MAX_JOB_SLOTS) &&
		   sched_claim_one(dboid, &claimed[nclaimed], &claimed_slot[nclaimed]))
		nclaimed++;
	return nclaimed;
}

/* 3. start the worker of a claimed job; without a worker slot, queue it again */
static void
sched_start_worker(const JobWorkerArgs *job, int slot)
{
	BackgroundWorker worker;
	BackgroundWorkerHandle *handle;
	Oid			t[1] = {INT8OID};
	Datum		v[1] = {Int64GetDatum(job->job_id)};

	jobs_worker_template(&worker, "dpobj_job_worker_main", "dpobj job");
	snprintf(worker.bgw_name, BGW_MAXLEN, "dpobj job " INT64_FORMAT, job->job_id);
	worker.bgw_main_arg = Int32GetDatum(slot);
	memcpy(worker.bgw_extra, job, sizeof(JobWorkerArgs));
	worker.bgw_notify_pid = 0;
	if (RegisterDynamicBackgroundWorker(&worker, &handle))
		return;
	/* no worker slot: back to the queue, retried on the next round */
	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	SPI_connect();
	PushActiveSnapshot(GetTransactionSnapshot());
	(void) SPI_execute_with_args(sched_requeue_sql, 1, t, v, NULL, false, 0);
	SPI_finish();
	PopActiveSnapshot();
	CommitTransactionCommand();
	job_slot_free(slot);
	elog(LOG, "dpobj job " INT64_FORMAT ": no background worker slot free, queued again",
		 job->job_id);
}

void
dpobj_jobs_scheduler_main(Datum arg)
{
	Oid			dboid = DatumGetObjectId(arg);
	bool		isnull;
	int			nclaimed;
	int			claimed_slot[DPOBJ_MAX_JOB_SLOTS];
	JobWorkerArgs claimed[DPOBJ_MAX_JOB_SLOTS];

	pqsignal(SIGTERM, die);
	BackgroundWorkerUnblockSignals();
	BackgroundWorkerInitializeConnectionByOid(dboid, BOOTSTRAP_SUPERUSERID, 0);
	pgstat_report_appname("dpobj job scheduler");
	jobs_pin_worker_settings();

	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	SetConfigOption("search_path", "pg_catalog", PGC_USERSET, PGC_S_SESSION);
	/* the launcher waits for this worker: never wait long on a lock */
	SetConfigOption("lock_timeout", JOBS_LOCK_TIMEOUT, PGC_USERSET, PGC_S_SESSION);
	SPI_connect();
	PushActiveSnapshot(GetTransactionSnapshot());
	if (SPI_execute(sched_has_dpobj_sql, true, 1) != SPI_OK_SELECT ||
		!DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull)))
	{
		/* no dpobj here */
		SPI_finish();
		PopActiveSnapshot();
		CommitTransactionCommand();
		proc_exit(0);
	}
	/* its statements run as a superuser: only in a schema superusers control */
	dpobj_verify_schema();
	sched_fail_orphans(dboid);
	nclaimed = sched_claim_jobs(dboid, claimed, claimed_slot);
	SPI_finish();
	PopActiveSnapshot();
	CommitTransactionCommand();

	/* 'running' is committed: start the workers */
	for (int k = 0; k < nclaimed; k++)
		sched_start_worker(&claimed[k], claimed_slot[k]);
	proc_exit(0);
}

