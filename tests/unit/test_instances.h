/*-------------------------------------------------------------------------
 *
 * test_instances.h
 *	  Random OPDisc instances for the standalone oracle tests.
 *
 *-------------------------------------------------------------------------
 */
#ifndef TEST_INSTANCES_H
#define TEST_INSTANCES_H

#include <stdbool.h>
#include <stdint.h>

#include "core/opdisc.h"

typedef struct Instance
{
	OPDiscProblem p;
	int64_t    *x;
	int64_t    *pos;
	int64_t    *neg;
	double	   *eta;
	double	   *value_cost;
	double	   *norm_cost;
	char		desc[160];
} Instance;

/* splitmix64 state of the instance generator (tests set it for repeatability) */
extern uint64_t rng_state;
extern uint64_t rng_next(void);
extern int	rng_int(int lo, int hi);	/* uniform in [lo, hi] */
extern double rng_unif(void);
extern double rng_gauss(void);

/*
 * Random instance: kind 0 small signed integers, 1 one-hot group plus
 * quantised continuous, 2 sparse larger values, 3 two one-hot groups, 4
 * huge values; noise = scale of eta; eta_last_sign forces the sign of
 * eta_{d+1} (0: random); dup_rows adds duplicated rows.
 */
extern void make_instance(Instance *in, int d, int B, int D2, int nrows, int kind,
						  double noise, int eta_last_sign, bool dup_rows);
/* switch to separable costs (value_cost / norm_cost, RSPM's form) */
extern void add_costs(Instance *in, double scale, int variant);
extern void instance_free(Instance *in);

/*
 * Reference answer: lexicographic enumeration of the grid keeping the first
 * strict minimum of opdisc_objective(); also the runner-up value.  Returns
 * the number of grid points.
 */
extern long brute_force(const OPDiscProblem *p, int *wbest, double *best, double *second);

#endif
