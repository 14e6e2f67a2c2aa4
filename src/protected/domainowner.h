/*-------------------------------------------------------------------------
 *
 * domainowner.h
 *	  A budget domain's owner (domainowner.c): who it is, and whether the
 *	  caller may act for the domain.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_DOMAINOWNER_H
#define DPOBJ_DOMAINOWNER_H

#include "postgres.h"

/*
 * The owner of budget domain `domain`, its catalog row locked FOR KEY
 * SHARE (a concurrent drop waits); an error (42704) when there is none.
 * Opens its own SPI connection.
 */
extern Oid	budget_domain_owner(const char *domain);

/*
 * Refuses (42501) unless caller is the domain's owner (the role itself,
 * not a member of it), a superuser or a member of dpobj_admin; action
 * completes "must ... to".
 */
extern void budget_domain_check_admin(Oid caller, const char *domain, Oid owner,
									  const char *action);

/*
 * Runs one fixed SELECT (inside SPI, as the bootstrap superuser) against
 * the latest committed state rather than the transaction's snapshot: the
 * checks that decide a grant's cap and a join's agreement.
 */
extern int	domain_select_latest(const char *sql, int nargs, Oid *types, Datum *values,
								 const char *fname);

#endif							/* DPOBJ_DOMAINOWNER_H */
