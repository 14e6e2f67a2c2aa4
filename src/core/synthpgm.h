/*-------------------------------------------------------------------------
 *
 * synthpgm.h
 *	  The synthesizer's graphical model, estimated from noisy marginals as
 *	  Private-PGM does (McKenna, Sheldon, Miklau, ICML 2019): the
 *	  distribution p_theta(x) proportional to exp(sum_s theta_s(x_s)) over
 *	  the measured column sets s, whose marginals (scaled to the model's
 *	  total) minimise
 *	      L(mu) = sum over measurements m on s of ||mu_s - y_m||^2 / (2 sigma_m^2)
 *	  by entropic mirror descent with a backtracking (Armijo) step on theta;
 *	  each step's marginals come from belief propagation over the junction
 *	  tree of the measured sets (synthjt.h).  Everything here is
 *	  post-processing of the noisy measurements: no row enters.  Plain C,
 *	  malloc'd memory, a status on every return.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_SYNTHPGM_H
#define DPOBJ_SYNTHPGM_H

#include "core/synthfactor.h"
#include "core/synthjt.h"

typedef enum SynthStatus
{
	SYNTH_OK = 0,
	SYNTH_NOMEM,				/* malloc failed */
	SYNTH_STOPPED,				/* the poll callback asked to stop */
	SYNTH_TOOBIG,				/* a public size cap would be exceeded */
	SYNTH_BADARG				/* an argument out of range (public) */
} SynthStatus;

extern const char *synth_status_name(SynthStatus s);

/* the caller's interrupt check: true to stop; must not longjmp */
typedef bool (*synth_poll_fn) (void *arg);

/* one noisy marginal: y = the counts over set + noise of variance sigma2 per cell */
typedef struct SynthMeasure
{
	SynthSet	set;
	double		sigma2;			/* the noise variance of every cell */
	double	   *y;				/* cells of set (synthfactor.h order) */
	const double *var;			/* or NULL; else each cell's own variance */
} SynthMeasure;

typedef struct SynthModel
{
	int			d;
	int			sizes[SYNTH_MAX_COLUMNS];
	double		total;			/* the rows the marginals add up to */
	int			nsets;			/* distinct measured sets, each with a potential */
	int			maxsets;
	SynthFactor *theta;			/* theta[i] over set i: log-potentials */
	int		   *home;			/* the clique holding set i */
	SynthTree	tree;
	SynthFactor belief[SYNTH_MAX_COLUMNS];	/* clique marginals, total `total` */
	SynthFactor up[SYNTH_MAX_COLUMNS];	/* upward messages (scratch) */
	int64_t		max_cells;		/* the public cap on its trees (synth_model_add's) */
	double		step;			/* the mirror-descent step carried between fits */
	int64_t		iterations;		/* steps taken (statistics) */
	int64_t		propagations;	/* belief propagations run (statistics) */
	const bool *shut[SYNTH_MAX_COLUMNS];	/* column j's levels never drawn, or NULL:
											 * none (synthsample.h; the caller's memory) */
	int			ordered[SYNTH_MAX_COLUMNS];	/* column j's first levels that are bins in
											 * order (synthsample.h), 0: none */
} SynthModel;

/* an empty model over d columns: the uniform distribution with `total` rows */
extern SynthStatus synth_model_init(SynthModel *m, int d, const int *sizes, double total);
extern void synth_model_free(SynthModel *m);

/* a deep copy (dst uninitialised) */
extern SynthStatus synth_model_copy(SynthModel *dst, const SynthModel *src);

/*
 * Adds the potentials of every measurement's set not yet in the model
 * (theta 0: the fit starts warm from the current model) and rebuilds the
 * junction tree; SYNTH_TOOBIG when it would exceed max_cells (the model is
 * then unchanged).
 */
extern SynthStatus synth_model_add(SynthModel *m, const SynthMeasure *meas, int nmeas,
								   int64_t max_cells);

/*
 * `iters` mirror-descent steps on the measurements; the beliefs are the
 * model's marginals on return (also for iters = 0).  poll may be NULL.
 */
extern SynthStatus synth_model_fit(SynthModel *m, const SynthMeasure *meas, int nmeas,
								   int iters, synth_poll_fn poll, void *poll_arg);

/* the model's loss on the measurements (after a fit) */
extern double synth_model_loss(const SynthModel *m, const SynthMeasure *meas, int nmeas);

/*
 * The model's marginal over `set` (scaled to total) into out (initialised
 * here; free it with synth_factor_free): summed from a clique when one
 * holds the set, else propagated over the junction tree of the model's sets
 * and `set`, whose cells bound every table built; SYNTH_TOOBIG (out freed)
 * when that tree exceeds the model's cap.
 */
extern SynthStatus synth_model_marginal(const SynthModel *m, SynthSet set, SynthFactor *out);

/*
 * The marginals over sets[0..n-1] at once into out[] (initialised here):
 * a set that no clique holds but whose columns other than one, a, share a
 * clique is read from the tree conditioned on each level of a (one pass
 * outward from a's clique per level, shared by every such set with that a);
 * the others as synth_model_marginal.  The tables built are the model's
 * tree's and those of synth_model_marginal.
 */
extern SynthStatus synth_model_marginals(const SynthModel *m, const SynthSet *sets, int n,
										 SynthFactor *out);

#endif							/* DPOBJ_SYNTHPGM_H */
