/*-------------------------------------------------------------------------
 *
 * glm.h
 *	  Calibration and design matrix shared by dp_logistic (glm.c) and
 *	  dp_noisysgd (noisysgd.c); the exact minimiser of dp_logistic
 *	  (glmminimise.c over the plain-C glmsolve.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_GLM_H
#define DPOBJ_GLM_H

#include <gsl/gsl_rng.h>

#include "context/trainquery.h"
#include "families/glm/glmstate.h"
#include "model/encode.h"
#include "state/keptdesign.h"
#include "mechanisms/mechanism.h"
#include "mechanisms/operating.h"

typedef struct GLMCalibration
{
	double		Reff;			/* sqrt(R^2 + 1) with an intercept, else R */
	double		beta;			/* bound on l'' */
	double		lambda;			/* Lambda (sum form) */
	double		sigma;			/* Gaussian noise scale (objective, output) */
	double		b_lattice;		/* objective: b's lattice (dpnoise_objective_lattice) */
	uint64		b_sigma2;		/* objective: b's variance in lattice units */
	double		sensitivity;	/* output: l2 sensitivity of the minimiser */
	double		rho;			/* output: zCDP of the release, from (eps, delta) */
	double		lattice;		/* the public lattice the release is snapped to */
	uint64		sigma2_lattice; /* output: discrete Gaussian variance, lattice units */
	double		eps_prime;		/* CMS */
	double		extra_reg;		/* CMS Delta (sum form) */
	double		gamma_scale;	/* CMS: ||b|| ~ Gamma(p, gamma_scale) */
	/* approximate minima perturbation (objective methods; glm.c) */
	double		amp_eps;		/* the budget share of the output noise */
	double		amp_radius;		/* public bound on ||theta^ - argmin|| */
	double		amp_lattice;	/* the output noise's lattice */
	uint64		amp_dlap_t;		/* its discrete Laplace scale, lattice units */
	/* "R": "private" (glmprivr.h): R-hat's exponential mechanism */
	double		R_eps;			/* its epsilon (pure DP) */
	double		R_rho;			/* Output-Gauss: its zCDP share of rho (R_eps^2 / 8 <= it) */
	/* the operating point (operating.h): its balance estimate's share of the budget */
	OpRun		op;
} GLMCalibration;

/*
 * d: features (the intercept, if any, comes on top).  With "R": "private"
 * p->R is the candidate to calibrate for, and the mechanism gets the budget
 * left after R-hat's share (c->R_eps, c->R_rho).
 */
extern void glm_calibrate(const GLMParams *p, int d, GLMCalibration *c);
/*
 * "R": "private": refuses unless every candidate's calibration (privquant.h)
 * succeeds; returns eps_R
 */
extern double glm_check_candidates(const GLMParams *p, int d);
extern double glm_gauss_sigma(double eps, double delta, double D);
extern double glm_analytic_gauss_sigma(double eps, double delta, double D);

/* distinct (x, y) observations with counts, x augmented with 1 if intercept */
extern void glm_design(const GLMState *s, bool intercept, double **X, double **cnt,
					   double **y, int64 *nobs, int *p);

/*
 * The minimiser (glm_minimise) returns a point whose computed gradient of
 * the sum-form objective J = sum_k cnt_k l + (reg/2)||theta||^2 + <b, theta>
 * has norm at most GLM_GRAD_TOL * L * R_eff (L = 1 for both losses), or, where
 * Newton does not get there, the end point of the accelerated descent, whose
 * exact gradient is within that bound (src/core/glmdescent.c).  The tolerance
 * is absolute, independent of the private row count; doubled to cover the
 * rounding of the computed gradient it is gamma = 2 GLM_GRAD_TOL L R_eff, and
 * every released point is within r = gamma / reg of argmin J (strong
 * convexity).  Output-Gauss's sensitivity includes 2 r (glm.c: 2 L R_eff (1 +
 * 2 GLM_GRAD_TOL) / lambda); the objective methods pay for r with output
 * noise (approximate minima perturbation, glm.c; docs/PRIVACY.md
 * "Approximate minimisers").
 */
#define GLM_GRAD_TOL	1e-6

/* the plain-C solver's design, whole or in blocks (glmsolve.h) */
struct GLMSolveDesign;
struct GLMSolveBlocks;

/*
 * The state's sparse design for glm_minimise, x augmented with 1 if
 * intercept: huge palloc's with 64-bit counts, bounded by memory only
 * (glmminimise.c).
 */
extern struct GLMSolveDesign *glm_minimise_design(const GLMState *s, bool intercept);

/*
 * dp_logistic's design in blocks: when the state is in memory and its
 * design fits in a share of dpobj.max_state_memory, the one block of
 * glm_minimise_design (built now); else each block built from
 * glmblocks.h's rows when the solver reaches it, in a memory context of
 * its own, within that share.  The solver sees the same observations in
 * the same order either way.
 */
extern struct GLMSolveBlocks *glm_minimise_blocks(const GLMState *s, bool intercept);

/*
 * Clips every row of a design of glm_minimise_blocks to l2 norm R (the
 * intercept's 1 untouched): at once for a whole design, else as each block
 * is built.  "R": "private" clips to R-hat, drawn after the design was built.
 */
extern void glm_minimise_clip(struct GLMSolveBlocks *B, double R);

/* the minimiser's work memory for pp parameters (public), palloc'd */
extern double *glm_minimise_work(int pp);

/*
 * argmin_theta (1/n)[sum_k cnt_k l(y_k <theta, x_k>) + (reg/2)||theta||^2 + <b, theta>]
 * over the design X (glm_minimise_design): the plain-C solver (glmsolve.h);
 * Reff is glmparams_reff(); theta has X's p entries; work is
 * glm_minimise_work(p).  theta always ends within GLM_GRAD_TOL's bound
 * (above), whatever the rows.  A pending interrupt is raised through
 * mechanism_poll(ledger_id).
 */
extern void glm_minimise(const struct GLMSolveDesign *X, double Reff, GLMLoss loss,
						 double h, double reg, const double *b, double *work,
						 double *theta, int64 ledger_id);

/* glm_minimise over a design in blocks (glm_minimise_blocks) */
extern void glm_minimise_over(const struct GLMSolveBlocks *B, double Reff, GLMLoss loss,
							  double h, double reg, const double *b, double *work,
							  double *theta, int64 ledger_id);

/* what dp_logistic and its multi-class form share (glm.c) */
extern const char *glm_mechanism_name(GLMMethod m);

/* the driver's admit (mechanism.h) on a GLM-family state of kind (GLMKind) */
extern void *glm_admit(FunctionCallInfo fcinfo, int kind, DPProtectedContext **pctx);
/* the driver's release on it: the model of (theta, its bias last with an intercept) */
extern Datum glm_model(DPRun *run, const char *name, const double *theta, StringInfo params);
/* ... its bias less shift (an operating point's, operating.h) */
extern Datum glm_model_shifted(DPRun *run, const char *name, const double *theta,
							   StringInfo params, double shift);
extern void glm_calibration_params(StringInfo buf, const GLMParams *p,
								   const GLMCalibration *c, int d);
/* the objective's linear noise b, palloc'd (NULL for output perturbation) */
extern double *glm_objective_noise(gsl_rng *rng, GLMMethod method,
								   const GLMCalibration *c, int pp);
/*
 * dp_logistic's release over the design X into theta (pp entries): the
 * objective's noise, the minimiser, the snapped release (glm.c)
 */
extern void glm_release_point(gsl_rng *rng, const GLMParams *p, const GLMCalibration *c,
							  const struct GLMSolveDesign *X, double *work, double *theta,
							  int pp, int64 ledger_id);
/* glm_release_point over a design in blocks */
extern void glm_release_blocks(gsl_rng *rng, const GLMParams *p, const GLMCalibration *c,
							   const struct GLMSolveBlocks *B, double *work, double *theta,
							   int pp, int64 ledger_id);
/* the released values of a minimiser on the public lattice (in place) */
extern void glm_snap_release(gsl_rng *rng, GLMMethod method,
							 const GLMCalibration *c, double *theta, int pp);

/* dp_noisysgd's noise and descent, shared with its multi-class form (noisysgd.c) */
/*
 * The step size's denominator G^2 + pp s^2 (s the noise's standard deviation;
 * G = "n" R_eff, 0 without a public "n"): public inputs only.
 */
extern double noisysgd_step_denom(const GLMParams *p, int pp, double Reff, double s);
extern void noisysgd_noise(const GLMParams *p, int pp, double *Reff, int64 *T,
						   double *rho, double *lattice, uint64 *sigma2);
/* the same at a given rho (the run's, or a tuning run's share) */
extern void noisysgd_noise_rho(const GLMParams *p, int pp, double rho, double *Reff,
							   int64 *T, double *lattice, uint64 *sigma2);
/* the number of steps: "T", else the default (30; 1000 with "n") */
extern int64 noisysgd_default_T(const GLMParams *p);
/* the options and the noise's sampler range of a noisy-GD kind, before any row */
extern void noisysgd_check_kind(GLMKind kind, const char *aggname, double epsilon,
								double delta, int d, Jsonb *options);
/* a noisy-GD model's public params, between model_params_begin() and _end() */
extern void noisysgd_params_body(StringInfo params, const GLMParams *p, int d, int64 T,
								 double s, double rho, double lattice);
extern void noisysgd_descend(const GLMParams *p, const double *X, const double *cnt,
							 const double *y, int64 nobs, int pp, int64 T,
							 double lattice, uint64 sigma2, double denom,
							 gsl_rng *rng, int64 ledger_id, double *theta);

/*
 * dp_noisysgd's dense design: the kept rows' (keptdesign.h) at the state's
 * class weights, whole or in blocks
 */
extern void noisysgd_design(DPKeptDesign *D, const GLMState *s, bool intercept);

/*
 * The rows of D that theta classifies right, each counted W[0] (positive) or
 * W[1] (negative) times, W in [0, 2^10]; w: the class weights D's counts
 * carry (positive, negative), each in [2^-10, 1].  Sensitivity max W.
 */
extern int64 noisysgd_score_right(DPKeptDesign *D, const double *theta, const int64 W[2],
								  const double w[2]);

/*
 * "tune" (noisysgdtune.c): the grid's calibration, refused on public grounds
 * before the charge; the tuned run's driver steps (mechanism.h), which
 * noisy GD's final function takes with "tune".
 */
extern void noisysgd_tune_check(const GLMParams *p, int pp);
extern void noisysgd_tune_calibrate(DPRun *run);
extern void noisysgd_tune_compute(DPRun *run);
extern Datum noisysgd_tune_release(DPRun *run);

/* noisysgd_descend over a design, whole or in blocks */
extern void noisysgd_descend_design(const GLMParams *p, DPKeptDesign *D, int64 T,
									double lattice, uint64 sigma2, double denom,
									gsl_rng *rng, int64 ledger_id, double *theta);

/*
 * The GLM family's argument checks (their registry entries); auto's also
 * checks every candidate's calibration (glmauto.c)
 */
extern void logistic_check_args(const char *aggname, double epsilon, double delta,
								int d, Jsonb *options);
extern void noisysgd_check_args(const char *aggname, double epsilon, double delta,
								int d, Jsonb *options);
extern void opsamp_check_args(const char *aggname, double epsilon, double delta,
							  int d, Jsonb *options);
extern void auto_check_args(const char *aggname, double epsilon, double delta,
							int d, Jsonb *options);
/* the one-vs-rest forms' (glmmulticlass.c) */
extern void logistic_mc_check_args(const char *aggname, double epsilon, double delta,
								   int d, Jsonb *options);
extern void noisysgd_mc_check_args(const char *aggname, double epsilon, double delta,
								   int d, Jsonb *options);

/* the private norm bound: its gauss runs (Output-Gauss, noisy GD) charge as zcdp */
#define GLM_ZCDP_OPTION "\"R\": \"private\""

/*
 * The family's entries (DPMechanism, mechanisms/family.h; in glm_family,
 * glm.c): the binary kinds, and the one-vs-rest forms (which the registry
 * lists after every family's two-class and regression mechanisms)
 */
#define GLM_FAMILY_MECHANISMS \
	/* the ledger and the model name it by its method */ \
	{.name = "logistic", .aggregate = "dpobj.dp_logistic", .aggname = "dp_logistic", \
		.check_args = logistic_check_args, .model_kind = MODEL_KIND_LINEAR, .citus_shard_options = true, .r_norm = 2, \
		.options = glmparams_options, \
		.methods = DP_METHODS("objective", "output", "cms"), \
		.auto_pick = DP_AUTO({"objective", GLM_KIND_LOGISTIC, GLM_METHOD_OBJECTIVE}, \
							 {"cms", GLM_KIND_LOGISTIC, GLM_METHOD_CMS}, \
							 {"output", GLM_KIND_LOGISTIC, GLM_METHOD_OUTPUT}), \
		.ledger = DP_LEDGER({"objective_gauss", LEDGER_COST_APPROX}, \
							{"output_gauss", LEDGER_COST_GAUSS}, {"cms", LEDGER_COST_PURE}), \
	.ledger_pick = logistic_ledger_pick, .zcdp_option = GLM_ZCDP_OPTION}, \
	/* tuned noisy GD is approximate DP (noisysgdtune.c) */ \
	{.name = "noisysgd", .aggregate = "dpobj.dp_noisysgd", .aggname = "dp_noisysgd", \
		.check_args = noisysgd_check_args, .model_kind = MODEL_KIND_LINEAR, .citus_shard_options = true, .r_norm = 2, \
		.options = glmparams_options, \
		.auto_pick = DP_AUTO({"noisysgd", GLM_KIND_SGD, GLM_METHOD_OBJECTIVE}), \
		.ledger = DP_LEDGER({"noisysgd", LEDGER_COST_GAUSS}, \
							{"noisysgd_tune", LEDGER_COST_APPROX, "\"tune\""}), \
	.ledger_pick = noisysgd_ledger_pick, .zcdp_option = GLM_ZCDP_OPTION}, \
	/* private model selection among the GLM mechanisms (glmauto.c) */ \
	{.name = "auto", .aggregate = "dpobj.dp_auto", .aggname = "dp_auto", \
		.check_args = auto_check_args, .model_kind = MODEL_KIND_LINEAR, .r_norm = 2, .chooses = true, \
		.encoding_options = encoding_groups_option, \
		.options = glmparams_options, \
	.ledger = DP_LEDGER({"auto", LEDGER_COST_APPROX})}, \
	{.name = "opsamp", .aggregate = "dpobj.dp_opsamp", .aggname = "dp_opsamp", \
		.check_args = opsamp_check_args, .model_kind = MODEL_KIND_LINEAR, .r_norm = 1, .options = glmparams_opsamp_options, \
	.ledger = DP_LEDGER({"opsamp", LEDGER_COST_APPROX})}

#define GLM_FAMILY_MULTICLASS_MECHANISMS \
	/* One-vs-rest multi-class: the label is a class (glmmulticlass.c) */ \
	{.name = "logistic_multiclass", .aggregate = "dpobj.dp_logistic_multiclass", \
		.aggname = "dp_logistic_multiclass", .check_args = logistic_mc_check_args, \
		.label_kind = TRAIN_LABEL_CLASS, .model_kind = MODEL_KIND_MULTICLASS, .r_norm = 2, .options = glmparams_options, \
		.ledger = DP_LEDGER({"objective_gauss_ovr", LEDGER_COST_APPROX}, \
							{"output_gauss_ovr", LEDGER_COST_GAUSS, "\"method\": \"output\""}, \
							{"cms_ovr", LEDGER_COST_PURE, "\"method\": \"cms\""}), \
	.ledger_pick = logistic_ledger_pick}, \
	{.name = "noisysgd_multiclass", .aggregate = "dpobj.dp_noisysgd_multiclass", \
		.aggname = "dp_noisysgd_multiclass", .check_args = noisysgd_mc_check_args, \
		.label_kind = TRAIN_LABEL_CLASS, .model_kind = MODEL_KIND_MULTICLASS, .r_norm = 2, .options = glmparams_options, \
	.ledger = DP_LEDGER({"noisysgd_ovr", LEDGER_COST_GAUSS})}

#endif							/* DPOBJ_GLM_H */
