/*-------------------------------------------------------------------------
 *
 * jobs.c
 *	  In-database training jobs: the SQL functions and the settings
 *	  (the processes that run the jobs: jobsint.h).
 *
 *	  dpobj.submit(rel, mechanism, features, label, eps, delta, options)
 *	      same arguments and checks as dpobj.train() (mechanism
 *	      'synthesize': dpobj.synthesize()'s, options "target" the table
 *	      the job creates, features its columns): train.c's own code
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
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <signal.h>

#include "base/dpobj.h"
#include "base/privileged.h"
#include "base/progress.h"
#include "jobs/jobsint.h"
#include "protected/synthesize.h"
#include "protected/train.h"

#include "access/xact.h"
#include "catalog/pg_authid.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/guc.h"

PG_FUNCTION_INFO_V1(dpobj_submit);
PG_FUNCTION_INFO_V1(dpobj_cancel);
PG_FUNCTION_INFO_V1(dpobj_job_phase);

int			dpobj_max_jobs = 2;
int			dpobj_max_jobs_per_role = 20;

/* in a backend: wake the launcher for this database at commit */
static bool wake_at_commit = false;
static bool xact_callback_registered = false;

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

static void
jobs_xact_callback(XactEvent event, void *arg)
{
	if (event == XACT_EVENT_COMMIT && wake_at_commit)
		jobs_wake_launcher(MyDatabaseId, false);
	if (event == XACT_EVENT_COMMIT || event == XACT_EVENT_ABORT ||
		event == XACT_EVENT_PARALLEL_COMMIT || event == XACT_EVENT_PARALLEL_ABORT)
		wake_at_commit = false;
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

	/* exactly train()'s (or synthesize()'s) validation and budget pre-check (budget.c) */
	if (!PG_ARGISNULL(1) && strcmp(text_to_cstring(PG_GETARG_TEXT_PP(1)), "synthesize") == 0 &&
		!PG_ARGISNULL(0) && !PG_ARGISNULL(2) && !PG_ARGISNULL(3) && !PG_ARGISNULL(4) &&
		!PG_ARGISNULL(5) && !PG_ARGISNULL(6))
		synthesize_check_job(fcinfo);
	else
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

/*
 * A queued job: marked cancelled, unless the scheduler claimed it meanwhile
 * (then *state becomes "running" and its worker is told).
 */
static bool
cancel_queued_job(int64 job_id, char **state)
{
	Oid			types[1] = {INT8OID};
	Datum		values[1] = {Int64GetDatum(job_id)};
	RoleSwitch	ss;

	role_switch_begin(&ss, BOOTSTRAP_SUPERUSERID, false);
	if (SPI_execute_with_args(cancel_queued_sql, 1, types, values, NULL, false, 0) != SPI_OK_UPDATE)
		elog(ERROR, "dpobj.cancel: update failed");
	role_switch_end(&ss);
	if (SPI_processed == 1)
		return true;
	*state = "running";
	return cancel_running_job(job_id);
}

Datum
dpobj_cancel(PG_FUNCTION_ARGS)
{
	Oid			caller = GetUserId();
	int64		job_id;
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
		result = cancel_queued_job(job_id, &state);
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
