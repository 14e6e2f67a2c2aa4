/*-------------------------------------------------------------------------
 *
 * entryargs.c
 *	  Argument checks shared by dpobj's SQL entry points (entryargs.h).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "protected/entryargs.h"
#include "protected/roleguard.h"

#include "access/xact.h"
#include "access/xlog.h"
#include "catalog/pg_class.h"
#include "storage/lmgr.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

char *
dp_relation_name(Oid relid)
{
	char	   *nsp = get_namespace_name(get_rel_namespace(relid));
	char	   *name = get_rel_name(relid);

	if (nsp == NULL || name == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", relid),
				 errhint("Pass the table as 'schema.table'::regclass.")));
	return quote_qualified_identifier(nsp, name);
}

char *
dp_lock_relation(Oid relid, char *relkind)
{
	char	   *name;

	if (!SearchSysCacheExists1(RELOID, ObjectIdGetDatum(relid)))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", relid),
				 errhint("Pass the table as 'schema.table'::regclass.")));
	LockRelationOid(relid, AccessShareLock);
	name = dp_relation_name(relid);
	*relkind = get_rel_relkind(relid);
	return name;
}

void
dp_refuse_read_only(const char *fname, const char *what)
{
	if (XactReadOnly || RecoveryInProgress())
		ereport(ERROR,
				(errcode(ERRCODE_READ_ONLY_SQL_TRANSACTION),
				 errmsg("%s cannot run in a read-only transaction", fname),
				 errdetail("It writes %s after its charge. Nothing was charged.", what),
				 errhint("Run it in a read-write transaction on the primary server.")));
}

void
dp_check_role(Oid roleid)
{
	if (OidIsValid(roleid))
		dp_lock_role(roleid);
	if (!OidIsValid(roleid) ||
		!SearchSysCacheExists1(AUTHOID, ObjectIdGetDatum(roleid)))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("role with OID %u does not exist", roleid),
				 errhint("Pass an existing role, e.g. 'analyst'::regrole.")));
}

void
dp_check_amount(Numeric n, const char *what, bool allow_zero, bool is_delta)
{
	int			c0;

	if (numeric_is_nan(n) || numeric_is_inf(n))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must be a finite number", what),
				 errhint("NaN and infinity are not privacy parameters.")));
	c0 = dp_numeric_cmp(n, dp_numeric_of_text("0"));
	if (c0 < 0 || (c0 == 0 && !allow_zero))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must be %s zero", what, allow_zero ? "at least" : "greater than"),
				 errhint(is_delta ? "A common choice is delta = 1/n^2 for n rows." :
						 "Typical values of epsilon are between 0.01 and 10.")));
	if (is_delta && dp_numeric_cmp(n, dp_numeric_of_text("1")) >= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must be less than 1", what),
				 errhint("A common choice is delta = 1/n^2 for n rows.")));
}
