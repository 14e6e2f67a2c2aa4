/*-------------------------------------------------------------------------
 *
 * family.h
 *	  A mechanism family's descriptor (DPFamily) and its mechanisms' entries
 *	  (DPMechanism), the floor under the families and the registry above
 *	  them (families/registry.c lists the families).  An entry is
 *	  everything train(), the cost forms and runs_left() know of a
 *	  mechanism: its aggregate, argument check, label, state shape, the
 *	  norm of its option "R", its method names, the candidates 'auto' may
 *	  pick of it, its option table, and the names it charges the ledger
 *	  under with their cost forms.  The privacy-critical sequence
 *	  of its final function is mechanism_drive() (mechanism.h).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_FAMILY_H
#define DPOBJ_FAMILY_H

#include "postgres.h"

#include "fmgr.h"
#include "utils/jsonb.h"

#include "base/options.h"
#include "ledger/ledger.h"
#include "context/trainquery.h"
#include "model/encode.h"
#include "model/kinds.h"
#include "mechanisms/operating.h"
#include "state/keptdesign.h"

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
 * How 'auto' (families/glm/glmauto.c) trains a candidate of another
 * family on its design: the candidate's calibration at a budget (public
 * inputs only; refuses), its fit on a whole design whose counts carry the
 * class weights, its margin of a design row, its public params and its
 * model (its margin less shift)
 */
typedef struct DPCandidateOps
{
	void	   *(*prepare) (Jsonb *options, const OpParams *p, int d);
	void		(*train) (void *fit, const DPKeptDesign *D, const OpParams *p, gsl_rng *rng,
						  int64 ledger_id);
	double		(*margin) (const void *fit, const double *x);
	void		(*params) (StringInfo buf, const void *fit, const OpParams *p);
	Datum		(*model) (FunctionCallInfo fcinfo, const char *name, const void *fit,
						  double shift, double epsilon, double delta, StringInfo params);
} DPCandidateOps;

/*
 * A candidate of the private model selection 'auto': its name in the
 * option "candidates" (which ranks it in the tie-breaking order, glmauto.c)
 * and how auto trains it: a GLMKind with a GLMMethod (glmparams.h), or
 * another family's ops
 */
typedef struct DPAutoPick
{
	const char *name;
	int			kind;
	int			method;
	const DPCandidateOps *ops;
} DPAutoPick;

/*
 * A descriptor's NULL-ended lists, for the entries a family's header gives
 * (families/<f>/<f>.h)
 */
#define DP_LEDGER(...)	((const DPLedgerKind[]) {__VA_ARGS__, {NULL}})
#define DP_METHODS(...)	((const char *const[]) {__VA_ARGS__, NULL})
#define DP_AUTO(...)	((const DPAutoPick[]) {__VA_ARGS__, {NULL}})

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
	/* on a Citus table its shards train with its family's citus_options */
	bool		citus_shard_options;
	/* its state is sums or counts of a public size: read in parallel workers */
	bool		parallel;
	/* its state sorts the rows (work_mem, then temporary files: seal.c) */
	bool		sorts_rows;
	/*
	 * options train() adds from the run's encoding (JSON text; NULL: none),
	 * e.g. encoding_groups_option: its one-hot groups as "groups"
	 */
	char	   *(*encoding_options) (const Encoding *enc);
	/* the norm of its option "R": 2 (l2), 1 (l1) or 0 (no "R") */
	int			r_norm;
	/* NULL-ended: train(..., m) is this mechanism with {"method": m} */
	const char *const *methods;
	/* NULL-ended: the candidates 'auto' may pick of it (NULL: none) */
	const DPAutoPick *auto_pick;
	/* the private choice among the mechanisms with auto_pick */
	bool		chooses;
	/* or NULL: listed after this mechanism, not in its family's place */
	const char *listed_after;
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
	 * share glmparams_options; which keys a kind accepts is its .accepts)
	 */
	const DPOptionSpec *options;
	/*
	 * NULL-ended: the names its runs charge under (the first by default),
	 * and ledger_pick the index for a run's options (NULL: always 0)
	 */
	const DPLedgerKind *ledger;
	int			(*ledger_pick) (Jsonb *options);
	/*
	 * or NULL: the option with which its gauss runs charge as zcdp
	 * ("\"R\": \"private\"": mechanism_cost_private_r), for lists of entry points
	 */
	const char *zcdp_option;
} DPMechanism;

/*
 * A family (src/families/<f>/): its registry entries, and what train() asks
 * of the family.  Each defines one, const DPFamily <f>_family, in its <f>.c;
 * the registry (families/registry.c) lists them on one line.
 */
typedef struct DPFamily
{
	const char *name;			/* its folder */
	const DPMechanism *mechanisms;
	int			n_mechanisms;
	/*
	 * On a Citus table (after check_args), for an entry with
	 * citus_shard_options: the options its shards' states train with, fixed
	 * from public inputs (a sample of a public K, so that no shard ships more
	 * rows than the coordinator keeps; the coordinator's state layout)
	 */
	Jsonb	   *(*citus_options) (const struct DPProtectedContext *ctx);
	/*
	 * the model kind it defines (its <f>model.c, or NULL: its entries'
	 * models are the floor's kinds), added at load to the kinds the model
	 * layer reads a stored model's marker for (model/kinds.h)
	 */
	ModelKind	model_kind;
} DPFamily;

/* a family's descriptor over its entries (an array of its <f>.c) */
#define DP_FAMILY(f, entries, ...) \
	{.name = #f, .mechanisms = entries, .n_mechanisms = lengthof(entries), __VA_ARGS__}

/*
 * _PG_init: the registry's entries, in its order, copied down for the floors
 * (family.c): the cost of a ledger name, auto's candidates
 */
extern void family_register_mechanisms(const DPMechanism *const *mechanisms, int n);

/* the candidate of 'auto' of this name (an internal error if none) */
extern const DPAutoPick *mechanism_auto_pick(const char *name);

/*
 * The privacy cost of one run of a mechanism (its name in the ledger:
 * "noisysgd", "output_gauss", ...) at (epsilon, delta), the float8 values
 * the mechanism calibrates with, by the name's cost form in the registry:
 * gauss (every release a discrete Gaussian) with the rho its calibration
 * uses (rounded up), pure with rho = epsilon^2 / 2 (rounded up), else
 * approx.  mechanism_cost_private_r: the same run with "R": "private"
 * (gauss becomes zcdp).
 */
extern void mechanism_cost(const char *mechanism, double epsilon, double delta,
						   LedgerCost *cost);
extern void mechanism_cost_private_r(LedgerCost *cost);

/* the options ask for the private norm bound ("R": "private") */
extern bool mechanism_options_private_r(Jsonb *options);

#endif							/* DPOBJ_FAMILY_H */
