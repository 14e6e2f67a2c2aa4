/*-------------------------------------------------------------------------
 *
 * dpnoise.h
 *	  Exact discrete noise on integers (Canonne, Kamath, Steinke, "The
 *	  Discrete Gaussian for Differential Privacy", NeurIPS 2020, Algorithms
 *	  1 and 2): only integer arithmetic on uniformly random 32-bit words from
 *	  a gsl_rng whose range is [0, 2^32 - 1] (random.h: pg_strong_random(),
 *	  or the seeded Mersenne Twister of the tests), so no floating-point
 *	  rounding can leak through the noise (Mironov 2012).  Plain C + GSL,
 *	  shared with the unit tests (tests/unit/test_dpnoise.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_DPNOISE_H
#define DPOBJ_DPNOISE_H

#include <stdbool.h>
#include <stdint.h>

#include <gsl/gsl_rng.h>

/* a uniform integer in [0, n), n >= 1, by rejection (no modulo bias) */
extern uint64_t dpnoise_uniform(gsl_rng *rng, uint64_t n);

/* Bernoulli(num / den), 0 <= num <= den, den >= 1 */
extern bool dpnoise_bernoulli(gsl_rng *rng, uint64_t num, uint64_t den);

/* Bernoulli(exp(-num / den)), num >= 0, den >= 1 (CKS20 Algorithm 1) */
extern bool dpnoise_bernoulli_exp(gsl_rng *rng, uint64_t num, uint64_t den);

/*
 * Discrete Laplace with scale num/den: P[Y = y] proportional to
 * exp(-|y| den / num) for every integer y (CKS20 Algorithm 2 with t = num,
 * s = den).  1 <= num, den <= 2^31, so every intermediate product fits in
 * 64 bits.
 */
extern int64_t dpnoise_discrete_laplace(gsl_rng *rng, uint64_t num, uint64_t den);

/*
 * The lattice of a snapped release with noise scale b > 0: 2^(floor(log2 b) -
 * DPNOISE_LATTICE_BITS), a power of two, so that b is 2^16 to 2^17 lattice
 * units and every multiple of it below 2^53 units is exact in a double.
 * Public whenever b is.
 */
#define DPNOISE_LATTICE_BITS 16
extern double dpnoise_lattice(double b);

/*
 * Discrete Gaussian N_Z(0, sigma2): P[Y = y] proportional to exp(-y^2 /
 * (2 sigma2)) for every integer y (CKS20 Algorithm 3, exact, 128-bit
 * integers); 1 <= sigma2 <= 2^56.
 */
extern int64_t dpnoise_discrete_gaussian(gsl_rng *rng, uint64_t sigma2);

/*
 * A snapped Gaussian release of a vector with l2 sensitivity S > 0 at
 * rho-zCDP (docs/PRIVACY.md "Output-Gauss"): the lattice g = 2^(floor(log2
 * S) - DPNOISE_GAUSS_BITS), and the integer variance sigma2 = ceil((S/g +
 * sqrt p)^2 / (2 rho)) in lattice units -- the rounding of each of the p
 * coordinates to the lattice adds at most sqrt p to the sensitivity.
 * *sigma2 = 0 when it would exceed 2^56 (outside the sampler's range).
 */
#define DPNOISE_GAUSS_BITS 12
extern void dpnoise_gaussian_lattice(double S, double rho, int p, double *lattice,
									 uint64_t *sigma2);

/*
 * T adaptively composed snapped Gaussian releases, each of a vector with l2
 * sensitivity S > 0, at rho-zCDP in total (docs/PRIVACY.md "Noisy GD"): the
 * lattice is set by the noise rather than by S, g = 2^(floor(log2 s) -
 * DPNOISE_GD_BITS) with s = S sqrt(T / (2 rho)) the continuous noise, so that
 * the rounding term sqrt p stays negligible at every epsilon; sigma2 =
 * ceil(T (S/g + sqrt p)^2 / (2 rho)), 0 when above 2^56.
 */
#define DPNOISE_GD_BITS 26
extern void dpnoise_gaussian_lattice_composed(double S, double rho, int p, int64_t T,
											  double *lattice, uint64_t *sigma2);

/*
 * The same for a sum of per-observation terms computed in double (an
 * observation's count times one row's term of l2 norm at most S/2 per row in
 * exact arithmetic), each coordinate in units of g 2^-DPNOISE_SUM_BITS,
 * clamped to +-2^62 units, rounded, summed exactly and rounded to the
 * lattice.  Changing one of the rows of a privacy unit (rows of them) moves
 * at most 2 rows observations' terms: by their exact change (l2 norm S (1 +
 * 2^-30), the float error of one row's norm included), plus per coordinate
 * their products' float error (2^-51 of at most 2^63 units, each, where the
 * clamp does not hide it) and their rounding: 2 rows (2^13 + 1) units, at
 * most rows 2^-5 lattice units.  So sigma2 = ceil(T (S (1 + 2^-30) / g +
 * sqrt p (1 + rows 2^-5))^2 / (2 rho))
 * (docs/PRIVACY.md "Noisy GD").
 */
#define DPNOISE_SUM_BITS 20
extern void dpnoise_gaussian_lattice_summed(double S, double rho, int p, int64_t T,
											int64_t rows, double *lattice,
											uint64_t *sigma2);

/*
 * Objective perturbation's Gaussian noise, drawn exactly on a lattice
 * (docs/PRIVACY.md "Lattice noise in an objective"): g = 2^(floor(log2 sigma)
 * - DPNOISE_OBJ_BITS), so sigma / g lies in [2^27, 2^28), and the integer
 * variance s^2 = ceil((sigma / g)^2) in [2^54, 2^56]; each coordinate is
 * g N_Z(0, s^2), an exact double.  *lattice = 0 when g is not a normal double.
 */
#define DPNOISE_OBJ_BITS 27
extern void dpnoise_objective_lattice(double sigma, double *lattice, uint64_t *sigma2);
extern void dpnoise_objective_draw(gsl_rng *rng, double lattice, uint64_t sigma2, int n,
								   double *out);

#endif							/* DPOBJ_DPNOISE_H */
