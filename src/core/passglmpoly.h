/*-------------------------------------------------------------------------
 *
 * passglmpoly.h
 *	  PASS-GLM for logistic regression (Huggins, Adams, Broderick, "PASS-GLM:
 *	  polynomial approximate sufficient statistics for scalable Bayesian GLM
 *	  inference", NeurIPS 2017, with its private variant): the logistic loss
 *	  phi(s) = log(1 + e^-s) replaced by its degree-2 Chebyshev
 *	  approximation on [-r, r], plain C (tests/unit/test_passglm.c).
 *
 * With s = y <w, x>, y in {-1, +1} (so y^2 = 1), the approximate loss of the
 * rows is const + b1 <w, sum y x> + b2 w^T (sum x x^T) w: the sufficient
 * statistics are those of a least-squares regression on labels +-1, and the
 * ridge-regularised minimiser is
 *	  w = -b1 (2 b2 A + lambda I)^-1 b = (-b1 / (2 b2)) (A + lambda / (2 b2) I)^-1 b.
 * docs/PRIVACY.md "One-pass logistic regression (passglm)".
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_PASSGLMPOLY_H
#define DPOBJ_PASSGLMPOLY_H

/* the approximation interval [-r, r] of the margin s */
#define PASSGLM_RADIUS 4.0

/*
 * The coefficients of the degree-2 Chebyshev approximation
 * b0 + b1 s + b2 s^2 of log(1 + e^-s) on [-r, r] (the Chebyshev series
 * truncated after T_2, computed with n-point Gauss-Chebyshev quadrature).
 */
extern void passglm_chebyshev2(double r, int n, double *b0, double *b1, double *b2);

/*
 * The factor -b1 / (2 b2) that turns the least-squares direction
 * (A + lambda' I)^-1 b into the approximate logistic minimiser, for the
 * default interval.
 */
extern double passglm_scale(void);

#endif							/* DPOBJ_PASSGLMPOLY_H */
