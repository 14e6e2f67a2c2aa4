/*-------------------------------------------------------------------------
 *
 * ebm.h
 *	  Private additive boosting (ebm.c): dp_ebm's argument check and label,
 *	  named by its registry entry, and one fit on a design, which 'auto'
 *	  also runs as a candidate (glmauto.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_EBM_MECH_H
#define DPOBJ_EBM_MECH_H

#include "postgres.h"

#include "utils/jsonb.h"

#include "context/trainquery.h"
#include "core/ebm.h"
#include "mechanisms/glm.h"
#include "mechanisms/operating.h"
#include "state/ebmparams.h"

/* a fit's layout, noise, design and buffers */
typedef struct EBMFit
{
	bool		regression;		/* a float8 label, the last word of a row */
	int			d;				/* the features */
	EBMParams	ep;
	EBMTerm    *terms;
	int			nterms;
	int			nscores;
	double		rho;			/* the fit's: the run's less the balance estimate's */
	EBMNoise	nz;
	OpRun		op;				/* the operating point (dp_ebm's own; operating.h) */
	NoisySGDDesign D;			/* set by the caller before ebm_fit */
	double	   *scores;
	double	   *counts;			/* the noisy counts */
	double	   *sums;			/* a round's noisy residual sums */
	__int128   *acc;			/* exact sums in units of lattice 2^-DPNOISE_SUM_BITS */
	/* the observations a fit's first pass kept (0 kept_cap: none; ebm.c) */
	uint16	   *bins;			/* each one's bin per term */
	double	   *kept_cnt;		/* its count (class weights applied) */
	double	   *kept_y;			/* its label */
	int64		kept_cap;		/* observations they may hold */
	int64		kept;			/* observations they hold */
	bool		kept_all;		/* every observation: later passes read only them */
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
extern void ebm_fit_init(EBMFit *r, Jsonb *options, const GLMParams *p, int d,
						 bool regression);

/* one fit on r->D from zero scores: counts, then the rounds (a logit label) */
extern void ebm_fit(EBMFit *r, gsl_rng *rng, int64 ledger_id);

/* the fit's public params, "link" to "terms" (between model_params_begin and _end) */
extern void ebm_fit_params(StringInfo buf, const EBMFit *r, const GLMParams *p);

/* dpobj.train()'s argument check, before any row is read */
extern void ebm_check_args(const char *aggname, double epsilon, double delta, int d,
						   Jsonb *options);

/* dp_ebm's label: a float8 with "y_min"/"y_max" in the options, else a boolean */
extern TrainLabel ebm_label_kind(Jsonb *options);

#endif							/* DPOBJ_EBM_MECH_H */
