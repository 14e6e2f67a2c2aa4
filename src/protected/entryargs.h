/*-------------------------------------------------------------------------
 *
 * entryargs.h
 *	  Argument checks shared by dpobj's SQL entry points (protect,
 *	  unprotect, grant_budget, revoke_budget, train, submit): NULLs, the
 *	  relation argument, privacy amounts.  Implemented in entryargs.c.
 *	  Every error names the caller's argument, never a row value.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_ENTRYARGS_H
#define DPOBJ_ENTRYARGS_H

#include "postgres.h"

#include "fmgr.h"
#include "utils/numeric.h"

#include "base/dpnumeric.h"

/* the first nargs arguments are not NULL */
extern void dp_check_not_null(FunctionCallInfo fcinfo, int nargs, const char *fname);

/*
 * Locks the relation (AccessShareLock, until the end of the transaction,
 * so it cannot be dropped under us) and returns its qualified name.
 */
extern char *dp_lock_relation(Oid relid, char *relkind);

/* an existing role */
extern void dp_check_role(Oid roleid);

/*
 * A budget amount or a request: finite numeric, and >= 0 (allow_zero) or
 * > 0; delta also < 1.
 */
extern void dp_check_amount(Numeric n, const char *what, bool allow_zero, bool is_delta);



/*
 * The float8 handed to the mechanism for a charged numeric: the largest
 * float8 not above it, so that the noise is calibrated for at most what is
 * charged.  0 is 0; other values outside (1e-300, 1e300) are refused with
 * a hint.
 */
extern double dp_numeric_to_float8_down(Numeric n, const char *what);

#endif							/* DPOBJ_ENTRYARGS_H */
