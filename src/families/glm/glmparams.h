/*-------------------------------------------------------------------------
 *
 * glmparams.h
 *	  Public parameters of the continuous-weight mechanisms (dp_logistic,
 *	  dp_noisysgd, dp_opsamp): privacy parameters and the jsonb options
 *	  R (required), method, loss, lambda, intercept, h, T, radius, beta.
 *	  Fixed by the first row (or by dpobj.train() before any row); never
 *	  computed from the data ("R": "private" of dp_logistic and dp_noisysgd
 *	  leaves R open until the final function draws R-hat, glmprivr.h).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_GLMPARAMS_H
#define DPOBJ_GLMPARAMS_H

#include "base/dpobj.h"
#include "base/options.h"
#include "mechanisms/operating.h"
#include "core/glmloss.h"
#include "families/glm/glmtune.h"

#include "utils/jsonb.h"

typedef enum GLMKind
{
	GLM_KIND_LOGISTIC = 1,		/* dp_logistic: l2 clipping */
	GLM_KIND_SGD,				/* dp_noisysgd: l2 clipping */
	GLM_KIND_OPSAMP,			/* dp_opsamp: l1 clipping */
	/* one-vs-rest multi-class (glmclasses.h): a row is the features + a class index */
	GLM_KIND_LOGISTIC_MC = 8,	/* dp_logistic_multiclass */
	GLM_KIND_SGD_MC = 9,		/* dp_noisysgd_multiclass */
	GLM_KIND_AUTO = 10			/* dp_auto: private model selection (glmauto.c) */
} GLMKind;

/* the binary kind whose options and solver a multi-class kind uses */
#define glm_kind_base(kind) \
	((kind) == GLM_KIND_LOGISTIC_MC ? GLM_KIND_LOGISTIC : \
	 (kind) == GLM_KIND_SGD_MC ? GLM_KIND_SGD : (kind))
#define glm_kind_multiclass(kind) \
	((kind) == GLM_KIND_LOGISTIC_MC || (kind) == GLM_KIND_SGD_MC)

typedef enum GLMMethod
{
	GLM_METHOD_OBJECTIVE = 1,	/* Objective-Gauss (KST12 Thm 2) */
	GLM_METHOD_OUTPUT,			/* Output-Gauss */
	GLM_METHOD_CMS				/* Chaudhuri-Monteleoni-Sarwate, pure eps */
} GLMMethod;

/* Public parameters of a run, fixed by the first row (all from options). */
typedef struct GLMParams
{
	double		epsilon;
	double		delta;
	GLMMethod	method;
	GLMLoss		loss;
	double		R;				/* clip bound (l2; l1 for opsamp) */
	double		lambda;			/* regulariser (sum form), <= 0: default */
	bool		intercept;
	double		h;				/* Huber parameter */
	int64		T;				/* SGD steps, 0: default */
	double		radius;			/* SGD: C = l2 ball of this radius */
	double		grad_clip;		/* SGD: each row's loss derivative clipped to [-c, c], (0, 1] */
	double		adagrad_prior;	/* SGD without "n": AdaGrad's accumulators start at m sigma^2 */
	double		beta;			/* OPSamp failure probability */
	double		n_public;		/* option "n": a public row count (OPSamp, noisy GD), <= 0: none */
	int			rows_per_unit;	/* option "rows_per_unit": neighbours differ in up to k rows */
	int64		sample_rows;	/* dp_logistic, dp_noisysgd: option "sample_rows", 0: every row */
	int			nclasses;		/* multi-class kinds: option "classes" (glmclasses.h); else 0 */
	char	  **classes;		/* their text forms, in declared order */
	double		weight_pos;		/* option "class_weight": a positive row's loss weight, (0, 1] */
	double		weight_neg;		/* ... a negative row's; both 1 by default */
	double		select_share;	/* dp_auto: the share of (eps, delta) spent on selection */
	int			auto_candidates;	/* dp_auto: GLM_AUTO_* bits, the candidates */
	double		auto_head_start;	/* dp_auto: noisy GD's head start, in noise scales */
	double		auto_ebm_head_start;	/* dp_auto: ebm's */
	bool		auto_by_size;	/* dp_auto: the candidate picked from the noisy label
								 * counts, no selection (GLM_AUTO_SIZE_MIN) */
	int			metric;			/* option "metric" of a binary kind, OP_METRIC_*:
								 * the operating point's (opoint.h) */
	double		balance_share;	/* > 0: the run estimates the label balance itself at
								 * this share of its budget (metric balanced_accuracy;
								 * not 'auto' nor "tune", whose selection does) */
	bool		balance_train;	/* the estimated balance weights also train (noisy GD,
								 * ebm: balanced_accuracy without "class_weight") */
	int			auto_metric;	/* dp_auto: option "metric", OP_METRIC_* */
	bool		auto_balance_train; /* dp_auto: balanced_accuracy without "class_weight":
									 * its estimated weights also train */
	/* "R": "private" (dp_logistic, dp_noisysgd; glmprivr.h): R is +inf until R-hat is drawn */
	bool		R_private;
	double		R_quantile;		/* option "R_quantile": q of the norms, (0, 1) */
	double		R_share;		/* option "R_share": the budget's share spent on R-hat */
	/* dp_noisysgd's "tune" (glmtune.h): a public grid, tuned privately; npoints 0: none */
	GLMTune		tune;
} GLMParams;

/* "R": "private"'s defaults (docs/PRIVACY.md, "Private norm bound") */
#define GLM_PRIVR_DEFAULT_QUANTILE	0.9
#define GLM_PRIVR_DEFAULT_SHARE		0.1

/*
 * dp_auto's candidates (option "candidates"), in the order that breaks ties.
 * The default, objective and noisy GD, was chosen by measurement on three
 * tables with and without class weights (docs/BENCHMARKS.md, "Imbalanced
 * labels: auto against the best single mechanism"); with "groups" it is
 * noisy GD and additive boosting, picked by size (GLM_AUTO_SIZE_MIN).
 */
#define GLM_AUTO_OBJECTIVE	0x1
#define GLM_AUTO_CMS		0x2
#define GLM_AUTO_OUTPUT		0x4
#define GLM_AUTO_NOISYSGD	0x8
#define GLM_AUTO_EBM		0x10
#define GLM_AUTO_GBDT		0x20	/* only where "candidates" names it (bench/gbdt/results.md) */
#define GLM_AUTO_DEFAULT	(GLM_AUTO_OBJECTIVE | GLM_AUTO_NOISYSGD | GLM_AUTO_EBM)
/* the candidates' names, in bit order (glmparams.c); each trains as its
 * registry entry's auto_pick says (mechanisms/family.h) */
extern const char *const glm_auto_names[6];

/*
 * dp_auto's pick by size (with "groups" and neither "candidates" nor
 * "select_share"): the last candidate in bit order (ebm) when the smaller
 * noisy label count of its balance estimate less GLM_AUTO_SIZE_SDS of the
 * noise's sd, times epsilon over "rows_per_unit", reaches GLM_AUTO_SIZE_MIN,
 * else the first (noisy GD).  Post-processing of a DP output, no selection.
 * On subsamples of Adult and bank ebm leads noisy GD by 0.4 to 2.2 points
 * from about 140-240 minority rows times epsilon and trails by up to 6.1
 * below (bench/auto/size.md): in doubt, noisy GD.
 */
#define GLM_AUTO_SIZE_MIN			250.0
#define GLM_AUTO_SIZE_SDS			2.0

/* the share of the final model's epsilon dp_auto's balance estimate takes */
#define GLM_AUTO_BALANCE_SHARE		0.05
/* a binary classifier's own balance estimate (operating.h) */
#define GLM_BALANCE_SHARE			OP_BALANCE_SHARE

/* dp_auto's default "select_share" (docs/BENCHMARKS.md "Private model selection") */
#define GLM_AUTO_DEFAULT_SHARE	0.1
/* ... with noisy GD among the candidates ("'auto': noisy GD's head start") */
#define GLM_AUTO_DEFAULT_SHARE_NOISYSGD	0.05

/*
 * dp_auto's default "noisysgd_head_start": noisy GD's score starts this many
 * of the selection's Laplace scales ahead (docs/BENCHMARKS.md, "Imbalanced
 * labels: auto against the best single mechanism"); at most GLM_AUTO_MAX_HEAD_START.
 * "ebm_head_start": ebm's, a public prior: retrained at the final budget ebm
 * led noisy GD on Adult, bank and their subsamples, while at the selection's
 * budget the two tie and the pick was a coin flip (bench/ebm/results.md)
 */
#define GLM_AUTO_DEFAULT_HEAD_START	3.0
#define GLM_AUTO_DEFAULT_EBM_HEAD_START	11.0
#define GLM_AUTO_MAX_HEAD_START		64.0

/*
 * Noisy GD's default "gradient_clip" c: each row's loss derivative is
 * clipped to [-c, c], so its gradient's norm to c R_eff and the noise is for
 * 2 c R_eff.  With class weights (given, or estimated for a balanced metric)
 * a quarter: at theta = 0 every logistic derivative is 1/2, so the clip
 * halves the first steps' signal and quarters their noise; without weights 1
 * (no clip), where a clip pulls the model towards the majority class
 * (docs/BENCHMARKS.md, "Noisy GD's gradient clip and AdaGrad prior").
 */
#define GLM_SGD_DEFAULT_CLIP			1.0
#define GLM_SGD_DEFAULT_CLIP_WEIGHTED	0.25

/*
 * Noisy GD's default "adagrad_prior" m (without "n"): AdaGrad's accumulator
 * of every coordinate starts at m sigma^2, sigma the public noise sd of a
 * released gradient coordinate, so a coordinate takes full steps only once
 * its released gradients outweigh m steps of pure noise.  With class weights
 * 64, else 0, chosen as the clip was (docs/BENCHMARKS.md, "Noisy GD's
 * gradient clip and AdaGrad prior"): where the weights make the effective
 * sample small the first noisy steps otherwise move every coordinate by a
 * whole step.
 */
#define GLM_SGD_DEFAULT_PRIOR_WEIGHTED	64.0
#define GLM_SGD_MAX_PRIOR				1e6

/* the aggregate's name, for messages */
extern const char *glm_kind_aggname(GLMKind kind);

/*
 * The kinds' options table: the kinds accepting each key, its bounds and
 * default (R is required; gradient_clip, adagrad_prior, metric and with
 * noisysgd select_share get defaults computed from the other options,
 * glmparams_init), and dp_opsamp's defaults: no intercept, else these
 */
extern const DPOptionSpec glmparams_options[];
extern const DPOptionSpec glmparams_opsamp_options[];

/* Defaults, then the options (required: R); raises on a bad option. */
extern void glmparams_init(GLMKind kind, GLMParams *p, double epsilon,
						   double delta, Jsonb *options);

/*
 * dpobj.train()'s argument checks (train.c), as the first row would: the
 * privacy parameters, the dimension and the options, parsed into *p.
 */
extern void glmparams_check_args(GLMKind kind, const char *aggname, double epsilon,
								 double delta, int d, Jsonb *options, GLMParams *p);

/*
 * A budget (epsilon, delta or rho) split by a public share: part = share
 * total, rest = total - part rounded down until part + rest <= total exactly
 * (dp_auto's selection, "R": "private"'s R-hat).
 */
extern void glm_budget_split(double total, double share, double *part, double *rest);

/*
 * A zCDP budget rho split for "R": "private" (Output-Gauss, noisy GD):
 * rho_R = share rho and rho_m = the rest (glm_budget_split); eps_R =
 * sqrt(8 rho_R) rounded down, so that the exponential mechanism at eps_R,
 * eps_R-bounded-range hence eps_R^2/8-zCDP, costs at most rho_R.
 */
extern void glm_budget_split_rho(double rho, double share, double *rho_R, double *rho_m,
								 double *eps_R);

/* R_eff = sqrt(R^2 + 1) with an intercept (its feature is 1), else R */
extern double glmparams_reff(const GLMParams *p);

/*
 * regulariser with defaults filled in (sum form: sum_i l_i + lambda/2 ||t||^2):
 * the declared lambda, else Objective-Gauss's minimum, rounded up
 */
extern double glm_default_lambda(const GLMParams *p);

/*
 * The ledger names' index (family.h, ledger_pick): logistic's by "method"
 * (objective 0, the default; output 1; cms 2), noisy GD's by "tune"
 * (noisysgd_tune 1)
 */
extern int	logistic_ledger_pick(Jsonb *options);
extern int	noisysgd_ledger_pick(Jsonb *options);

#endif							/* DPOBJ_GLMPARAMS_H */
