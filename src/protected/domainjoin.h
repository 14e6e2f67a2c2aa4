/*-------------------------------------------------------------------------
 *
 * domainjoin.h
 *	  The agreement a table needs to join a budget domain (domainjoin.c;
 *	  docs/SECURITY.md "Budget domains"):
 *
 *	  dpobj.allow_budget_domain_member(name, rel)     domain owner / dpobj_admin
 *	  dpobj.disallow_budget_domain_member(name, rel)  domain owner / dpobj_admin
 *
 *	  and the checks budgetdomains.c makes before a table joins.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_DOMAINJOIN_H
#define DPOBJ_DOMAINJOIN_H

#include "postgres.h"

/*
 * Refuses (42501) unless the owners of relid and of the domain agree: the
 * table's owner is the domain's owner (the same role; membership either
 * way is not agreement), or the domain's side allowed this table while
 * owned by its current owner and named_owner (the table owner's side)
 * names the domain's owner.  Opens its own SPI connection.
 */
extern void domain_join_check_agreed(Oid relid, const char *relation, const char *domain,
									 Oid named_owner);

/*
 * Refuses (55000) while a budget on the domain exceeds the self-grant caps
 * and some role that owns every member, but not relid, shares an actor
 * with its holder (roleact.h): it may have granted that budget to itself uncapped, which it no
 * longer could once relid joins.  Opens its own SPI connection.
 */
extern void domain_join_check_caps(Oid relid, const char *relation, const char *domain);

/* relid's owner (pg_class.relowner) */
extern Oid	domain_table_owner(Oid relid);

#endif							/* DPOBJ_DOMAINJOIN_H */
