/*-------------------------------------------------------------------------
 *
 * synthparams.h
 *	  The synthesizer's public parameters (synthparams.c): its columns'
 *	  domains, the workload, the caps and the layout of the one-scan state,
 *	  all from the options of dp_synthesize_cols (the declared domains as
 *	  "domains", an encoding (model/encode.h) that dpobj.synthesize() adds) and never from a row.  A
 *	  parallel worker, a Citus node and the final function parse the same
 *	  options into the same parameters, so their states merge by adding.
 *
 *	  Options (docs/REFERENCE.md, "synthesize"): "domains" (required), "bins",
 *	  "quantile", "sub_bins", "workload", "label", "max_model_cells",
 *	  "max_state_cells", "iterations", "round_iterations", "integer",
 *	  "not_null"; "rows_per_unit" and "sealed" from dpobj.train()'s path.
 *
 *	  A column with declared levels has them plus one more level, "other":
 *	  NULL and every undeclared value (synthesized as NULL; never drawn
 *	  when "not_null" names the column).  A column with declared bounds
 *	  [lo, hi] is cut into at most "bins" private quantile bins over
 *	  "sub_bins" equal-width sub-bins (core/synthdomain.h), or, when
 *	  "quantile" is false or leaves it out, into "bins" equal-width bins
 *	  (values clamped); without "quantile", an integer column of at most
 *	  "bins" integers (whole bounds) has a bin per integer.  It has a NULL
 *	  level unless "not_null" names it.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_SYNTHPARAMS_H
#define DPOBJ_SYNTHPARAMS_H

#include "postgres.h"

#include "utils/jsonb.h"

#include "base/options.h"
#include "core/synthdomain.h"
#include "core/synthstate.h"
#include "model/encode.h"

/*
 * the name its messages give: the entry point (its aggregates, dp_synthesize
 * and dp_synthesize_cols, are run by dpobj.synthesize() only)
 */
#define SYNTH_AGGNAME		"dpobj.synthesize"

/* public limits of a run, refused before any charge */
#define SYNTH_MAX_BINS			1024
#define SYNTH_MAX_WORKLOAD		4096
#define SYNTH_MAX_SET_COLUMNS	4
#define SYNTH_MIN_MODEL_CELLS	256
#define SYNTH_MAX_MODEL_CELLS	(INT64CONST(1) << 26)
#define SYNTH_MAX_ITERATIONS	10000

/*
 * The schedule (synthaim.h): rho's share for measuring, the first rounds' divisor (AIM's),
 * step 1's share of rho (AIM's is 0.9 / 16; more keeps a small table's single columns
 * usable), more with a "label" (step 1's pairs with it carry what a model learns)
 */
#define SYNTH_ALPHA				0.9
#define SYNTH_ROUNDS_FACTOR		16.0
#define SYNTH_FIRST_SHARE		0.2
#define SYNTH_FIRST_SHARE_LABEL	0.6
/*
 * A column's last level (NULL, "other") whose first single-column count is
 * below this many standard deviations is never drawn (synth.c)
 */
#define SYNTH_CLOSE_SDS			3.0
/*
 * A quantile column's share of its single-column rho spent on its sub-bin
 * counts (the bins' edges), and on its points' counts (synth_column_points,
 * if any); the rest measures the bins chosen (synth.c)
 */
#define SYNTH_SUB_SHARE			0.5
#define SYNTH_POINT_SHARE		0.25
/*
 * A quantile column's sub-bins' offset sums (synthdomain.h) are released at
 * this share of its single-column share of the first step, beside it
 */
#define SYNTH_SUM_SHARE			0.5
/*
 * Without a "label", a quantile column's first releases (sub-bins, sums,
 * points, bins) are at this multiple of a column's single-column rho: its
 * bins and drawn values rest on them; the rounds pay (step 1 costs at most
 * 0.2 x 2 x 1.5 = 0.6 of rho).  With a label (0.6 a column already) 1.
 */
#define SYNTH_QUANTILE_SCALE	2.0
#define SYNTH_FIRST_SHARE_OF(p) ((p)->label >= 0 ? SYNTH_FIRST_SHARE_LABEL : SYNTH_FIRST_SHARE)
#define SYNTH_QUANTILE_RHO1(p, rho) (synth_aim_oneway_rho((rho), (p)->d, SYNTH_FIRST_SHARE_OF(p)) * \
									 ((p)->label >= 0 ? 1.0 : SYNTH_QUANTILE_SCALE))

typedef struct SynthParams
{
	int			d;				/* columns */
	Encoding   *enc;			/* the declared domains, in column order */
	Jsonb	   *enc_json;		/* the same, as given ("domains") */
	int			enc_d;			/* its encoded dimension (the protected context's d) */
	SynthColumn col[SYNTH_MAX_COLUMNS];
	int			scan_levels[SYNTH_MAX_COLUMNS];
	SynthCoding coding[SYNTH_MAX_COLUMNS];	/* a numeric column's scan coding */
	int			sum_at[SYNTH_MAX_COLUMNS];	/* a quantile column's sub-bins' offset sums
											 * in the state's sums, then its points'
											 * counts (synth_column_points), else -1 */
	int			nsums;
	int			bins;			/* "bins" of a column it does not name */
	SynthSet   *workload;		/* the analyst's sets, or NULL: the default (core/synthwork.h) */
	int			nworkload;
	int			label;			/* "label": a column, or -1 */
	int64		max_model_cells;
	int64		max_state_cells;	/* fitted (synthfit.h) */
	int64		max_set_cells;	/* fitted: a stored set's cells at most */
	int			iters_final;
	int			iters_round;
	int			k;				/* rows per privacy unit (1: row level) */
	SynthLayout layout;			/* malloc'd; freed with the memory context */
	int64		hash_slots;		/* the distinct-row hash (core/synthrows.h), 0: none */
	int64		run_bytes;		/* the public bound on a run's memory */
} SynthParams;

/* the options table, defaults in SynthParams (docs/REFERENCE.md, "synthesize") */
extern const DPOptionSpec synthparams_options[];

/*
 * The parameters of options, in cxt (the layout's malloc'd memory is freed
 * when cxt is reset or deleted); every error is a public refusal naming
 * the option.  epsilon and delta: the calibration's range checks.
 */
extern SynthParams *synthparams_parse(Jsonb *options, double epsilon, double delta,
									  MemoryContext cxt);

/* the rho of the whole run: zcdp_rho(epsilon, delta), what the ledger charges */
extern double synthparams_rho(double epsilon, double delta);

/* the column index of name among the parameters' columns, or -1 */
extern int	synthparams_column(const SynthParams *p, const char *name, int len);

/*
 * step 1 measures column j by the "label"'s levels (core/synthaim.c; a
 * quantile column's bins too, synth.c): j not the label, not both quantile
 * columns, the pair in the state
 */
extern bool synth_label_paired(const SynthParams *p, int j);

/* dp_synthesize_cols' argument check (its registry entry): before any charge */
extern void synth_check_args(const char *aggname, double epsilon, double delta, int d,
							 Jsonb *options);

struct DPProtectedContext;

/*
 * On a Citus table (family.h, citus_options): the run's options with
 * "max_state_cells" fixed at this server's value, so that every shard's
 * state has the coordinator's layout
 */
extern Jsonb *synth_citus_options(const struct DPProtectedContext *ctx);

#endif							/* DPOBJ_SYNTHPARAMS_H */
