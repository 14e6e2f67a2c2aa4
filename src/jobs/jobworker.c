/*-------------------------------------------------------------------------
 *
 * jobworker.c
 *	  The job worker: a dynamic worker for one job, connected as the
 *	  submitting role.  Reads the job's row, runs dpobj.train() (or
 *	  dpobj.synthesize()) and stores the model, or records the error or the
 *	  cancel (jobsint.h).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "base/privileged.h"
#include "base/progress.h"
#include "jobs/jobsettings.h"
#include "jobs/jobsint.h"
#include "ledger/ledger.h"

#include "access/htup_details.h"
#include "access/xact.h"
#include "catalog/pg_authid.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "storage/ipc.h"
#include "tcop/tcopprot.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/guc.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"

#define JOBS_RECORD_ATTEMPTS	3

/* in a job worker: its slot */
static int	my_slot = -1;

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

static const char job_read_sql[] =
"SELECT rel::pg_catalog.oid, mechanism, features, label, epsilon, delta, options, owner::pg_catalog.oid, "
"       model_name FROM dpobj.job_queue WHERE id OPERATOR(pg_catalog.=) $1 AND state OPERATOR(pg_catalog.=) 'running'";

static const char job_train_sql[] =
"SELECT dpobj.train($1, $2, $3, $4, $5, $6, $7, $8)";

/* mechanism 'synthesize': dpobj.synthesize() creates options' "target" as the role */
static const char job_synth_sql[] =
"SELECT s.model_name FROM dpobj.synthesize($1, $7 OPERATOR(pg_catalog.->>) 'target', "
"       $5::pg_catalog.float8, $6::pg_catalog.float8, "
"       CASE WHEN pg_catalog.cardinality($3) OPERATOR(pg_catalog.>) 0 THEN $3 END, "
"       $7 OPERATOR(pg_catalog.-) 'target'::pg_catalog.text) s";

/* the model it stored, read by a later command (its snapshot sees the row) */
static const char job_synth_model_sql[] = "SELECT dpobj.get_model($1)";


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
		if (SPI_execute_with_args(strcmp(TextDatumGetCString(targs[1]), "synthesize") == 0 ?
								  job_synth_sql : job_train_sql,
								  8, ttypes, targs, tnulls, false, 1) != SPI_OK_SELECT ||
			SPI_processed != 1)
			elog(ERROR, "dpobj job: dpobj.train() returned no row");
		model = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
		/* a synthesize job's first command returns the name its model is stored under */
		if (!isnull && SPI_gettypeid(SPI_tuptable->tupdesc, 1) == TEXTOID)
		{
			Datum		name = PointerGetDatum(DatumGetTextPCopy(model));

			if (SPI_execute_with_args(job_synth_model_sql, 1, (Oid[]) {TEXTOID}, &name, NULL,
									  false, 1) != SPI_OK_SELECT || SPI_processed != 1)
				elog(ERROR, "dpobj job: the synthesizer's model was not stored");
			model = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
		}
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

