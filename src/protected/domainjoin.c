/*-------------------------------------------------------------------------
 *
 * domainjoin.c
 *	  The agreement a table needs to join a budget domain (domainjoin.h).
 *
 * A domain is its owner's; a table is its owner's.  Joining makes the
 * domain's budgets (granted by the domain's owner and dpobj_admin) apply
 * to the table's rows, so both sides agree: the domain's owner (or a
 * dpobj_admin member) allows one table, as owned by one role, with
 * dpobj.allow_budget_domain_member(); that table's owner, having seen the
 * domain's budgets (dpobj.budgets shows them to it), joins naming the
 * domain's owner.  A table owner that is the domain's owner (or a member
 * of that role) agrees with itself.  A superuser is never implied on
 * either side: a join is never made by a privilege that did not look at
 * the domain's owner.
 *
 * Identity as in budget.c: SECURITY INVOKER entry points that take the
 * caller from GetUserId() and switch to the bootstrap superuser only for
 * fixed, parameterised statements on dpobj's catalog.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "protected/domainjoin.h"
#include "protected/domainowner.h"
#include "base/dpobj.h"
#include "protected/entryargs.h"
#include "base/privileged.h"

#include "catalog/pg_authid.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/numeric.h"
#include "utils/syscache.h"

PG_FUNCTION_INFO_V1(dpobj_allow_budget_domain_member);
PG_FUNCTION_INFO_V1(dpobj_disallow_budget_domain_member);

/* run one fixed statement as the bootstrap superuser (inside SPI) */
static int
join_exec(const char *sql, int nargs, Oid *types, Datum *values, const char *fname)
{
	RoleSwitch	rs;
	int			ret;

	role_switch_begin(&rs, BOOTSTRAP_SUPERUSERID, false);
	ret = SPI_execute_with_args(sql, nargs, types, values, NULL, false, 0);
	role_switch_end(&rs);
	if (ret < 0)
		elog(ERROR, "%s: statement failed: SPI result %d", fname, ret);
	return ret;
}

static Datum
join_name_datum(const char *domain)
{
	Name		n = palloc0(NAMEDATALEN);

	namestrcpy(n, domain);
	return NameGetDatum(n);
}

Oid
domain_table_owner(Oid relid)
{
	HeapTuple	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	Oid			owner;

	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for relation %u", relid);
	owner = ((Form_pg_class) GETSTRUCT(tup))->relowner;
	ReleaseSysCache(tup);
	return owner;
}

static const char allowed_sql[] =
"SELECT 1 FROM dpobj.budget_domain_allowed "
" WHERE budget_domain OPERATOR(pg_catalog.=) $1 AND relid OPERATOR(pg_catalog.=) $2 "
"   AND table_owner OPERATOR(pg_catalog.=) $3 FOR KEY SHARE";

static void join_check_owners(Oid relid, const char *relation, const char *domain,
							  Oid named_owner);

static bool
join_allowed(const char *domain, Oid relid, Oid table_owner)
{
	Oid			types[3] = {NAMEOID, REGCLASSOID, REGROLEOID};
	Datum		values[3];
	bool		found;

	values[0] = join_name_datum(domain);
	values[1] = ObjectIdGetDatum(relid);
	values[2] = ObjectIdGetDatum(table_owner);
	SPI_connect();
	found = join_exec(allowed_sql, 3, types, values, "dpobj.set_budget_domain") == SPI_OK_SELECT &&
		SPI_processed > 0;
	SPI_finish();
	return found;
}

/*
 * The domain's row FOR UPDATE, first in a join: a grant on the domain
 * holds it FOR KEY SHARE (budget_domain_owner) from before it computes
 * whether the granter owns every member until it commits, so a join and a
 * grant are serialised and each sees the other (READ COMMITTED: the later
 * statements take new snapshots); two joins queue instead of deadlocking.
 */
static const char lock_sql[] =
"SELECT 1 FROM dpobj.budget_domains WHERE name OPERATOR(pg_catalog.=) $1 FOR UPDATE";

void
domain_join_check_agreed(Oid relid, const char *relation, const char *domain, Oid named_owner)
{
	Oid			type = NAMEOID;
	Datum		value = join_name_datum(domain);

	SPI_connect();
	join_exec(lock_sql, 1, &type, &value, "dpobj.set_budget_domain");
	SPI_finish();
	join_check_owners(relid, relation, domain, named_owner);
}

static void
join_check_owners(Oid relid, const char *relation, const char *domain, Oid named_owner)
{
	Oid			owner = budget_domain_owner(domain);
	Oid			table_owner = domain_table_owner(relid);
	const char *owner_name = GetUserNameFromId(owner, true);

	if (owner_name == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("the owner of budget domain \"%s\" was dropped: no table joins it", domain),
				 errhint("Use another budget domain; a superuser may drop this one.")));
	if (table_owner == owner)
		return;
	if (!join_allowed(domain, relid, table_owner))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("budget domain \"%s\" of role \"%s\" has not allowed table %s to join",
						domain, owner_name, relation),
				 errdetail("Its budgets, granted by that role and dpobj_admin, would apply to the table's rows."),
				 errhint("If the domain of role \"%s\" is the one you mean, its owner (or a dpobj_admin member) calls dpobj.allow_budget_domain_member('%s', '%s'); then see its budgets in dpobj.budgets and join with dpobj.set_budget_domain('%s', '%s', '%s').",
						 owner_name, domain, relation, relation, domain, owner_name)));
	if (named_owner != owner)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg(OidIsValid(named_owner) ?
						"budget domain \"%s\" is owned by role \"%s\", not by the role named" :
						"budget domain \"%s\" is owned by role \"%s\": a table of another owner joins it only naming that role",
						domain, owner_name),
				 errdetail("Its budgets, granted by that role and dpobj_admin, would apply to the table's rows."),
				 errhint("See its budgets in dpobj.budgets; if you agree, join with dpobj.set_budget_domain('%s', '%s', '%s').",
						 relation, domain, owner_name)));
}

/*
 * a budget above the caps whose holder some non-superuser role R can act
 * as together with a role G (roleact.h), where G has the privileges of
 * every member's owner ($2: not of the joining table's, so the join
 * changes G's grants to that holder from uncapped to capped)
 */
static const char caps_sql[] =
"SELECT b.rolid::pg_catalog.text FROM dpobj.budgets b "
" WHERE b.budget_domain OPERATOR(pg_catalog.=) $1 "
"   AND (b.granted_epsilon OPERATOR(pg_catalog.>) b.spent_epsilon "
"        OR b.granted_delta OPERATOR(pg_catalog.>) b.spent_delta) "
"   AND (b.granted_epsilon OPERATOR(pg_catalog.>) $3 OR b.granted_delta OPERATOR(pg_catalog.>) $4) "
"   AND EXISTS (SELECT 1 FROM dpobj.protected_tables p "
"                WHERE p.budget_domain OPERATOR(pg_catalog.=) $1) "
"   AND EXISTS (SELECT 1 FROM pg_catalog.pg_roles g, pg_catalog.pg_roles r "
"        WHERE NOT g.rolsuper AND NOT r.rolsuper "
"          AND pg_catalog.pg_has_role(r.oid, g.oid, 'MEMBER') "
"          AND pg_catalog.pg_has_role(r.oid, b.rolid::pg_catalog.oid, 'MEMBER') "
"          AND NOT pg_catalog.pg_has_role(g.oid, $2, 'USAGE') "
"          AND NOT EXISTS (SELECT 1 FROM dpobj.protected_tables p "
"                  JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) p.relid::pg_catalog.oid "
"                 WHERE p.budget_domain OPERATOR(pg_catalog.=) $1 "
"                   AND NOT pg_catalog.pg_has_role(g.oid, c.relowner, 'USAGE'))) "
" ORDER BY 1 LIMIT 1";

void
domain_join_check_caps(Oid relid, const char *relation, const char *domain)
{
	Oid			types[4] = {NAMEOID, OIDOID, NUMERICOID, NUMERICOID};
	Datum		values[4];
	char	   *holder = NULL;

	values[0] = join_name_datum(domain);
	values[1] = ObjectIdGetDatum(domain_table_owner(relid));
	values[2] = NumericGetDatum(dp_numeric_of_float8(dpobj_max_self_grant_epsilon));
	values[3] = NumericGetDatum(dp_numeric_of_float8(dpobj_max_self_grant_delta));
	SPI_connect();
	if (domain_select_latest(caps_sql, 4, types, values, "dpobj.set_budget_domain") == SPI_OK_SELECT &&
		SPI_processed > 0)
		holder = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
	if (holder != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("budget domain \"%s\" has a budget of role %s above the self-grant caps",
						domain, holder),
				 errdetail("A role that owns every member table but not %s could have granted it uncapped to a role that one role acts as together with it; with %s in the domain it could not.",
						   relation, relation),
				 errhint("The domain's owner or a dpobj_admin member revokes that budget first (dpobj.revoke_domain_budget); then grant again within the caps or from a role that cannot act as %s.",
						 holder)));
	SPI_finish();
}

/* ---------------------------------------------------------------------
 * dpobj.allow_budget_domain_member(budget_domain name, rel regclass)
 * dpobj.disallow_budget_domain_member(budget_domain name, rel regclass)
 *	RETURNS boolean
 * ---------------------------------------------------------------------
 */

static const char allow_sql[] =
"INSERT INTO dpobj.budget_domain_allowed (budget_domain, relid, table_owner, allowed_by) "
"VALUES ($1, $2, $3, $4) "
"ON CONFLICT (budget_domain, relid) DO UPDATE SET table_owner = excluded.table_owner, "
"       allowed_by = excluded.allowed_by, allowed_at = excluded.allowed_at "
" WHERE budget_domain_allowed.table_owner OPERATOR(pg_catalog.<>) excluded.table_owner "
"RETURNING 1";
static const char unit_sql[] =
"SELECT 1 FROM dpobj.protected_tables "
" WHERE relid OPERATOR(pg_catalog.=) $1 AND privacy_unit IS NOT NULL FOR KEY SHARE";
static const char disallow_sql[] =
"DELETE FROM dpobj.budget_domain_allowed "
" WHERE budget_domain OPERATOR(pg_catalog.=) $1 AND relid OPERATOR(pg_catalog.=) $2 RETURNING 1";

/* the arguments, the caller's right to speak for the domain, the table locked */
static Datum *
allow_args(FunctionCallInfo fcinfo, const char *fname, char **relation)
{
	Datum	   *values = palloc0(4 * sizeof(Datum));
	const char *domain;
	Oid			relid;
	char		relkind;

	dp_check_not_null(fcinfo, 2, fname);
	domain = NameStr(*PG_GETARG_NAME(0));
	relid = PG_GETARG_OID(1);
	*relation = dp_lock_relation(relid, &relkind);
	budget_domain_check_admin(GetUserId(), domain, budget_domain_owner(domain),
							  "allow a table into it");
	values[0] = join_name_datum(domain);
	values[1] = ObjectIdGetDatum(relid);
	values[2] = ObjectIdGetDatum(domain_table_owner(relid));
	values[3] = ObjectIdGetDatum(GetUserId());
	return values;
}

/*
 * Only a protected table with a privacy unit is allowed (the allowance
 * goes with its protection); it holds while the table's owner is the one
 * of now, so a table handed to another role must be allowed again.
 */
Datum
dpobj_allow_budget_domain_member(PG_FUNCTION_ARGS)
{
	const char *fname = "dpobj.allow_budget_domain_member";
	Oid			types[4] = {NAMEOID, REGCLASSOID, REGROLEOID, REGROLEOID};
	char	   *relation;
	Datum	   *values;
	bool		allowed;

	dpobj_verify_schema();
	values = allow_args(fcinfo, fname, &relation);
	SPI_connect();
	if (join_exec(unit_sql, 1, &types[1], &values[1], fname) != SPI_OK_SELECT ||
		SPI_processed == 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("table %s has no privacy unit", relation),
				 errhint("Only a table protected with dpobj.protect(rel, privacy_unit => ..., max_rows_per_unit => ...) joins a budget domain; its owner protects it first.")));
	if (join_exec(allow_sql, 4, types, values, fname) != SPI_OK_INSERT_RETURNING)
		elog(ERROR, "%s: insert failed", fname);
	allowed = SPI_processed == 1;
	SPI_finish();
	PG_RETURN_BOOL(allowed);
}

Datum
dpobj_disallow_budget_domain_member(PG_FUNCTION_ARGS)
{
	const char *fname = "dpobj.disallow_budget_domain_member";
	Oid			types[2] = {NAMEOID, REGCLASSOID};
	char	   *relation;
	Datum	   *values;
	bool		removed;

	dpobj_verify_schema();
	values = allow_args(fcinfo, fname, &relation);
	SPI_connect();
	if (join_exec(disallow_sql, 2, types, values, fname) != SPI_OK_DELETE_RETURNING)
		elog(ERROR, "%s: delete failed", fname);
	removed = SPI_processed == 1;
	SPI_finish();
	PG_RETURN_BOOL(removed);
}
