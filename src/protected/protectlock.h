/*-------------------------------------------------------------------------
 *
 * protectlock.h
 *	  The lock on a table's protection (protectlock.c), below units.c and
 *	  unitjoin.c, which both take it.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_PROTECTLOCK_H
#define DPOBJ_PROTECTLOCK_H

#include "postgres.h"

#include "storage/lockdefs.h"

/*
 * The lock on a table's protection, held to the end of the transaction: a
 * run takes it in ShareLock (for its table and each table it joins on the
 * unit), every change of the protection's row (protect, unprotect, a
 * budget domain, the release deadline) in ExclusiveLock first.  A
 * heavyweight lock and not a row lock, so that concurrent runs share it
 * without a MultiXact and a write to the row each.
 */
extern void units_lock_protection(Oid relid, LOCKMODE mode);

#endif							/* DPOBJ_PROTECTLOCK_H */
