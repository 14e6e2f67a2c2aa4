/*-------------------------------------------------------------------------
 *
 * rowspill.c
 *	  Sorted runs of rows on temporary files and the canonical stream that
 *	  merges them with an in-memory row set (rowspill.h).
 *
 * A run is a temporary file of records { d words, pos, neg } (native byte
 * order: it never leaves the backend), rows strictly ascending.  The
 * stream is a k-way merge: each step takes the least current row of all
 * sources and adds the counts of every source holding it.  Memory: one
 * BufFile buffer (BLCKSZ) and one row per run, whatever the runs' size.
 *
 *-------------------------------------------------------------------------
 */
#include "rowspill.h"

#include "common/int.h"
#include "miscadmin.h"
#include "utils/memutils.h"

#define ROWSPILL_POLL_MASK	4095

/* one source of a stream: a run, or the in-memory set in canonical order */
typedef struct StreamSource
{
	BufFile    *file;			/* NULL: the in-memory set */
	int64		left;			/* rows not yet read */
	const DPRowSet *rs;
	int32	   *perm;
	uint64	   *row;			/* current row (d words), valid if has */
	int64		pos;
	int64		neg;
	bool		has;
} StreamSource;

struct DPRowStream
{
	int			d;
	DPRowOrder	order;
	int			nsrc;
	StreamSource *src;
	uint64	   *row;			/* the row last returned */
	uint64		calls;
	bool		quiet;			/* no interrupt checks */
};

static void
rowspill_close_files(void *arg)
{
	DPRowSpill *sp = (DPRowSpill *) arg;

	for (int r = 0; r < sp->nruns; r++)
		if (sp->runs[r] != NULL)
			BufFileClose(sp->runs[r]);
	sp->nruns = 0;
}

DPRowSpill *
rowspill_new(MemoryContext mcxt, int d, DPRowOrder order, int maxruns)
{
	DPRowSpill *sp = MemoryContextAllocZero(mcxt, sizeof(DPRowSpill));

	sp->mcxt = mcxt;
	sp->d = d;
	sp->order = order;
	sp->maxruns = Max(maxruns, 2);
	sp->runs = MemoryContextAllocZero(mcxt, sizeof(BufFile *) * sp->maxruns);
	sp->runrows = MemoryContextAllocZero(mcxt, sizeof(int64) * sp->maxruns);
	sp->cb.func = rowspill_close_files;
	sp->cb.arg = sp;
	MemoryContextRegisterResetCallback(mcxt, &sp->cb);
	return sp;
}

/* a new empty run file, owned by sp's context, not by a resource owner */
static BufFile *
rowspill_create(DPRowSpill *sp)
{
	MemoryContext old = MemoryContextSwitchTo(sp->mcxt);
	BufFile    *f = BufFileCreateTemp(true);

	MemoryContextSwitchTo(old);
	return f;
}

static void
run_write(BufFile *f, const uint64 *row, int d, int64 pos, int64 neg)
{
	BufFileWrite(f, (void *) row, sizeof(uint64) * d);
	BufFileWrite(f, &pos, sizeof(int64));
	BufFileWrite(f, &neg, sizeof(int64));
}

static void
run_read_exact(BufFile *f, void *ptr, size_t size)
{
	if (BufFileRead(f, ptr, size) != size)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not read a dpobj state's temporary file")));
}

/*
 * The merge of src's runs and rs (NULL: none) written to a new file owned
 * by dst, in dst's order; *nrows: the rows written.
 */
static BufFile *
rowspill_merge_file(DPRowSpill *dst, DPRowSpill *src, const DPRowSet *rs, int64 *nrows)
{
	BufFile    *f = rowspill_create(dst);
	DPRowStream *s = rowstream_begin(src, rs, dst->d, dst->order);
	const uint64 *row;
	int64		pos,
				neg,
				n = 0;

	while (rowstream_next(s, &row, &pos, &neg))
	{
		run_write(f, row, dst->d, pos, neg);
		n++;
	}
	rowstream_end(s);
	*nrows = n;
	return f;
}

/* merges every run of sp into one */
static void
rowspill_compact(DPRowSpill *sp)
{
	int64		n;
	BufFile    *f = rowspill_merge_file(sp, sp, NULL, &n);

	rowspill_close_files(sp);
	sp->runs[0] = f;
	sp->runrows[0] = n;
	sp->nruns = 1;
}

void
rowspill_add_run(DPRowSpill *sp, const DPRowSet *rs)
{
	int32	   *perm = rowset_order(rs, sp->order);
	BufFile    *f = rowspill_create(sp);

	Assert(rs->d == sp->d);
	for (int k = 0; k < rs->nrows; k++)
	{
		int			u = perm[k];

		if ((k & ROWSPILL_POLL_MASK) == 0)
			CHECK_FOR_INTERRUPTS();
		run_write(f, rs->x + (Size) u * rs->d, rs->d, rs->pos[u], rs->neg[u]);
	}
	pfree(perm);
	sp->runs[sp->nruns] = f;
	sp->runrows[sp->nruns++] = rs->nrows;
	if (sp->nruns == sp->maxruns)
		rowspill_compact(sp);
}

void
rowspill_rewind(DPRowSpill *sp)
{
	Assert(sp->nruns == 1);
	if (BufFileSeek(sp->runs[0], 0, 0, SEEK_SET) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not seek in a dpobj state's temporary file")));
	sp->readleft = sp->runrows[0];
}

int
rowspill_read(DPRowSpill *sp, uint64 *buf, int max)
{
	int			n = (int) Min((int64) max, sp->readleft);

	if (n > 0)
		run_read_exact(sp->runs[0], buf, sizeof(uint64) * (sp->d + 2) * (Size) n);
	sp->readleft -= n;
	return n;
}

/* ---- the stream ---- */

/* loads a source's next row, or marks it exhausted */
static void
source_advance(StreamSource *c, int d)
{
	c->has = false;
	if (c->file != NULL)
	{
		if (c->left == 0)
			return;
		run_read_exact(c->file, c->row, sizeof(uint64) * d);
		run_read_exact(c->file, &c->pos, sizeof(int64));
		run_read_exact(c->file, &c->neg, sizeof(int64));
		c->left--;
	}
	else
	{
		int			u;

		if (c->left == 0)
			return;
		u = c->perm[c->rs->nrows - c->left];
		memcpy(c->row, c->rs->x + (Size) u * d, sizeof(uint64) * d);
		c->pos = c->rs->pos[u];
		c->neg = c->rs->neg[u];
		c->left--;
	}
	c->has = true;
}

DPRowStream *
rowstream_begin(DPRowSpill *sp, const DPRowSet *rs, int d, DPRowOrder order)
{
	DPRowStream *s = palloc0(sizeof(DPRowStream));
	int			nruns = sp ? sp->nruns : 0;

	s->d = d;
	s->order = order;
	s->src = palloc0(sizeof(StreamSource) * (nruns + 1));
	s->row = palloc(sizeof(uint64) * d);
	for (int r = 0; r < nruns; r++)
	{
		StreamSource *c = &s->src[s->nsrc++];

		if (BufFileSeek(sp->runs[r], 0, 0, SEEK_SET) != 0)
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not seek in a dpobj state's temporary file")));
		c->file = sp->runs[r];
		c->left = sp->runrows[r];
	}
	if (rs != NULL && rs->nrows > 0)
	{
		StreamSource *c = &s->src[s->nsrc++];

		c->rs = rs;
		c->perm = rowset_order(rs, order);
		c->left = rs->nrows;
	}
	for (int k = 0; k < s->nsrc; k++)
	{
		s->src[k].row = palloc(sizeof(uint64) * d);
		source_advance(&s->src[k], d);
	}
	return s;
}

static void
stream_overflow(void)
{
	ereport(ERROR,
			(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
			 errmsg("row count out of range in a dpobj aggregate state"),
			 errhint("Partial states come only from dpobj's own aggregates.")));
}

bool
rowstream_next(DPRowStream *s, const uint64 **row, int64 *pos, int64 *neg)
{
	int			least = -1;

	if ((++s->calls & ROWSPILL_POLL_MASK) == 0 && !s->quiet)
		CHECK_FOR_INTERRUPTS();
	for (int k = 0; k < s->nsrc; k++)
		if (s->src[k].has &&
			(least < 0 ||
			 rowset_compare(s->src[k].row, s->src[least].row, s->d, s->order) < 0))
			least = k;
	if (least < 0)
		return false;
	memcpy(s->row, s->src[least].row, sizeof(uint64) * s->d);
	*pos = 0;
	*neg = 0;
	for (int k = 0; k < s->nsrc; k++)
	{
		StreamSource *c = &s->src[k];

		if (!c->has || memcmp(c->row, s->row, sizeof(uint64) * s->d) != 0)
			continue;
		if (pg_add_s64_overflow(*pos, c->pos, pos) ||
			pg_add_s64_overflow(*neg, c->neg, neg))
			stream_overflow();
		source_advance(c, s->d);
	}
	*row = s->row;
	return true;
}

void
rowstream_quiet(DPRowStream *s)
{
	s->quiet = true;
}

void
rowstream_end(DPRowStream *s)
{
	for (int k = 0; k < s->nsrc; k++)
	{
		pfree(s->src[k].row);
		if (s->src[k].perm)
			pfree(s->src[k].perm);
	}
	pfree(s->src);
	pfree(s->row);
	pfree(s);
}

DPRowSpill *
rowspill_canonical(MemoryContext mcxt, DPRowSpill *sp, const DPRowSet *rs, int d,
				   DPRowOrder order, int64 *nrows)
{
	DPRowSpill *out = rowspill_new(mcxt, d, order, 2);

	out->runs[0] = rowspill_merge_file(out, sp, rs, nrows);
	out->runrows[0] = *nrows;
	out->nruns = 1;
	return out;
}
