/*-------------------------------------------------------------------------
 *
 * sqlargs.c
 *	  The NULL check of an SQL entry point's arguments (sqlargs.h).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "base/sqlargs.h"

void
dp_check_not_null(FunctionCallInfo fcinfo, int nargs, const char *fname)
{
	for (int i = 0; i < nargs; i++)
		if (PG_ARGISNULL(i))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("%s: argument %d must not be NULL", fname, i + 1),
					 errhint("See docs/USAGE.md, \"Privacy budgets\".")));
}
