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
/* dp_check_not_null(): the first nargs arguments are not NULL */
#include "base/sqlargs.h"

/*
 * Locks the relation (AccessShareLock, until the end of the transaction,
 * so it cannot be dropped under us) and returns its qualified name.
 */
extern char *dp_lock_relation(Oid relid, char *relkind);

/*
 * The same name without a lock: for functions that start no run
 * (runs_left, cost), which must not hold a lock a role without privilege on
 * the table could use to block its owner's DDL
 */
extern char *dp_relation_name(Oid relid);

/*
 * An entry point that writes after its charge (what: what it writes) in a
 * transaction that cannot write -- read only, or on a hot standby: refused
 * before the charge (25006), as the write after it would fail for certain.
 */
extern void dp_refuse_read_only(const char *fname, const char *what);

/* an existing role */
extern void dp_check_role(Oid roleid);

/*
 * A budget amount or a request: finite numeric, and >= 0 (allow_zero) or
 * > 0; delta also < 1.
 */
extern void dp_check_amount(Numeric n, const char *what, bool allow_zero, bool is_delta);

#endif							/* DPOBJ_ENTRYARGS_H */
