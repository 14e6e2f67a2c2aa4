/*-------------------------------------------------------------------------
 *
 * roleguard.h
 *	  DROP ROLE refused while dpobj's accounting names the role
 *	  (roleguard.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_ROLEGUARD_H
#define DPOBJ_ROLEGUARD_H

extern void role_guard_init(void);
extern void dp_lock_role(Oid roleid);

#endif
