/*-------------------------------------------------------------------------
 *
 * jobs.c
 *	  In-database training jobs.
 *
 *	  dpobj.submit(rel, mechanism, features, label, eps, delta, options)
 *	      same arguments and checks as dpobj.train(): train.c's own code
 *	      validates them and pre-checks the budget (no scan, nothing
 *	      charged), and at most dpobj.max_jobs_per_role jobs of the role
 *	      may be queued or running; then a row is queued in
 *	      dpobj.job_queue and its id returned at once.
 *	  dpobj.cancel(job_id)
 *	      queued: the job is marked cancelled; running: the job's worker
 *	      gets SIGINT (a query cancel), which the oracles poll -- the solve
 *	      stops within about a second.  A charge already made stays.
 *	  dpobj.jobs (view)
 *	      the caller's own jobs: state, timestamps, phase and elapsed time
 *	      (nothing data-dependent), model or error.
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
#include "postgres.h"

#include <signal.h>

#include "jobs/jobs.h"
#include "jobs/jobsettings.h"
#include "ledger/ledger.h"
#include "base/progress.h"
#include "context/protected.h"
#include "protected/train.h"
#include "base/dpobj.h"
#include "base/privileged.h"
#include "context/runlimit.h"

#include "access/genam.h"
#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/pg_authid.h"
#include "catalog/pg_database.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/lmgr.h"
#include "storage/lwlock.h"
#include "storage/proc.h"
#include "storage/shmem.h"
#include "storage/spin.h"
#include "tcop/tcopprot.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"

PG_FUNCTION_INFO_V1(dpobj_submit);
PG_FUNCTION_INFO_V1(dpobj_cancel);
PG_FUNCTION_INFO_V1(dpobj_job_phase);

int			dpobj_max_jobs = 2;
int			dpobj_max_jobs_per_role = 20;

#define JOBS_PENDING_DBS		64
#define JOBS_RESCAN_INTERVAL_MS	30000
#define JOBS_POLL_MS			1000
/* bookkeeping statements of the scheduler and the job workers */
#define JOBS_LOCK_TIMEOUT		"2s"
#define JOBS_RECORD_ATTEMPTS	3

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

static JobsShared *jobs_shared = NULL;
static bool jobs_preloaded = false;
static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;

/* in a job worker: its slot */
static int	my_slot = -1;

/* in a backend: wake the launcher for this database at commit */
static bool wake_at_commit = false;
static bool xact_callback_registered = false;

/* ---------------------------------------------------------------------
 * Shared memory
 * ---------------------------------------------------------------------
 */

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

static void
jobs_require_preload(const char *fname)
{
	if (!jobs_preloaded || jobs_shared == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("%s needs dpobj in shared_preload_libraries", fname),
				 errhint("Add 'dpobj' to shared_preload_libraries in postgresql.conf and restart the server (docs/USAGE.md, \"Jobs\").")));
}

/* marks a database as having news for the launcher and wakes it */
static void
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

static void
jobs_xact_callback(XactEvent event, void *arg)
{
	if (event == XACT_EVENT_COMMIT && wake_at_commit)
		jobs_wake_launcher(MyDatabaseId, false);
	if (event == XACT_EVENT_COMMIT || event == XACT_EVENT_ABORT ||
		event == XACT_EVENT_PARALLEL_COMMIT || event == XACT_EVENT_PARALLEL_ABORT)
		wake_at_commit = false;
}

/* dpobj.max_jobs and dpobj.max_jobs_per_role (init.c) */
void
dpobj_jobs_define_gucs(void)
{
	DefineCustomIntVariable("dpobj.max_jobs",
							"Maximum number of training jobs (dpobj.submit) running at a time; the rest wait in the queue.",
							"Jobs need dpobj in shared_preload_libraries; each running job uses one background worker slot.",
							&dpobj_max_jobs,
							2, 1, DPOBJ_MAX_JOB_SLOTS,
							PGC_SIGHUP, 0,
							NULL, NULL, NULL);

	DefineCustomIntVariable("dpobj.max_jobs_per_role",
							"Maximum number of queued or running jobs of one role; dpobj.submit() refuses more. 0 means no limit.",
							"Counted over the submitting role's own jobs only; the refusal charges nothing.",
							&dpobj_max_jobs_per_role,
							20, 0, INT_MAX,
							PGC_SUSET, 0,
							NULL, NULL, NULL);
}

/* progress.c's reporter in a job worker: the phase goes to the job's slot */
static void
job_report_phase(DPObjPhase phase)
{
	if (my_slot < 0 || jobs_shared == NULL)
		return;
	SpinLockAcquire(&jobs_shared->mutex);
	jobs_shared->slots[my_slot].phase = phase;
	SpinLockRelease(&jobs_shared->mutex);
}

/* ---------------------------------------------------------------------
 * dpobj.submit(...) RETURNS bigint
 * ---------------------------------------------------------------------
 */

static const char submit_count_sql[] =
"SELECT pg_catalog.count(*)::pg_catalog.int4 FROM dpobj.job_queue "
" WHERE owner::pg_catalog.oid OPERATOR(pg_catalog.=) $1 "
"   AND state OPERATOR(pg_catalog.=) ANY ('{queued,running}'::pg_catalog.text[])";

/*
 * dpobj.max_jobs_per_role: the caller's own unfinished jobs only (public
 * ground, nothing charged).  Concurrent submits of one role are serialized
 * by a lock on the role itself (ExclusiveLock on the pg_authid object: it
 * does not conflict with the AccessShareLock that dependency recording
 * takes), held to the end of the transaction.
 */
static void
submit_check_role_limit(Oid caller)
{
	Oid			t[1] = {OIDOID};
	Datum		v[1] = {ObjectIdGetDatum(caller)};
	RoleSwitch	ss;
	bool		isnull;
	int			n;

	if (dpobj_max_jobs_per_role <= 0)
		return;
	LockSharedObject(AuthIdRelationId, caller, 0, ExclusiveLock);
	role_switch_begin(&ss, BOOTSTRAP_SUPERUSERID, false);
	if (SPI_execute_with_args(submit_count_sql, 1, t, v, NULL, false, 1) != SPI_OK_SELECT ||
		SPI_processed != 1)
		elog(ERROR, "dpobj.submit: could not count the role's jobs");
	n = DatumGetInt32(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	role_switch_end(&ss);
	if (n >= dpobj_max_jobs_per_role)
		ereport(ERROR,
				(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
				 errmsg("dpobj.submit: role \"%s\" already has %d queued or running jobs",
						GetUserNameFromId(caller, false), n),
				 errdetail("dpobj.max_jobs_per_role is %d.  Nothing was queued or charged.",
						   dpobj_max_jobs_per_role),
				 errhint("Wait until one of your jobs ends or cancel one with dpobj.cancel(), or ask a superuser to raise dpobj.max_jobs_per_role.")));
}

static const char submit_sql[] =
"INSERT INTO dpobj.job_queue (owner, rel, mechanism, features, label, epsilon, delta, options, "
"model_name) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id";

Datum
dpobj_submit(PG_FUNCTION_ARGS)
{
	Oid			caller = GetUserId();
	Oid			types[9] = {REGROLEOID, REGCLASSOID, TEXTOID, TEXTARRAYOID, TEXTOID,
	NUMERICOID, NUMERICOID, JSONBOID, TEXTOID};
	Datum		values[9];
	char		nulls[9] = "        ";
	RoleSwitch	ss;
	bool		isnull;
	int64		id;

	jobs_require_preload("dpobj.submit");

	/* exactly train()'s validation and budget pre-check (budget.c) */
	dpobj_train_validate(fcinfo);

	values[0] = ObjectIdGetDatum(caller);
	for (int i = 0; i < 7; i++)
		values[i + 1] = PG_GETARG_DATUM(i);
	/* model_name: train() in the job stores the model under it */
	values[8] = (PG_NARGS() > 7 && !PG_ARGISNULL(7)) ? PG_GETARG_DATUM(7) : (Datum) 0;
	nulls[8] = (PG_NARGS() > 7 && !PG_ARGISNULL(7)) ? ' ' : 'n';

	SPI_connect();
	submit_check_role_limit(caller);
	role_switch_begin(&ss, BOOTSTRAP_SUPERUSERID, false);
	if (SPI_execute_with_args(submit_sql, 9, types, values, nulls, false, 1) != SPI_OK_INSERT_RETURNING ||
		SPI_processed != 1)
		elog(ERROR, "dpobj.submit: could not queue the job");
	id = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	role_switch_end(&ss);
	SPI_finish();

	if (!xact_callback_registered)
	{
		RegisterXactCallback(jobs_xact_callback, NULL);
		xact_callback_registered = true;
	}
	wake_at_commit = true;
	PG_RETURN_INT64(id);
}

/* ---------------------------------------------------------------------
 * dpobj.cancel(job_id) RETURNS boolean
 * ---------------------------------------------------------------------
 */

/*
 * No row lock: the caller's transaction may stay open for as long as it
 * likes, so cancel() never locks a row that a job worker or the scheduler
 * must update.  A queued job is cancelled by an UPDATE that only matches
 * while it is still queued (the scheduler claims with SKIP LOCKED, so the
 * caller's lock on a queued row holds nobody else up); a running job is
 * told through its shared-memory slot and a SIGINT.
 */
static const char cancel_lookup_sql[] =
"SELECT owner::pg_catalog.oid, state FROM dpobj.job_queue WHERE id OPERATOR(pg_catalog.=) $1";

static const char cancel_queued_sql[] =
"UPDATE dpobj.job_queue SET state = 'cancelled', finished_at = pg_catalog.clock_timestamp(), "
"       error = 'cancelled before it started (nothing was charged)' "
" WHERE id OPERATOR(pg_catalog.=) $1 AND state OPERATOR(pg_catalog.=) 'queued'";

/*
 * The running job's slot: flag the cancel and interrupt its worker (the
 * oracles poll the query cancel, so a solve stops within about a second).
 * False when no worker holds the job (it has ended).
 */
static bool
cancel_running_job(int64 job_id)
{
	pid_t		pid = 0;
	bool		found = false;

	SpinLockAcquire(&jobs_shared->mutex);
	for (int i = 0; i < DPOBJ_MAX_JOB_SLOTS; i++)
	{
		JobSlot    *slot = &jobs_shared->slots[i];

		if (slot->in_use && slot->dboid == MyDatabaseId && slot->job_id == job_id)
		{
			slot->cancel_requested = true;
			/* a worker recording its outcome is not interrupted any more */
			pid = slot->finishing ? 0 : slot->pid;
			found = true;
		}
	}
	SpinLockRelease(&jobs_shared->mutex);
	if (pid != 0)
		(void) kill(pid, SIGINT);
	return found;
}

/* the job's state (in cxt); false when the caller may not see the job */
static bool
cancel_lookup(Oid caller, int64 job_id, MemoryContext cxt, char **state)
{
	Oid			types[1] = {INT8OID};
	Datum		values[1] = {Int64GetDatum(job_id)};
	RoleSwitch	ss;
	bool		isnull;
	Oid			owner;

	role_switch_begin(&ss, BOOTSTRAP_SUPERUSERID, false);
	if (SPI_execute_with_args(cancel_lookup_sql, 1, types, values, NULL, false, 1) != SPI_OK_SELECT)
		elog(ERROR, "dpobj.cancel: job lookup failed");
	role_switch_end(&ss);
	if (SPI_processed != 1)
		return false;
	owner = DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	*state = MemoryContextStrdup(cxt, SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2));
	return has_privs_of_role(caller, owner);
}

Datum
dpobj_cancel(PG_FUNCTION_ARGS)
{
	Oid			caller = GetUserId();
	int64		job_id;
	Oid			types[1] = {INT8OID};
	Datum		values[1];
	RoleSwitch	ss;
	char	   *state = NULL;
	bool		result = false;
	MemoryContext outer = CurrentMemoryContext;

	jobs_require_preload("dpobj.cancel");
	dpobj_verify_schema();
	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("dpobj.cancel: job id must not be NULL"),
				 errhint("Pass the id that dpobj.submit() returned.")));
	job_id = PG_GETARG_INT64(0);
	values[0] = Int64GetDatum(job_id);

	SPI_connect();

	/*
	 * A missing job and someone else's job: this one error site, so that
	 * not even the error's location tells them apart.
	 */
	if (!cancel_lookup(caller, job_id, outer, &state))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("job " INT64_FORMAT " does not exist", job_id),
				 errhint("SELECT id FROM dpobj.jobs lists your jobs.")));

	if (strcmp(state, "queued") == 0)
	{
		role_switch_begin(&ss, BOOTSTRAP_SUPERUSERID, false);
		if (SPI_execute_with_args(cancel_queued_sql, 1, types, values, NULL, false, 0) != SPI_OK_UPDATE)
			elog(ERROR, "dpobj.cancel: update failed");
		role_switch_end(&ss);
		result = (SPI_processed == 1);
		/* claimed by the scheduler meanwhile: it is running now */
		if (!result)
		{
			state = "running";
			result = cancel_running_job(job_id);
		}
	}
	else if (strcmp(state, "running") == 0)
		result = cancel_running_job(job_id);
	SPI_finish();

	if (!result)
		ereport(NOTICE,
				(errmsg("job " INT64_FORMAT " has already finished (%s)", job_id, state)));
	PG_RETURN_BOOL(result);
}

/* ---------------------------------------------------------------------
 * dpobj.job_phase(job_id) RETURNS text -- for the dpobj.jobs view
 * ---------------------------------------------------------------------
 */
Datum
dpobj_job_phase(PG_FUNCTION_ARGS)
{
	int64		job_id = PG_GETARG_INT64(0);
	DPObjPhase	phase = DPOBJ_PHASE_NONE;
	Oid			owner = InvalidOid;
	bool		found = false;

	if (jobs_shared == NULL)
		PG_RETURN_NULL();
	SpinLockAcquire(&jobs_shared->mutex);
	for (int i = 0; i < DPOBJ_MAX_JOB_SLOTS; i++)
	{
		JobSlot    *slot = &jobs_shared->slots[i];

		if (slot->in_use && slot->dboid == MyDatabaseId && slot->job_id == job_id)
		{
			found = true;
			phase = slot->phase;
			owner = slot->owner;
		}
	}
	SpinLockRelease(&jobs_shared->mutex);
	/* only the job's owner learns its phase */
	if (!found || !has_privs_of_role(GetUserId(), owner))
		PG_RETURN_NULL();
	if (phase == DPOBJ_PHASE_NONE)
		PG_RETURN_TEXT_P(cstring_to_text("starting"));
	PG_RETURN_TEXT_P(cstring_to_text(dpobj_phase_name(phase)));
}

/* ---------------------------------------------------------------------
 * The launcher
 * ---------------------------------------------------------------------
 */

static volatile sig_atomic_t got_sighup = false;

static void
jobs_sighup(SIGNAL_ARGS)
{
	int			save_errno = errno;

	got_sighup = true;
	SetLatch(MyLatch);
	errno = save_errno;
}

static List *
jobs_database_list(void)
{
	List	   *dbs = NIL;
	Relation	rel;
	TableScanDesc scan;
	HeapTuple	tup;
	MemoryContext outer = CurrentMemoryContext;

	StartTransactionCommand();
	(void) GetTransactionSnapshot();
	rel = table_open(DatabaseRelationId, AccessShareLock);
	scan = table_beginscan_catalog(rel, 0, NULL);
	while (HeapTupleIsValid(tup = heap_getnext(scan, ForwardScanDirection)))
	{
		Form_pg_database db = (Form_pg_database) GETSTRUCT(tup);
		MemoryContext old;

		/* templates never run jobs (and CREATE DATABASE needs them unused) */
		if (!db->datallowconn || db->datistemplate)
			continue;
		old = MemoryContextSwitchTo(outer);
		dbs = lappend_oid(dbs, db->oid);
		MemoryContextSwitchTo(old);
	}
	table_endscan(scan);
	table_close(rel, AccessShareLock);
	CommitTransactionCommand();
	return dbs;
}

/*
 * A dynamic, never-restarted background worker of dpobj with a database
 * connection, running function; the caller sets bgw_name and the arguments.
 */
static void
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

/* runs one scheduler for dboid and waits for it */
static void
jobs_run_scheduler(Oid dboid)
{
	BackgroundWorker worker;
	BackgroundWorkerHandle *handle;

	jobs_worker_template(&worker, "dpobj_jobs_scheduler_main", "dpobj job scheduler");
	snprintf(worker.bgw_name, BGW_MAXLEN, "dpobj job scheduler for database %u", dboid);
	worker.bgw_main_arg = ObjectIdGetDatum(dboid);
	worker.bgw_notify_pid = MyProcPid;
	if (!RegisterDynamicBackgroundWorker(&worker, &handle))
	{
		/* no worker slot now: try again on the next round */
		jobs_wake_launcher(dboid, false);
		return;
	}
	(void) WaitForBackgroundWorkerShutdown(handle);
}

void
dpobj_jobs_launcher_main(Datum arg)
{
	TimestampTz last_full = 0;

	pqsignal(SIGTERM, die);
	pqsignal(SIGHUP, jobs_sighup);
	BackgroundWorkerUnblockSignals();

	SpinLockAcquire(&jobs_shared->mutex);
	jobs_shared->launcher_latch = MyLatch;
	jobs_shared->launcher_pid = MyProcPid;
	jobs_shared->rescan_all = true;		/* start-up: every database (recovery) */
	SpinLockRelease(&jobs_shared->mutex);

	BackgroundWorkerInitializeConnection(NULL, NULL, 0);
	pgstat_report_appname("dpobj job launcher");

	for (;;)
	{
		bool		all;
		int			n;
		Oid			pending[JOBS_PENDING_DBS];
		List	   *dbs = NIL;
		ListCell   *lc;

		CHECK_FOR_INTERRUPTS();
		if (got_sighup)
		{
			got_sighup = false;
			ProcessConfigFile(PGC_SIGHUP);
		}

		SpinLockAcquire(&jobs_shared->mutex);
		all = jobs_shared->rescan_all;
		n = jobs_shared->npending;
		memcpy(pending, jobs_shared->pending, sizeof(Oid) * n);
		jobs_shared->rescan_all = false;
		jobs_shared->npending = 0;
		SpinLockRelease(&jobs_shared->mutex);

		if (TimestampDifferenceExceeds(last_full, GetCurrentTimestamp(), JOBS_RESCAN_INTERVAL_MS))
			all = true;
		if (all)
		{
			dbs = jobs_database_list();
			last_full = GetCurrentTimestamp();
		}
		else
			for (int i = 0; i < n; i++)
				dbs = list_append_unique_oid(dbs, pending[i]);

		foreach(lc, dbs)
		{
			CHECK_FOR_INTERRUPTS();
			jobs_run_scheduler(lfirst_oid(lc));
		}
		list_free(dbs);

		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 JOBS_POLL_MS, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
	}
}

/* ---------------------------------------------------------------------
 * The scheduler (one database)
 * ---------------------------------------------------------------------
 */

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

static void
job_slot_free(int i)
{
	SpinLockAcquire(&jobs_shared->mutex);
	memset(&jobs_shared->slots[i], 0, sizeof(JobSlot));
	SpinLockRelease(&jobs_shared->mutex);
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

/* ---------------------------------------------------------------------
 * The job worker
 * ---------------------------------------------------------------------
 */

static const char job_read_sql[] =
"SELECT rel::pg_catalog.oid, mechanism, features, label, epsilon, delta, options, owner::pg_catalog.oid, "
"       model_name FROM dpobj.job_queue WHERE id OPERATOR(pg_catalog.=) $1 AND state OPERATOR(pg_catalog.=) 'running'";

static const char job_train_sql[] =
"SELECT dpobj.train($1, $2, $3, $4, $5, $6, $7, $8)";

static const char job_done_sql[] =
"UPDATE dpobj.job_queue SET state = 'succeeded', model = $2, finished_at = pg_catalog.clock_timestamp() "
" WHERE id OPERATOR(pg_catalog.=) $1 AND state OPERATOR(pg_catalog.=) 'running'";

static const char job_fail_sql[] =
"UPDATE dpobj.job_queue SET state = $2, error = $3, sqlstate = $4, "
"       finished_at = pg_catalog.clock_timestamp() "
" WHERE id OPERATOR(pg_catalog.=) $1 AND state OPERATOR(pg_catalog.=) 'running'";

/* on exit, whatever happened: free the slot and let the launcher look again */
static void
job_worker_exit(int code, Datum arg)
{
	int			i = DatumGetInt32(arg);

	if (jobs_shared == NULL)
		return;
	job_slot_free(i);
	jobs_wake_launcher(InvalidOid, true);
}

static bool
job_cancel_requested(void)
{
	bool		c;

	SpinLockAcquire(&jobs_shared->mutex);
	c = jobs_shared->slots[my_slot].cancel_requested;
	SpinLockRelease(&jobs_shared->mutex);
	return c;
}

/* from now on dpobj.cancel() only flags the job: no SIGINT while recording */
static void
job_mark_finishing(void)
{
	SpinLockAcquire(&jobs_shared->mutex);
	jobs_shared->slots[my_slot].finishing = true;
	SpinLockRelease(&jobs_shared->mutex);
}

/* one attempt to record the outcome, in its own transaction */
static void
job_record_once(int64 job_id, Datum *v)
{
	Oid			t[4] = {INT8OID, TEXTOID, TEXTOID, TEXTOID};
	RoleSwitch	ss;

	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	(void) set_config_option("lock_timeout", JOBS_LOCK_TIMEOUT, PGC_USERSET, PGC_S_SESSION,
							 GUC_ACTION_LOCAL, true, 0, false);
	SPI_connect();
	PushActiveSnapshot(GetTransactionSnapshot());
	role_switch_begin(&ss, BOOTSTRAP_SUPERUSERID, false);
	if (SPI_execute_with_args(job_fail_sql, 4, t, v, NULL, false, 0) != SPI_OK_UPDATE)
		elog(ERROR, "dpobj job: could not record the outcome");
	role_switch_end(&ss);
	SPI_finish();
	PopActiveSnapshot();
	CommitTransactionCommand();
}

/*
 * Records a failed or cancelled job.  Interrupts are NOT held: a terminate
 * always ends the worker (the scheduler then marks the row failed), and no
 * wait is longer than JOBS_LOCK_TIMEOUT.  A late SIGINT of dpobj.cancel()
 * or a lock timeout costs one attempt of JOBS_RECORD_ATTEMPTS.
 */
static void
job_record_failure(int64 job_id, const char *state, const char *message, int sqlerrcode)
{
	Datum		v[4];
	MemoryContext cxt = CurrentMemoryContext;

	v[0] = Int64GetDatum(job_id);
	v[1] = CStringGetTextDatum(state);
	v[2] = CStringGetTextDatum(message);
	v[3] = CStringGetTextDatum(unpack_sql_state(sqlerrcode));

	job_mark_finishing();
	for (int attempt = 1; attempt <= JOBS_RECORD_ATTEMPTS; attempt++)
	{
		volatile bool done = false;

		QueryCancelPending = false;
		PG_TRY();
		{
			job_record_once(job_id, v);
			done = true;
		}
		PG_CATCH();
		{
			MemoryContextSwitchTo(cxt);
			EmitErrorReport();
			FlushErrorState();
			AbortCurrentTransaction();
		}
		PG_END_TRY();
		if (done)
			return;
	}
	elog(LOG, "dpobj job " INT64_FORMAT ": outcome not recorded; the scheduler marks it failed", job_id);
}

/* Take over slot my_slot if it still holds this job; false if it was given up meanwhile */
static bool
job_worker_claim_slot(const JobWorkerArgs *args)
{
	bool		found = false;

	SpinLockAcquire(&jobs_shared->mutex);
	if (jobs_shared->slots[my_slot].in_use && jobs_shared->slots[my_slot].job_id == args->job_id &&
		jobs_shared->slots[my_slot].dboid == args->dboid)
	{
		jobs_shared->slots[my_slot].pid = MyProcPid;
		jobs_shared->slots[my_slot].phase = DPOBJ_PHASE_NONE;
		found = true;
	}
	SpinLockRelease(&jobs_shared->mutex);
	return found;
}

/*
 * Copy the job's row (train()'s 8 arguments) into jobcxt: targs[0..6] from
 * columns 1..7, the owner check on column 8, the model name (NULL for none)
 * from column 9.  False when the row is gone or belongs to another role.
 */
static bool
job_copy_args(const JobWorkerArgs *args, MemoryContext jobcxt, Datum *targs, char *tnulls)
{
	HeapTuple	tup = SPI_tuptable->vals[0];
	TupleDesc	desc = SPI_tuptable->tupdesc;
	MemoryContext old = MemoryContextSwitchTo(jobcxt);
	bool		isnull;
	bool		ok;

	for (int i = 0; i < 7; i++)
	{
		Datum		d = SPI_getbinval(tup, desc, i + 1, &isnull);
		Form_pg_attribute att = TupleDescAttr(desc, i);

		targs[i] = isnull ? (Datum) 0 : datumCopy(d, att->attbyval, att->attlen);
	}
	ok = DatumGetObjectId(SPI_getbinval(tup, desc, 8, &isnull)) == args->owner;
	targs[7] = SPI_getbinval(tup, desc, 9, &isnull);
	tnulls[7] = isnull ? 'n' : ' ';
	if (!isnull)
		targs[7] = PointerGetDatum(PG_DETOAST_DATUM_COPY(targs[7]));
	MemoryContextSwitchTo(old);
	return ok;
}

/*
 * 1. The job's arguments (bookkeeping: as the bootstrap superuser), in their
 * own transaction.  A cancel arriving now is kept pending for the training.
 * Holding interrupts is safe here: a plain SELECT and catalog reads wait on
 * no lock an analyst can hold (dpobj.job_queue is closed to them, and
 * dpobj.cancel() locks no row).
 */
static bool
job_read_args(const JobWorkerArgs *args, MemoryContext jobcxt, Datum *targs, char *tnulls)
{
	RoleSwitch	ss;
	bool		found;

	HOLD_INTERRUPTS();
	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	if (!args->can_login)
	{
		if (!SearchSysCacheExists1(AUTHOID, ObjectIdGetDatum(args->owner)))
			elog(ERROR, "dpobj job " INT64_FORMAT ": role %u does not exist", args->job_id, args->owner);
		SetSessionAuthorization(args->owner, superuser_arg(args->owner));
	}
	SPI_connect();
	PushActiveSnapshot(GetTransactionSnapshot());
	dpobj_verify_schema();
	role_switch_begin(&ss, BOOTSTRAP_SUPERUSERID, false);
	{
		Oid			t[1] = {INT8OID};
		Datum		v[1] = {Int64GetDatum(args->job_id)};

		if (SPI_execute_with_args(job_read_sql, 1, t, v, NULL, false, 1) != SPI_OK_SELECT)
			elog(ERROR, "dpobj job: lookup failed");
		found = (SPI_processed == 1) && job_copy_args(args, jobcxt, targs, tnulls);
	}
	role_switch_end(&ss);
	SPI_finish();
	PopActiveSnapshot();
	CommitTransactionCommand();
	RESUME_INTERRUPTS();
	return found;
}

/* Store the released model in the job's row (as the bootstrap superuser) */
static void
job_store_model(int64 job_id, Datum model, Oid modeltype)
{
	RoleSwitch	ss;
	Oid			t[2] = {INT8OID, modeltype};
	Datum		v[2] = {Int64GetDatum(job_id), model};

	role_switch_begin(&ss, BOOTSTRAP_SUPERUSERID, false);
	if (SPI_execute_with_args(job_done_sql, 2, t, v, NULL, false, 0) != SPI_OK_UPDATE)
		elog(ERROR, "dpobj job: could not store the model");
	role_switch_end(&ss);
}

/*
 * 2. The protected path, as the submitting role: dpobj.train() and the
 * model's store in one transaction, whose commit makes the ledger's
 * outcome 'released' (an abort: 'aborted'; ledger_release_at_commit); any
 * error is recorded in the job's row (the server log gets the whole error;
 * train() already reduced a row-dependent one to DP006).
 */
static void
job_run_training(int64 job_id, MemoryContext jobcxt, Datum *targs, char *tnulls)
{
	Oid			ttypes[8] = {REGCLASSOID, TEXTOID, TEXTARRAYOID, TEXTOID, NUMERICOID, NUMERICOID,
	JSONBOID, TEXTOID};

	PG_TRY();
	{
		Datum		model;
		bool		isnull;

		SetCurrentStatementStartTimestamp();
		StartTransactionCommand();
		pgstat_report_activity(STATE_RUNNING, "dpobj job: dpobj.train(...)");
		SPI_connect();
		PushActiveSnapshot(GetTransactionSnapshot());
		/* train() announces the phases itself (seal.c) */
		if (SPI_execute_with_args(job_train_sql, 8, ttypes, targs, tnulls, false, 1) != SPI_OK_SELECT ||
			SPI_processed != 1)
			elog(ERROR, "dpobj job: dpobj.train() returned no row");
		model = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
		if (isnull)
			elog(ERROR, "dpobj job: dpobj.train() returned no model");
		job_store_model(job_id, model, SPI_gettypeid(SPI_tuptable->tupdesc, 1));
		SPI_finish();
		PopActiveSnapshot();
		CommitTransactionCommand();
	}
	PG_CATCH();
	{
		ErrorData  *edata;
		MemoryContext old = MemoryContextSwitchTo(jobcxt);
		bool		cancelled;

		EmitErrorReport();		/* the server log gets the whole error */
		edata = CopyErrorData();
		MemoryContextSwitchTo(old);
		FlushErrorState();
		AbortCurrentTransaction();
		cancelled = job_cancel_requested() && edata->sqlerrcode == ERRCODE_QUERY_CANCELED;
		QueryCancelPending = false;
		job_record_failure(job_id, cancelled ? "cancelled" : "failed",
						   cancelled ? "cancelled while running by dpobj.cancel(); a charge already made stays in dpobj.ledger" :
						   edata->message,
						   edata->sqlerrcode);
	}
	PG_END_TRY();
}

void
dpobj_job_worker_main(Datum arg)
{
	JobWorkerArgs args;
	Datum		targs[8];
	char		tnulls[8] = "        ";
	MemoryContext jobcxt;

	/* SIGINT = query cancel (bgworker default); SIGTERM must not exit inside GLPK */
	pqsignal(SIGTERM, die);
	BackgroundWorkerUnblockSignals();

	memcpy(&args, MyBgworkerEntry->bgw_extra, sizeof(JobWorkerArgs));
	my_slot = DatumGetInt32(arg);
	if (!job_worker_claim_slot(&args))
	{
		my_slot = -1;
		proc_exit(0);
	}
	on_shmem_exit(job_worker_exit, Int32GetDatum(my_slot));
	dpobj_progress_set_reporter(job_report_phase);

	/* act as the submitting role */
	if (args.can_login)
		BackgroundWorkerInitializeConnectionByOid(args.dboid, args.owner, 0);
	else
		BackgroundWorkerInitializeConnectionByOid(args.dboid, BOOTSTRAP_SUPERUSERID, 0);
	pgstat_report_appname("dpobj job");
	jobs_pin_worker_settings();
	ledger_release_at_commit();
	jobcxt = AllocSetContextCreate(TopMemoryContext, "dpobj job", ALLOCSET_DEFAULT_SIZES);

	if (!job_read_args(&args, jobcxt, targs, tnulls))
		proc_exit(0);			/* cancelled or gone meanwhile */
	if (job_cancel_requested())
	{
		job_record_failure(args.job_id, "cancelled", "cancelled before it started (nothing was charged)",
						   ERRCODE_QUERY_CANCELED);
		proc_exit(0);
	}
	job_run_training(args.job_id, jobcxt, targs, tnulls);
	pgstat_report_activity(STATE_IDLE, NULL);
	proc_exit(0);
}
