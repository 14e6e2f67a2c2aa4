/*-------------------------------------------------------------------------
 *
 * budgetdomains.h
 *	  Budget domains (budgetdomains.c): tables whose privacy units identify
 *	  the same people share one budget per role.  The catalog is
 *	  dpobj.budget_domains; a member table's dpobj.protected_tables row
 *	  names its domain, and a domain budget is a dpobj.budgets row with
 *	  budget_domain set (docs/PRIVACY.md, "Budget domains").
 *
 *	  dpobj.create_budget_domain(name)          any role; it owns the domain
 *	  dpobj.drop_budget_domain(name)            domain owner; no members left
 *	  dpobj.set_budget_domain(rel, name|NULL[, domain_owner])
 *	                                            table owner, with the domain
 *	                                            owner's agreement (domainjoin.h)
 *
 *	  budget.c grants and revokes domain budgets with the helpers below.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_BUDGETDOMAINS_H
#define DPOBJ_BUDGETDOMAINS_H

#include "postgres.h"

#include "protected/domainowner.h"

/*
 * A grant by caller to analyst on the domain is a capped self-grant:
 * caller is not a superuser, some role can act as both (roles_share_actor),
 * and caller does not own every member table (an empty domain counts as
 * not owned).
 */
extern bool budget_domain_self_grant(Oid caller, const char *domain, Oid analyst);

/*
 * Puts relid into domain (NULL: takes it out of its domain); the caller
 * must own the table (to join: be its owner role itself), and to join,
 * the domain's owner must agree
 * (domain_join_check_agreed; named_owner: the domain owner the caller
 * named, InvalidOid if none) and the caps hold (domain_join_check_caps).
 * true if the membership changed.  Opens its own SPI connection.
 */
extern bool budget_domain_set(Oid caller, Oid relid, const char *relation,
							  const char *domain, Oid named_owner);

/*
 * dpobj.budget_for(): the id of the dpobj.budgets row a run of analyst on
 * relid is charged to; false if none.  Run as the bootstrap superuser.
 */
extern bool budget_for_id(Oid relid, Oid analyst, int64 *id);

#endif							/* DPOBJ_BUDGETDOMAINS_H */
