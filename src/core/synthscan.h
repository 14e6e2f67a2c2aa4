/*-------------------------------------------------------------------------
 *
 * synthscan.h
 *	  The scan's accumulation into the one-scan state (synthstate.h), a
 *	  batch at a time: rows are buffered column by column (16-bit codes) and
 *	  each full batch is counted one stored set at a time, so the set's
 *	  table stays in cache while the batch's rows go through it, instead of
 *	  every row touching every table of a state that outgrows the caches.
 *	  The counts that come out are exactly synth_state_add's, whatever the
 *	  batch size and wherever the flushes fall.  Rows may carry a count
 *	  (the distinct-row hash, synthrows.c, folds through here).  Its memory
 *	  is fixed when it is created (public).  Plain C.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_SYNTHSCAN_H
#define DPOBJ_SYNTHSCAN_H

#include "core/synthstate.h"

#define SYNTH_SCAN_BATCH 16384	/* rows per batch by default */

typedef struct SynthScan
{
	const SynthLayout *L;
	int64_t    *counts;			/* the state the batches go into */
	int			cap;			/* rows per batch */
	int			n;				/* rows buffered */
	uint16_t   *codes;			/* column j's codes at codes[j * cap] */
	int64_t    *weight;			/* each buffered row's count */
	bool		weighted;		/* some buffered row counts more than once */
} SynthScan;

/* the bytes of a scan buffer of `batch` rows over L (public) */
extern int64_t synth_scan_bytes(const SynthLayout *L, int batch);

extern SynthStatus synth_scan_init(SynthScan *s, const SynthLayout *L, int64_t *counts,
								   int batch);

/* one row (codes[j] in [0, levels[j])), n times */
extern void synth_scan_add_n(SynthScan *s, const int *codes, int64_t n);

static inline void
synth_scan_add(SynthScan *s, const int *codes)
{
	synth_scan_add_n(s, codes, 1);
}

/* every buffered row into the counts */
extern void synth_scan_flush(SynthScan *s);
extern void synth_scan_free(SynthScan *s);

#endif							/* DPOBJ_SYNTHSCAN_H */
