/*-------------------------------------------------------------------------
 *
 * sqlrefuse.c
 *	  A private query's refusals and its test of PostgreSQL's own objects
 *	  (sqlrefuse.h): shared by the compile (sqlcompile.c, sqlexpr.c) and
 *	  the joins' check (sqljoin.c).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/transam.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_operator.h"
#include "utils/syscache.h"

#include "protected/sqlrefuse.h"

void
sqlexpr_refuse(const char *construct)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("dpobj: a private query does not allow %s", construct),
			 errhint("A private query on a protected table is one aggregate SELECT: count, sum, avg, "
					 "variance, stddev, min, max, percentile_cont/disc; WHERE conditions; GROUP BY "
					 "columns; HAVING, ORDER BY, LIMIT (docs/REFERENCE.md, \"query\").")));
}

bool
sqlexpr_builtin(Oid oid)
{
	return OidIsValid(oid) && oid < FirstNormalObjectId;
}

char *
sqlexpr_builtin_op(Oid op)
{
	HeapTuple	tup;
	Form_pg_operator f;
	char	   *name = NULL;

	if (!sqlexpr_builtin(op))
		return NULL;
	tup = SearchSysCache1(OPEROID, ObjectIdGetDatum(op));
	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for operator %u", op);
	f = (Form_pg_operator) GETSTRUCT(tup);
	if (f->oprnamespace == PG_CATALOG_NAMESPACE)
		name = pstrdup(NameStr(f->oprname));
	ReleaseSysCache(tup);
	return name;
}
