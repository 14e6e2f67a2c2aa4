/*-------------------------------------------------------------------------
 *
 * budget.c
 *	  Administration of privacy budgets per (table, role) (the security
 *	  model is docs/SECURITY.md):
 *
 *	  dpobj.protect(rel)                          owner / dpobj_admin
 *	  dpobj.protect(rel, privacy_unit, k [, budget_domain])
 *	                                              owner / dpobj_admin (joining a
 *	                                              budget domain: owner)
 *	  dpobj.unprotect(rel)                        owner / superuser
 *	  dpobj.grant_budget(rel, role, eps, delta)   owner / dpobj_admin
 *	  dpobj.revoke_budget(rel, role)              owner / dpobj_admin
 *	  dpobj.grant_domain_budget(domain, role, eps, delta)   domain owner / dpobj_admin
 *	  dpobj.revoke_domain_budget(domain, role)              domain owner / dpobj_admin
 *	  dpobj.set_release_deadline(rel, seconds)    owner; dpobj_admin may raise it
 *
 * Budget domains themselves (create, drop, membership) are budgetdomains.c.
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
 *		itself, or to any role that a role able to act as it can act as
 *		(roleact.h), more than the superuser's caps
 *		dpobj.max_self_grant_epsilon / _delta (default 0: nothing);
 *	  - the total granted delta of a budget stays below 1 (also a CHECK on
 *		dpobj.budgets);
 *	  - unprotect, which forgets budgets and spend, needs the owner's
 *		privileges: an admin could otherwise reset its own capped budget.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "protected/budgetdomains.h"
#include "context/deadline.h"
#include "ledger/accountant.h"
#include "base/dpnumeric.h"
#include "base/dpobj.h"
#include "protected/entryargs.h"
#include "base/pg_compat.h"
#include "base/privileged.h"
#include "protected/protectable.h"
#include "protected/protecttree.h"
#include "protected/roleact.h"
#include "protected/units.h"
#include "protected/unitlinks.h"

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
PG_FUNCTION_INFO_V1(dpobj_grant_domain_budget);
PG_FUNCTION_INFO_V1(dpobj_revoke_domain_budget);
PG_FUNCTION_INFO_V1(dpobj_set_release_deadline);

/* the role whose members administer every protected table */
#define DPOBJ_ADMIN_ROLE		"dpobj_admin"

/* The caller owns the table (or has its owner's privileges) or is an admin. */
static void
check_can_administer(Oid caller, Oid relid, const char *relation, const char *action)
{
	Oid			admin = get_role_oid(DPOBJ_ADMIN_ROLE, true);

	if (compat_class_ownercheck(relid, caller))
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
	protecttree_check(relid, relation, true);

	values[0] = ObjectIdGetDatum(relid);
	values[1] = CStringGetTextDatum(GetUserNameFromId(caller, false));
	units_lock_protection(relid, ExclusiveLock);
	SPI_connect();
	role_switch_begin(&rs, BOOTSTRAP_SUPERUSERID, false);
	if (SPI_execute_with_args(protect_sql, 2, types, values, NULL, false, 0) != SPI_OK_INSERT_RETURNING)
		elog(ERROR, "dpobj.protect: insert failed");
	inserted = (SPI_processed == 1);
	role_switch_end(&rs);
	SPI_finish();

	warn_public_select(relid, relation);
	protecttree_warn_readable(relid, relation);
	PG_RETURN_BOOL(inserted);
}

/* ---------------------------------------------------------------------
 * dpobj.protect(rel regclass, privacy_unit text, max_rows_per_unit integer,
 *               budget_domain name DEFAULT NULL)
 * RETURNS boolean: protects the table, or changes its protection, at the
 * level of a privacy unit (units.c).  Changing it waits for runs that have
 * read the old one (they hold the protection's lock, units.h).  With budget_domain the
 * table also joins that domain (budgetdomains.c; the owner only).
 * ---------------------------------------------------------------------
 */

static const char protect_unit_sql[] =
"INSERT INTO dpobj.protected_tables AS p "
"       (relid, protected_by, privacy_unit, unit_attnum, unit_type, max_rows_per_unit, "
"        unit_typmod, unit_collation, unit_collversion) "
"SELECT $1, $2::pg_catalog.name, $3::pg_catalog.name, $4, $5, $6, "
"       a.atttypmod, a.attcollation, dpobj.unit_collation_version(a.attcollation) "
"  FROM pg_catalog.pg_attribute a "
" WHERE a.attrelid OPERATOR(pg_catalog.=) $1::pg_catalog.oid AND a.attnum OPERATOR(pg_catalog.=) $4 "
UNITS_PROTECTION_UPSERT;

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
	const char *domain = NULL;

	relation = admin_relation(fcinfo, 3, "dpobj.protect", &relid);
	dpobj_check_protectable(relid, relation);
	check_can_administer(caller, relid, relation, "protect it");
	protecttree_check(relid, relation, true);
	column = text_to_cstring(PG_GETARG_TEXT_PP(1));
	k = PG_GETARG_INT32(2);
	units_check_rows_per_unit(k);
	units_check_column(relid, relation, column, &attnum, &typid);
	units_lock_protection(relid, ExclusiveLock);
	unitchange_check_protect(relid, relation, column, attnum, typid);
	if (PG_NARGS() > 3 && !PG_ARGISNULL(3))
	{
		domain = NameStr(*PG_GETARG_NAME(3));
		if (!compat_class_ownercheck(relid, caller))
			ereport(ERROR,
					(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
					 errmsg("must be the owner of table %s to put it into a budget domain", relation),
					 errhint("Joining a budget domain changes which spend counts for the table's rows, so only its owner or a superuser may do it; protect it without budget_domain.")));
	}

	values[0] = ObjectIdGetDatum(relid);
	values[1] = CStringGetTextDatum(GetUserNameFromId(caller, false));
	values[2] = CStringGetTextDatum(column);
	values[3] = Int16GetDatum(attnum);
	values[4] = ObjectIdGetDatum(typid);
	values[5] = Int32GetDatum(k);
	SPI_connect();
	unit_links_refuse_protect(relid, relation);
	role_switch_begin(&rs, BOOTSTRAP_SUPERUSERID, false);
	if (SPI_execute_with_args(protect_unit_sql, 6, types, values, NULL, false, 0) != SPI_OK_INSERT_RETURNING)
		elog(ERROR, "dpobj.protect: insert failed");
	changed = (SPI_processed == 1);
	role_switch_end(&rs);
	SPI_finish();
	if (domain != NULL && budget_domain_set(caller, relid, relation, domain, InvalidOid))
		changed = true;

	warn_public_select(relid, relation);
	protecttree_warn_readable(relid, relation);
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
	if (!compat_class_ownercheck(relid, caller))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("must be the owner of table %s to unprotect it", relation),
				 errhint("Unprotecting forgets every budget and its spend on the table, so only its owner or a superuser may do it; dpobj_admin members can revoke budgets instead.")));

	values[0] = ObjectIdGetDatum(relid);
	units_lock_protection(relid, ExclusiveLock);
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

/*
 * The protection row FOR SHARE: a concurrent dpobj.set_budget_domain()
 * waits, so a table does not join a domain while a grant on it is under
 * way (budgetdomains.c refuses to join a table with budgets of its own).
 */
static const char is_protected_sql[] =
"SELECT budget_domain::pg_catalog.text FROM dpobj.protected_tables "
" WHERE relid OPERATOR(pg_catalog.=) $1 FOR SHARE";

/*
 * inside SPI, as the bootstrap superuser: refuses a table that is not
 * protected; returns its budget domain (NULL: none)
 */
static char *
check_protected(Datum relid, const char *relation, const char *fname)
{
	Oid			type = REGCLASSOID;

	if (SPI_execute_with_args(is_protected_sql, 1, &type, &relid, NULL, false, 1) != SPI_OK_SELECT)
		elog(ERROR, "%s: lookup failed", fname);
	if (SPI_processed == 0)
		ereport(ERROR,
				(errcode(ERRCODE_DPOBJ_NOT_PROTECTED),
				 errmsg("table %s is not protected by dpobj", relation),
				 errhint("Call dpobj.protect('%s') first.", relation)));
	return SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
}

/* a member table's runs are charged to its domain's budgets */
static void
refuse_member(const char *relation, const char *domain)
{
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("table %s is in budget domain \"%s\" and has no budgets of its own", relation, domain),
			 errhint("Its runs are charged to the domain's budgets: use dpobj.grant_domain_budget('%s', ...) or dpobj.revoke_domain_budget('%s', ...).",
					 domain, domain)));
}

/*
 * What a grant or revoke returns (type dpobj.budget_summary, the columns of
 * dpobj.my_budgets that a person needs): granted, spent and remaining, and
 * how many more runs like the budget's last one it admits.  The
 * accountant's state is in dpobj.budget_accounting.
 */
#define LAST_RUN(expr) \
"(SELECT " expr " FROM dpobj.ledger l WHERE l.budget_id OPERATOR(pg_catalog.=) b.id " \
" ORDER BY l.id DESC LIMIT 1)"
#define BUDGET_SUMMARY \
"RETURNING b.id, b.relid, b.budget_domain, b.rolid, b.granted_epsilon, b.granted_delta, " \
"          dpobj.budget_spent_epsilon(b), dpobj.budget_spent_delta(b), " \
"          dpobj.budget_remaining_epsilon(b), " \
"          b.granted_delta OPERATOR(pg_catalog.-) dpobj.budget_spent_delta(b), " \
LAST_RUN("dpobj.run_label(l.mechanism, l.epsilon, l.delta)") ", " \
LAST_RUN("dpobj.budget_runs_left(b, l.kind, l.epsilon, l.delta, l.rho)")

/*
 * grant adds to the granted totals; concurrent charges wait on the row
 * lock.  The sums stay below 1 for delta and within the self-grant caps
 * ($5, $6; NULL = no cap) -- checked on the locked row, so concurrent
 * grants cannot pass them together.  A table's budget is keyed by (relid,
 * rolid), a budget domain's by (budget_domain, rolid).
 */
#define GRANT_SQL(col, type) \
"INSERT INTO dpobj.budgets AS b (" col ", rolid, granted_epsilon, granted_delta, " \
"                              reserve_share, basic_share) " \
"VALUES ($1::" type ", $2, $3, $4, $7, $8) " \
"ON CONFLICT (" col ", rolid) DO UPDATE " \
"   SET granted_epsilon = b.granted_epsilon OPERATOR(pg_catalog.+) EXCLUDED.granted_epsilon, " \
"       granted_delta = b.granted_delta OPERATOR(pg_catalog.+) EXCLUDED.granted_delta " \
" WHERE b.granted_delta OPERATOR(pg_catalog.+) EXCLUDED.granted_delta OPERATOR(pg_catalog.<) 1 " \
"   AND ($5 IS NULL OR b.granted_epsilon OPERATOR(pg_catalog.+) EXCLUDED.granted_epsilon " \
"                      OPERATOR(pg_catalog.<=) $5) " \
"   AND ($6 IS NULL OR b.granted_delta OPERATOR(pg_catalog.+) EXCLUDED.granted_delta " \
"                      OPERATOR(pg_catalog.<=) $6) " \
BUDGET_SUMMARY

/*
 * revoke leaves nothing to spend (with a zCDP part: granted epsilon := the
 * composed spend at the granted delta); spend and the ledger stay as they are
 */
#define REVOKE_SQL(col, type) \
"UPDATE dpobj.budgets b " \
"   SET granted_epsilon = dpobj.budget_spent_epsilon(b), " \
"       granted_delta = CASE WHEN spent_rho OPERATOR(pg_catalog.>) 0 " \
"         THEN granted_delta ELSE spent_delta END " \
" WHERE " col " OPERATOR(pg_catalog.=) $1::" type " AND rolid OPERATOR(pg_catalog.=) $2 " \
BUDGET_SUMMARY

static const char *const grant_sql[2] = {
	GRANT_SQL("relid", "pg_catalog.regclass"),
	GRANT_SQL("budget_domain", "pg_catalog.name")
};
static const char *const revoke_sql[2] = {
	REVOKE_SQL("relid", "pg_catalog.regclass"),
	REVOKE_SQL("budget_domain", "pg_catalog.name")
};

/* what a grant or revoke is about: a table, or a budget domain */
typedef struct BudgetTarget
{
	bool		domain;			/* a budget domain (else a table) */
	Oid			relid;			/* the table */
	Oid			owner;			/* the domain's owner */
	char	   *name;			/* the table's qualified name, or the domain */
} BudgetTarget;

/*
 * A dpobj_admin member that does not own the table granting to a role
 * that some role can act as together with the caller (roleact.h: itself,
 * a member, a group it can SET ROLE to, a role with a common member) is
 * capped by the superuser's settings; on a domain, anyone but a superuser
 * who does not own every member table.
 */
static bool
self_grant(Oid caller, const BudgetTarget *t, Oid analyst)
{
	if (t->domain)
		return budget_domain_self_grant(caller, t->name, analyst);
	return !superuser_arg(caller) && !compat_class_ownercheck(t->relid, caller) &&
		roles_share_actor(caller, analyst);
}

static void
grant_refused(const BudgetTarget *t, bool capped)
{
	ereport(ERROR,
			(errcode(capped ? ERRCODE_INSUFFICIENT_PRIVILEGE : ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("the grant would raise the budget on %s%s%s beyond %s",
					t->domain ? "budget domain \"" : "", t->name, t->domain ? "\"" : "",
					capped ? "the self-grant cap or a total delta of 1" : "a total delta of 1"),
			 errdetail("Nothing was granted."),
			 errhint(capped ?
					 (t->domain ?
					  "A role may grant to itself (or roles it can act as) on a budget domain whose member tables it does not all own at most dpobj.max_self_grant_epsilon / dpobj.max_self_grant_delta in total, set by a superuser." :
					  "A dpobj_admin member may grant to itself (or roles it can act as) at most dpobj.max_self_grant_epsilon / dpobj.max_self_grant_delta in total, set by a superuser; the table's owner is not capped.") :
					 "A budget's total delta must stay below 1 (delta = 1 means no privacy).")));
}

/* the caps as numeric parameters ($5, $6), 'n' when not capped */
static void
grant_caps(bool capped, Numeric epsilon, Numeric delta, const BudgetTarget *t,
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
		grant_refused(t, true);
	values[4] = NumericGetDatum(cap_e);
	values[5] = NumericGetDatum(cap_d);
}

/*
 * The target (argument 1) and the caller's right to administer it: the
 * table's owner or dpobj_admin; a domain's owner or dpobj_admin.
 */
static void
budget_target(FunctionCallInfo fcinfo, bool grant, bool domain, BudgetTarget *t)
{
	const char *action = grant ? "grant privacy budgets on it" : "revoke privacy budgets on it";
	const char *fname = domain ? (grant ? "dpobj.grant_domain_budget" : "dpobj.revoke_domain_budget") :
		(grant ? "dpobj.grant_budget" : "dpobj.revoke_budget");

	t->domain = domain;
	t->relid = InvalidOid;
	if (!domain)
	{
		t->name = admin_relation(fcinfo, grant ? 4 : 2, fname, &t->relid);
		dp_check_role(PG_GETARG_OID(1));
		check_can_administer(GetUserId(), t->relid, t->name, action);
		return;
	}
	dpobj_verify_schema();
	dp_check_not_null(fcinfo, grant ? 4 : 2, fname);
	t->name = pstrdup(NameStr(*PG_GETARG_NAME(0)));
	dp_check_role(PG_GETARG_OID(1));
	t->owner = budget_domain_owner(t->name);
	budget_domain_check_admin(GetUserId(), t->name, t->owner, action);
}

/* inside SPI: the statement of a grant or revoke, as the bootstrap superuser */
static int
budget_update_exec(const BudgetTarget *t, bool grant, Datum *values, char *nulls)
{
	Oid			types[8] = {t->domain ? NAMEOID : REGCLASSOID, REGROLEOID,
	NUMERICOID, NUMERICOID, NUMERICOID, NUMERICOID, NUMERICOID, NUMERICOID};
	RoleSwitch	rs;
	char	   *domain = NULL;
	int			ret;

	role_switch_begin(&rs, BOOTSTRAP_SUPERUSERID, false);
	if (!t->domain)
		domain = check_protected(values[0], t->name,
								 grant ? "dpobj.grant_budget" : "dpobj.revoke_budget");
	if (domain != NULL)
		refuse_member(t->name, domain);
	if (grant)
		ret = SPI_execute_with_args(grant_sql[t->domain], 8, types, values, nulls, false, 1);
	else
		ret = SPI_execute_with_args(revoke_sql[t->domain], 2, types, values, NULL, false, 1);
	role_switch_end(&rs);
	return ret;
}

static Datum
budget_update(FunctionCallInfo fcinfo, bool grant, bool domain)
{
	Oid			caller = GetUserId();
	Oid			analyst;
	BudgetTarget t;
	bool		capped = false;
	Datum		values[8];
	char		nulls[8] = {' ', ' ', ' ', ' ', ' ', ' ', ' ', ' '};
	int			ret;
	HeapTupleHeader result = NULL;

	budget_target(fcinfo, grant, domain, &t);
	analyst = PG_GETARG_OID(1);
	values[0] = domain ? PG_GETARG_DATUM(0) : ObjectIdGetDatum(t.relid);
	values[1] = ObjectIdGetDatum(analyst);
	if (grant)
	{
		dp_check_amount(PG_GETARG_NUMERIC(2), "epsilon", true, false);
		dp_check_amount(PG_GETARG_NUMERIC(3), "delta", true, true);
		values[2] = NumericGetDatum(PG_GETARG_NUMERIC(2));
		values[3] = NumericGetDatum(PG_GETARG_NUMERIC(3));
		capped = self_grant(caller, &t, analyst);
		grant_caps(capped, PG_GETARG_NUMERIC(2), PG_GETARG_NUMERIC(3), &t, values, nulls);
		/* a new budget's reserve share: this session's setting (kept on top-ups) */
		values[6] = DirectFunctionCall1(float8_numeric, Float8GetDatum(dpobj_approx_delta_reserve));
		values[7] = NumericGetDatum(dp_numeric_of_text(ACCOUNT_BASIC_SHARE));
	}

	SPI_connect();
	ret = budget_update_exec(&t, grant, values, nulls);
	if (ret != (grant ? SPI_OK_INSERT_RETURNING : SPI_OK_UPDATE_RETURNING))
		elog(ERROR, "dpobj: budget update failed: SPI result %d", ret);
	if (SPI_processed == 1)
	{
		TupleDesc	rettype;

		result = SPI_returntuple(SPI_tuptable->vals[0], SPI_tuptable->tupdesc);
		/* the same columns as the declared dpobj.budget_summary: take its type */
		if (get_call_result_type(fcinfo, NULL, &rettype) != TYPEFUNC_COMPOSITE)
			elog(ERROR, "dpobj: a budget function must return a composite type");
		HeapTupleHeaderSetTypeId(result, rettype->tdtypeid);
		HeapTupleHeaderSetTypMod(result, rettype->tdtypmod);
	}
	SPI_finish();

	if (result == NULL && grant)
		grant_refused(&t, capped);
	if (result == NULL)
	{
		ereport(NOTICE,
				(errmsg("role has no privacy budget on %s%s%s; nothing to revoke",
						domain ? "budget domain \"" : "table ", t.name, domain ? "\"" : "")));
		PG_RETURN_NULL();
	}
	PG_RETURN_DATUM(PointerGetDatum(result));
}

Datum
dpobj_grant_budget(PG_FUNCTION_ARGS)
{
	return budget_update(fcinfo, true, false);
}

Datum
dpobj_revoke_budget(PG_FUNCTION_ARGS)
{
	return budget_update(fcinfo, false, false);
}

Datum
dpobj_grant_domain_budget(PG_FUNCTION_ARGS)
{
	return budget_update(fcinfo, true, true);
}

Datum
dpobj_revoke_domain_budget(PG_FUNCTION_ARGS)
{
	return budget_update(fcinfo, false, true);
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
	values[2] = BoolGetDatum(compat_class_ownercheck(relid, caller));
	units_lock_protection(relid, ExclusiveLock);
	SPI_connect();
	role_switch_begin(&rs, BOOTSTRAP_SUPERUSERID, false);
	(void) check_protected(values[0], relation, "dpobj.set_release_deadline");
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
