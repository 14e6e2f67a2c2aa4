/*-------------------------------------------------------------------------
 *
 * roleguard.c
 *	  DROP ROLE of a role that dpobj's accounting names by OID
 *	  (roleguard.h).
 *
 * Budgets (rolid) and budget domains (owner) name roles by OID.  A role
 * dropped while it owns a domain or holds a budget with epsilon left
 * would leave both to whichever role is later created with that OID (OIDs
 * wrap), or, after a dump and restore, to the role the bare number names
 * there: budget on tables whose owners never granted it.  The object
 * access hook refuses the drop (before anything is removed) in a database
 * where dpobj is installed at this library's version; the domain's owner
 * or an administrator revokes the budgets or drops the domain first.  It
 * sees only the database the DROP ROLE runs in (roles are cluster-wide,
 * dpobj's tables are not): docs/SECURITY.md.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "base/dpobj.h"
#include "base/privileged.h"
#include "protected/roleguard.h"

#include "catalog/objectaccess.h"
#include "catalog/pg_authid.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "storage/lmgr.h"
#include "utils/syscache.h"

static object_access_hook_type prev_object_access = NULL;

/* a budget with epsilon left (every run charges epsilon), or a domain */
static const char held_sql[] =
"SELECT 'a budget domain' FROM dpobj.budget_domains d "
" WHERE d.owner::pg_catalog.oid OPERATOR(pg_catalog.=) $1 "
"UNION ALL "
"SELECT 'a budget with epsilon left' FROM dpobj.budgets b "
" WHERE b.rolid::pg_catalog.oid OPERATOR(pg_catalog.=) $1 "
"   AND b.granted_epsilon OPERATOR(pg_catalog.>) dpobj.budget_spent_epsilon(b) "
"LIMIT 1";

static void
role_guard_check(Oid roleid)
{
	char	   *version = NULL;
	Oid			type = OIDOID;
	Datum		value = ObjectIdGetDatum(roleid);
	char	   *what = NULL;
	RoleSwitch	rs;
	int			ret;

	if (!OidIsValid(dpobj_extension_info(NULL, NULL, &version)) ||
		version == NULL || strcmp(version, DPOBJ_SQL_VERSION) != 0)
		return;
	dpobj_verify_schema();
	/* a grant or domain creation for the role waits, then is seen */
	LockSharedObject(AuthIdRelationId, roleid, 0, AccessExclusiveLock);
	SPI_connect();
	role_switch_begin(&rs, BOOTSTRAP_SUPERUSERID, false);
	ret = SPI_execute_with_args(held_sql, 1, &type, &value, NULL, false, 1);
	role_switch_end(&rs);
	if (ret < 0)
		elog(ERROR, "dpobj role guard: statement failed: SPI result %d", ret);
	if (SPI_processed > 0)
		what = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
	SPI_finish();
	if (what != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_DEPENDENT_OBJECTS_STILL_EXIST),
				 errmsg("role with OID %u holds %s in dpobj", roleid, what),
				 errdetail("dpobj names roles by OID: a role created later with this OID would get it."),
				 errhint("Revoke its budgets first (dpobj.revoke_budget, dpobj.revoke_domain_budget) and drop its budget domains (dpobj.drop_budget_domain).")));
}

static void
role_guard_object_access(ObjectAccessType access, Oid classId, Oid objectId,
						 int subId, void *arg)
{
	if (prev_object_access)
		prev_object_access(access, classId, objectId, subId, arg);
	if (access == OAT_DROP && classId == AuthIdRelationId && IsTransactionState())
		role_guard_check(objectId);
}

/* a grant to the role, or a domain it creates, holds off its drop */
void
dp_lock_role(Oid roleid)
{
	LockSharedObject(AuthIdRelationId, roleid, 0, AccessShareLock);
}

void
role_guard_init(void)
{
	prev_object_access = object_access_hook;
	object_access_hook = role_guard_object_access;
}
