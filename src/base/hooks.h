/*-------------------------------------------------------------------------
 *
 * hooks.h
 *	  A hook's call of the one installed before it, or of PostgreSQL's
 *	  standard function when there was none: every dpobj hook passes the
 *	  statement on this way.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_HOOKS_H
#define DPOBJ_HOOKS_H

#include "tcop/utility.h"

static inline void
dp_next_process_utility(ProcessUtility_hook_type prev, PlannedStmt *pstmt,
						const char *queryString, bool readOnlyTree,
						ProcessUtilityContext context, ParamListInfo params,
						QueryEnvironment *queryEnv, DestReceiver *dest, QueryCompletion *qc)
{
	if (prev)
		prev(pstmt, queryString, readOnlyTree, context, params, queryEnv, dest, qc);
	else
		standard_ProcessUtility(pstmt, queryString, readOnlyTree, context, params,
								queryEnv, dest, qc);
}

#endif							/* DPOBJ_HOOKS_H */
