/*-------------------------------------------------------------------------
 *
 * synthmodel.h
 *	  The synthesizer's model, a dpobj.model of mechanism 'synthesize'
 *	  (synthmodel.c): what a run releases -- every noisy measurement, the
 *	  fitted graphical model's potentials (and those it had before the
 *	  last round, for the intervals), the rounds' public record, the
 *	  columns' domains with any private quantile bins' released sub-bin
 *	  counts, the noisy row count -- and public parameters only.
 *
 *	  weights: every float value, concatenated back to back in the order
 *	  params name them (the quantile columns' noisy counts and sums, each
 *	  measurement's values and variances, the potentials, the last
 *	  round's potentials); params: the structure (sets as column indices,
 *	  offsets into weights):
 *	    {"synthesizer": 3, "domains": [the columns' encoding, encode.h],
 *	     "columns": [{"kind", "bins", "integer", "nullable", "closed",
 *	                  ["sub_bins", "noisy_at", "sums_at", "sums_sigma2", "edges"]}],
 *	     "rows", "rho", "rho_spent", "rows_per_unit", "max_model_cells",
 *	     "measurements": [{"set", "sigma2", "at", ["var_at"]}],
 *	     "potentials": [{"set", "at"}], "cliques": [[...]],
 *	     "rounds": [{"set", "sigma2", "epsilon", "candidates", "rho"}],
 *	     "last": {"candidates": [[...]], "weights", "gamma", "l1_measured",
 *	              "penalty", "potentials": [{"set", "at"}]} | null}
 *
 *	  "closed": the column's last level (NULL, "other") is never drawn;
 *	  "noisy_at": a quantile column's kept sub-bin weights; "sums_at": its
 *	  sub-bins' noisy offset sums (in sub-bin widths, variance
 *	  "sums_sigma2"), the draws' means.  A version 1 model (0.6.0: no
 *	  "closed", quantile bins by the older rule) or 2 (no sums: uniform
 *	  within a sub-bin) is read as written then.
 *
 *	  Reading it back (dpobj.sample(), dpobj.marginal()) rebuilds the
 *	  model's junction tree from its measured sets and its beliefs from the
 *	  potentials: post-processing, no row and no noise.  The reader
 *	  accepts only that shape: the potentials are the measured sets in
 *	  their first measurement's order (the last round's: those measured
 *	  before it), the cliques the rebuilt tree's, the rounds the last
 *	  measurements, every block of values where the one before it ends.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_SYNTHMODEL_H
#define DPOBJ_SYNTHMODEL_H

#include "postgres.h"

#include "fmgr.h"
#include "access/htup_details.h"

#include "core/synthaim.h"
#include "core/synthdomain.h"
#include "model/encode.h"
#include "model/kinds.h"

/* a released model, unpacked (malloc'd parts freed with its memory context) */
typedef struct SynthFitted
{
	int			d;
	Encoding   *enc;			/* the columns' names and declared domains */
	SynthColumn col[SYNTH_MAX_COLUMNS];	/* quantile bins chosen */
	SynthResult res;			/* measurements, model, rounds, last round */
	double		rows;			/* the noisy row count */
} SynthFitted;

/*
 * The released model of a run: its columns (quantile bins chosen; noisy:
 * each quantile column's released sub-bin counts, else NULL), the rounds'
 * result, the privacy parameters and the public run parameters.
 */
struct SynthParams;
extern Datum synthmodel_build(FunctionCallInfo fcinfo, const struct SynthParams *p,
							  const SynthColumn *col, double *const *noisy,
							  double *const *sums, double sums_sigma2, double points_sigma2,
							  const SynthResult *res, double epsilon, double delta, double rho);

/*
 * Its model kind (model/kinds.h; the family's descriptor's model_kind):
 * marked by "synthesizer", it never predicts, explains nor evaluates
 */
extern const ModelKindOps synth_model_kind;

/*
 * A dpobj.model of mechanism 'synthesize', unpacked into cxt after a
 * complete check of its structure; anything else is refused (22023, public
 * grounds)
 */
extern SynthFitted *synthmodel_unpack(HeapTupleHeader th, MemoryContext cxt);

#endif							/* DPOBJ_SYNTHMODEL_H */
