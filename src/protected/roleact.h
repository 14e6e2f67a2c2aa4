/*-------------------------------------------------------------------------
 *
 * roleact.h
 *	  Which roles can act as which (roleact.c; docs/SECURITY.md "Roles"):
 *	  what the self-grant caps of budget.c and budgetdomains.c ask.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_ROLEACT_H
#define DPOBJ_ROLEACT_H

#include "postgres.h"

/*
 * true if some role that is not a superuser can act as both a and b: a is
 * b, one is a member of the other (SET ROLE, inherited or not, through
 * any chain of groups), or a third role is a member of both.  A grant
 * from a to b is then a self-grant of that role.
 */
extern bool roles_share_actor(Oid a, Oid b);

#endif							/* DPOBJ_ROLEACT_H */
