/*-------------------------------------------------------------------------
 *
 * synth.h
 *	  The synthesizer family (docs/ARCHITECTURE.md, "Families"): a private
 *	  synthetic copy of a table's declared columns, of the AIM class
 *	  (select, measure, estimate; the plain-C core in src/core/synth*.c),
 *	  over one scan's state of marginal counts (synthagg.c, options in
 *	  synthparams.c), released as a model (synth.c, synthmodel.c) that
 *	  dpobj.sample() draws rows from and dpobj.marginal() answers
 *	  marginals of (synthsample.c).  dpobj.synthesize() runs it on a
 *	  protected table and writes the rows (src/protected/synthesize.c).
 *	  Its entry: synth_check_args and SYNTH_FAMILY_MECHANISMS, of
 *	  synth_family (synth.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_SYNTH_H
#define DPOBJ_SYNTH_H

#include "postgres.h"

#include "families/synth/synthparams.h"

/*
 * The family's entry (DPMechanism, mechanisms/family.h; in synth_family,
 * synth.c): run through dpobj.synthesize() only, its columns as separate
 * arguments encoded by the state (on Citus as two arrays, in the
 * coordinator's layout), counts of a public size (parallel), one zCDP charge
 */
#define SYNTH_FAMILY_MECHANISMS \
	{.name = "synthesize", .aggregate = "dpobj.dp_synthesize_cols", \
		.aggregate_args = "dpobj.dp_synthesize_cols", .args_encoded = true, \
		.aggregate_arrays = "dpobj.dp_synthesize", \
		.aggname = SYNTH_AGGNAME, .check_args = synth_check_args, \
		.label_kind = TRAIN_LABEL_NONE, .model_kind = &synth_model_kind, \
		.citus_shard_options = true, .parallel = true, .evaluate_only = true, \
		.entry = "dpobj.synthesize()", \
		.options = synthparams_options, \
		.ledger = DP_LEDGER({"synthesize", LEDGER_COST_ZCDP})}

#endif							/* DPOBJ_SYNTH_H */
