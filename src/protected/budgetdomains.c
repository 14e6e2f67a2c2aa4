/*-------------------------------------------------------------------------
 *
 * budgetdomains.c
 *	  Budget domains (budgetdomains.h; docs/PRIVACY.md "Budget domains"):
 *
 *	  dpobj.create_budget_domain(name)          any role; it owns the domain
 *	  dpobj.drop_budget_domain(name)            domain owner / superuser
 *	  dpobj.set_budget_domain(rel, name|NULL[, domain_owner])
 *	                                            table owner; joining: with the
 *	                                            domain owner's agreement
 *	                                            (domainjoin.c)
 *
 * A domain says that the privacy unit columns of its member tables
 * identify the same people, so one budget per role covers them all: runs
 * on any member are admitted against and charged to the domain's budget
 * (dpobj.budget_for() in the SQL script picks it for train()'s pre-check,
 * dpobj.runs_left and the ledger writer's debit).  Only a table with a
 * privacy unit joins; a member has no budgets of its own.  Joining is
 * refused while the table has budgets of its own (their spend would not
 * count against the domain's), and joining or leaving needs the table
 * owner's privileges, as unprotect() does: both change which spend counts;
 * joining also needs the domain owner's agreement and re-checks the
 * self-grant caps of the domain's budgets (domainjoin.c).
 * A member counts only while the role that joined it owns the table
 * (protected_tables.domain_joined_by; budget_for): a table handed to
 * another role (ALTER TABLE ... OWNER TO) finds no budget until its new
 * owner joins again, since that owner never agreed to the domain's grants.
 * Nothing here reads a protected table.
 *
 * Identity as in budget.c: SECURITY INVOKER entry points that take the
 * caller from GetUserId() and switch to the bootstrap superuser only for
 * fixed, parameterised statements on dpobj's catalog.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "protected/budgetdomains.h"
#include "protected/domainjoin.h"
#include "base/dpobj.h"
#include "protected/entryargs.h"
#include "base/pg_compat.h"
#include "base/privileged.h"
#include "protected/roleact.h"
#include "protected/roleguard.h"
#include "protected/spiplans.h"
#include "protected/units.h"

#include "catalog/pg_authid.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"

PG_FUNCTION_INFO_V1(dpobj_create_budget_domain);
PG_FUNCTION_INFO_V1(dpobj_drop_budget_domain);
PG_FUNCTION_INFO_V1(dpobj_set_budget_domain);
PG_FUNCTION_INFO_V1(dpobj_set_budget_domain_owned);
PG_FUNCTION_INFO_V1(dpobj_budget_for);

/* run one fixed statement as the bootstrap superuser (inside SPI) */
static int
domain_exec(const char *sql, int nargs, Oid *types, Datum *values, const char *nulls,
			const char *fname)
{
	RoleSwitch	rs;
	int			ret;

	role_switch_begin(&rs, BOOTSTRAP_SUPERUSERID, false);
	ret = SPI_execute_with_args(sql, nargs, types, values, nulls, false, 0);
	role_switch_end(&rs);
	if (ret < 0)
		elog(ERROR, "%s: statement failed: SPI result %d", fname, ret);
	return ret;
}

/* the name argument: not NULL, not empty */
static char *
domain_name_arg(FunctionCallInfo fcinfo, int argno, const char *fname)
{
	char	   *name;

	if (PG_ARGISNULL(argno))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s: the budget domain must not be NULL", fname),
				 errhint("Pass the domain's name, e.g. 'customers'.")));
	name = pstrdup(NameStr(*PG_GETARG_NAME(argno)));
	if (name[0] == '\0')
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: the budget domain's name must not be empty", fname),
				 errhint("Pass the domain's name, e.g. 'customers'.")));
	return name;
}

/* a name datum (NAMEDATALEN bytes, as the type needs) */
static Datum
domain_datum(const char *domain)
{
	Name		n = palloc0(NAMEDATALEN);

	namestrcpy(n, domain);
	return NameGetDatum(n);
}

/* does caller own every member table (false for an empty domain)?  Latest state */
static const char owns_all_sql[] =
"SELECT pg_catalog.count(*) OPERATOR(pg_catalog.>) 0 "
"       AND pg_catalog.bool_and(pg_catalog.pg_has_role($2, c.relowner, 'USAGE')) "
"  FROM dpobj.protected_tables p JOIN pg_catalog.pg_class c "
"    ON c.oid OPERATOR(pg_catalog.=) p.relid::pg_catalog.oid "
" WHERE p.budget_domain OPERATOR(pg_catalog.=) $1";

bool
budget_domain_self_grant(Oid caller, const char *domain, Oid analyst)
{
	Oid			types[2] = {NAMEOID, OIDOID};
	Datum		values[2];
	bool		isnull;
	bool		owns_all = false;

	if (superuser_arg(caller) || !roles_share_actor(caller, analyst))
		return false;
	values[0] = domain_datum(domain);
	values[1] = ObjectIdGetDatum(caller);
	SPI_connect();
	if (domain_select_latest(owns_all_sql, 2, types, values, "budget domain") == SPI_OK_SELECT &&
		SPI_processed == 1)
	{
		Datum		d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);

		owns_all = !isnull && DatumGetBool(d);
	}
	SPI_finish();
	return !owns_all;
}

/* ---------------------------------------------------------------------
 * dpobj.create_budget_domain(budget_domain name) RETURNS boolean
 * ---------------------------------------------------------------------
 */

static const char create_sql[] =
"INSERT INTO dpobj.budget_domains (name, owner) VALUES ($1, $2) "
"ON CONFLICT (name) DO NOTHING RETURNING name";

/*
 * Any role may create a domain: an empty domain covers no rows, a grant on
 * it to a role its owner can act as is capped (budget_domain_self_grant),
 * and a table joins only when its owner and the domain's agree
 * (domainjoin.c).  A name that exists is an error, never a quiet success:
 * a data owner that meant to create it must learn that another role owns
 * it.
 */
Datum
dpobj_create_budget_domain(PG_FUNCTION_ARGS)
{
	char	   *domain;
	Oid			types[2] = {NAMEOID, REGROLEOID};
	Datum		values[2];
	bool		created;

	dpobj_verify_schema();
	domain = domain_name_arg(fcinfo, 0, "dpobj.create_budget_domain");
	values[0] = domain_datum(domain);
	values[1] = ObjectIdGetDatum(GetUserId());
	dp_lock_role(GetUserId());
	SPI_connect();
	if (domain_exec(create_sql, 2, types, values, NULL,
					"dpobj.create_budget_domain") != SPI_OK_INSERT_RETURNING)
		elog(ERROR, "dpobj.create_budget_domain: insert failed");
	created = (SPI_processed == 1);
	SPI_finish();
	if (!created)
		ereport(ERROR,
				(errcode(ERRCODE_DUPLICATE_OBJECT),
				 errmsg("budget domain \"%s\" already exists", domain),
				 errdetail("A domain belongs to the role that created it; dpobj.budget_domains names its owner."),
				 errhint("Choose another name, or, if the owner named there is the one you mean, ask it to allow your table (dpobj.allow_budget_domain_member).")));
	PG_RETURN_BOOL(true);
}

/* ---------------------------------------------------------------------
 * dpobj.drop_budget_domain(budget_domain name) RETURNS boolean
 * ---------------------------------------------------------------------
 */

static const char drop_lock_sql[] =
"SELECT owner::pg_catalog.oid, "
"       EXISTS (SELECT 1 FROM dpobj.protected_tables p "
"                WHERE p.budget_domain OPERATOR(pg_catalog.=) $1) "
"  FROM dpobj.budget_domains WHERE name OPERATOR(pg_catalog.=) $1 FOR UPDATE";
/* budgets first (they reference the domain); the ledger keeps history */
static const char drop_budgets_sql[] =
"DELETE FROM dpobj.budgets WHERE budget_domain OPERATOR(pg_catalog.=) $1";
static const char drop_sql[] =
"DELETE FROM dpobj.budget_domains WHERE name OPERATOR(pg_catalog.=) $1";

/*
 * Dropping forgets the domain's budgets and their spend, so, like
 * unprotect(), it needs the owner's privileges (dpobj_admin members can
 * revoke instead); and it waits until no table is a member, so that no
 * member is left without the budget its runs were charged to.
 */
Datum
dpobj_drop_budget_domain(PG_FUNCTION_ARGS)
{
	const char *fname = "dpobj.drop_budget_domain";
	char	   *domain;
	Oid			types[1] = {NAMEOID};
	Datum		values[1];
	bool		isnull;
	Oid			owner;
	bool		members;

	dpobj_verify_schema();
	domain = domain_name_arg(fcinfo, 0, fname);
	values[0] = domain_datum(domain);
	SPI_connect();
	if (domain_exec(drop_lock_sql, 1, types, values, NULL, fname) != SPI_OK_SELECT)
		elog(ERROR, "%s: lookup failed", fname);
	if (SPI_processed == 0)
	{
		SPI_finish();
		ereport(NOTICE,
				(errmsg("budget domain \"%s\" does not exist; nothing to drop", domain)));
		PG_RETURN_BOOL(false);
	}
	owner = DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	members = DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull));
	if (GetUserId() != owner && !superuser())
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("must be the owner of budget domain \"%s\" to drop it", domain),
				 errhint("Dropping a domain forgets its budgets and their spend, so only its owner or a superuser may do it; dpobj_admin members can revoke budgets instead.")));
	if (members)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_IN_USE),
				 errmsg("budget domain \"%s\" still has member tables", domain),
				 errhint("Their owners must take them out first with dpobj.set_budget_domain(rel, NULL) (or dpobj.unprotect(rel)).")));
	domain_exec(drop_budgets_sql, 1, types, values, NULL, fname);
	domain_exec(drop_sql, 1, types, values, NULL, fname);
	SPI_finish();
	PG_RETURN_BOOL(true);
}

/* ---------------------------------------------------------------------
 * dpobj.set_budget_domain(rel regclass, budget_domain name) RETURNS boolean
 * ---------------------------------------------------------------------
 */

/*
 * The protection row, locked: a run holds the protection's lock until its
 * transaction ends (units.h) and budget_domain_set() takes it first, so
 * the membership a run was admitted under is the one it is charged under;
 * a grant on the table holds the row FOR SHARE (budget.c), so the check
 * for own budgets below sees every grant.
 */
static const char member_lock_sql[] =
"SELECT budget_domain::pg_catalog.text, privacy_unit IS NOT NULL "
"  FROM dpobj.protected_tables WHERE relid OPERATOR(pg_catalog.=) $1 FOR UPDATE";
static const char own_budgets_sql[] =
"SELECT 1 FROM dpobj.budgets WHERE relid OPERATOR(pg_catalog.=) $1 LIMIT 1";
/* $3: the table's owner that joins (NULL: leaving), recorded as its consent */
static const char member_set_sql[] =
"UPDATE dpobj.protected_tables SET budget_domain = $2, domain_joined_by = $3 "
" WHERE relid OPERATOR(pg_catalog.=) $1";

/* inside SPI: the table's current domain (NULL: none) and whether it has a unit */
static char *
member_lock(Datum relid, const char *relation, bool *has_unit)
{
	Oid			type = REGCLASSOID;
	bool		isnull;
	char	   *current;

	if (domain_exec(member_lock_sql, 1, &type, &relid, NULL, "dpobj.set_budget_domain") != SPI_OK_SELECT)
		elog(ERROR, "dpobj.set_budget_domain: lookup failed");
	if (SPI_processed == 0)
		ereport(ERROR,
				(errcode(ERRCODE_DPOBJ_NOT_PROTECTED),
				 errmsg("table %s is not protected by dpobj", relation),
				 errhint("Call dpobj.protect('%s', privacy_unit => ..., max_rows_per_unit => ..., budget_domain => ...) instead.",
						 relation)));
	current = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
	*has_unit = DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull));
	return current;
}

/* inside SPI: the checks before relid joins domain (public: the catalog) */
static void
join_checks(Datum relid, const char *relation, const char *domain,
			const char *current, bool has_unit, Oid named_owner)
{
	Oid			type = REGCLASSOID;

	if (current != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("table %s is already in budget domain \"%s\"", relation, current),
				 errhint("Take it out first with dpobj.set_budget_domain('%s', NULL); the spend on \"%s\" does not move with it.",
						 relation, current)));
	if (!has_unit)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("table %s has no privacy unit", relation),
				 errhint("Only a table protected with dpobj.protect(rel, privacy_unit => ..., max_rows_per_unit => ...) joins a budget domain: its unit column must identify the same people as the other members'.")));
	domain_join_check_agreed(DatumGetObjectId(relid), relation, domain, named_owner);
	if (domain_exec(own_budgets_sql, 1, &type, &relid, NULL, "dpobj.set_budget_domain") != SPI_OK_SELECT)
		elog(ERROR, "dpobj.set_budget_domain: lookup failed");
	if (SPI_processed > 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("table %s has privacy budgets of its own", relation),
				 errdetail("Their spend would not count against the domain's budgets."),
				 errhint("Put the table into the domain before granting budgets on it, or unprotect it (its owner; the ledger keeps every charge) and protect it again with budget_domain => '%s'.",
						 domain)));
	domain_join_check_caps(DatumGetObjectId(relid), relation, domain);
	unitchange_check_join(DatumGetObjectId(relid), relation, domain);
}

bool
budget_domain_set(Oid caller, Oid relid, const char *relation, const char *domain,
				  Oid named_owner)
{
	Oid			types[3] = {REGCLASSOID, NAMEOID, REGROLEOID};
	Datum		values[3];
	char		nulls[3] = {' ', ' ', ' '};
	char	   *current;
	bool		has_unit;

	if (!compat_class_ownercheck(relid, caller))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("must be the owner of table %s to change its budget domain", relation),
				 errhint("Joining or leaving a budget domain changes which spend counts for the table's rows, so only its owner or a superuser may do it.")));
	/* joining is the owner's consent: its own act, not a member's */
	if (domain != NULL && caller != domain_table_owner(relid))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("only role \"%s\", the owner of table %s, can put it into a budget domain",
						GetUserNameFromId(domain_table_owner(relid), false), relation),
				 errhint("Joining shares the table's rows with the domain's budgets; its owner agrees itself (SET ROLE to it first).")));
	values[0] = ObjectIdGetDatum(relid);
	values[1] = domain != NULL ? domain_datum(domain) : (Datum) 0;
	nulls[1] = nulls[2] = domain != NULL ? ' ' : 'n';
	values[2] = ObjectIdGetDatum(domain != NULL ? domain_table_owner(relid) : InvalidOid);
	SPI_connect();
	units_lock_protection(relid, ExclusiveLock);
	current = member_lock(values[0], relation, &has_unit);
	if (domain == NULL ? current == NULL : (current != NULL && strcmp(current, domain) == 0))
	{
		SPI_finish();
		return false;
	}
	if (domain != NULL)
		join_checks(values[0], relation, domain, current, has_unit, named_owner);
	if (domain_exec(member_set_sql, 3, types, values, nulls, "dpobj.set_budget_domain") != SPI_OK_UPDATE)
		elog(ERROR, "dpobj.set_budget_domain: update failed");
	SPI_finish();
	return true;
}

Datum
dpobj_set_budget_domain(PG_FUNCTION_ARGS)
{
	Oid			relid;
	char		relkind;
	char	   *relation;
	char	   *domain = NULL;

	dpobj_verify_schema();
	dp_check_not_null(fcinfo, 1, "dpobj.set_budget_domain");
	relid = PG_GETARG_OID(0);
	relation = dp_lock_relation(relid, &relkind);
	if (!PG_ARGISNULL(1))
		domain = domain_name_arg(fcinfo, 1, "dpobj.set_budget_domain");
	PG_RETURN_BOOL(budget_domain_set(GetUserId(), relid, relation, domain, InvalidOid));
}

/* dpobj.set_budget_domain(rel, budget_domain, domain_owner regrole): join a
 * domain another role owns and allowed the table into */
Datum
dpobj_set_budget_domain_owned(PG_FUNCTION_ARGS)
{
	Oid			relid;
	char		relkind;
	char	   *relation;
	char	   *domain;

	dpobj_verify_schema();
	dp_check_not_null(fcinfo, 3, "dpobj.set_budget_domain");
	relid = PG_GETARG_OID(0);
	relation = dp_lock_relation(relid, &relkind);
	domain = domain_name_arg(fcinfo, 1, "dpobj.set_budget_domain");
	PG_RETURN_BOOL(budget_domain_set(GetUserId(), relid, relation, domain, PG_GETARG_OID(2)));
}

/*
 * dpobj.budget_for(rel, analyst): the dpobj.budgets row a run of analyst on
 * rel is admitted against and charged to -- the budget domain's if rel is
 * a member still owned by the role that joined it, else the table's own;
 * NULL if none.  Every protected run calls
 * it twice (train()'s pre-check, the ledger writer's debit), so it runs a
 * kept plan instead of being a SQL function parsed and planned at every
 * call.  Internal (not PUBLIC): its callers run as the bootstrap superuser.
 */
static const char budget_for_sql[] =
"SELECT b.id FROM dpobj.protected_tables p "
"  JOIN dpobj.budgets b "
"    ON CASE WHEN p.budget_domain IS NULL THEN b.relid OPERATOR(pg_catalog.=) p.relid "
"            ELSE b.budget_domain OPERATOR(pg_catalog.=) p.budget_domain END "
" WHERE p.relid OPERATOR(pg_catalog.=) $1 AND b.rolid OPERATOR(pg_catalog.=) $2 "
"   AND (p.budget_domain IS NULL OR p.domain_joined_by OPERATOR(pg_catalog.=) "
"        (SELECT c.relowner FROM pg_catalog.pg_class c "
"          WHERE c.oid OPERATOR(pg_catalog.=) p.relid::pg_catalog.oid))";

bool
budget_for_id(Oid relid, Oid analyst, int64 *id)
{
	Oid			types[2] = {REGCLASSOID, REGROLEOID};
	Datum		values[2] = {ObjectIdGetDatum(relid), ObjectIdGetDatum(analyst)};
	bool		isnull = true;

	SPI_connect();
	if (dp_spi_run(budget_for_sql, 2, types, values, NULL, true, 1) != SPI_OK_SELECT)
		elog(ERROR, "dpobj.budget_for: lookup failed");
	if (SPI_processed > 0)
		*id = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1,
										  &isnull));
	SPI_finish();
	return !isnull;
}

Datum
dpobj_budget_for(PG_FUNCTION_ARGS)
{
	int64		id;

	if (!budget_for_id(PG_GETARG_OID(0), PG_GETARG_OID(1), &id))
		PG_RETURN_NULL();
	PG_RETURN_INT64(id);
}
