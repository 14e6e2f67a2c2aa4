/*-------------------------------------------------------------------------
 *
 * registry.h
 *	  The mechanism registry: one descriptor per mechanism that
 *	  dpobj.train() can run, in one table (registry.c).  A descriptor is
 *	  everything train(), the cost forms and runs_left() know of a
 *	  mechanism: its aggregate, argument check, label, state shape, the
 *	  norm of its option "R", its method names, the candidates 'auto' may
 *	  pick of it, its option table, and the names it charges the ledger
 *	  under with their cost forms.  The privacy-critical sequence
 *	  of its final function is mechanism_drive() (mechanism.h).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_REGISTRY_H
#define DPOBJ_REGISTRY_H

#include "postgres.h"

#include "utils/jsonb.h"

#include "base/options.h"
#include "ledger/ledger.h"
#include "context/trainquery.h"
#include "model/kinds.h"

/* a name a mechanism charges the ledger under, and its cost form */
typedef struct DPLedgerKind
{
	const char *name;			/* dpobj.ledger's mechanism */
	/*
	 * gauss: every release a discrete Gaussian at the rho its calibration
	 * uses; pure: epsilon-DP (rho = epsilon^2 / 2); approx: (epsilon, delta)
	 */
	LedgerCostKind cost;
	/*
	 * the options that select it, for lists of entry points ("\"tune\""; NULL:
	 * the default, or the method of the same index)
	 */
	const char *option;
} DPLedgerKind;

/*
 * A candidate of the private model selection 'auto' (families/glm/glmauto.c):
 * its GLM_AUTO_* bit, which names it in the option "candidates" and ranks
 * it in the tie-breaking order, and how auto trains it: a GLMKind (noisy
 * GD, dp_logistic with a GLMMethod, or additive boosting; glmparams.h).
 */
typedef struct DPAutoPick
{
	int			bit;
	int			kind;
	int			method;
} DPAutoPick;

/*
 * A descriptor's NULL-ended lists, for the entries a family's header gives
 * the registry (families/<f>/<f>.h) and the registry's own
 */
#define DP_LEDGER(...)	((const DPLedgerKind[]) {__VA_ARGS__, {NULL}})
#define DP_METHODS(...)	((const char *const[]) {__VA_ARGS__, NULL})
#define DP_AUTO(...)	((const DPAutoPick[]) {__VA_ARGS__, {0}})

struct DPProtectedContext;

typedef struct DPMechanism
{
	const char *name;			/* the mechanism argument of train() */
	/*
	 * Schema-qualified aggregate (features float8[], label, epsilon float8,
	 * delta float8, options jsonb), or NULL for the features as separate
	 * arguments (aggregate_args); its final function runs mechanism_drive()
	 */
	const char *aggregate;
	const char *aggregate_args;	/* or NULL */
	/* aggregate_args takes the encoding's columns raw and encodes them (trainquery.h) */
	bool		args_encoded;
	/*
	 * or NULL: the same taking the encoding's columns raw in two arrays
	 * (text[] of those with levels, float8[] of the others), which train()
	 * runs on Citus (its partial aggregate takes no VARIADIC "any")
	 */
	const char *aggregate_arrays;
	const char *aggname;		/* for argument errors */
	/*
	 * validates every option the final function reads, before any row;
	 * declared in its family's header (glm.h, oracle.h, linear.h, ...)
	 */
	void		(*check_args) (const char *aggname, double epsilon, double delta,
							   int d, Jsonb *options);
	TrainLabel	label_kind;		/* boolean, a regression's float8, or a class (text) */
	/* the kind of the models it releases, named by its ledger names (kinds.h) */
	ModelKind	model_kind;
	/* or the label decided by the options: evaluate's, from its model */
	TrainLabel	(*label_of) (Jsonb *options);
	/*
	 * On a Citus table (after check_args): the options its shards' states
	 * train with, a sample of a public K so that no shard ships more rows
	 * than the coordinator keeps; NULL: the run's own
	 */
	Jsonb	   *(*citus_options) (const struct DPProtectedContext *ctx);
	/* its state is sums or counts of a public size: read in parallel workers */
	bool		parallel;
	/* its state sorts the rows (work_mem, then temporary files: seal.c) */
	bool		sorts_rows;
	/* train() passes the run's encoding as the option "groups" (ebmparams.h) */
	bool		groups;
	/* the norm of its option "R": 2 (l2), 1 (l1) or 0 (no "R") */
	int			r_norm;
	/* NULL-ended: train(..., m) is this mechanism with {"method": m} */
	const char *const *methods;
	/* ended by bit 0: the candidates 'auto' may pick of it (NULL: none) */
	const DPAutoPick *auto_pick;
	/* the private choice among the mechanisms with auto_pick */
	bool		chooses;
	/* runs through dpobj.evaluate() only, not train() */
	bool		evaluate_only;
	/* such a mechanism: the SQL function(s) that run it, for hints */
	const char *entry;
	/* NULL-ended: other names cost() and runs_left() price it under (describe) */
	const char *const *also;
	/* epsilon-DP whatever delta: delta may be 0 */
	bool		delta_zero;
	/*
	 * its options' defaults, the table its params parser reads (the GLM kinds
	 * share glmparams_options; which keys a kind accepts is its parser's)
	 */
	const DPOptionSpec *options;
	/*
	 * NULL-ended: the names its runs charge under (the first by default),
	 * and ledger_pick the index for a run's options (NULL: always 0)
	 */
	const DPLedgerKind *ledger;
	int			(*ledger_pick) (Jsonb *options);
} DPMechanism;

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

/* _PG_init: every entry's model names into the model layer's kind table */
extern void mechanism_register_model_kinds(void);

/* the candidate of 'auto' with this GLM_AUTO_* bit (an internal error if none) */
extern const DPAutoPick *mechanism_auto_pick(int bit);

#endif							/* DPOBJ_REGISTRY_H */
