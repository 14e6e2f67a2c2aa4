/*-------------------------------------------------------------------------
 *
 * rowreplay.h
 *	  The canonical stream of a spill and an in-memory row set (rowspill.h)
 *	  merged once and then read on every pass without merging again: the
 *	  merge records which source each record it consumes came from (one
 *	  byte a record, on a temporary file), and a pass reads the runs and
 *	  the in-memory rows side by side in that order.  The sequence of (row,
 *	  pos, neg) a pass gives is exactly the stream's, so everything computed
 *	  from it is what the in-memory state gives; and no copy of the rows is
 *	  written besides the runs themselves.
 *
 * The in-memory rows are written once as one more run, the replay's own
 * (a pass then reads every source in order); the spill's runs are read in
 * place and must not change while the replay lives.  Memory: one buffer
 * per run and one for the recorded order, whatever the rows (and, while
 * the replay is made, the set's canonical order: rowset_order).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_ROWREPLAY_H
#define DPOBJ_ROWREPLAY_H

#include "state/rowspill.h"

typedef struct DPRowReplay DPRowReplay;

/*
 * The merge of sp's runs and rs (either may be NULL or empty) recorded in
 * mcxt, whose reset or deletion closes its files; *nrows: the distinct rows
 * it gives, *ncounts: their nonzero counts (pos and neg apart).
 */
extern DPRowReplay *rowreplay_new(MemoryContext mcxt, DPRowSpill *sp, const DPRowSet *rs,
								  int d, DPRowOrder order, int64 *nrows, int64 *ncounts);

/* the next pass starts from the first row */
extern void rowreplay_rewind(DPRowReplay *r);

/*
 * The next rows of the pass, at most max: their words into x (d words a
 * row), their counts into pos and neg; returns how many (0 at the end).
 * No interrupt checks.
 */
extern int	rowreplay_read(DPRowReplay *r, void *x, int64 *pos, int64 *neg, int max);

#endif							/* DPOBJ_ROWREPLAY_H */
