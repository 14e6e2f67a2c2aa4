/*-------------------------------------------------------------------------
 *
 * family.c
 *	  The registry's entries as the floors below the families read them
 *	  (family.h): the registry (families/registry.c) copies its ordered
 *	  list down at _PG_init, so that the driver prices a run by its ledger
 *	  name and 'auto' finds its candidates without a call up the floors.
 *
 *-------------------------------------------------------------------------
 */
#include "mechanisms/family.h"

#include "base/calibsql.h"
#include "ledger/accountant.h"

static const DPMechanism *const *family_entries;
static int	family_nentries;

void
family_register_mechanisms(const DPMechanism *const *mechanisms, int n)
{
	family_entries = mechanisms;
	family_nentries = n;
}

const DPAutoPick *
mechanism_auto_pick(const char *name)
{
	for (int i = 0; i < family_nentries; i++)
		for (const DPAutoPick *a = family_entries[i]->auto_pick; a != NULL && a->name != NULL; a++)
			if (strcmp(a->name, name) == 0)
				return a;
	elog(ERROR, "no mechanism in the registry is the auto candidate %s", name);
	return NULL;				/* keep compiler quiet */
}

/* the cost form of a ledger name; a name no descriptor lists is approx */
static LedgerCostKind
mechanism_cost_kind(const char *mechanism)
{
	for (int i = 0; i < family_nentries; i++)
		for (const DPLedgerKind *k = family_entries[i]->ledger; k->name != NULL; k++)
			if (strcmp(k->name, mechanism) == 0)
				return k->cost;
	return LEDGER_COST_APPROX;
}

void
mechanism_cost(const char *mechanism, double epsilon, double delta, LedgerCost *cost)
{
	memset(cost, 0, sizeof(*cost));
	cost->kind = mechanism_cost_kind(mechanism);
	/* delta 0 reaches here only for an epsilon-DP mechanism (delta_zero): never charged as other */
	if (delta == 0.0 && cost->kind != LEDGER_COST_PURE)
		elog(ERROR, "dpobj: mechanism %s is not epsilon-DP but was given delta 0", mechanism);
	/*
	 * gauss: the very rho the mechanism calibrates to (one-vs-rest: rho / K
	 * per class); every release of these is a snapped discrete Gaussian
	 */
	if (!account_run_rho(cost->kind, epsilon, delta, cost->rho, sizeof(cost->rho)))
		account_decimal_up(dpobj_zcdp_rho_checked(mechanism, epsilon, delta),
						   cost->rho, sizeof(cost->rho));	/* its error */
}

void
mechanism_cost_private_r(LedgerCost *cost)
{
	/* the norm bound's exponential mechanism is bounded range, not Gaussian */
	if (cost->kind == LEDGER_COST_GAUSS)
		cost->kind = LEDGER_COST_ZCDP;
}

bool
mechanism_options_private_r(Jsonb *options)
{
	const char *R = dp_options_string(options, "R");

	return R != NULL && strcmp(R, "private") == 0;
}
