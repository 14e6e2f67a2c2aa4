/*-------------------------------------------------------------------------
 *
 * budget.c
 *	  Administration of privacy budgets per (table, role) (the security
 *	  model is docs/SECURITY.md):
 *
 *	  dpobj.protect(rel)                          owner / dpobj_admin
 *	  dpobj.protect(rel, privacy_unit, k)         owner / dpobj_admin
 *	  dpobj.unprotect(rel)                        owner / superuser
 *	  dpobj.grant_budget(rel, role, eps, delta)   owner / dpobj_admin
 *	  dpobj.revoke_budget(rel, role)              owner / dpobj_admin
 *	  dpobj.set_release_deadline(rel, seconds)    owner; dpobj_admin may raise it
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

#include "deadline.h"
#include "dpobj.h"
#include "entryargs.h"
#include "privileged.h"
#include "protectable.h"
#include "units.h"

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
PG_FUNCTION_INFO_V1(dpobj_protect_unit);
PG_FUNCTION_INFO_V1(dpobj_unprotect);
PG_FUNCTION_INFO_V1(dpobj_grant_budget);
PG_FUNCTION_INFO_V1(dpobj_revoke_budget);
PG_FUNCTION_INFO_V1(dpobj_set_release_deadline);

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

/* protection is pointless while analysts can read the table anyway */
static void
warn_public_select(Oid relid, const char *relation)
{
	if (pg_class_aclcheck(relid, ACL_ID_PUBLIC, ACL_SELECT) == ACLCHECK_OK)
		ereport(WARNING,
				(errcode(ERRCODE_WARNING),
				 errmsg("PUBLIC can SELECT from %s", relation),
				 errhint("REVOKE SELECT ON %s FROM PUBLIC, so that analysts reach it only through dpobj.train().",
						 relation)));
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

	warn_public_select(relid, relation);
	PG_RETURN_BOOL(inserted);
}

/* ---------------------------------------------------------------------
 * dpobj.protect(rel regclass, privacy_unit text, max_rows_per_unit integer)
 * RETURNS boolean: protects the table, or changes its protection, at the
 * level of a privacy unit (units.c).  Changing it waits for runs that have
 * read the old one (they hold the row FOR SHARE).
 * ---------------------------------------------------------------------
 */

static const char protect_unit_sql[] =
"INSERT INTO dpobj.protected_tables AS p "
"       (relid, protected_by, privacy_unit, unit_attnum, unit_type, max_rows_per_unit) "
"VALUES ($1, $2::pg_catalog.name, $3::pg_catalog.name, $4, $5, $6) "
"ON CONFLICT (relid) DO UPDATE SET privacy_unit = excluded.privacy_unit, "
"       unit_attnum = excluded.unit_attnum, unit_type = excluded.unit_type, "
"       max_rows_per_unit = excluded.max_rows_per_unit "
" WHERE (p.privacy_unit, p.unit_attnum, p.unit_type, p.max_rows_per_unit) "
"       IS DISTINCT FROM (excluded.privacy_unit, excluded.unit_attnum, "
"                         excluded.unit_type, excluded.max_rows_per_unit) "
"RETURNING relid";

Datum
dpobj_protect_unit(PG_FUNCTION_ARGS)
{
	Oid			caller = GetUserId();
	Oid			relid;
	char	   *relation;
	char	   *column;
	int32		k;
	int16		attnum;
	Oid			typid;
	RoleSwitch	rs;
	Oid			types[6] = {REGCLASSOID, TEXTOID, TEXTOID, INT2OID, REGTYPEOID, INT4OID};
	Datum		values[6];
	bool		changed;

	relation = admin_relation(fcinfo, 3, "dpobj.protect", &relid);
	dpobj_check_protectable(relid, relation);
	check_can_administer(caller, relid, relation, "protect it");
	column = text_to_cstring(PG_GETARG_TEXT_PP(1));
	k = PG_GETARG_INT32(2);
	if (k < 1 || k > DPOBJ_MAX_ROWS_PER_UNIT)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("max_rows_per_unit must be between 1 and %d", DPOBJ_MAX_ROWS_PER_UNIT),
				 errhint("Every run keeps at most this many rows of each unit, and its noise grows with it.")));
	units_check_column(relid, relation, column, &attnum, &typid);

	values[0] = ObjectIdGetDatum(relid);
	values[1] = CStringGetTextDatum(GetUserNameFromId(caller, false));
	values[2] = CStringGetTextDatum(column);
	values[3] = Int16GetDatum(attnum);
	values[4] = ObjectIdGetDatum(typid);
	values[5] = Int32GetDatum(k);
	SPI_connect();
	role_switch_begin(&rs, BOOTSTRAP_SUPERUSERID, false);
	if (SPI_execute_with_args(protect_unit_sql, 6, types, values, NULL, false, 0) != SPI_OK_INSERT_RETURNING)
		elog(ERROR, "dpobj.protect: insert failed");
	changed = (SPI_processed == 1);
	role_switch_end(&rs);
	SPI_finish();

	warn_public_select(relid, relation);
	PG_RETURN_BOOL(changed);
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

/* inside SPI, as the bootstrap superuser: refuses a table that is not protected */
static void
check_protected(Datum relid, const char *relation, const char *fname)
{
	Oid			type = REGCLASSOID;

	if (SPI_execute_with_args(is_protected_sql, 1, &type, &relid, NULL, true, 1) != SPI_OK_SELECT)
		elog(ERROR, "%s: lookup failed", fname);
	if (SPI_processed == 0)
		ereport(ERROR,
				(errcode(ERRCODE_DPOBJ_NOT_PROTECTED),
				 errmsg("table %s is not protected by dpobj", relation),
				 errhint("Call dpobj.protect('%s') first.", relation)));
}

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
	check_protected(values[0], relation, fname);
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

/* ---------------------------------------------------------------------
 * dpobj.set_release_deadline(rel regclass, seconds float8) RETURNS float8
 * ---------------------------------------------------------------------
 */

/* $3: the caller may lower it (the owner's privileges) */
static const char release_deadline_sql[] =
"UPDATE dpobj.protected_tables SET release_deadline = $2 "
" WHERE relid OPERATOR(pg_catalog.=) $1 "
"   AND ($3 OR $2 OPERATOR(pg_catalog.>=) release_deadline) "
"RETURNING release_deadline";

/*
 * The floor of every protected run's release deadline on the table
 * (deadline.h).  Lowering it weakens the protection of the rows, so it
 * needs the owner's privileges, like unprotect(); a dpobj_admin member may
 * raise it.
 */
Datum
dpobj_set_release_deadline(PG_FUNCTION_ARGS)
{
	Oid			caller = GetUserId();
	Oid			relid;
	char	   *relation;
	double		seconds;
	RoleSwitch	rs;
	Oid			types[3] = {REGCLASSOID, FLOAT8OID, BOOLOID};
	Datum		values[3];
	bool		updated;

	relation = admin_relation(fcinfo, 2, "dpobj.set_release_deadline", &relid);
	check_can_administer(caller, relid, relation, "set its release deadline");
	seconds = PG_GETARG_FLOAT8(1);
	if (!(seconds >= 0 && seconds <= DPOBJ_DEADLINE_MAX))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the release deadline must be between 0 and %g seconds", DPOBJ_DEADLINE_MAX),
				 errhint("0 means no floor: analysts may still set the \"deadline\" option.")));

	values[0] = ObjectIdGetDatum(relid);
	values[1] = Float8GetDatum(seconds);
	values[2] = BoolGetDatum(pg_class_ownercheck(relid, caller));
	SPI_connect();
	role_switch_begin(&rs, BOOTSTRAP_SUPERUSERID, false);
	check_protected(values[0], relation, "dpobj.set_release_deadline");
	if (SPI_execute_with_args(release_deadline_sql, 3, types, values, NULL, false, 1) != SPI_OK_UPDATE_RETURNING)
		elog(ERROR, "dpobj.set_release_deadline: update failed");
	updated = (SPI_processed == 1);
	role_switch_end(&rs);
	SPI_finish();

	if (!updated)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("must be the owner of table %s to lower its release deadline", relation),
				 errhint("A lower deadline lets run times show again; dpobj_admin members may only raise it.")));
	PG_RETURN_FLOAT8(seconds);
}
