/*-------------------------------------------------------------------------
 *
 * budget.c
 *	  Administration of privacy budgets per (table, role) (the security
 *	  model is docs/SECURITY.md):
 *
 *	  dpobj.protect(rel)                          owner / dpobj_admin
 *	  dpobj.unprotect(rel)                        owner / superuser
 *	  dpobj.grant_budget(rel, role, eps, delta)   owner / dpobj_admin
 *	  dpobj.revoke_budget(rel, role)              owner / dpobj_admin
 *
 * The training path is train.c (validation), trainquery.c (its query),
 * seal.c (running it sealed) and protected.c (the protected context).
 *
 * Identity.  These functions must know who calls them: the role whose
 * ownership is checked.  A SECURITY DEFINER function cannot know that, so
 * they are SECURITY INVOKER with "SET search_path = pg_catalog, pg_temp",
 * take the caller from GetUserId() and switch to the bootstrap superuser
 * themselves (privileged.c) only for fixed, parameterised statements on
 * dpobj.protected_tables and dpobj.budgets, after verifying that schema
 * dpobj is controlled by superusers only.
 *
 * Limits on administrators (leak 8):
 *	  - system catalogs and other extensions' tables cannot be protected
 *		(protectable.c);
 *	  - a dpobj_admin member who does not own the table cannot grant to
 *		itself, or to any role it can act as, more than the superuser's
 *		caps dpobj.max_self_grant_epsilon / _delta (default 0: nothing);
 *	  - the total granted delta of a budget stays below 1 (also a CHECK on
 *		dpobj.budgets);
 *	  - unprotect, which forgets budgets and spend, needs the owner's
 *		privileges: an admin could otherwise reset its own capped budget.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "dpobj.h"
#include "entryargs.h"
#include "privileged.h"
#include "protectable.h"

#include "catalog/pg_authid.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/numeric.h"

PG_FUNCTION_INFO_V1(dpobj_protect);
PG_FUNCTION_INFO_V1(dpobj_unprotect);
PG_FUNCTION_INFO_V1(dpobj_grant_budget);
PG_FUNCTION_INFO_V1(dpobj_revoke_budget);

/* the role whose members administer every protected table */
#define DPOBJ_ADMIN_ROLE		"dpobj_admin"

/* The caller owns the table (or has its owner's privileges) or is an admin. */
static void
check_can_administer(Oid caller, Oid relid, const char *relation, const char *action)
{
	Oid			admin = get_role_oid(DPOBJ_ADMIN_ROLE, true);

	if (pg_class_ownercheck(relid, caller))
		return;
	if (OidIsValid(admin) && has_privs_of_role(caller, admin))
		return;
	ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			 errmsg("must be the owner of table %s or a member of %s to %s",
					relation, DPOBJ_ADMIN_ROLE, action),
			 errhint("Only the table's owner or a member of %s can do this.", DPOBJ_ADMIN_ROLE)));
}

/*
 * What every administration function does first: the schema check, the
 * first nargs arguments not NULL, the relation (argument 1) locked.
 */
static char *
admin_relation(FunctionCallInfo fcinfo, int nargs, const char *fname, Oid *relid)
{
	char		relkind;

	dpobj_verify_schema();
	dp_check_not_null(fcinfo, nargs, fname);
	*relid = PG_GETARG_OID(0);
	return dp_lock_relation(*relid, &relkind);
}

/* ---------------------------------------------------------------------
 * dpobj.protect(rel regclass) RETURNS boolean
 * ---------------------------------------------------------------------
 */

static const char protect_sql[] =
"INSERT INTO dpobj.protected_tables (relid, protected_by) "
"VALUES ($1, $2::pg_catalog.name) ON CONFLICT (relid) DO NOTHING RETURNING relid";

Datum
dpobj_protect(PG_FUNCTION_ARGS)
{
	Oid			caller = GetUserId();
	Oid			relid;
	char	   *relation;
	RoleSwitch	rs;
	Oid			types[2] = {REGCLASSOID, TEXTOID};
	Datum		values[2];
	bool		inserted;

	relation = admin_relation(fcinfo, 1, "dpobj.protect", &relid);
	dpobj_check_protectable(relid, relation);
	check_can_administer(caller, relid, relation, "protect it");

	values[0] = ObjectIdGetDatum(relid);
	values[1] = CStringGetTextDatum(GetUserNameFromId(caller, false));
	SPI_connect();
	role_switch_begin(&rs, BOOTSTRAP_SUPERUSERID, false);
	if (SPI_execute_with_args(protect_sql, 2, types, values, NULL, false, 0) != SPI_OK_INSERT_RETURNING)
		elog(ERROR, "dpobj.protect: insert failed");
	inserted = (SPI_processed == 1);
	role_switch_end(&rs);
	SPI_finish();

	/* protection is pointless while analysts can read the table anyway */
	if (pg_class_aclcheck(relid, ACL_ID_PUBLIC, ACL_SELECT) == ACLCHECK_OK)
		ereport(WARNING,
				(errcode(ERRCODE_WARNING),
				 errmsg("PUBLIC can SELECT from %s", relation),
				 errhint("REVOKE SELECT ON %s FROM PUBLIC, so that analysts reach it only through dpobj.train().",
						 relation)));
	PG_RETURN_BOOL(inserted);
}

/* ---------------------------------------------------------------------
 * dpobj.unprotect(rel regclass) RETURNS boolean
 * ---------------------------------------------------------------------
 */

/* budgets first (they reference the protection); the ledger keeps history */
static const char unprotect_budgets_sql[] =
"DELETE FROM dpobj.budgets WHERE relid OPERATOR(pg_catalog.=) $1";
static const char unprotect_sql[] =
"DELETE FROM dpobj.protected_tables WHERE relid OPERATOR(pg_catalog.=) $1 RETURNING relid";

Datum
dpobj_unprotect(PG_FUNCTION_ARGS)
{
	Oid			caller = GetUserId();
	Oid			relid;
	char	   *relation;
	RoleSwitch	rs;
	Oid			types[1] = {REGCLASSOID};
	Datum		values[1];
	bool		deleted;

	relation = admin_relation(fcinfo, 1, "dpobj.unprotect", &relid);
	if (!pg_class_ownercheck(relid, caller))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("must be the owner of table %s to unprotect it", relation),
				 errhint("Unprotecting forgets every budget and its spend on the table, so only its owner or a superuser may do it; dpobj_admin members can revoke budgets instead.")));

	values[0] = ObjectIdGetDatum(relid);
	SPI_connect();
	role_switch_begin(&rs, BOOTSTRAP_SUPERUSERID, false);
	if (SPI_execute_with_args(unprotect_budgets_sql, 1, types, values, NULL, false, 0) != SPI_OK_DELETE ||
		SPI_execute_with_args(unprotect_sql, 1, types, values, NULL, false, 0) != SPI_OK_DELETE_RETURNING)
		elog(ERROR, "dpobj.unprotect: delete failed");
	deleted = (SPI_processed == 1);
	role_switch_end(&rs);
	SPI_finish();

	if (!deleted)
		ereport(NOTICE,
				(errmsg("table %s is not protected by dpobj; nothing to unprotect", relation)));
	PG_RETURN_BOOL(deleted);
}

/* ---------------------------------------------------------------------
 * dpobj.grant_budget(rel, analyst, epsilon, delta) RETURNS dpobj.budgets
 * dpobj.revoke_budget(rel, analyst) RETURNS dpobj.budgets
 * ---------------------------------------------------------------------
 */

static const char is_protected_sql[] =
"SELECT 1 FROM dpobj.protected_tables WHERE relid OPERATOR(pg_catalog.=) $1";

/*
 * grant adds to the granted totals; concurrent charges wait on the row
 * lock.  The sums stay below 1 for delta and within the self-grant caps
 * ($5, $6; NULL = no cap) -- checked on the locked row, so concurrent
 * grants cannot pass them together.
 */
static const char grant_sql[] =
"INSERT INTO dpobj.budgets AS b (relid, rolid, granted_epsilon, granted_delta) "
"VALUES ($1, $2, $3, $4) "
"ON CONFLICT (relid, rolid) DO UPDATE "
"   SET granted_epsilon = b.granted_epsilon OPERATOR(pg_catalog.+) EXCLUDED.granted_epsilon, "
"       granted_delta = b.granted_delta OPERATOR(pg_catalog.+) EXCLUDED.granted_delta "
" WHERE b.granted_delta OPERATOR(pg_catalog.+) EXCLUDED.granted_delta OPERATOR(pg_catalog.<) 1 "
"   AND ($5 IS NULL OR b.granted_epsilon OPERATOR(pg_catalog.+) EXCLUDED.granted_epsilon "
"                      OPERATOR(pg_catalog.<=) $5) "
"   AND ($6 IS NULL OR b.granted_delta OPERATOR(pg_catalog.+) EXCLUDED.granted_delta "
"                      OPERATOR(pg_catalog.<=) $6) "
"RETURNING *";

/*
 * revoke leaves nothing to spend (with a zCDP part: granted epsilon := the
 * composed spend at the granted delta); spend and the ledger stay as they are
 */
static const char revoke_sql[] =
"UPDATE dpobj.budgets "
"   SET granted_epsilon = CASE WHEN spent_rho OPERATOR(pg_catalog.>) 0 "
"         THEN spent_epsilon OPERATOR(pg_catalog.+) dpobj.zcdp_epsilon(spent_rho, "
"                granted_delta OPERATOR(pg_catalog.-) spent_delta) "
"         ELSE spent_epsilon END, "
"       granted_delta = CASE WHEN spent_rho OPERATOR(pg_catalog.>) 0 "
"         THEN granted_delta ELSE spent_delta END "
" WHERE relid OPERATOR(pg_catalog.=) $1 AND rolid OPERATOR(pg_catalog.=) $2 "
"RETURNING *";

/*
 * A dpobj_admin member that does not own the table granting to a role it
 * can act as (itself included) is capped by the superuser's settings.
 */
static bool
self_grant(Oid caller, Oid relid, Oid analyst)
{
	return !superuser_arg(caller) && !pg_class_ownercheck(relid, caller) &&
		is_member_of_role(caller, analyst);
}

static void
grant_refused(const char *relation, bool capped)
{
	ereport(ERROR,
			(errcode(capped ? ERRCODE_INSUFFICIENT_PRIVILEGE : ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("the grant would raise the budget on %s beyond %s", relation,
					capped ? "the self-grant cap or a total delta of 1" : "a total delta of 1"),
			 errdetail("Nothing was granted."),
			 errhint(capped ?
					 "A dpobj_admin member may grant to itself (or roles it can act as) at most dpobj.max_self_grant_epsilon / dpobj.max_self_grant_delta in total, set by a superuser; the table's owner is not capped." :
					 "A budget's total delta must stay below 1 (delta = 1 means no privacy).")));
}

/* the caps as numeric parameters ($5, $6), 'n' when not capped */
static void
grant_caps(bool capped, Numeric epsilon, Numeric delta, const char *relation,
		   Datum *values, char *nulls)
{
	Numeric		cap_e;
	Numeric		cap_d;

	nulls[4] = nulls[5] = capped ? ' ' : 'n';
	values[4] = values[5] = (Datum) 0;
	if (!capped)
		return;
	cap_e = dp_numeric_of_float8(dpobj_max_self_grant_epsilon);
	cap_d = dp_numeric_of_float8(dpobj_max_self_grant_delta);
	/* the first grant inserts: its amounts alone must fit */
	if (dp_numeric_cmp(epsilon, cap_e) > 0 || dp_numeric_cmp(delta, cap_d) > 0)
		grant_refused(relation, true);
	values[4] = NumericGetDatum(cap_e);
	values[5] = NumericGetDatum(cap_d);
}

static Datum
budget_update(FunctionCallInfo fcinfo, bool grant)
{
	const char *fname = grant ? "dpobj.grant_budget" : "dpobj.revoke_budget";
	Oid			caller = GetUserId();
	Oid			relid;
	Oid			analyst;
	char	   *relation;
	bool		capped = false;
	RoleSwitch	rs;
	Oid			types[6] = {REGCLASSOID, REGROLEOID, NUMERICOID, NUMERICOID, NUMERICOID, NUMERICOID};
	Datum		values[6];
	char		nulls[6] = {' ', ' ', ' ', ' ', ' ', ' '};
	int			ret;
	HeapTupleHeader result = NULL;

	relation = admin_relation(fcinfo, grant ? 4 : 2, fname, &relid);
	analyst = PG_GETARG_OID(1);
	dp_check_role(analyst);
	check_can_administer(caller, relid, relation,
						 grant ? "grant privacy budgets on it" : "revoke privacy budgets on it");
	values[0] = ObjectIdGetDatum(relid);
	values[1] = ObjectIdGetDatum(analyst);
	if (grant)
	{
		dp_check_amount(PG_GETARG_NUMERIC(2), "epsilon", true, false);
		dp_check_amount(PG_GETARG_NUMERIC(3), "delta", true, true);
		values[2] = NumericGetDatum(PG_GETARG_NUMERIC(2));
		values[3] = NumericGetDatum(PG_GETARG_NUMERIC(3));
		capped = self_grant(caller, relid, analyst);
		grant_caps(capped, PG_GETARG_NUMERIC(2), PG_GETARG_NUMERIC(3), relation,
				   values, nulls);
	}

	SPI_connect();
	role_switch_begin(&rs, BOOTSTRAP_SUPERUSERID, false);
	ret = SPI_execute_with_args(is_protected_sql, 1, types, values, NULL, true, 1);
	if (ret != SPI_OK_SELECT)
		elog(ERROR, "%s: lookup failed", fname);
	if (SPI_processed == 0)
		ereport(ERROR,
				(errcode(ERRCODE_DPOBJ_NOT_PROTECTED),
				 errmsg("table %s is not protected by dpobj", relation),
				 errhint("Call dpobj.protect('%s') first.", relation)));
	if (grant)
		ret = SPI_execute_with_args(grant_sql, 6, types, values, nulls, false, 1);
	else
		ret = SPI_execute_with_args(revoke_sql, 2, types, values, NULL, false, 1);
	if (ret != (grant ? SPI_OK_INSERT_RETURNING : SPI_OK_UPDATE_RETURNING))
		elog(ERROR, "%s: update failed: SPI result %d", fname, ret);
	role_switch_end(&rs);
	if (SPI_processed == 1)
		result = SPI_returntuple(SPI_tuptable->vals[0], SPI_tuptable->tupdesc);
	SPI_finish();

	if (result == NULL && grant)
		grant_refused(relation, capped);
	if (result == NULL)
	{
		ereport(NOTICE,
				(errmsg("role has no privacy budget on table %s; nothing to revoke", relation)));
		PG_RETURN_NULL();
	}
	PG_RETURN_DATUM(PointerGetDatum(result));
}

Datum
dpobj_grant_budget(PG_FUNCTION_ARGS)
{
	return budget_update(fcinfo, true);
}

Datum
dpobj_revoke_budget(PG_FUNCTION_ARGS)
{
	return budget_update(fcinfo, false);
}
