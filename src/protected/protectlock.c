/*-------------------------------------------------------------------------
 *
 * protectlock.c
 *	  The lock on a table's protection (protectlock.h): an advisory lock
 *	  tag of dpobj's own class on the table's OID.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "storage/lock.h"

#include "protected/protectlock.h"

/* advisory tag class of the protection's lock (runlimit.c has 0x4450) */
#define PROTECTION_LOCK_CLASS	0x4451

void
units_lock_protection(Oid relid, LOCKMODE mode)
{
	LOCKTAG		tag;

	SET_LOCKTAG_ADVISORY(tag, MyDatabaseId, relid, 0, PROTECTION_LOCK_CLASS);
	(void) LockAcquire(&tag, mode, false, false);
}
