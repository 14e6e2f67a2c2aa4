/*-------------------------------------------------------------------------
 *
 * bench_data.h
 *	  Data sets of the standalone oracle benchmark (bench/oracle): the Adult
 *	  feature ladder and synthetic dense tables, quantised (Q = 64) and
 *	  deduplicated into the form the exact oracles take (opdisc.h).
 *
 *-------------------------------------------------------------------------
 */
#ifndef BENCH_DATA_H
#define BENCH_DATA_H

#include <stdint.h>

#define BENCH_MAXD 128

typedef struct BenchData
{
	int			d;
	int			n;				/* rows before deduplication */
	int			npos;			/* rows with label +1 */
	int			nrows;			/* distinct quantised rows */
	int64_t    *x;				/* nrows x d */
	int64_t    *pos;
	int64_t    *neg;
	char		desc[200];		/* how the table was built */
} BenchData;

/*
 * set:	 Adult d4 d9 d15 d23 d40 d64 d108, or synthetic cN (N dense continuous
 *		 features, no duplicates);
 * subset: "bal" (Adult balanced subset, negatives drawn with sample_seed) or
 *		 "full" (all of adult.data); for cN the number of rows as a decimal.
 * Returns 0 on success; prints the reason and returns -1 otherwise.
 */
extern int	bench_load(const char *path, const char *set, const char *subset,
					   uint64_t sample_seed, BenchData *out);
extern void bench_free(BenchData *bd);

/* splitmix64 and the derived uniform / Gaussian draws used everywhere */
extern uint64_t bench_splitmix(uint64_t *st);
extern double bench_gauss(uint64_t *st);

#endif
