/*-------------------------------------------------------------------------
 *
 * rowreplay.c
 *	  The canonical stream recorded once and replayed per pass (rowreplay.h).
 *
 * A run's records are { d words, pos, neg } (rowspill.c).  The in-memory
 * rows are written once more as a run of the replay's own (read in order,
 * they cost a pass no cache miss per row), so every source is a file, read
 * through a buffer of whole records; a byte of the recorded order names
 * the source of the next record, with ROWSTREAM_MORE when its counts add
 * to the row before.
 *
 *-------------------------------------------------------------------------
 */
#include "state/rowreplay.h"

#include "common/int.h"
#include "utils/memutils.h"

/* bytes of a run's read buffer (at least one record) */
#define ROWREPLAY_RUN_BUFFER	32768

/* one source: a run */
typedef struct ReplaySource
{
	BufFile    *file;
	int64		rows;			/* its records */
	int64		left;			/* records not yet read into buf */
	uint64	   *buf;			/* buffered records */
	int			cap;			/* records buf holds */
	int			at;				/* next buffered record */
	int			have;			/* records buffered */
} ReplaySource;

struct DPRowReplay
{
	int			d;
	int			nsrc;
	ReplaySource *src;
	BufFile    *memrun;			/* the in-memory rows' run, or NULL */
	BufFile    *order;			/* the recorded order, one byte a record */
	int64		bytes;			/* its length: every source's records */
	int64		left;			/* bytes not yet read into obuf */
	uint8	   *obuf;
	int			oat;
	int			ohave;
	MemoryContextCallback cb;
};

static void
rowreplay_close(void *arg)
{
	DPRowReplay *r = (DPRowReplay *) arg;

	if (r->order != NULL)
		BufFileClose(r->order);
	if (r->memrun != NULL)
		BufFileClose(r->memrun);
	r->order = r->memrun = NULL;
}

/* one more source, the run f of rows records */
static void
replay_add_source(DPRowReplay *r, BufFile *f, int64 rows)
{
	ReplaySource *c = &r->src[r->nsrc++];
	Size		recbytes = sizeof(uint64) * (r->d + 2);

	c->file = f;
	c->rows = rows;
	c->cap = (int) Max(1, ROWREPLAY_RUN_BUFFER / recbytes);
	c->buf = palloc(recbytes * c->cap);
	r->bytes += rows;
}

/* the in-memory rows of rs in canonical order, as the replay's own run */
static void
replay_memory_run(DPRowReplay *r, const DPRowSet *rs, DPRowOrder order)
{
	int32	   *perm = rowset_order(rs, order);
	int64		n;

	r->memrun = BufFileCreateTemp(true);
	n = rowspill_write_rows(r->memrun, rs, perm);
	pfree(perm);
	replay_add_source(r, r->memrun, n);
}

/*
 * the recorded order: the stream over every source, its bytes on a file;
 * returns the rows, *ncounts their nonzero counts
 */
static int64
replay_record(DPRowReplay *r, DPRowOrder order, int64 *ncounts)
{
	DPRowSpill	all = {0};		/* the sources as one spill, only to stream them */
	DPRowStream *s;
	const uint64 *row;
	int64		pos,
				neg,
				n = 0;

	all.d = r->d;
	all.order = order;
	all.nruns = r->nsrc;
	all.runs = palloc(sizeof(BufFile *) * Max(r->nsrc, 1));
	all.runrows = palloc(sizeof(int64) * Max(r->nsrc, 1));
	for (int k = 0; k < r->nsrc; k++)
	{
		all.runs[k] = r->src[k].file;
		all.runrows[k] = r->src[k].rows;
	}
	s = rowstream_begin(&all, NULL, r->d, order);
	rowstream_record(s, r->order);
	*ncounts = 0;
	while (rowstream_next(s, &row, &pos, &neg))
	{
		*ncounts += (pos != 0) + (neg != 0);
		n++;
	}
	rowstream_end(s);
	pfree(all.runs);
	pfree(all.runrows);
	return n;
}

DPRowReplay *
rowreplay_new(MemoryContext mcxt, DPRowSpill *sp, const DPRowSet *rs, int d,
			  DPRowOrder order, int64 *nrows, int64 *ncounts)
{
	MemoryContext old = MemoryContextSwitchTo(mcxt);
	DPRowReplay *r = palloc0(sizeof(DPRowReplay));
	int			nruns = sp ? sp->nruns : 0;

	r->d = d;
	r->src = palloc0(sizeof(ReplaySource) * (nruns + 1));
	r->obuf = palloc(BLCKSZ);
	r->cb.func = rowreplay_close;
	r->cb.arg = r;
	MemoryContextRegisterResetCallback(mcxt, &r->cb);
	for (int k = 0; k < nruns; k++)
		replay_add_source(r, sp->runs[k], sp->runrows[k]);
	if (rs != NULL && rs->nrows > 0)
		replay_memory_run(r, rs, order);
	r->order = BufFileCreateTemp(true);
	MemoryContextSwitchTo(old);
	*nrows = replay_record(r, order, ncounts);
	rowreplay_rewind(r);
	return r;
}

void
rowreplay_rewind(DPRowReplay *r)
{
	rowspill_seek_start(r->order);
	r->left = r->bytes;
	r->oat = r->ohave = 0;
	for (int k = 0; k < r->nsrc; k++)
	{
		ReplaySource *c = &r->src[k];

		rowspill_seek_start(c->file);
		c->left = c->rows;
		c->at = c->have = 0;
	}
}

/* the next byte of the recorded order (not consumed), or -1 at the end */
static inline int
replay_peek(DPRowReplay *r)
{
	if (r->oat == r->ohave)
	{
		int			n = (int) Min((int64) BLCKSZ, r->left);

		if (n == 0)
			return -1;
		rowspill_read_exact(r->order, r->obuf, n);
		r->left -= n;
		r->oat = 0;
		r->ohave = n;
	}
	return r->obuf[r->oat];
}

static void
replay_corrupt(void)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("a dpobj state's temporary file does not match its runs"),
			 errhint("This is a bug in dpobj; please report it.")));
}

/* the next record of source k: its d words, then pos and neg */
static inline void
replay_next_record(DPRowReplay *r, int k, const uint64 **words, int64 *pos, int64 *neg)
{
	ReplaySource *c = &r->src[k];
	int			d = r->d;

	if (c->at == c->have)
	{
		int			n = (int) Min((int64) c->cap, c->left);

		if (n == 0)
			replay_corrupt();
		rowspill_read_exact(c->file, c->buf, sizeof(uint64) * (d + 2) * (Size) n);
		c->left -= n;
		c->at = 0;
		c->have = n;
	}
	*words = c->buf + (Size) c->at++ * (d + 2);
	*pos = (int64) (*words)[d];
	*neg = (int64) (*words)[d + 1];
}

int
rowreplay_read(DPRowReplay *r, void *x, int64 *pos, int64 *neg, int max)
{
	uint64	   *out = (uint64 *) x;
	int			d = r->d;
	int			n = 0;
	int			b;

	while ((b = replay_peek(r)) >= 0)
	{
		int			k = b & ~ROWSTREAM_MORE;
		const uint64 *words;
		int64		p,
					q;

		if (k >= r->nsrc)
			replay_corrupt();
		if ((b & ROWSTREAM_MORE) == 0 && n == max)
			break;
		r->oat++;
		replay_next_record(r, k, &words, &p, &q);
		if ((b & ROWSTREAM_MORE) == 0)
		{
			memcpy(out + (Size) n * d, words, sizeof(uint64) * d);
			pos[n] = p;
			neg[n++] = q;
		}
		else if (n == 0 ||
				 pg_add_s64_overflow(pos[n - 1], p, &pos[n - 1]) ||
				 pg_add_s64_overflow(neg[n - 1], q, &neg[n - 1]))
			replay_corrupt();
	}
	return n;
}
