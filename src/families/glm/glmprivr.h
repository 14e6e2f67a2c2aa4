/*-------------------------------------------------------------------------
 *
 * glmprivr.h
 *	  "R": "private" (dp_logistic, dp_noisysgd): the histogram of the rows' norms over
 *	  the public grid of candidates (privquant.h), taken before the charge,
 *	  and R-hat drawn from it after the charge by the exact exponential
 *	  mechanism (docs/PRIVACY.md, "Private norm bound").  The state's rows
 *	  are unclipped; the design is clipped to R-hat (glm_minimise_clip).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_GLMPRIVR_H
#define DPOBJ_GLMPRIVR_H

#include <gsl/gsl_rng.h>

#include "families/glm/glmstate.h"
#include "core/privquant.h"

/*
 * hist[PRIVQUANT_N]: the rows of s (distinct rows times their counts,
 * saturating) by the bin of their l2 norm (privquant_bin); in canonical
 * order, in memory or from the spill file.  Never raises for the rows' sake.
 */
extern void glm_privr_histogram(const GLMState *s, int64 *hist);

/*
 * The index of R-hat among the candidates: the exponential mechanism at
 * eps_R for p's "R_quantile" and rows_per_unit; a pending interrupt is
 * raised through mechanism_poll(ledger_id).
 */
extern int	glm_privr_select(gsl_rng *rng, const GLMParams *p, double eps_R,
							 const int64 *hist, int64 ledger_id);

/*
 * The public params of "R": "private" (R itself, R-hat, is glm_params_model's):
 * R_source, R_quantile, R_share, R_epsilon, and R_rho when R_rho >= 0 (the
 * mechanisms charged in zCDP).
 */
extern void glm_privr_params(StringInfo buf, const GLMParams *p, double R_eps, double R_rho);

#endif							/* DPOBJ_GLMPRIVR_H */
