/*-------------------------------------------------------------------------
 *
 * ledgerexec.c
 *	  The ledger's fixed statements and how a worker runs one request
 *	  (shared by the long-lived writer, ledgerwriter.c, and the one-shot
 *	  worker, ledgeroneshot.c).
 *
 * The statements are string constants; a request supplies bound values
 * only.  The worker runs as the bootstrap superuser with settings pinned by
 * ledger_exec_settings(), so neither a database/role setting nor the
 * caller can change what they do.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "ledger/ledgerint.h"

#include "access/xact.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "utils/builtins.h"
#include "utils/guc.h"

enum
{
	STMT_CHARGE,
	STMT_FINISH,
	STMT_BUDGET_DEBIT,
	STMT_BUDGET_LEDGER,
	STMT_BUDGET_REMAINING,
	STMT_ABORTED_ALLOWED,
	LEDGER_NSTMT
};

static const char *const ledger_sql[LEDGER_NSTMT] = {
	/* STMT_CHARGE: a direct aggregate run */
	"INSERT INTO dpobj.ledger (rolname, mechanism, epsilon, delta, relation, kind, rho) "
	"VALUES ($1::pg_catalog.name, $2, $3::pg_catalog.numeric, $4::pg_catalog.numeric, $5, "
	"        $6, $7::pg_catalog.numeric) "
	"RETURNING id",

	/* STMT_FINISH: only a 'charged' row gets an outcome, once (ledger_guard) */
	"UPDATE dpobj.ledger SET outcome = $2, detail = $3, "
	"finished_at = pg_catalog.clock_timestamp() "
	"WHERE id OPERATOR(pg_catalog.=) $1 AND outcome OPERATOR(pg_catalog.=) 'charged'",

	/*
	 * STMT_BUDGET_DEBIT: the UPDATE takes the budget row's lock; a
	 * concurrent debit (another transaction) blocks on it and, under READ
	 * COMMITTED, re-evaluates the guard -- the accountant's rule,
	 * dpobj.budget_admits() (accountant.c) -- and the new spend against the
	 * committed row.  Debits of one writer's batch run in one transaction
	 * and see each other.  dpobj.budget_debit() gives the row after the
	 * run: added to the linear part (spent_epsilon, spent_delta), to
	 * spent_rho, or, approximate-DP or pure after the zCDP part began, to
	 * the reserve's spend (spent_rdp, spent_reserve_delta); RETURNING says
	 * which.  The row is the
	 * one dpobj.budget_for() names: the table's budget domain's budget when
	 * the table is a member (runs on every member table lock and debit that
	 * one row), else the table's own.  budget_for is an InitPlan: called
	 * once whatever the plan (a sequential scan would call it on every
	 * budget row, and pg_stat_user_functions, which every role reads, would
	 * count them).
	 */
	"UPDATE dpobj.budgets b "
	"   SET (spent_epsilon, spent_delta, spent_rho, reserve_delta, filter_order, spent_rdp, "
	"        spent_reserve_delta, gaussian_only, gaussian_split) = "
	"       (SELECT n.spent_epsilon, n.spent_delta, n.spent_rho, n.reserve_delta, "
	"               n.filter_order, n.spent_rdp, n.spent_reserve_delta, n.gaussian_only, "
	"               n.gaussian_split "
	"          FROM dpobj.budget_debit(b, $5, $3::pg_catalog.numeric, $4::pg_catalog.numeric, "
	"                                  $6::pg_catalog.numeric) n) "
	" WHERE id OPERATOR(pg_catalog.=) (SELECT dpobj.budget_for($1, $2)) "
	"   AND dpobj.budget_admits(b, $5, $3::pg_catalog.numeric, $4::pg_catalog.numeric, "
	"         $6::pg_catalog.numeric) "
	"RETURNING id, CASE WHEN spent_rho OPERATOR(pg_catalog.=) 0 THEN 'linear' "
	"                   WHEN $5 OPERATOR(pg_catalog.=) ANY ('{zcdp,gauss}') THEN 'rho' "
	"                   ELSE 'reserve' END",

	/* STMT_BUDGET_LEDGER: the debit's ledger row, in the same transaction */
	"INSERT INTO dpobj.ledger (rolname, mechanism, epsilon, delta, relation, budget_id, "
	"                          kind, rho, accounted) "
	"VALUES ($1::pg_catalog.name, $2, $3::pg_catalog.numeric, $4::pg_catalog.numeric, $5, $6, "
	"        $7, $8::pg_catalog.numeric, $9) "
	"RETURNING id",

	/* STMT_BUDGET_REMAINING: for the refusal's hint (the accountant's view) */
	"SELECT dpobj.budget_remaining_epsilon(b)::pg_catalog.text, "
	"       (granted_delta OPERATOR(pg_catalog.-) spent_delta)::pg_catalog.text "
	"  FROM dpobj.budgets b "
	" WHERE id OPERATOR(pg_catalog.=) (SELECT dpobj.budget_for($1, $2))",

	/* STMT_ABORTED_ALLOWED: 'aborted' exists from 0.2.0 on (upgrade section 3) */
	"SELECT pg_catalog.pg_get_constraintdef(oid) OPERATOR(pg_catalog.~~) '%aborted%' "
	"  FROM pg_catalog.pg_constraint "
	" WHERE conrelid OPERATOR(pg_catalog.=) 'dpobj.ledger'::pg_catalog.regclass "
	"   AND conname OPERATOR(pg_catalog.=) 'ledger_outcome_check'"
};

static const int ledger_nargs[LEDGER_NSTMT] = {7, 3, 6, 9, 2, 0};

static Oid	ledger_argtypes[LEDGER_NSTMT][9] = {
	{TEXTOID, TEXTOID, TEXTOID, TEXTOID, TEXTOID, TEXTOID, TEXTOID},
	{INT8OID, TEXTOID, TEXTOID},
	{REGCLASSOID, REGROLEOID, TEXTOID, TEXTOID, TEXTOID, TEXTOID},
	{TEXTOID, TEXTOID, TEXTOID, TEXTOID, TEXTOID, INT8OID, TEXTOID, TEXTOID, TEXTOID},
	{REGCLASSOID, REGROLEOID},
	{0}
};

/* prepared once per process and kept (the plan cache replans after DDL) */
static SPIPlanPtr ledger_plans[LEDGER_NSTMT];

const char *
ledger_outcome_name(LedgerOutcome outcome)
{
	switch (outcome)
	{
		case LEDGER_OC_RELEASED:
			return LEDGER_OUTCOME_RELEASED;
		case LEDGER_OC_NOT_CERTIFIED:
			return LEDGER_OUTCOME_NOT_CERTIFIED;
		case LEDGER_OC_CANCELLED:
			return LEDGER_OUTCOME_CANCELLED;
		case LEDGER_OC_ABORTED:
			return LEDGER_OUTCOME_ABORTED;
		case LEDGER_OC_FAILED:
		default:
			return LEDGER_OUTCOME_FAILED;
	}
}

/* the ledger's text of a cost kind (column kind) */
const char *
ledger_cost_kind_name(LedgerCostKind kind)
{
	switch (kind)
	{
		case LEDGER_COST_GAUSS:
			return "gauss";
		case LEDGER_COST_ZCDP:
			return "zcdp";
		case LEDGER_COST_PURE:
			return "pure";
		case LEDGER_COST_APPROX:
		default:
			return "approx";
	}
}

/* an outcome request for ledger row id of database dboid */
void
ledger_finish_request(LedgerRequest *req, Oid dboid, int64 id, LedgerOutcome outcome,
					  const char *detail)
{
	memset(req, 0, sizeof(LedgerRequest));
	req->op = LEDGER_OP_FINISH;
	req->dboid = dboid;
	req->id = id;
	req->outcome = outcome;
	strlcpy(req->detail, detail ? detail : "", sizeof(req->detail));
}

static void
set_override(const char *name, const char *value)
{
	SetConfigOption(name, value, PGC_SUSET, PGC_S_OVERRIDE);
}

/*
 * Settings of a ledger worker, whatever postgresql.conf or ALTER DATABASE /
 * ROLE say: the fixed statements resolve in pg_catalog only; READ COMMITTED
 * (the budget guard relies on its re-check of a concurrently updated row);
 * writable; triggers fire (ledger_guard); and the charge is flushed to disk
 * before the caller is told (synchronous_commit = off would let a crash
 * lose a charge whose noise was already drawn).  Lock waits are bounded.
 */
void
ledger_exec_settings(int lock_timeout_ms)
{
	char		buf[32];

	set_override("search_path", "pg_catalog");
	set_override("default_transaction_isolation", "read committed");
	set_override("default_transaction_read_only", "off");
	set_override("session_replication_role", "origin");
	set_override("statement_timeout", "0");
	if (synchronous_commit == SYNCHRONOUS_COMMIT_OFF)
		set_override("synchronous_commit", "on");
	snprintf(buf, sizeof(buf), "%d", lock_timeout_ms);
	set_override("lock_timeout", buf);
}

static SPIPlanPtr
ledger_plan(int which)
{
	if (ledger_plans[which] == NULL)
	{
		SPIPlanPtr	plan = SPI_prepare(ledger_sql[which], ledger_nargs[which],
									   ledger_argtypes[which]);

		if (plan == NULL)
			elog(ERROR, "dpobj ledger: could not prepare statement %d: %s",
				 which, SPI_result_code_string(SPI_result));
		if (SPI_keepplan(plan) != 0)
			elog(ERROR, "dpobj ledger: could not keep statement %d", which);
		ledger_plans[which] = plan;
	}
	return ledger_plans[which];
}

static int
ledger_run_stmt(int which, Datum *values, const char *nulls, bool read_only)
{
	return SPI_execute_plan(ledger_plan(which), values, nulls, read_only, 0);
}

static int64
first_int8(void)
{
	bool		isnull;

	return DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc,
									   1, &isnull));
}

/* the cost's kind and rho (NULL for approx) as two bound values */
static void
cost_values(const LedgerCost *cost, Datum *values, char *nulls)
{
	values[0] = CStringGetTextDatum(ledger_cost_kind_name(cost->kind));
	nulls[0] = ' ';
	if (cost->kind == LEDGER_COST_APPROX || cost->rho[0] == '\0')
	{
		values[1] = (Datum) 0;
		nulls[1] = 'n';
	}
	else
	{
		values[1] = CStringGetTextDatum(cost->rho);
		nulls[1] = ' ';
	}
}

static void
exec_charge(const LedgerRequest *req, LedgerReply *reply, int64 *pending_id)
{
	Datum		values[7];
	char		nulls[7] = {' ', ' ', ' ', ' ', ' ', ' ', ' '};

	values[0] = CStringGetTextDatum(req->rolname);
	values[1] = CStringGetTextDatum(req->mechanism);
	values[2] = CStringGetTextDatum(req->epsilon);
	values[3] = CStringGetTextDatum(req->delta);
	values[4] = req->has_relation ? CStringGetTextDatum(req->relation) : (Datum) 0;
	if (!req->has_relation)
		nulls[4] = 'n';
	cost_values(&req->cost, values + 5, nulls + 5);
	if (ledger_run_stmt(STMT_CHARGE, values, nulls, false) != SPI_OK_INSERT_RETURNING ||
		SPI_processed != 1)
		elog(ERROR, "dpobj ledger charge failed");
	reply->id = *pending_id = first_int8();
}

static void
exec_budget_refused(const LedgerRequest *req, Datum *keys, LedgerReply *reply)
{
	if (ledger_run_stmt(STMT_BUDGET_REMAINING, keys, NULL, true) != SPI_OK_SELECT)
		elog(ERROR, "dpobj budget lookup failed");
	if (SPI_processed == 1)
	{
		char	   *e = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
		char	   *d = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2);

		strlcpy(reply->remaining_epsilon, e ? e : "0", LEDGER_AMOUNT_LEN);
		strlcpy(reply->remaining_delta, d ? d : "0", LEDGER_AMOUNT_LEN);
		reply->budget_status = LEDGER_BUDGET_REFUSED;
	}
	else
	{
		strlcpy(reply->remaining_epsilon, "0", LEDGER_AMOUNT_LEN);
		strlcpy(reply->remaining_delta, "0", LEDGER_AMOUNT_LEN);
		reply->budget_status = LEDGER_BUDGET_NONE;
	}
}

static void
exec_budget_charge(const LedgerRequest *req, LedgerReply *reply, int64 *pending_id)
{
	Datum		dvalues[6];
	char		dnulls[6] = {' ', ' ', ' ', ' ', ' ', ' '};
	Datum		lvalues[9];
	char		lnulls[9] = {' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' '};
	char	   *accounted;

	dvalues[0] = ObjectIdGetDatum(req->relid);
	dvalues[1] = ObjectIdGetDatum(req->analyst);
	dvalues[2] = CStringGetTextDatum(req->epsilon);
	dvalues[3] = CStringGetTextDatum(req->delta);
	cost_values(&req->cost, dvalues + 4, dnulls + 4);

	/* 1. the guarded debit */
	if (ledger_run_stmt(STMT_BUDGET_DEBIT, dvalues, dnulls, false) != SPI_OK_UPDATE_RETURNING ||
		SPI_processed > 1)
		elog(ERROR, "dpobj budget debit failed");
	if (SPI_processed == 0)
	{
		/* refused: nothing written; report what is left */
		exec_budget_refused(req, dvalues, reply);
		return;
	}

	/* 2. its ledger row */
	lvalues[0] = CStringGetTextDatum(req->rolname);
	lvalues[1] = CStringGetTextDatum(req->mechanism);
	lvalues[2] = dvalues[2];
	lvalues[3] = dvalues[3];
	lvalues[4] = CStringGetTextDatum(req->relation);
	lvalues[5] = Int64GetDatum(first_int8());
	accounted = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2);
	lvalues[6] = dvalues[4];
	lvalues[7] = dvalues[5];
	lnulls[7] = dnulls[5];
	lvalues[8] = CStringGetTextDatum(accounted);
	if (ledger_run_stmt(STMT_BUDGET_LEDGER, lvalues, lnulls, false) != SPI_OK_INSERT_RETURNING ||
		SPI_processed != 1)
		elog(ERROR, "dpobj budget ledger insert failed");
	reply->id = *pending_id = first_int8();
	reply->budget_status = LEDGER_BUDGET_CHARGED;
}

/* a ledger created by 0.1.0 and not yet updated has no 'aborted' */
static bool
aborted_allowed(void)
{
	bool		isnull;

	if (ledger_run_stmt(STMT_ABORTED_ALLOWED, NULL, NULL, true) != SPI_OK_SELECT)
		elog(ERROR, "dpobj ledger constraint lookup failed");
	return SPI_processed == 1 &&
		DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull)) &&
		!isnull;
}

static void
exec_finish(const LedgerRequest *req)
{
	Datum		values[3];
	char		detail[LEDGER_DETAIL_LEN + 64];
	LedgerOutcome outcome = req->outcome;

	strlcpy(detail, req->detail, sizeof(detail));
	if (outcome == LEDGER_OC_ABORTED && !aborted_allowed())
	{
		outcome = LEDGER_OC_FAILED;
		snprintf(detail, sizeof(detail), "aborted after the model was computed (%s)",
				 req->detail);
	}
	values[0] = Int64GetDatum(req->id);
	values[1] = CStringGetTextDatum(ledger_outcome_name(outcome));
	values[2] = CStringGetTextDatum(detail);
	if (ledger_run_stmt(STMT_FINISH, values, NULL, false) != SPI_OK_UPDATE)
		elog(ERROR, "dpobj ledger update failed");
}

/*
 * Runs one request in the current transaction (SPI connected).  Errors
 * propagate; the caller runs each request in a subtransaction or a
 * transaction of its own.  *pending_id is set as soon as a ledger row has
 * been inserted, i.e. before the COMMIT that makes it durable.
 */
void
ledger_exec(const LedgerRequest *req, LedgerReply *reply, int64 *pending_id)
{
	memset(reply, 0, sizeof(LedgerReply));
	*pending_id = 0;
	switch (req->op)
	{
		case LEDGER_OP_CHARGE:
			exec_charge(req, reply, pending_id);
			break;
		case LEDGER_OP_BUDGET_CHARGE:
			exec_budget_charge(req, reply, pending_id);
			break;
		case LEDGER_OP_FINISH:
			exec_finish(req);
			break;
		default:
			elog(ERROR, "dpobj ledger: unknown operation %d", (int) req->op);
	}
}
