/*-------------------------------------------------------------------------
 *
 * registry.h
 *	  The registry above the families (registry.c): every family's
 *	  descriptor (DPFamily, mechanisms/family.h) in one list, and the
 *	  lookups train(), cost() and runs_left() make in it.  Only the layers
 *	  above the families include it; the floors read the list copied down
 *	  at _PG_init (family.h).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_REGISTRY_H
#define DPOBJ_REGISTRY_H

#include "postgres.h"

#include "utils/jsonb.h"

#include "mechanisms/family.h"

/*
 * The descriptor of a train() mechanism name; *method is set for a method
 * name ('output' is 'logistic' with {"method": "output"}), else NULL.  The
 * other entry points' names ('evaluate', 'describe', ...) find theirs too,
 * for train() to refuse; an unknown name is an error listing train()'s.
 */
extern const DPMechanism *mechanism_lookup(const char *name, const char **method);

/*
 * The descriptor of a name cost() and runs_left() price: train()'s names,
 * and those of the mechanisms other entry points run (evaluate, aggregate,
 * describe, aggregate_keys); *method as mechanism_lookup's.  An unknown name
 * is an error whose hint lists them all.
 */
extern const DPMechanism *mechanism_lookup_entry(const char *name, const char **method);

/* the family whose descriptor holds this entry */
extern const DPFamily *mechanism_family(const DPMechanism *mech);

/*
 * Every entry point whose runs are charged as kind, as "a, b, c" (train()'s
 * names, with the option that selects a ledger name; the other functions'
 * names), for dpobj.runs_left(rel)
 */
extern char *mechanism_kind_entries(LedgerCostKind kind);

/*
 * The runs that are zCDP or pure-epsilon ("expmech, logistic with "method":
 * "output" or "cms", ..."), for hints
 */
extern char *mechanism_zcdp_names(void);

/*
 * The cost of what dpobj.train()'s mechanism runs with these options:
 * mechanism_cost of its ledger name, zcdp with "R": "private".
 */
extern void mechanism_run_cost(const char *train_mechanism, Jsonb *options,
							   double epsilon, double delta, LedgerCost *cost);

/*
 * The name of what dpobj.train()'s mechanism runs with these options, the
 * one its direct aggregate charges under (its registry entry's ledger
 * names: "logistic" by its "method", "linear" adassp or ssp, "noisysgd"
 * with "tune" noisysgd_tune, ...).  mechanism_cost() prices it.
 */
extern const char *mechanism_ledger_name(const char *train_mechanism, Jsonb *options);

/* _PG_init: the list in its order, copied down to the model layer and the floors */
extern void registry_init(void);

#endif							/* DPOBJ_REGISTRY_H */
