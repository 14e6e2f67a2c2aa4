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
	LEDGER_OP_FINISH = 2
} LedgerOp;

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

	/* output, written by the worker after COMMIT */
	volatile bool done;
	int64		result_id;
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

	if (!RegisterDynamicBackgroundWorker(&worker, &handle))
	{
		dsm_detach(seg);
		*why = "no background worker slot is free";
		return false;
	}
	status = WaitForBackgroundWorkerShutdown(handle);
	pg_read_barrier();
	ok = req->done;
	*result_id = req->result_id;
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
