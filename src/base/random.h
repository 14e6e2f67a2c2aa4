/*-------------------------------------------------------------------------
 *
 * random.h
 *	  The noise source: a GSL random number generator backed by
 *	  pg_strong_random(), or (tests only) a seeded Mersenne Twister.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_RANDOM_H
#define DPOBJ_RANDOM_H

#include <gsl/gsl_rng.h>

#include "core/prfstream.h"

/*
 * Returns a generator for one mechanism run.  With dpobj.seed = -1 (the
 * default) every draw comes from pg_strong_random(); otherwise from
 * gsl_rng_mt19937 seeded with dpobj.seed, so a run is reproducible.
 * The generator lives until dpobj_rng_free(); callers use GSL's samplers
 * (gsl_ran_gaussian, gsl_ran_laplace, gsl_ran_exponential, ...).
 */
extern gsl_rng *dpobj_rng_new(void);
extern void dpobj_rng_free(gsl_rng *rng);

/*
 * Keys a stream for bits that select rows, never noise (prfstream.h): with
 * 128 bits of pg_strong_random(), or raises XX000 when the source fails;
 * dpobj_prf_seeded(), under dpobj.seed (tests), with a key derived from the
 * seed and tweak (a parallel worker's number), so a seeded run repeats.
 */
extern void dpobj_prf_strong_seed(DPPrfStream *s);
extern void dpobj_prf_seeded(DPPrfStream *s, uint64 seed, uint64 tweak);

/* true when noise is seeded (reproducible, for tests) */
extern bool dpobj_rng_is_seeded(void);

/* an error before the charge while dpobj.seed is set (protected runs) */
extern void dpobj_refuse_seeded(const char *what);

#endif							/* DPOBJ_RANDOM_H */
