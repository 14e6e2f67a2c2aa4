/*-------------------------------------------------------------------------
 *
 * ledger.c
 *	  The ledger's client API (ledger.h) and settings: what a mechanism
 *	  calls to charge a run and to report its outcome.
 *
 * A charge is a synchronous request to a ledger writer (ledgertransport.c):
 * it returns only once the ledger row -- and, on the protected path, the
 * budget debit -- is committed, so noise is drawn only after the charge is
 * durable.  The run is then tracked by ledgerrun.c until its true outcome
 * is recorded.  Every error here is one of a fixed set (DP002) that
 * depends on the ledger's state, never on the data.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "ledger/ledger.h"
#include "ledger/ledgerint.h"
#include "base/dpobj.h"

#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/float.h"
#include "utils/guc.h"

static void
ledger_request_init(LedgerRequest *req, LedgerOp op, const char *mechanism,
					const char *relation)
{
	memset(req, 0, sizeof(LedgerRequest));
	req->op = op;
	req->dboid = MyDatabaseId;
	strlcpy(req->mechanism, mechanism, sizeof(req->mechanism));
	if (relation != NULL)
	{
		req->has_relation = true;
		if (strlcpy(req->relation, relation, sizeof(req->relation)) >= sizeof(req->relation))
			strcpy(req->relation + sizeof(req->relation) - 4, "...");
	}
}

/* a charge that could not be confirmed: nothing was drawn */
static void
ledger_charge_failed(LedgerStatus status, const char *what, const char *why)
{
	ereport(ERROR,
			(errcode(ERRCODE_DPOBJ_LEDGER_FAILURE),
			 errmsg("%s: %s", what, why),
			 status == LEDGER_TIMEOUT ?
			 errdetail("No noise was drawn. If the charge is committed after all, it is recorded with outcome \"cancelled\".") :
			 status == LEDGER_LOST ?
			 errdetail("No noise was drawn. If the charge was committed, it is recorded with outcome \"failed\".") :
			 errdetail("No noise was drawn and nothing was charged."),
			 errhint("dpobj writes the ledger from background workers: see the server log, "
					 "dpobj.ledger_timeout and docs/ARCHITECTURE.md (\"The ledger\").")));
}

int64
ledger_charge(const char *mechanism, double epsilon, double delta,
			  const LedgerCost *cost, const char *relation)
{
	LedgerRequest req;
	LedgerReply reply;
	LedgerStatus status;
	const char *why = NULL;

	ledger_request_init(&req, LEDGER_OP_CHARGE, mechanism, relation);
	strlcpy(req.rolname, GetUserNameFromId(GetUserId(), false), NAMEDATALEN);
	strlcpy(req.epsilon, float8out_internal(epsilon), sizeof(req.epsilon));
	strlcpy(req.delta, float8out_internal(delta), sizeof(req.delta));
	req.cost = *cost;

	ledger_runs_flush();
	status = ledger_call(&req, &reply, &why);
	if (status != LEDGER_DONE || reply.id == 0)
		ledger_charge_failed(status, "could not record the privacy charge in dpobj.ledger",
							 why ? why : "no ledger row");
	ledger_run_open(reply.id, false);
	return reply.id;
}

LedgerBudgetStatus
ledger_charge_budget(Oid relid, Oid analyst, const char *rolname,
					 const char *mechanism, const char *epsilon,
					 const char *delta, const LedgerCost *cost,
					 const char *relation, int64 *ledger_id, char *remaining_epsilon,
					 char *remaining_delta)
{
	LedgerRequest req;
	LedgerReply reply;
	LedgerStatus status;
	const char *why = NULL;

	ledger_request_init(&req, LEDGER_OP_BUDGET_CHARGE, mechanism, relation);
	req.relid = relid;
	req.analyst = analyst;
	strlcpy(req.rolname, rolname, NAMEDATALEN);
	strlcpy(req.epsilon, epsilon, sizeof(req.epsilon));
	strlcpy(req.delta, delta, sizeof(req.delta));
	req.cost = *cost;

	ledger_runs_flush();
	status = ledger_call(&req, &reply, &why);
	if (status != LEDGER_DONE)
		ledger_charge_failed(status, "could not charge the privacy budget", why);
	*ledger_id = reply.id;
	strlcpy(remaining_epsilon, reply.remaining_epsilon, LEDGER_AMOUNT_LEN);
	strlcpy(remaining_delta, reply.remaining_delta, LEDGER_AMOUNT_LEN);
	if (reply.budget_status == LEDGER_BUDGET_CHARGED)
		ledger_run_open(reply.id, true);
	return reply.budget_status;
}

void
ledger_finish(int64 id, const char *outcome, const char *detail)
{
	static const struct
	{
		const char *name;
		LedgerOutcome code;
	}			outcomes[] = {
		{LEDGER_OUTCOME_RELEASED, LEDGER_OC_RELEASED},
		{LEDGER_OUTCOME_NOT_CERTIFIED, LEDGER_OC_NOT_CERTIFIED},
		{LEDGER_OUTCOME_CANCELLED, LEDGER_OC_CANCELLED},
		{LEDGER_OUTCOME_FAILED, LEDGER_OC_FAILED},
		{LEDGER_OUTCOME_ABORTED, LEDGER_OC_ABORTED},
	};
	LedgerOutcome code = LEDGER_OC_FAILED;

	for (int i = 0; i < lengthof(outcomes); i++)
		if (strcmp(outcome, outcomes[i].name) == 0)
			code = outcomes[i].code;
	ledger_run_finish(id, code, detail);
}

void
dpobj_ledger_init(void)
{
	DefineCustomIntVariable("dpobj.ledger_timeout",
							"How long a privacy charge waits for the ledger writer.",
							"A charge that is not confirmed in time fails (DP002) before any noise is drawn; "
							"waiting can always be cancelled.",
							&dpobj_ledger_timeout,
							10000, 100, 3600 * 1000,
							PGC_USERSET, GUC_UNIT_MS,
							NULL, NULL, NULL);

	ledger_runs_init();

	/* a PGC_POSTMASTER setting can only be defined while preloading */
	if (process_shared_preload_libraries_in_progress)
	{
		DefineCustomIntVariable("dpobj.ledger_writers",
								"Number of long-lived ledger writers (with shared_preload_libraries = 'dpobj').",
								"Each writer serves one database at a time and holds a background worker slot "
								"reserved for it; use at least as many as databases that train at the same time.",
								&dpobj_ledger_writers,
								2, 1, LEDGER_MAX_WRITERS,
								PGC_POSTMASTER, 0,
								NULL, NULL, NULL);
		ledger_shm_preload_init();
	}
}
