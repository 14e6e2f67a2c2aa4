/*-------------------------------------------------------------------------
 *
 * ledgerexec.c
 *	  The ledger's fixed statements and how a worker runs one request
 *	  (shared by the long-lived writer, ledgerwriter.c, and the one-shot
 *	  worker, ledgeroneshot.c).
 *
 * The statements are string constants; a request supplies bound values
 * only.  A budget charge locks the budget row, applies the accountant's
 * rule to it in C (accountant.h) and writes the row after the run.  The
 * worker runs as the bootstrap superuser with settings pinned by
 * ledger_exec_settings(), so neither a database/role setting nor the
 * caller can change what they do.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "ledger/accountant.h"
#include "base/dpnumeric.h"
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
	STMT_BUDGET_LOCK,
	STMT_BUDGET_WRITE,
	STMT_BUDGET_LEDGER,
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
	 * STMT_BUDGET_LOCK: the budget row, locked as the UPDATE below locks it.
	 * A concurrent debit (another transaction) holds the lock until it
	 * commits; under READ COMMITTED this one then reads the committed row
	 * (its latest version), which the accountant's rule is applied to in C
	 * (exec_budget_charge).  Debits of one writer's batch run in one
	 * transaction and see each other.  The row is the one
	 * dpobj.budget_for() names: the table's budget domain's budget when the
	 * table is a member (runs on every member table lock and debit that one
	 * row), else the table's own.  budget_for is an InitPlan: called once
	 * whatever the plan (a sequential scan would call it on every budget
	 * row, and pg_stat_user_functions, which every role reads, would count
	 * them).
	 */
	"SELECT b.id, b FROM dpobj.budgets b "
	" WHERE b.id OPERATOR(pg_catalog.=) (SELECT dpobj.budget_for($1, $2)) "
	"   FOR NO KEY UPDATE OF b",

	/*
	 * STMT_BUDGET_WRITE: the locked row after the run (account_debit):
	 * added to the linear part (spent_epsilon, spent_delta), to spent_rho,
	 * or, approximate-DP or pure after the zCDP part began, to the
	 * reserve's spend (spent_rdp, spent_reserve_delta); the columns of
	 * account_budget_written()
	 */
	"UPDATE dpobj.budgets "
	"   SET (spent_epsilon, spent_delta, spent_rho, reserve_delta, spent_rdp, "
	"        spent_reserve_delta, filter_order, gaussian_only, gaussian_split, "
	"        basic_epsilon, basic_delta, basic_retired, filter_refused) = "
	"       ($2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) "
	" WHERE id OPERATOR(pg_catalog.=) $1",

	/* STMT_BUDGET_LEDGER: the debit's ledger row, in the same transaction */
	"INSERT INTO dpobj.ledger (rolname, mechanism, epsilon, delta, relation, budget_id, "
	"                          kind, rho, accounted) "
	"VALUES ($1::pg_catalog.name, $2, $3::pg_catalog.numeric, $4::pg_catalog.numeric, $5, $6, "
	"        $7, $8::pg_catalog.numeric, $9) "
	"RETURNING id",

	/* STMT_ABORTED_ALLOWED: 'aborted' exists from 0.2.0 on (upgrade section 3) */
	"SELECT pg_catalog.pg_get_constraintdef(oid) OPERATOR(pg_catalog.~~) '%aborted%' "
	"  FROM pg_catalog.pg_constraint "
	" WHERE conrelid OPERATOR(pg_catalog.=) 'dpobj.ledger'::pg_catalog.regclass "
	"   AND conname OPERATOR(pg_catalog.=) 'ledger_outcome_check'"
};

static const int ledger_nargs[LEDGER_NSTMT] = {7, 3, 2, 1 + ACCOUNT_WRITTEN_COLS, 9, 0};

static Oid	ledger_argtypes[LEDGER_NSTMT][1 + ACCOUNT_WRITTEN_COLS] = {
	{TEXTOID, TEXTOID, TEXTOID, TEXTOID, TEXTOID, TEXTOID, TEXTOID},
	{INT8OID, TEXTOID, TEXTOID},
	{REGCLASSOID, REGROLEOID},
	{INT8OID, NUMERICOID, NUMERICOID, NUMERICOID, NUMERICOID, NUMERICOID, NUMERICOID,
	FLOAT8OID, BOOLOID, BOOLOID, NUMERICOID, NUMERICOID, BOOLOID, BOOLOID},
	{TEXTOID, TEXTOID, TEXTOID, TEXTOID, TEXTOID, INT8OID, TEXTOID, TEXTOID, TEXTOID},
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

/* the cost's rho as numeric, NULL for approx (as cost_values binds it) */
static Numeric
cost_rho(const LedgerCost *cost)
{
	if (cost->kind == LEDGER_COST_APPROX || cost->rho[0] == '\0')
		return NULL;
	return dp_numeric_of_text(cost->rho);
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

/* a refusal: nothing written; what b has left, for the hint (b NULL: "0") */
static void
exec_budget_refused(LedgerBudgetStatus status, const AccountBudget *b, LedgerReply *reply)
{
	reply->budget_status = status;
	strlcpy(reply->remaining_epsilon, "0", LEDGER_AMOUNT_LEN);
	strlcpy(reply->remaining_delta, "0", LEDGER_AMOUNT_LEN);
	if (b == NULL)
		return;
	strlcpy(reply->remaining_epsilon,
			DatumGetCString(DirectFunctionCall1(numeric_out,
												NumericGetDatum(account_remaining_epsilon(b)))),
			LEDGER_AMOUNT_LEN);
	strlcpy(reply->remaining_delta,
			DatumGetCString(DirectFunctionCall1(numeric_out,
												NumericGetDatum(account_remaining_delta(b)))),
			LEDGER_AMOUNT_LEN);
}

/*
 * The guarded debit: the budget row, locked and latest (STMT_BUDGET_LOCK),
 * the accountant's rule on it (account_debit), the row after the run
 * written back.  Returns the budget's id and the state after the run in
 * *after; 0 when refused (reply set) or there is no budget.
 */
static int64
exec_budget_debit(const LedgerRequest *req, AccountBudget *after, LedgerReply *reply)
{
	Datum		keys[2] = {ObjectIdGetDatum(req->relid), ObjectIdGetDatum(req->analyst)};
	Datum		values[1 + ACCOUNT_WRITTEN_COLS];
	char		nulls[1 + ACCOUNT_WRITTEN_COLS] = {' '};
	AccountBudget b;
	bool		isnull;
	int64		budget_id;
	Datum		row;

	if (ledger_run_stmt(STMT_BUDGET_LOCK, keys, NULL, false) != SPI_OK_SELECT ||
		SPI_processed > 1)
		elog(ERROR, "dpobj budget lookup failed");
	if (SPI_processed == 0)
	{
		exec_budget_refused(LEDGER_BUDGET_NONE, NULL, reply);
		return 0;
	}
	budget_id = first_int8();
	row = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull);
	if (isnull)
		elog(ERROR, "dpobj budget lookup failed");
	if (!account_budget_of_row(DatumGetHeapTupleHeader(row), &b))
	{
		/* a value the rule needs is NULL: refused, nothing to report */
		exec_budget_refused(LEDGER_BUDGET_REFUSED, NULL, reply);
		return 0;
	}
	if (!account_debit(&b, req->cost.kind, dp_numeric_of_text(req->epsilon),
					   dp_numeric_of_text(req->delta), cost_rho(&req->cost), 1, after))
	{
		exec_budget_refused(LEDGER_BUDGET_REFUSED, &b, reply);
		return 0;
	}
	values[0] = Int64GetDatum(budget_id);
	account_budget_written(after, values + 1, nulls + 1);
	if (ledger_run_stmt(STMT_BUDGET_WRITE, values, nulls, false) != SPI_OK_UPDATE ||
		SPI_processed != 1)
		elog(ERROR, "dpobj budget debit failed");
	return budget_id;
}

static void
exec_budget_charge(const LedgerRequest *req, LedgerReply *reply, int64 *pending_id)
{
	Datum		lvalues[9];
	char		lnulls[9] = {' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' '};
	AccountBudget after;
	int64		budget_id;

	/* 1. the guarded debit; refused: nothing written */
	budget_id = exec_budget_debit(req, &after, reply);
	if (budget_id == 0)
		return;

	/* 2. its ledger row */
	lvalues[0] = CStringGetTextDatum(req->rolname);
	lvalues[1] = CStringGetTextDatum(req->mechanism);
	lvalues[2] = CStringGetTextDatum(req->epsilon);
	lvalues[3] = CStringGetTextDatum(req->delta);
	lvalues[4] = CStringGetTextDatum(req->relation);
	lvalues[5] = Int64GetDatum(budget_id);
	cost_values(&req->cost, lvalues + 6, lnulls + 6);
	lvalues[8] = CStringGetTextDatum(account_accounted(&after, req->cost.kind));
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
