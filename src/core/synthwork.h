/*-------------------------------------------------------------------------
 *
 * synthwork.h
 *	  The synthesizer's workload (the column sets whose marginals matter)
 *	  and the candidates its rounds choose from, from public inputs only.
 *
 *	  Default workload: every triple of columns while there are at most
 *	  max_sets of them; past that (wide tables: 64 columns have 41 664
 *	  triples) max_sets triples in a fixed pseudo-random order (a hash of
 *	  their columns), those holding the label first when there is one,
 *	  taken greedily so that every pair of columns lies in one (triples
 *	  adding three new pairs, then two, then one) before the rest fill up
 *	  to max_sets.  Fewer than three columns: the set of all of them.
 *
 *	  Candidates: every nonempty subset of a workload set (the downward
 *	  closure), with AIM's weight w_r = sum over workload sets s of
 *	  lambda_s |r & s| (lambda_s: label_weight for the sets holding the
 *	  label, else 1).  Plain C.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_SYNTHWORK_H
#define DPOBJ_SYNTHWORK_H

#include "core/synthpgm.h"

#define SYNTH_DEFAULT_MAX_WORKLOAD 1024
#define SYNTH_MAX_WORKLOAD_COLUMNS 8	/* columns of a workload set */
#define SYNTH_LABEL_WEIGHT 4	/* lambda_s of the sets holding a label (synthaim.c) */

/*
 * The default workload of d columns (label: a column or -1) into out (room
 * for max_sets >= 1 sets); its count.
 */
extern int	synth_workload_default(int d, int label, int max_sets, SynthSet *out);

/*
 * The candidates of workload w[0..nw-1] (malloc'd sets and weights, sorted
 * by set, no duplicate): SYNTH_BADARG for an empty set or one of more than
 * SYNTH_MAX_WORKLOAD_COLUMNS columns, SYNTH_NOMEM, else SYNTH_OK.
 */
extern SynthStatus synth_candidates(const SynthSet *w, int nw, int label, int64_t label_weight,
									SynthSet **cand, int64_t **weight, int *ncand);

#endif							/* DPOBJ_SYNTHWORK_H */
