/*-------------------------------------------------------------------------
 *
 * gbdt.h
 *	  Private boosted trees (gbdt.c): dp_gbdt's options (gbdtparams.c), its
 *	  fit, its state (gbdtstate.c) and its model kind (gbdtmodel.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_GBDT_H
#define DPOBJ_GBDT_H

#include "postgres.h"

#include "utils/jsonb.h"

#include "base/options.h"
#include "core/additive.h"
#include "mechanisms/family.h"
#include "mechanisms/keptbins.h"
#include "mechanisms/operating.h"
#include "mechanisms/privedges.h"
#include "model/encode.h"
#include "state/keptdesign.h"

#define GBDT_MAX_TREES	1000
#define GBDT_MIN_DEPTH	2
#define GBDT_MAX_DEPTH	4
#define GBDT_MODEL_MAX_TERMS	(1 << 20)

/* dp_gbdt's own options (all public) */
typedef struct GBDTParams
{
	int			additive_rounds;	/* first, rounds updating every term's bins */
	double		additive_rate;	/* ... their learning rate */
	int			trees;			/* boosting rounds: one tree each */
	int			depth;			/* a tree's levels: 2^depth leaves */
	int			split_passes;	/* a tree's passes choosing its splits (0: depth) */
	int			bins;			/* a numeric coordinate's bins */
	double		learning_rate;
	double		residual_clip;	/* a row's gradient clipped to [-c, c], (0, 1] */
	double		split_share;	/* the share of rho the splits' histograms take */
	double		reg;			/* pseudo-hessian added to each sum, in noise sds */
	int			tree_terms;		/* the terms a tree's splits consider (0: all) */
	bool		private_bins;	/* "binning": "private" (edges at private quantiles) */
	double		bin_share;		/* private edges: their share of rho */
	double		lo;				/* numeric coordinates binned over [lo, hi] */
	double		hi;
	double		y_min;			/* a float8 label: its public bounds (required) */
	double		y_max;
	bool		have_y;
	int			ngroups;		/* "groups": 0 numeric, m a one-hot group */
	int		   *groups;
} GBDTParams;

extern const DPOptionSpec gbdtparams_options[];

/*
 * The parsed options and the layout they give for d coordinates; a float8
 * label (regression) needs y_min < y_max, a boolean one refuses them (public
 * grounds)
 */
extern void gbdtparams_init(Jsonb *options, int d, bool regression, GBDTParams *p,
							EBMTerm **terms, int *nterms, int *nscores);

/* the run's parameters (keptoptions.h) */
extern void gbdtparams_run(bool regression, OpParams *p, double epsilon, double delta,
						   Jsonb *options);

/* a split: right iff the row's bin of term is at least at */
typedef struct GBDTSplit
{
	int			term;
	int			at;
	double		gain;			/* its noisy gain (post-processing) */
} GBDTSplit;

/* a fit's layout, noise and buffers (gbdt.c) */
typedef struct GBDTFit
{
	bool		regression;		/* a float8 label, the last word of a row */
	int			d;
	GBDTParams	gp;
	EBMTerm    *terms;
	int			nterms;
	int			nscores;		/* the bins of every term */
	int			maxsize;		/* the largest term */
	int			nuse;			/* the terms a tree considers */
	bool	   *use;			/* ... this tree's (drawn at random, public) */
	double		rho;			/* the fit's (the run's less the balance estimate's) */
	double		clip;
	/* the histograms' noise (a level: each term's gradient and hessian sums) */
	double		split_lattice[2];
	uint64		split_sigma2[2];
	/* the leaves' */
	double		leaf_lattice[2];
	uint64		leaf_sigma2[2];
	PrivEdges	edges;			/* private edges (gp.private_bins) */
	OpRun		op;
	DPKeptDesign D;
	double	   *scores;			/* the additive rounds' per-bin scores */
	int			ntrees;			/* the model's: the trees and the scores' steps */
	GBDTSplit  *splits;			/* ntrees x depth */
	double	   *leaves;			/* ntrees x 2^depth */
	double		bias;
	__int128   *acc;			/* exact sums, 2 x 2^(depth-1) x nscores */
	double	   *hist;			/* ... released */
	KeptBins	kb;				/* the observations' bins the passes keep */
	double	   *zc;				/* the first zcap observations' margins less the bias */
	int64		zcap;
	int			ztrees;			/* ... over the trees before this one */
} GBDTFit;

/* a release's gradient (0) and hessian (1) sums */
#define GBDT_G	0
#define GBDT_H	1

/* a pass's hessian sums: at the margin, its public bound, or none */
typedef enum GBDTHessian
{
	GBDT_HESS_MARGIN,
	GBDT_HESS_BOUND,
	GBDT_HESS_NONE
} GBDTHessian;

static inline int
gbdt_leaves(const GBDTFit *r)
{
	return 1 << r->gp.depth;
}

/*
 * One pass for tree tr at level `level` (depth: its leaves) into r->acc
 * (gbdt.c), and a pass's n sums of each kind released into r->hist
 */
extern void gbdt_pass(GBDTFit *r, int tr, int level, const double per_unit[2],
					  GBDTHessian hm);
extern void gbdt_release(GBDTFit *r, gsl_rng *rng, int n, const double lattice[2],
						 const uint64 sigma2[2]);

/*
 * gbdtadditive.c: the private edges' pass and release; the additive rounds
 * (l the histograms' regulariser; returns its small-table multiplier); the
 * scores as step trees after the boosted ones
 */
extern void gbdt_edges(GBDTFit *r, gsl_rng *rng);
extern double gbdt_additive(GBDTFit *r, gsl_rng *rng, const double su[2], double l,
							int64 ledger_id);
extern void gbdt_steps(GBDTFit *r);

/* the margin of a design row x after the fit (gbdtpass.c) */
extern double gbdt_fit_margin(const void *fit, const double *x);

/* 'auto''s candidate "gbdt" (family.h) */
extern const DPCandidateOps gbdt_candidate;

extern void gbdt_check_args(const char *aggname, double epsilon, double delta, int d,
							Jsonb *options);
extern TrainLabel gbdt_label_kind(Jsonb *options);

/* the model kind (gbdtmodel.c) */
extern const ModelKindOps gbdt_model_kind;

/* the driver's admit on a gbdt state (gbdtstate.c) */
struct DPProtectedContext;
extern void *gbdt_admit(FunctionCallInfo fcinfo, int kind, struct DPProtectedContext **pctx);

#define GBDT_FAMILY_MECHANISMS \
	{.name = "gbdt", .aggregate = "dpobj.dp_gbdt", .aggname = "dp_gbdt", \
		.check_args = gbdt_check_args, .label_of = gbdt_label_kind, \
		.model_kind = &gbdt_model_kind, .citus_shard_options = true, \
		.encoding_options = encoding_groups_option, .options = gbdtparams_options, \
		.auto_pick = DP_AUTO({"gbdt", .ops = &gbdt_candidate}), \
	.ledger = DP_LEDGER({"gbdt", LEDGER_COST_GAUSS})}

#endif							/* DPOBJ_GBDT_H */
