/*-------------------------------------------------------------------------
 *
 * ledger.c
 *	  Autonomous writes to dpobj.ledger through a dynamic background worker.
 *
 * Why a worker: a charge must survive the caller's transaction (ROLLBACK,
 * an error later in the statement, a failing COMMIT).  PostgreSQL has no
 * autonomous transactions, so a short-lived background worker connects to
 * the caller's database as the bootstrap superuser, executes one fixed,
 * parameterised statement, commits, and reports the result in a dynamic
 * shared memory segment.  The caller waits for it to exit.
 *
 * The worker never evaluates caller-supplied SQL text: the statements are
 * string constants in this file, the values are bound parameters, and
 * search_path is pinned to pg_catalog.
 *
 * Operations (one worker, one transaction each):
 *   CHARGE        insert a ledger row (direct aggregate runs)
 *   FINISH        record the outcome of a charged run
 *   BUDGET_CHARGE guarded debit of a (table, role) budget plus its ledger
 *                 row, atomically (issue 4, the protected path)
 * The machinery -- request in DSM, worker, wait for exit, "done" written
 * only after COMMIT -- is independent of the operation: a new kind of
 * autonomous write (e.g. the jobs of issue 6) adds an op, its fixed
 * statements and a handler in dpobj_ledger_worker_main().
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "ledger.h"
#include "dpobj.h"

#include "access/xact.h"
#include "catalog/pg_authid.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "storage/dsm.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/proc.h"
#include "tcop/tcopprot.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/guc.h"
#include "utils/snapmgr.h"

typedef enum LedgerOp
{
	LEDGER_OP_CHARGE = 1,
	LEDGER_OP_FINISH = 2,
	LEDGER_OP_BUDGET_CHARGE = 3
} LedgerOp;

/*
 * How long a caller waits for a free background worker slot before it
 * gives up (DP002, nothing charged).  Many concurrent trainings can use up
 * max_worker_processes for a moment; they queue instead of failing.
 */
#define LEDGER_SLOT_WAIT_MS		30000
#define LEDGER_SLOT_POLL_MS		5

typedef struct LedgerRequest
{
	/* input, written by the caller */
	Oid			dboid;
	LedgerOp	op;
	int64		id;				/* FINISH: the row to update */
	char		rolname[NAMEDATALEN];
	char		mechanism[64];
	char		epsilon[64];	/* decimal text of the float8 value */
	char		delta[64];
	bool		has_relation;
	char		relation[2 * NAMEDATALEN + 8];
	char		outcome[32];
	char		detail[512];
	Oid			relid;			/* BUDGET_CHARGE: the protected table */
	Oid			analyst;		/* BUDGET_CHARGE: the charged role */

	/* output, written by the worker after COMMIT */
	volatile bool done;
	int64		result_id;
	LedgerBudgetStatus budget_status;	/* BUDGET_CHARGE */
	char		remaining_epsilon[LEDGER_AMOUNT_LEN];
	char		remaining_delta[LEDGER_AMOUNT_LEN];
} LedgerRequest;

static const char charge_sql[] =
"INSERT INTO dpobj.ledger (rolname, mechanism, epsilon, delta, relation) "
"VALUES ($1::pg_catalog.name, $2, $3::pg_catalog.numeric, $4::pg_catalog.numeric, $5) "
"RETURNING id";

static const char finish_sql[] =
"UPDATE dpobj.ledger SET outcome = $2, detail = $3, "
"finished_at = pg_catalog.clock_timestamp() "
"WHERE id = $1 AND outcome OPERATOR(pg_catalog.=) 'charged'";

/*
 * Issue 4: the budget debit and its ledger row, in one transaction.  The
 * UPDATE takes the budget row's lock; a concurrent charge blocks on it and,
 * under READ COMMITTED, re-evaluates the guard against the committed row
 * (EvalPlanQual) once the first one commits.  So the guard always sees the
 * true spend, and the CHECK (spent <= granted) on dpobj.budgets backs it up.
 */
static const char budget_debit_sql[] =
"UPDATE dpobj.budgets "
"   SET spent_epsilon = spent_epsilon OPERATOR(pg_catalog.+) $3::pg_catalog.numeric, "
"       spent_delta = spent_delta OPERATOR(pg_catalog.+) $4::pg_catalog.numeric "
" WHERE relid OPERATOR(pg_catalog.=) $1 AND rolid OPERATOR(pg_catalog.=) $2 "
"   AND spent_epsilon OPERATOR(pg_catalog.+) $3::pg_catalog.numeric "
"       OPERATOR(pg_catalog.<=) granted_epsilon "
"   AND spent_delta OPERATOR(pg_catalog.+) $4::pg_catalog.numeric "
"       OPERATOR(pg_catalog.<=) granted_delta "
"RETURNING id";

static const char budget_ledger_sql[] =
"INSERT INTO dpobj.ledger (rolname, mechanism, epsilon, delta, relation, budget_id) "
"VALUES ($1::pg_catalog.name, $2, $3::pg_catalog.numeric, $4::pg_catalog.numeric, $5, $6) "
"RETURNING id";

static const char budget_remaining_sql[] =
"SELECT (granted_epsilon OPERATOR(pg_catalog.-) spent_epsilon)::pg_catalog.text, "
"       (granted_delta OPERATOR(pg_catalog.-) spent_delta)::pg_catalog.text "
"  FROM dpobj.budgets "
" WHERE relid OPERATOR(pg_catalog.=) $1 AND rolid OPERATOR(pg_catalog.=) $2";

/*
 * Runs one request in a background worker and waits for it to exit.
 * Returns true if the worker committed.  *why is set on failure.
 */
static bool
ledger_run(LedgerRequest *in, int64 *result_id, const char **why)
{
	dsm_segment *seg;
	LedgerRequest *req;
	BackgroundWorker worker;
	BackgroundWorkerHandle *handle;
	BgwHandleStatus status;
	bool		ok;

	seg = dsm_create(sizeof(LedgerRequest), 0);
	req = dsm_segment_address(seg);
	memcpy(req, in, sizeof(LedgerRequest));
	req->done = false;
	req->result_id = 0;

	memset(&worker, 0, sizeof(worker));
	worker.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
	worker.bgw_start_time = BgWorkerStart_RecoveryFinished;
	worker.bgw_restart_time = BGW_NEVER_RESTART;
	snprintf(worker.bgw_library_name, BGW_MAXLEN, "dpobj");
	snprintf(worker.bgw_function_name, BGW_MAXLEN, "dpobj_ledger_worker_main");
	snprintf(worker.bgw_name, BGW_MAXLEN, "dpobj ledger writer for PID %d", MyProcPid);
	snprintf(worker.bgw_type, BGW_MAXLEN, "dpobj ledger writer");
	worker.bgw_main_arg = UInt32GetDatum(dsm_segment_handle(seg));
	worker.bgw_notify_pid = MyProcPid;

	/* all slots busy (many concurrent runs): wait for one, up to a limit */
	for (int waited = 0; !RegisterDynamicBackgroundWorker(&worker, &handle);
		 waited += LEDGER_SLOT_POLL_MS)
	{
		if (waited >= LEDGER_SLOT_WAIT_MS)
		{
			dsm_detach(seg);
			*why = "no background worker slot became free";
			return false;
		}
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 LEDGER_SLOT_POLL_MS, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}

	/*
	 * If the wait is interrupted (cancel), stop the worker too: either it
	 * had not committed (nothing charged) or it had (the charge stays).
	 * Either way the caller errors out before any noise exists.
	 */
	PG_TRY();
	{
		status = WaitForBackgroundWorkerShutdown(handle);
	}
	PG_CATCH();
	{
		TerminateBackgroundWorker(handle);
		PG_RE_THROW();
	}
	PG_END_TRY();
	pg_read_barrier();
	ok = req->done;
	*result_id = req->result_id;
	in->budget_status = req->budget_status;
	memcpy(in->remaining_epsilon, req->remaining_epsilon, LEDGER_AMOUNT_LEN);
	memcpy(in->remaining_delta, req->remaining_delta, LEDGER_AMOUNT_LEN);
	dsm_detach(seg);
	if (!ok)
		*why = (status == BGWH_POSTMASTER_DIED) ? "the postmaster died" :
			"the ledger writer failed (see the server log)";
	return ok;
}

int64
ledger_charge(const char *mechanism, double epsilon, double delta,
			  const char *relation)
{
	LedgerRequest req;
	int64		id;
	const char *why = NULL;

	memset(&req, 0, sizeof(req));
	req.dboid = MyDatabaseId;
	req.op = LEDGER_OP_CHARGE;
	strlcpy(req.rolname, GetUserNameFromId(GetUserId(), false), NAMEDATALEN);
	strlcpy(req.mechanism, mechanism, sizeof(req.mechanism));
	strlcpy(req.epsilon, float8out_internal(epsilon), sizeof(req.epsilon));
	strlcpy(req.delta, float8out_internal(delta), sizeof(req.delta));
	if (relation != NULL)
	{
		req.has_relation = true;
		strlcpy(req.relation, relation, sizeof(req.relation));
	}

	if (!ledger_run(&req, &id, &why))
		ereport(ERROR,
				(errcode(ERRCODE_DPOBJ_LEDGER_FAILURE),
				 errmsg("could not record the privacy charge in dpobj.ledger: %s", why),
				 errdetail("No noise was drawn and no budget was spent."),
				 errhint("dpobj writes the ledger from a background worker; check max_worker_processes and the server log.")));
	return id;
}

LedgerBudgetStatus
ledger_charge_budget(Oid relid, Oid analyst, const char *rolname,
					 const char *mechanism, const char *epsilon,
					 const char *delta, const char *relation,
					 int64 *ledger_id, char *remaining_epsilon,
					 char *remaining_delta)
{
	LedgerRequest req;
	int64		id = 0;
	const char *why = NULL;

	memset(&req, 0, sizeof(req));
	req.dboid = MyDatabaseId;
	req.op = LEDGER_OP_BUDGET_CHARGE;
	req.relid = relid;
	req.analyst = analyst;
	strlcpy(req.rolname, rolname, NAMEDATALEN);
	strlcpy(req.mechanism, mechanism, sizeof(req.mechanism));
	strlcpy(req.epsilon, epsilon, sizeof(req.epsilon));
	strlcpy(req.delta, delta, sizeof(req.delta));
	req.has_relation = true;
	strlcpy(req.relation, relation, sizeof(req.relation));

	if (!ledger_run(&req, &id, &why))
		ereport(ERROR,
				(errcode(ERRCODE_DPOBJ_LEDGER_FAILURE),
				 errmsg("could not charge the privacy budget: %s", why),
				 errdetail("No noise was drawn; if the charge was committed before the failure, it stays in dpobj.ledger."),
				 errhint("dpobj writes budgets and the ledger from a background worker; check max_worker_processes and the server log.")));
	*ledger_id = id;
	strlcpy(remaining_epsilon, req.remaining_epsilon, LEDGER_AMOUNT_LEN);
	strlcpy(remaining_delta, req.remaining_delta, LEDGER_AMOUNT_LEN);
	return req.budget_status;
}

void
ledger_finish(int64 id, const char *outcome, const char *detail)
{
	LedgerRequest req;
	int64		ignored;
	const char *why = NULL;
	bool		ok;

	memset(&req, 0, sizeof(req));
	req.dboid = MyDatabaseId;
	req.op = LEDGER_OP_FINISH;
	req.id = id;
	strlcpy(req.outcome, outcome, sizeof(req.outcome));
	strlcpy(req.detail, detail ? detail : "", sizeof(req.detail));

	/* a pending cancel must not abandon the wait half-way */
	HOLD_INTERRUPTS();
	ok = ledger_run(&req, &ignored, &why);
	RESUME_INTERRUPTS();
	if (!ok)
		ereport(WARNING,
				(errcode(ERRCODE_DPOBJ_LEDGER_FAILURE),
				 errmsg("could not record the outcome of ledger entry " INT64_FORMAT ": %s", id, why),
				 errhint("The charge itself is recorded; the entry keeps outcome \"charged\".")));
}

void
dpobj_ledger_worker_main(Datum arg)
{
	dsm_segment *seg;
	LedgerRequest *req;
	int			ret;
	int64		id = 0;

	pqsignal(SIGTERM, die);
	BackgroundWorkerUnblockSignals();

	seg = dsm_attach(DatumGetUInt32(arg));
	if (seg == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("dpobj ledger writer could not attach to its request")));
	req = dsm_segment_address(seg);

	BackgroundWorkerInitializeConnectionByOid(req->dboid, BOOTSTRAP_SUPERUSERID, 0);

	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	SetConfigOption("search_path", "pg_catalog", PGC_USERSET, PGC_S_SESSION);
	SPI_connect();
	PushActiveSnapshot(GetTransactionSnapshot());
	pgstat_report_activity(STATE_RUNNING, "dpobj ledger write");

	if (req->op == LEDGER_OP_CHARGE)
	{
		Oid			types[5] = {TEXTOID, TEXTOID, TEXTOID, TEXTOID, TEXTOID};
		Datum		values[5];
		char		nulls[5] = {' ', ' ', ' ', ' ', ' '};
		bool		isnull;

		values[0] = CStringGetTextDatum(req->rolname);
		values[1] = CStringGetTextDatum(req->mechanism);
		values[2] = CStringGetTextDatum(req->epsilon);
		values[3] = CStringGetTextDatum(req->delta);
		if (req->has_relation)
			values[4] = CStringGetTextDatum(req->relation);
		else
		{
			values[4] = (Datum) 0;
			nulls[4] = 'n';
		}
		ret = SPI_execute_with_args(charge_sql, 5, types, values, nulls, false, 1);
		if (ret != SPI_OK_INSERT_RETURNING || SPI_processed != 1)
			elog(ERROR, "dpobj ledger charge failed: SPI result %d", ret);
		id = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0],
										 SPI_tuptable->tupdesc, 1, &isnull));
	}
	else if (req->op == LEDGER_OP_BUDGET_CHARGE)
	{
		Oid			dtypes[4] = {REGCLASSOID, REGROLEOID, TEXTOID, TEXTOID};
		Datum		dvalues[4];
		bool		isnull;

		dvalues[0] = ObjectIdGetDatum(req->relid);
		dvalues[1] = ObjectIdGetDatum(req->analyst);
		dvalues[2] = CStringGetTextDatum(req->epsilon);
		dvalues[3] = CStringGetTextDatum(req->delta);

		/* 1. the guarded debit */
		ret = SPI_execute_with_args(budget_debit_sql, 4, dtypes, dvalues, NULL, false, 0);
		if (ret != SPI_OK_UPDATE_RETURNING || SPI_processed > 1)
			elog(ERROR, "dpobj budget debit failed: SPI result %d", ret);
		if (SPI_processed == 1)
		{
			Oid			ltypes[6] = {TEXTOID, TEXTOID, TEXTOID, TEXTOID, TEXTOID, INT8OID};
			Datum		lvalues[6];
			int64		budget_id;

			budget_id = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0],
													SPI_tuptable->tupdesc, 1, &isnull));

			/* 2. its ledger row, in the same transaction */
			lvalues[0] = CStringGetTextDatum(req->rolname);
			lvalues[1] = CStringGetTextDatum(req->mechanism);
			lvalues[2] = dvalues[2];
			lvalues[3] = dvalues[3];
			lvalues[4] = CStringGetTextDatum(req->relation);
			lvalues[5] = Int64GetDatum(budget_id);
			ret = SPI_execute_with_args(budget_ledger_sql, 6, ltypes, lvalues, NULL, false, 1);
			if (ret != SPI_OK_INSERT_RETURNING || SPI_processed != 1)
				elog(ERROR, "dpobj budget ledger insert failed: SPI result %d", ret);
			id = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0],
											 SPI_tuptable->tupdesc, 1, &isnull));
			req->budget_status = LEDGER_BUDGET_CHARGED;
		}
		else
		{
			/* refused: nothing written; report what is left */
			ret = SPI_execute_with_args(budget_remaining_sql, 2, dtypes, dvalues, NULL, true, 1);
			if (ret != SPI_OK_SELECT)
				elog(ERROR, "dpobj budget lookup failed: SPI result %d", ret);
			if (SPI_processed == 1)
			{
				char	   *e = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
				char	   *d = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2);

				strlcpy(req->remaining_epsilon, e ? e : "0", LEDGER_AMOUNT_LEN);
				strlcpy(req->remaining_delta, d ? d : "0", LEDGER_AMOUNT_LEN);
				req->budget_status = LEDGER_BUDGET_REFUSED;
			}
			else
			{
				strlcpy(req->remaining_epsilon, "0", LEDGER_AMOUNT_LEN);
				strlcpy(req->remaining_delta, "0", LEDGER_AMOUNT_LEN);
				req->budget_status = LEDGER_BUDGET_NONE;
			}
		}
	}
	else
	{
		Oid			types[3] = {INT8OID, TEXTOID, TEXTOID};
		Datum		values[3];

		values[0] = Int64GetDatum(req->id);
		values[1] = CStringGetTextDatum(req->outcome);
		values[2] = CStringGetTextDatum(req->detail);
		ret = SPI_execute_with_args(finish_sql, 3, types, values, NULL, false, 0);
		if (ret != SPI_OK_UPDATE)
			elog(ERROR, "dpobj ledger update failed: SPI result %d", ret);
		id = req->id;
	}

	SPI_finish();
	PopActiveSnapshot();
	CommitTransactionCommand();
	pgstat_report_stat(false);
	pgstat_report_activity(STATE_IDLE, NULL);

	/* report only after the commit: "done" means durable */
	req->result_id = id;
	pg_write_barrier();
	req->done = true;

	dsm_detach(seg);
	proc_exit(0);
}
