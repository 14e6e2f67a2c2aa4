/*-------------------------------------------------------------------------
 *
 * domainowner.c
 *	  A budget domain's owner (domainowner.h): the lookup that locks the
 *	  domain's catalog row, and the check that the caller speaks for the
 *	  domain (its owner or dpobj_admin).  Used by the grants (budget.c),
 *	  membership (budgetdomains.c) and the join agreement (domainjoin.c).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "protected/domainowner.h"
#include "base/privileged.h"

#include "catalog/pg_authid.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/snapmgr.h"

static void
domain_missing(const char *domain)
{
	ereport(ERROR,
			(errcode(ERRCODE_UNDEFINED_OBJECT),
			 errmsg("budget domain \"%s\" does not exist", domain),
			 errhint("Create it with dpobj.create_budget_domain('%s').", domain)));
}

/*
 * A check that decides a grant's cap or a join reads the latest committed
 * state, not the transaction's snapshot: under REPEATABLE READ a grant
 * whose snapshot predates a join (or a join whose snapshot predates a
 * grant) would otherwise not see it.  The domain's row lock (FOR KEY SHARE
 * by a grant, FOR UPDATE by a join) orders the two; whichever comes second
 * sees the first here.  Inside SPI, as the bootstrap superuser.
 */
int
domain_select_latest(const char *sql, int nargs, Oid *types, Datum *values, const char *fname)
{
	SPIPlanPtr	plan;
	RoleSwitch	rs;
	int			ret;

	role_switch_begin(&rs, BOOTSTRAP_SUPERUSERID, false);
	plan = SPI_prepare(sql, nargs, types);
	if (plan == NULL)
		elog(ERROR, "%s: could not prepare a statement: SPI result %d", fname, SPI_result);
	ret = SPI_execute_snapshot(plan, values, NULL, GetLatestSnapshot(), InvalidSnapshot,
							   true, false, 0);
	role_switch_end(&rs);
	if (ret < 0)
		elog(ERROR, "%s: statement failed: SPI result %d", fname, ret);
	return ret;
}

static const char owner_sql[] =
"SELECT owner::pg_catalog.oid FROM dpobj.budget_domains "
" WHERE name OPERATOR(pg_catalog.=) $1 FOR KEY SHARE";

Oid
budget_domain_owner(const char *domain)
{
	Oid			types[1] = {NAMEOID};
	Datum		values[1];
	bool		isnull;
	Oid			owner = InvalidOid;
	Name		n = palloc0(NAMEDATALEN);
	RoleSwitch	rs;
	int			ret;

	namestrcpy(n, domain);
	values[0] = NameGetDatum(n);
	SPI_connect();
	role_switch_begin(&rs, BOOTSTRAP_SUPERUSERID, false);
	ret = SPI_execute_with_args(owner_sql, 1, types, values, NULL, false, 0);
	role_switch_end(&rs);
	if (ret < 0)
		elog(ERROR, "budget domain: owner lookup failed: SPI result %d", ret);
	if (ret == SPI_OK_SELECT && SPI_processed == 1)
		owner = DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc,
											   1, &isnull));
	SPI_finish();
	if (!OidIsValid(owner))
		domain_missing(domain);
	return owner;
}

/*
 * The domain's powers are its owner's own: a role that is merely a member
 * of the owner (or of a group the owner is in) does not get them; it
 * acts as the owner only after SET ROLE to it (or inside the owner's
 * SECURITY DEFINER function), and then a grant to itself is capped
 * (roleact.h).  dpobj_admin members and superusers administer every
 * domain.
 */
void
budget_domain_check_admin(Oid caller, const char *domain, Oid owner, const char *action)
{
	Oid			admin = get_role_oid("dpobj_admin", true);

	if (caller == owner || superuser_arg(caller))
		return;
	if (OidIsValid(admin) && has_privs_of_role(caller, admin))
		return;
	ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			 errmsg("must be the owner of budget domain \"%s\" or a member of dpobj_admin to %s",
					domain, action),
			 errhint("Only the domain's owner itself (the role that created it; its members after SET ROLE to it) or a member of dpobj_admin can do this.")));
}
