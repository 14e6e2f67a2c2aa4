/*-------------------------------------------------------------------------
 *
 * linreg.h
 *	  Private linear regression by sufficient-statistics perturbation,
 *	  plain C + GSL (no PostgreSQL header; unit-tested in
 *	  tests/unit/test_linreg.c): the exact fixed-point sums a row adds, the
 *	  calibration of AdaSSP (Wang, "Revisiting differentially private
 *	  linear regression", NeurIPS 2018, Algorithm 2) and of plain SSP in
 *	  zCDP, the snapped discrete Gaussian release of a sum, and the solve.
 *	  Derivations: docs/PRIVACY.md "Linear regression".
 *
 * Units.  A row (x, y) enters normalised: u = (x clipped to R [, 1]) /
 * R_eff with ||u|| <= 1, v = (y clipped to [y_min, y_max] - c) / B_y with
 * |v| <= 1 (c the centre of the label range with an intercept, else 0).
 * Each product u_i u_j, u_i v, v^2 is rounded to the fixed-point grid
 * 2^-LINREG_FRAC_BITS and summed in 128-bit integers: integer addition is
 * associative, so the sums are exact and the same whatever the order rows
 * or partial states arrive in.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_LINREG_H
#define DPOBJ_LINREG_H

#include <stdbool.h>
#include <stdint.h>

#include <gsl/gsl_rng.h>

#define LINREG_FRAC_BITS 60

typedef __int128 linreg_int128;

/*
 * One exact sum, stored as two 64-bit words (two's complement) so that it
 * needs only 8-byte alignment inside a varlena state.
 */
typedef struct LinRegSum
{
	uint64_t	lo;
	uint64_t	hi;
} LinRegSum;

static inline linreg_int128
linreg_sum_get(LinRegSum s)
{
	return (linreg_int128) (((unsigned __int128) s.hi << 64) | s.lo);
}

static inline void
linreg_sum_add(LinRegSum *s, linreg_int128 x)
{
	unsigned __int128 t = (unsigned __int128) linreg_sum_get(*s) + (unsigned __int128) x;

	s->lo = (uint64_t) t;
	s->hi = (uint64_t) (t >> 64);
}

/* the sums of p = d [+ 1] coordinates: p(p+1)/2 of u u^T (upper triangle,
 * row by row), p of u v, one of v^2 */
static inline int
linreg_tri(int p)
{
	return p * (p + 1) / 2;
}

static inline int
linreg_nsums(int p)
{
	return linreg_tri(p) + p + 1;
}

/*
 * Staging.  A row's products go first into int64 partial sums (stage, one
 * per sum), which are carried into the 128-bit sums every LINREG_STAGE_ROWS
 * rows: a 64-bit add per product instead of a 128-bit one.  Every product is
 * round(x 2^60) with |x| <= 1 (||u|| <= 1, |v| <= 1), so |product| <= 2^60,
 * and 7 rows give |partial| <= 7 2^60 < 2^63 - 1: no partial sum overflows
 * (8 rows could reach 2^63).  Integer addition is exact and associative, so
 * sums + stage is bit for bit what adding every product into the 128-bit sums
 * gives (tests/unit/test_linreg_fixed.c checks it at the extreme products and
 * across the carry boundary).
 */
#define LINREG_STAGE_ROWS 7

/*
 * adds one normalised row (||u|| <= 1, |v| <= 1) to the staged sums: stage
 * (linreg_nsums(p) int64, zero at first) and *staged, the rows in it (0 at
 * first); carried into sums when *staged reaches LINREG_STAGE_ROWS.  Sparse
 * rows (linreg.c) add into sums directly and leave the stage alone.
 */
extern void linreg_accumulate(LinRegSum *sums, int64_t *stage, int32_t *staged,
							  const double *u, int p, double v);

/*
 * Whether dense rows use the packed loop (AVX-512 DQ and VL, x86-64 with GCC,
 * chosen at the first row by the CPU): allow = false forces the portable
 * loop (tests compare the two).  Returns whether the packed loop is used.
 * Both give the same sums bit for bit.
 */
extern bool linreg_packed(bool allow);

/* carries the stage into sums; the stage is zero and *staged 0 after */
extern void linreg_flush(LinRegSum *sums, int64_t *stage, int32_t *staged, int p);

/* one staged sum's exact value (2^-LINREG_FRAC_BITS units), nothing changed */
static inline linreg_int128
linreg_sum_staged(LinRegSum s, int64_t part)
{
	return linreg_sum_get(s) + part;
}

typedef enum LinRegMethod
{
	LINREG_ADASSP = 1,			/* Wang 2018 Algorithm 2 (default) */
	LINREG_SSP					/* sufficient-statistics perturbation */
} LinRegMethod;

/* One snapped discrete Gaussian release of a vector (dpnoise.h). */
typedef struct LinRegRelease
{
	double		rho;			/* its share of the zCDP budget */
	double		sensitivity;	/* l2, normalised units */
	double		lattice;		/* g, a power of two, normalised units */
	uint64_t	sigma2;			/* variance in lattice units */
	double		sigma;			/* sqrt(sigma2) g: the noise's scale */
} LinRegRelease;

typedef struct LinRegCalibration
{
	LinRegMethod method;
	int			p;
	double		rho;			/* total */
	double		fail_prob;		/* AdaSSP's failure probability */
	LinRegRelease xx;			/* sum u u^T (upper triangle) */
	LinRegRelease xy;			/* sum u v */
	LinRegRelease lmin;			/* lambda_min(sum u u^T), AdaSSP only */
} LinRegCalibration;

/* margin on lambda_min's sensitivity for its floating-point computation */
#define LINREG_LMIN_MARGIN (1.0 / 1048576.0)

/*
 * The calibration at rho-zCDP in total, split evenly between the released
 * statistics (three for AdaSSP, two for SSP).  Returns false when a noise
 * variance is outside the exact sampler's range or a lattice is finer than
 * the sums' fixed-point grid (extreme rho).  k >= 1: the rows a privacy
 * unit may change (every sensitivity times k; 1 at row level).
 */
extern bool linreg_calibrate(LinRegMethod method, int p, int k, double rho, double fail_prob,
							 LinRegCalibration *c);

/*
 * The snapped release of count sums (2^-LINREG_FRAC_BITS units): each is
 * rounded to r's lattice and given N_Z(0, sigma2) lattice units; out[k] in
 * normalised units.  poll (may be NULL) is called every 4096 draws.
 */
extern void linreg_release(gsl_rng *rng, const LinRegRelease *r, const LinRegSum *sums,
						   int count, double *out, void (*poll) (void *), void *arg);

/* a double value (lambda_min) released the same way */
extern double linreg_release_value(gsl_rng *rng, const LinRegRelease *r, double value);

/* the exact sums as doubles in normalised units */
extern double linreg_sum_value(LinRegSum s);

/*
 * The smallest eigenvalue of the symmetric matrix whose upper triangle is
 * tri (p(p+1)/2 values, row by row); NAN when GSL fails or memory runs out.
 */
extern double linreg_min_eigen(const double *tri, int p);

/*
 * AdaSSP's ridge: lambda = max(0, sigma_xx sqrt(p ln(2 p^2 / fail)) -
 * lambda_min~), lambda_min~ = max(0, lmin_noisy - sigma_lmin sqrt(2 ln(3 /
 * fail))).
 */
extern double linreg_adassp_lambda(const LinRegCalibration *c, double lmin_noisy);

/*
 * theta = (A + lambda I)^-1 b for the symmetric A given by its upper
 * triangle (the noisy sums), through the eigendecomposition; eigenvalues
 * below floor (> 0) are raised to it, so the solve is total.  Returns false
 * only when GSL fails or memory runs out.
 */
extern bool linreg_solve(const double *tri, const double *b, int p, double lambda,
						 double floor, double *theta);

#endif							/* DPOBJ_LINREG_H */
