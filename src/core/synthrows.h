/*-------------------------------------------------------------------------
 *
 * synthrows.h
 *	  The scan's fast path: distinct coded rows and their counts in an
 *	  open-addressing hash (a row is one 64-bit key, its codes in mixed
 *	  radix, or two when the levels' product needs them), folded into the state's marginal counts (synthstate.h), a
 *	  batch at a time (synthscan.h), when the hash is half full and at the
 *	  end.  A row then costs one probe
 *	  instead of one increment per stored set; the counts that come out are
 *	  exactly those of synth_state_add whenever the folds happen, so the
 *	  path (and how full the hash gets, which depends on the rows) changes
 *	  time only, never a release.  Its memory is fixed when it is created
 *	  (public).  Usable when the scan levels fit two keys (each column's
 *	  levels whole in one, each key's product at most 2^62).
 *	  Plain C.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_SYNTHROWS_H
#define DPOBJ_SYNTHROWS_H

#include "core/synthscan.h"

typedef struct SynthRows
{
	const SynthLayout *L;
	int64_t    *counts;			/* the state the hash folds into */
	int64_t		size;			/* slots, a power of two */
	int64_t		used;
	int			words;			/* keys per row: 1 or 2 */
	int			split;			/* columns [0, split) in the first, the rest in the second */
	uint64_t   *key;			/* words per slot, the first key + 1; 0: empty */
	int64_t    *cnt;
	int64_t		folds;			/* statistics */
	SynthScan	scan;			/* the fold's batches */
} SynthRows;

/* whether the layout's rows fit the keys (two at most) */
extern bool synth_rows_usable(const SynthLayout *L);

/* the bytes of a hash of `slots` slots (rounded down to a power of two, >= 16), its batches too */
extern int64_t synth_rows_bytes(const SynthLayout *L, int64_t slots);

extern SynthStatus synth_rows_init(SynthRows *h, const SynthLayout *L, int64_t *counts,
								   int64_t slots);
extern void synth_rows_add(SynthRows *h, const int *codes);

/* every kept row into the state's counts; the hash empty */
extern void synth_rows_fold(SynthRows *h);
extern void synth_rows_free(SynthRows *h);

#endif							/* DPOBJ_SYNTHROWS_H */
