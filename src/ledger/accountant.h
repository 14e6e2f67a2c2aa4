/*-------------------------------------------------------------------------
 *
 * accountant.h
 *	  The ledger's budget arithmetic, a C API: the privacy accountant of a
 *	  budget per (table or domain, role) -- how the charges of its runs
 *	  compose, whether one more run fits (the derivation is docs/PRIVACY.md,
 *	  "Composition: one filter for every mechanism").  The ledger writer's
 *	  guarded debit (ledgerexec.c) and the SQL functions over a budgets row
 *	  (accountsql.c) call the same functions.
 *
 *	  accountant.c  the filter's arithmetic on an AccountBudget
 *	  budgetrow.c   a dpobj.budgets row <-> an AccountBudget
 *	  accountsql.c  the SQL face (dpobj.budget_debit, budget_admits, ...)
 *	  accountnext.c what the state means for the next run (my_budgets,
 *	                runs_left(rel), a charge's NOTICE)
 *
 * A budget is (epsilon_g, delta_g), composed in two parts:
 *	  linear: runs before the first one counted by rho (gauss or zcdp):
 *	          their epsilon and delta add up (lin_e, lin_d);
 *	  zCDP:   from that run on, a filter on the rest (epsilon_g - lin_e,
 *	          delta_g - lin_d): rho of the gauss and zcdp runs, and the pure
 *	          and approximate-DP runs (these through the coupling of
 *	          Bun-Steinke 2016, section 8) each at min(eps, alpha eps^2/2) of
 *	          Renyi divergence (rdp) at one order alpha; an approximate-DP
 *	          run's delta comes from the reserve, the budget's share of
 *	          delta_g (dpobj.approx_delta_reserve when it was granted).
 *	          The reserve and alpha are fixed when the zCDP part begins, from
 *	          the grant then: later grants move neither.
 * With delta_c = delta_g - lin_d - reserve > 0, the zCDP part converts at
 * delta_p: half of delta_c when it began with a Gaussian run on a budget
 * with a reserve (two paths), all of it otherwise.
 * The state fits when lin_e <= epsilon_g, lin_d <= delta_g, the reserve's
 * delta is not overspent and lin_e + eps_2 <= epsilon_g, eps_2 at delta_p:
 *	  Gaussian path (a split part, and only gauss runs in it so far):
 *	          Gaussian DP with mu^2 = 2 rho (1 - rho 2^-19)^-1, never above
 *	          the zCDP bound (core/gdp.c);
 *	  Renyi path (any other part): alpha rho + rdp + rdp_conversion(alpha,
 *	          delta_p) at the part's order alpha (core/calibrate.c); under
 *	          the grant alpha was fixed from, that admits exactly the rho
 *	          zcdp_eps(rho, delta_p) (the best order) admits.
 * Upper bounds (upward-rounded, with a margin), compared in numeric.
 * A budget with basic_share > 0 has a basic-composition filter beside
 * that one (the current filter) from the zCDP part on: every run's (eps,
 * delta) summed (basic_e, basic_d) within epsilon_g and basic_share of
 * delta_g - lin_d, which the current filter then lacks; a run fits if
 * either filter admits it (account_debit).
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_ACCOUNTANT_H
#define DPOBJ_ACCOUNTANT_H

#include "postgres.h"

#include "access/htup.h"
#include "utils/numeric.h"

#include "ledger/ledger.h"

typedef struct AccountBudget
{
	Numeric		granted_e;
	Numeric		granted_d;
	Numeric		spent_e;		/* linear part */
	Numeric		spent_d;
	Numeric		spent_rho;		/* zCDP part */
	Numeric		reserve_d;		/* delta kept for approximate-DP runs in it */
	Numeric		spent_rdp;		/* their Renyi cost at order */
	Numeric		spent_reserve_d;	/* their delta */
	double		order;			/* the zCDP part's Renyi order; 0: none */
	bool		gaussian_only;	/* every run of the zCDP part is a Gaussian one */
	bool		split;			/* the part began Gaussian with a reserve: halves */
	Numeric		reserve_share;	/* share of granted delta the reserve takes */
	Numeric		basic_share;	/* basic filter's share of delta_g - lin_d; 0: none */
	Numeric		basic_e;		/* the basic filter: every run's epsilon */
	Numeric		basic_d;		/* and delta, summed */
	bool		basic_retired;	/* a run only the current filter admitted came */
	bool		cur_refused;	/* a run only the basic filter admitted came */
	Numeric		full_d;			/* in a view of the current filter: granted delta (else NULL) */
} AccountBudget;

/* basic_share of new budgets (docs/PRIVACY.md, "Composition: one filter for every mechanism") */
#define ACCOUNT_BASIC_SHARE	"0.02"

/* the exact decimal text of a value >= x (x finite, >= 0), in buf */
extern void account_decimal_up(double x, char *buf, size_t len);

/* an upper bound on eps_z(rho, delta) as numeric; NULL if none (delta <= 0) */
extern Numeric account_zcdp_epsilon(Numeric rho, Numeric delta);

/* the same for discrete Gaussian releases of total rho, composed in GDP */
extern Numeric account_gauss_epsilon(Numeric rho, Numeric delta);

/*
 * Admission: whether k more runs of one kind and charge fit the budget: each
 * run's (epsilon, delta) or rho (NULL for approx) added k times.
 */
extern bool account_admits(const AccountBudget *b, LedgerCostKind kind,
						   Numeric epsilon, Numeric delta, Numeric rho, int64 k);

/* the debit: the same rule, and the budget's state after those runs in *out */
extern bool account_debit(const AccountBudget *b, LedgerCostKind kind,
						  Numeric epsilon, Numeric delta, Numeric rho, int64 k,
						  AccountBudget *out);

/* the epsilon spent so far, composed (granted when nothing is left) */
extern Numeric account_spent_epsilon(const AccountBudget *b);

/*
 * The accounts spent epsilon is the least of: the sum of every run's epsilon
 * (while the basic filter is on from the zCDP part on; else NULL) and the
 * current filter's composed spend (NULL once it refused a run)
 */
extern void account_spent_accounts(const AccountBudget *b, Numeric *sum, Numeric *composed);

/* epsilon still available at the budget's delta (>= 0) */
extern Numeric account_remaining_epsilon(const AccountBudget *b);

/* the delta spent_epsilon goes with: the basic sum while it shows the basic sum, else linear */
extern Numeric account_spent_delta(const AccountBudget *b);

/* granted delta less the delta spent epsilon goes with (my_budgets.remaining_delta) */
extern Numeric account_remaining_delta(const AccountBudget *b);

/* how many more runs fit (0 .. PG_INT64_MAX / 2) */
extern int64 account_runs_left(const AccountBudget *b, LedgerCostKind kind,
							   Numeric epsilon, Numeric delta, Numeric rho);

/* the order account_debit fixes when a zCDP part begins (0: none) */
extern double account_part_order(const AccountBudget *b);

/* budgetrow.c: a dpobj.budgets row as the state; false if a value it needs is NULL */
extern bool account_budget_of_row(HeapTupleHeader row, AccountBudget *b);

/* the row with the state written back (a new dpobj.budgets datum) */
extern Datum account_budget_to_row(HeapTupleHeader row, const AccountBudget *b);

/*
 * The columns a debit writes, in ACCOUNT_WRITTEN_COLS order (spent_epsilon,
 * spent_delta, spent_rho, reserve_delta, spent_rdp, spent_reserve_delta,
 * filter_order, gaussian_only, gaussian_split, basic_epsilon, basic_delta,
 * basic_retired, filter_refused), as SPI values and nulls
 */
#define ACCOUNT_WRITTEN_COLS	13
extern void account_budget_written(const AccountBudget *b, Datum *values, char *nulls);

/*
 * How the budget composes: "linear" (no zCDP part yet, or the basic
 * filter still on), "gaussian" (the
 * zCDP part on its Gaussian path) or "renyi" (on its Renyi path)
 */
extern const char *account_composition(const AccountBudget *b);

/* how a debit of kind counted in the state after it (dpobj.ledger.accounted) */
extern const char *account_accounted(const AccountBudget *after, LedgerCostKind kind);

/*
 * accountnext.c: what the state means for the analyst's next run.
 *
 * The rho a run of kind at the float8 (epsilon, delta) handed to its
 * mechanism is charged, as exact decimal text rounded up ("" for approx):
 * epsilon^2 / 2 for pure, zcdp_rho(epsilon, delta) for gauss and zcdp; false
 * when none converts (epsilon below the conversion's floor at delta).
 */
extern bool account_run_rho(LedgerCostKind kind, double epsilon, double delta,
							char *rho, size_t len);

/*
 * The largest epsilon, a multiple of 10^-6, that one more run of kind at
 * delta (0 for pure runs at their default) may ask for now: the admission
 * rule on the run's cost as the run computes it; 0 when none fits.
 */
extern Numeric account_next_epsilon(const AccountBudget *b, LedgerCostKind kind, Numeric delta);

/*
 * One line for the analyst: what a run of kind at (epsilon, delta) and rho
 * (NULL for approx) adds to the spent epsilon, and why that differs from
 * epsilon; NULL when it adds exactly epsilon or the budget does not admit it.
 */
extern char *account_charge_note(const AccountBudget *b, LedgerCostKind kind, Numeric epsilon,
								 Numeric delta, Numeric rho);

#endif							/* DPOBJ_ACCOUNTANT_H */
