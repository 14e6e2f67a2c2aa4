/*-------------------------------------------------------------------------
 *
 * ebm.h
 *	  Private additive boosting (ebm.c): one fit on a design, which dp_ebm
 *	  runs and 'auto' runs as a candidate (ebm_candidate, family.h), and
 *	  the private edges (ebmedges.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_EBM_MECH_H
#define DPOBJ_EBM_MECH_H

#include "postgres.h"

#include "utils/jsonb.h"

#include "context/trainquery.h"
#include "core/additive.h"
#include "families/ebm/ebmparams.h"
#include "model/encode.h"
#include "mechanisms/family.h"
#include "mechanisms/operating.h"
#include "mechanisms/privedges.h"
#include "mechanisms/keptbins.h"
#include "state/keptdesign.h"

/* a fit's layout, noise, design and buffers */
typedef struct EBMFit
{
	bool		regression;		/* a float8 label, the last word of a row */
	int			d;				/* the features */
	EBMParams	ep;
	EBMTerm    *terms;			/* the layout (private edges: set by each fit) */
	int			nterms;
	int			nscores;
	int			max_scores;		/* the most nscores can be: every numeric term's "bins" */
	double		rho;			/* the fit's: the run's less the balance estimate's */
	EBMNoise	nz;				/* the fit's noise: at clip's */
	EBMNoise	nz_base;		/* at EBM_CLIP or the option's */
	EBMNoise	nz_large;		/* at EBM_CLIP_LARGE (residual_clip by size) */
	bool		clip_by_size;	/* residual_clip by the noisy counts (the default) */
	double		clip;			/* the fit's residual clip c */
	PrivEdges	edges;			/* private edges (ep.private_bins; ebmedges.c) */
	OpRun		op;				/* the operating point (dp_ebm's own; operating.h) */
	DPKeptDesign D;				/* set by the caller before ebm_fit */
	double	   *scores;
	double	   *counts;			/* the noisy counts */
	double	   *sums;			/* a round's noisy residual sums */
	__int128   *acc;			/* exact sums in units of lattice 2^-DPNOISE_SUM_BITS */
	KeptBins	kb;				/* the observations a fit's first pass kept (ebm.c) */
	double		shrinkage;		/* the step's: the option, or ebm_shrinkage's */
	double		line_share;		/* a numeric term's line in its step (ebm_line_share) */
	double	   *raw;			/* a round's noisy sums, for the lines */
	double		bias;
} EBMFit;

/*
 * The layout from options and d, the noise for rho(p's epsilon, delta) with
 * p's rows_per_unit (less a balance estimate's share, p->balance_share), and
 * the buffers: public inputs only, refused before any row
 */
extern void ebm_fit_init(EBMFit *r, Jsonb *options, const OpParams *p, int d,
						 bool regression);

/* one fit on r->D from zero scores: counts, then the rounds (a logit label) */
extern void ebm_fit(EBMFit *r, gsl_rng *rng, int64 ledger_id);

/* private edges (ebmedges.c): their noise and buffers, before any row */
extern void ebm_edges_init(EBMFit *r, const OpParams *p);

/*
 * After the first pass (exact fine counts in r->acc, in units of lattice
 * unit 2^-DPNOISE_SUM_BITS): each numeric term's tree released, its cuts,
 * the layout's numeric terms cut into their bins, r->acc's counts and the
 * kept observations' bins moved to it
 */
extern void ebm_edges_release(EBMFit *r, gsl_rng *rng, double unit);

/* the fit's public params, "link" to "terms" (between model_params_begin and _end) */
extern void ebm_fit_params(StringInfo buf, const EBMFit *r, const OpParams *p);

/*
 * dp_ebm's argument check, its label (a float8 with "y_min"/"y_max" in the
 * options, else a boolean) and 'auto''s candidate "ebm" (family.h)
 */
extern void ebm_check_args(const char *aggname, double epsilon, double delta, int d,
						   Jsonb *options);
extern TrainLabel ebm_label_kind(Jsonb *options);
extern const DPCandidateOps ebm_candidate;

/* the additive model kind (ebmmodel.c: its unpacking, margin and explain rows) */
extern const ModelKindOps ebm_model_kind;

/*
 * The family's entry (DPMechanism, mechanisms/family.h; in ebm_family,
 * ebm.c): private additive boosting on its kept rows, listed after noisysgd
 */
#define EBM_FAMILY_MECHANISMS \
	{.name = "ebm", .aggregate = "dpobj.dp_ebm", .aggname = "dp_ebm", \
		.check_args = ebm_check_args, .label_of = ebm_label_kind, \
		.model_kind = &ebm_model_kind, .citus_shard_options = true, .encoding_options = encoding_groups_option, \
		.options = ebmparams_options, .listed_after = "noisysgd", \
		.auto_pick = DP_AUTO({"ebm", .ops = &ebm_candidate}), \
	.ledger = DP_LEDGER({"ebm", LEDGER_COST_GAUSS})}

#endif							/* DPOBJ_EBM_MECH_H */
