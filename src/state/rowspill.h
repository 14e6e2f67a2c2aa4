/*-------------------------------------------------------------------------
 *
 * rowspill.h
 *	  The part of a row multiset (rowset.h) that does not fit in memory:
 *	  sorted runs on temporary files, and the canonical stream that merges
 *	  them with an in-memory row set -- every distinct row once, with its
 *	  summed counts, in canonical (ascending) order.
 *
 * A state whose in-memory rows would outgrow dpobj.max_state_memory writes
 * them, sorted, as one run and starts over with an empty hash table (as
 * PostgreSQL's hash aggregation spills), or, when the run was mostly
 * distinct rows, appends the next ones unindexed (rowset_append) and
 * removes their repeats as it writes them.  A row may so appear in several
 * runs, and several times in an unindexed set; the stream adds its
 * counts.  Since the stream's output is the same sequence of (row, pos,
 * neg) whatever was spilled and when, everything computed from it -- the
 * flat form, the mechanisms' input -- is exactly what the in-memory state
 * gives.
 *
 * Files are temporary files not tied to a resource owner; a callback on
 * the owning memory context closes (and so deletes) them, and the backend
 * deletes any left at exit.  One stream at a time reads a spill.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_ROWSPILL_H
#define DPOBJ_ROWSPILL_H

#include "postgres.h"

#include "storage/buffile.h"

#include "state/rowset.h"

typedef struct DPRowSpill
{
	MemoryContext mcxt;			/* owns the struct; closes the files on reset */
	int			d;				/* words per row */
	DPRowOrder	order;
	int			maxruns;		/* merge fan-in: at this many runs, merge them */
	int			nruns;
	BufFile   **runs;			/* maxruns slots */
	int64	   *runrows;		/* rows in each run */
	MemoryContextCallback cb;
} DPRowSpill;

/* an empty spill in mcxt; its files are closed when mcxt is reset or deleted */
extern DPRowSpill *rowspill_new(MemoryContext mcxt, int d, DPRowOrder order, int maxruns);

/* closes (and so deletes) every run file now, not at the context's reset */
extern void rowspill_close(DPRowSpill *sp);

/*
 * Writes the rows of rs (same d), sorted, as a new run -- equal rows of an
 * unindexed set (rowset_append) as one record with their counts added --
 * and clears rs (its index is the sort's scratch).  At maxruns runs they are
 * merged into one.  Returns the records written.
 */
extern int64 rowspill_add_run(DPRowSpill *sp, DPRowSet *rs);

/*
 * Writes the rows of rs in the order perm (canonical: rowset_order) to f as
 * a run's records -- equal rows of an unindexed set, neighbours in perm, as
 * one record with their counts added -- and returns the records written.
 */
extern int64 rowspill_write_rows(BufFile *f, const DPRowSet *rs, const int32 *perm);

/* reads size bytes of a state's temporary file, or raises */
extern void rowspill_read_exact(BufFile *f, void *ptr, size_t size);

/* back to a temporary file's start, or raises */
extern void rowspill_seek_start(BufFile *f);

/* The canonical stream over a spill's runs and an in-memory set (either may be NULL). */
typedef struct DPRowStream DPRowStream;

/* starts a stream (CurrentMemoryContext); the sources must not change meanwhile */
extern DPRowStream *rowstream_begin(DPRowSpill *sp, const DPRowSet *rs, int d,
									DPRowOrder order);

/* the next distinct row: false at the end; *row points into the stream */
extern bool rowstream_next(DPRowStream *s, const uint64 **row, int64 *pos, int64 *neg);

extern void rowstream_end(DPRowStream *s);

/*
 * No interrupt checks in this stream from now on: for readers that poll
 * themselves and must record a cancel (mechanism_poll) after the charge.
 */
extern void rowstream_quiet(DPRowStream *s);

/*
 * From now on each source record the stream consumes appends one byte to
 * script (written at rowstream_end): the index of its source -- the runs
 * in order, then the in-memory set -- plus ROWSTREAM_MORE when it adds its
 * counts to the row of the byte before instead of starting the next row.
 * Replaying the bytes over the same sources gives the stream's sequence
 * without comparing rows (rowreplay.h).
 */
#define ROWSTREAM_MORE	0x80
extern void rowstream_record(DPRowStream *s, BufFile *script);

#endif							/* DPOBJ_ROWSPILL_H */
