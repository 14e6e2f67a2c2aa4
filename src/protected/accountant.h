/*-------------------------------------------------------------------------
 *
 * accountant.h
 *	  The privacy accountant of a budget per (table, role): how the charges
 *	  of its runs compose, and whether one more run fits (the derivation is
 *	  docs/PRIVACY.md, "Composition: the zCDP filter").
 *
 * A budget is (epsilon_g, delta_g).  Its state is the linear part (the sum
 * of epsilon and of delta over the runs counted as (epsilon, delta)) and
 * rho, the sum over the runs counted in zero-concentrated DP.  The state
 * fits when
 *	  lin_e <= epsilon_g, lin_d <= delta_g, and, if rho > 0,
 *	  delta_z = delta_g - lin_d > 0 and lin_e + eps_z(rho, delta_z) <= epsilon_g,
 * eps_z the zCDP-to-(epsilon, delta) conversion of core/calibrate.c
 * (zcdp_eps), computed as an upper bound (upward-rounded, with a margin)
 * and compared in numeric.  A run is counted
 *	  approx: linearly, and only while rho = 0 (once a zCDP run has been
 *	          charged the approximate-DP part is closed: PRIVACY.md says why);
 *	  zcdp:   by its rho;
 *	  pure:   linearly while rho = 0, else by its rho = epsilon^2 / 2.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_ACCOUNTANT_H
#define DPOBJ_ACCOUNTANT_H

#include "postgres.h"

#include "utils/numeric.h"

#include "ledger.h"

typedef struct AccountBudget
{
	Numeric		granted_e;
	Numeric		granted_d;
	Numeric		spent_e;		/* linear part */
	Numeric		spent_d;
	Numeric		spent_rho;		/* zCDP part */
} AccountBudget;

/* the exact decimal text of a value >= x (x finite, >= 0), in buf */
extern void account_decimal_up(double x, char *buf, size_t len);

/* an upper bound on eps_z(rho, delta) as numeric; NULL if none (delta <= 0) */
extern Numeric account_zcdp_epsilon(Numeric rho, Numeric delta);

/*
 * Whether k more runs of one kind and charge fit the budget: each run's
 * (epsilon, delta) or rho (NULL for approx) added k times.
 */
extern bool account_admits(const AccountBudget *b, LedgerCostKind kind,
						   Numeric epsilon, Numeric delta, Numeric rho, int64 k);

/* epsilon still available at the budget's delta (>= 0) */
extern Numeric account_remaining_epsilon(const AccountBudget *b);

/* how many more runs fit (0 .. PG_INT64_MAX / 2) */
extern int64 account_runs_left(const AccountBudget *b, LedgerCostKind kind,
							   Numeric epsilon, Numeric delta, Numeric rho);

#endif							/* DPOBJ_ACCOUNTANT_H */
