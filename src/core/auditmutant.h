/*
 * auditmutant.h — deliberately under-calibrated builds for the empirical
 * privacy audit (tests/audit, docs/PRIVACY.md "Empirical audit").
 *
 * A build with -DDPOBJ_AUDIT_MUTANT=<family> divides one calibration by
 * DPOBJ_MUTANT_FACTOR (noise that many times too small, or a privacy amount
 * that many times too large): -DDPOBJ_AUDIT_MUTANT_FACTOR=<f>, 1.25 unless
 * given (CI's mutants; bench/audit builds 1.1); the audit must flag every
 * such build and pass the real one, which is how it shows that it can fail.  Each hook is one line under
 * "#if DPOBJ_MUTANT_IS(<family>)" where the calibration is computed; without
 * the flag every DPOBJ_MUTANT_IS() is 0 and the real build is unchanged.
 * Plain C, no PostgreSQL header.  Families:
 *   sigma      the discrete Gaussian's variance (dpnoise.c): every snapped
 *              Gaussian release (Output-Gauss, noisy GD, AdaSSP/SSP, one-vs-rest, ebm)
 *              and the lattice noise of Objective-Gauss, OPDisc and RSPM
 *   laplace    the discrete Laplace's scale (dpnoise.c): evaluation, private
 *              statistics (their quantiles' histograms too), OPSamp's output
 *              noise, AMP's output noise, report noisy max of 'auto'
 *   shift      the radial-shift sigma (calibrate.c): OPDisc, RSPM, Objective-Gauss
 *   cms        CMS's Gamma noise scale (families/glm/glm.c)
 *   expmech    the exponential mechanism's epsilon (families/halfspace/expmech.c), and
 *              that of the private norm bound's draw (families/glm/glmprivr.c) and of
 *              "rows_per_unit": "private"'s k' (protected/unitbound.c)
 *   multiclass one-vs-rest's share per class (families/glm/glm.c, noisysgd.c)
 *   units      the rows per privacy unit k, k / f rounded (the audit's units
 *              rows use k = 10: 8 at 1.25, 9 at 1.1): of the continuous
 *              mechanisms (families/glm/glmparams.c), of AdaSSP/SSP
 *              (families/linear/linearparams.c), of epsilon / k (dp_epsilon_per_row,
 *              calibrate.c: evaluation, statistics, the exponential mechanism)
 *   adassp     the zCDP share of each of AdaSSP's and SSP's releases (linreg.c)
 *   gradclip   noisy GD's clip of a row's loss derivative, f times looser
 *              (capped at 1) than the noise is for (families/glm/noisysgddescent.c)
 *   keysel     the delta a key selection's threshold is set for (keysel.c)
 * The laplace and sigma families act in the samplers, so they reach every
 * release drawn there (the list above names the audited ones).
 */
#ifndef DPOBJ_AUDITMUTANT_H
#define DPOBJ_AUDITMUTANT_H

#define DPOBJ_MUTANT_ID_sigma		1
#define DPOBJ_MUTANT_ID_laplace		2
#define DPOBJ_MUTANT_ID_shift		3
#define DPOBJ_MUTANT_ID_cms			4
#define DPOBJ_MUTANT_ID_expmech		5
#define DPOBJ_MUTANT_ID_multiclass	6
#define DPOBJ_MUTANT_ID_units		7
#define DPOBJ_MUTANT_ID_adassp		8
#define DPOBJ_MUTANT_ID_gradclip	9
#define DPOBJ_MUTANT_ID_keysel		10

/* the under-calibration of every family */
#ifdef DPOBJ_AUDIT_MUTANT_FACTOR
#define DPOBJ_MUTANT_FACTOR ((double) (DPOBJ_AUDIT_MUTANT_FACTOR))
#else
#define DPOBJ_MUTANT_FACTOR 1.25
#endif
/* a count k under-counted by the factor: k / f to the nearest integer, at least 1 */
#define DPOBJ_MUTANT_ROUND_(k) ((int) ((double) (k) / DPOBJ_MUTANT_FACTOR + 0.5))
#define DPOBJ_MUTANT_COUNT(k) (DPOBJ_MUTANT_ROUND_(k) < 1 ? 1 : DPOBJ_MUTANT_ROUND_(k))

#ifdef DPOBJ_AUDIT_MUTANT
#define DPOBJ_MUTANT_CAT_(a, b) a##b
#define DPOBJ_MUTANT_CAT(a, b) DPOBJ_MUTANT_CAT_(a, b)
#define DPOBJ_MUTANT_ID DPOBJ_MUTANT_CAT(DPOBJ_MUTANT_ID_, DPOBJ_AUDIT_MUTANT)
#if DPOBJ_MUTANT_ID < 1 || DPOBJ_MUTANT_ID > 10
#error "DPOBJ_AUDIT_MUTANT names no family of src/core/auditmutant.h"
#endif
#define DPOBJ_MUTANT_IS(family) (DPOBJ_MUTANT_ID == DPOBJ_MUTANT_ID_##family)
#else
#define DPOBJ_MUTANT_IS(family) 0
#endif

#endif							/* DPOBJ_AUDITMUTANT_H */
