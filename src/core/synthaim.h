/*-------------------------------------------------------------------------
 *
 * synthaim.h
 *	  Select, measure, estimate: the synthesizer's rounds, of the AIM class
 *	  (McKenna, Mullins, Sheldon, Miklau, VLDB 2022), calibrated for
 *	  dpobj's neighbours (one row replaced; a privacy unit: k rows) and
 *	  drawing every released value with an exact discrete sampler.
 *
 *	  1. Every single column is measured: its counts + N_Z(0, s0^2) (with
 *	     a label: each other column's pair with it, where the state has it),
 *	     each at first_share rho / d.
 *	  2. Each round selects a candidate r (a set in the workload's downward
 *	     closure that the state covers and that keeps the junction tree
 *	     within the public cap times the share of rho spent) by the
 *	     exponential mechanism (expsample.c) on the integer loss
 *	        -w_r (||2^b c_r - round(2^b mu_r)||_1 - round(2^b sqrt(2/pi) s n_r))
 *	     (c_r the counts, mu_r the current model's marginal, n_r its cells,
 *	     w_r = sum over workload sets of lambda |r & set|, synthwork.h),
 *	     measures it with the
 *	     discrete Gaussian, and refits the model (synthpgm.c), warm.
 *	  3. When a measurement barely moves the model (||mu_new - mu_old||_1
 *	     <= sqrt(2/pi) s n_r) the next rounds get 4 times the rho each
 *	     (noise sd halved, selection epsilon doubled); the last round takes
 *	     what is left.
 *	  Privacy (bench/synth/PRIVACY_DRAFT.md, for docs/PRIVACY.md): a Gaussian release of
 *	  counts with variance s^2 costs k^2 / s^2 (l2 sensitivity sqrt 2 k;
 *	  lattice below); a selection with loss sensitivity 2 k w_max 2^b and
 *	  gamma = num/den costs (2 gamma 2 k w_max 2^b)^2 / 8; they add up to at
 *	  most rho.  Plain C over dpnoise.c, expsample.c, synthpgm.c.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_SYNTHAIM_H
#define DPOBJ_SYNTHAIM_H

#include <gsl/gsl_rng.h>

#include "core/synthpgm.h"
#include "core/synthstate.h"

#define SYNTH_LOSS_BITS 6		/* b: the loss lattice 2^-b counts */
#define SYNTH_MAX_ROUNDS 10000

typedef struct SynthSpec
{
	int			d;
	int			levels[SYNTH_MAX_COLUMNS];	/* the model's levels per column */
	const int *const *map;		/* scan level -> model level per column, or NULL */
	const SynthLayout *layout;
	const int64_t *counts;		/* the scan's state */
	double		rho;			/* the zCDP budget of the rounds (steps 1-3) */
	int64_t		k;				/* rows per privacy unit, >= 1 */
	const SynthSet *workload;	/* the analyst's sets, or NULL: the default (synthwork.h) */
	int			nworkload;
	int			max_workload;	/* the default's cap (0: SYNTH_DEFAULT_MAX_WORKLOAD) */
	int64_t		max_model_cells;	/* the public cap on the junction tree */
	int			iters_round;	/* mirror-descent steps after each measurement */
	int			iters_final;	/* and at the end */
	double		alpha;			/* rho's share for measuring (AIM: 0.9) */
	double		rounds_factor;	/* the first rounds' rho is rho / (factor d) (AIM: 16) */
	double		first_share;	/* step 1's share of rho, rho / d each (AIM: alpha / factor) */
	int			label;			/* a public label column, or -1 (synthwork.h) */
	const SynthMeasure *premeasured;	/* columns measured already (or by the label), or NULL */
	int			npremeasured;
	double		rho_premeasured;	/* what they cost (within rho) */
	synth_poll_fn poll;
	void	   *poll_arg;
} SynthSpec;

/* a round's public record (for the intervals, synthci.h) */
typedef struct SynthRound
{
	SynthSet	chosen;
	double		sigma2;			/* its measurement's variance (counts) */
	double		epsilon;		/* the selection's epsilon (2 gamma times sensitivity) */
	int			ncand;			/* the candidates it chose from */
	double		rho;			/* what the round cost */
} SynthRound;

/* the last round's selection, public, for the intervals (synthci.h) */
typedef struct SynthLastRound
{
	SynthModel	before;			/* the model it scored the candidates against */
	int			ncand;
	SynthSet   *cand;			/* the candidates, malloc'd */
	int64_t    *weight;			/* their w_r */
	double		gamma;			/* the sampler's gamma (per loss unit) */
	double		l1_measured;	/* ||y - mu_before||_1 of the chosen set */
	int64_t		pen_chosen;		/* the chosen set's penalty, loss lattice units */
} SynthLastRound;

typedef struct SynthResult
{
	SynthModel	model;			/* the final fit */
	SynthLastRound last;
	SynthMeasure *meas;			/* every release, malloc'd (y too) */
	int			nmeas;
	SynthRound *rounds;
	int			nrounds;
	double		rho_spent;		/* <= spec rho */
	double		total;			/* the model's rows: the noisy count */
} SynthResult;

/* the rho of each measurement of step 1 (also of premeasured ones): share rho / d */
extern double synth_aim_oneway_rho(double rho, int d, double share);

/*
 * The rho of the first round's measurement, alpha rho / (factor d): the
 * least of any round's (a round that barely moves the model quadruples the
 * next ones'; the last takes what is left, more than the round before it).
 * With step 1's, every noise scale a run can draw is fixed before the
 * charge by public parameters.
 */
extern double synth_aim_round_rho(double rho, int d, double alpha, double rounds_factor);

/*
 * Counts are released on the lattice 2^-SYNTH_COUNT_BITS: y = (2^B c + Z) /
 * 2^B, Z ~ N_Z(0, s2) with the integer s2 = ceil(k^2 4^B / rho) (the
 * sensitivity sqrt 2 k 2^B), so rounding s2 up costs nothing visible even
 * when rho is large.  synth_sigma2 returns s2 (0 when above 2^56, the
 * sampler's range); the variance in counts is s2 / 4^B, the cost k^2 4^B / s2.
 */
#define SYNTH_COUNT_BITS 8
extern double synth_sigma2(double rho, int64_t k);
extern double synth_count_variance(double s2);
extern double synth_release_rho(double s2, int64_t k);

/*
 * A sum's release: sums on the lattice itself (a row adds at most 2^B to
 * one cell, the sensitivity of a count's 2^B c), y = (sum + N_Z(0, s2)) /
 * 2^B per cell, the same variance and cost as a count's
 */
extern void synth_sum_draw(gsl_rng *rng, const int64_t *sums, int64_t ncells, uint64_t s2,
						   double *y);

/* a measurement: y = counts + N_Z(0, s2) / 2^B per cell */
extern void synth_measure_draw(gsl_rng *rng, const int64_t *counts, int64_t ncells,
							   uint64_t s2, double *y);

extern SynthStatus synth_aim_run(const SynthSpec *spec, gsl_rng *rng, SynthResult *res);
extern void synth_result_free(SynthResult *res);

#endif							/* DPOBJ_SYNTHAIM_H */
