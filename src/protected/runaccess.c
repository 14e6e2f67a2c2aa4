/*-------------------------------------------------------------------------
 *
 * runaccess.c
 *	  Protected?  A budget?  Before any declaration is read (runaccess.h).
 *
 * The same rows and rule as train()'s budget pre-check (train.c), read as
 * the bootstrap superuser from the latest snapshot, with the same errors;
 * whether the budget admits the run is that pre-check's, after the public
 * checks of the run.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_authid.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/snapmgr.h"

#include "base/dpobj.h"
#include "base/privileged.h"
#include "context/protected.h"
#include "ledger/ledger.h"
#include "protected/budgetdomains.h"
#include "protected/runaccess.h"
#include "protected/spiplans.h"

/*
 * The budget through budget_for_id() (budgetdomains.h), not the SQL function
 * dpobj.budget_for: a run's function statistics count the pre-check's one
 * call only (docs/SECURITY.md, row 100)
 */
static const char access_sql[] =
"SELECT p.budget_domain::pg_catalog.text FROM dpobj.protected_tables p "
" WHERE p.relid OPERATOR(pg_catalog.=) $1";

void
run_refuse_unprotected(const char *relation)
{
	ereport(ERROR,
			(errcode(ERRCODE_DPOBJ_NOT_PROTECTED),
			 errmsg("table %s is not protected by dpobj", relation),
			 errhint("Its owner must call dpobj.protect() and grant you a budget; if you can read the table, use the aggregates directly.")));
}

void
run_check_access(Oid relid, const char *relation)
{
	RoleSwitch	rs;
	Oid			analyst = GetUserId();
	bool		protected_table,
				has_budget = false;
	int64		budget;
	DPProtectedContext ctx;
	char	   *domain = NULL;

	SPI_connect();
	PushActiveSnapshot(GetLatestSnapshot());
	role_switch_begin(&rs, BOOTSTRAP_SUPERUSERID, false);
	if (dp_spi_run(access_sql, 1, (Oid[]) {REGCLASSOID}, (Datum[]) {ObjectIdGetDatum(relid)},
				   NULL, true, 1) != SPI_OK_SELECT)
		elog(ERROR, "dpobj: protection lookup failed");
	protected_table = SPI_processed > 0;
	if (protected_table)
	{
		domain = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
		has_budget = budget_for_id(relid, analyst, &budget);
	}
	role_switch_end(&rs);
	PopActiveSnapshot();
	if (!protected_table)
		run_refuse_unprotected(relation);
	if (has_budget)
	{
		SPI_finish();
		return;
	}
	/* the pre-check's own refusal (protected.c): the same text, the budget domain's if any */
	memset(&ctx, 0, sizeof(ctx));
	strlcpy(ctx.relation, relation, sizeof(ctx.relation));
	strlcpy(ctx.rolname, GetUserNameFromId(analyst, false), sizeof(ctx.rolname));
	strlcpy(ctx.budget_domain, domain != NULL ? domain : "", sizeof(ctx.budget_domain));
	dpobj_budget_refused(LEDGER_BUDGET_NONE, &ctx, "0", "0");
}
