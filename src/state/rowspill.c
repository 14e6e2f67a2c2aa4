/*-------------------------------------------------------------------------
 *
 * rowspill.c
 *	  Sorted runs of rows on temporary files and the canonical stream that
 *	  merges them with an in-memory row set (rowspill.h).
 *
 * A run is a temporary file of records { d words, pos, neg } (native byte
 * order: it never leaves the backend), rows strictly ascending.  The
 * stream is a k-way merge: each step takes the least current row of all
 * sources and adds the counts of every source holding it (an unindexed
 * in-memory set may hold it several times, next to each other in order).
 * Memory: one BufFile buffer (BLCKSZ) and one row per run, whatever the
 * runs' size.
 *
 *-------------------------------------------------------------------------
 */
#include "state/rowspill.h"

#include "common/int.h"
#include "miscadmin.h"
#include "utils/memutils.h"

#define ROWSPILL_POLL_MASK	4095

#if defined(__GNUC__) || defined(__clang__)
#define rowspill_prefetch(p) __builtin_prefetch(p)
#else
#define rowspill_prefetch(p) ((void) (p))
#endif

/* one source of a stream: a run, or the in-memory set in canonical order */
typedef struct StreamSource
{
	BufFile    *file;			/* NULL: the in-memory set */
	int64		left;			/* rows not yet read */
	const DPRowSet *rs;
	int32	   *perm;
	uint64	   *row;			/* current record (d words, pos, neg), valid if has */
	bool		has;
} StreamSource;

struct DPRowStream
{
	int			d;
	DPRowOrder	order;
	int			nsrc;
	StreamSource *src;
	uint64	   *row;			/* the record last returned (d words, pos, neg) */
	uint64		calls;
	bool		quiet;			/* no interrupt checks */
	BufFile    *script;			/* rowstream_record: the sources' bytes go here */
	uint8	   *sbuf;			/* bytes not yet written to script */
	int			slen;
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

void
rowspill_close(DPRowSpill *sp)
{
	rowspill_close_files(sp);
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

/* rec: d words, then pos and neg (the record as on a run's file) */
static inline int64 *
rec_counts(uint64 *rec, int d)
{
	return (int64 *) (rec + d);
}

static void
stream_overflow(void)
{
	ereport(ERROR,
			(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
			 errmsg("row count out of range in a dpobj aggregate state"),
			 errhint("Partial states come only from dpobj's own aggregates.")));
}

/* adds pos and neg to the counts of rec */
static inline void
rec_add(uint64 *rec, int d, int64 pos, int64 neg)
{
	int64	   *c = rec_counts(rec, d);

	if (pg_add_s64_overflow(c[0], pos, &c[0]) ||
		pg_add_s64_overflow(c[1], neg, &c[1]))
		stream_overflow();
}

/* one record from row and its counts, written with one call */
static void
run_write(BufFile *f, uint64 *rec, const uint64 *row, int d, int64 pos, int64 neg)
{
	memcpy(rec, row, sizeof(uint64) * d);
	rec_counts(rec, d)[0] = pos;
	rec_counts(rec, d)[1] = neg;
	BufFileWrite(f, rec, sizeof(uint64) * (d + 2));
}

void
rowspill_read_exact(BufFile *f, void *ptr, size_t size)
{
	if (BufFileRead(f, ptr, size) != size)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not read a dpobj state's temporary file"),
				 errhint("Check the free space and permissions of the database's temporary directory (pgsql_tmp); temp_file_limit applies.")));
}

void
rowspill_seek_start(BufFile *f)
{
	if (BufFileSeek(f, 0, 0, SEEK_SET) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not seek in a dpobj state's temporary file"),
				 errhint("Check the free space and permissions of the database's temporary directory (pgsql_tmp); temp_file_limit applies.")));
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
	uint64	   *rec = palloc(sizeof(uint64) * (dst->d + 2));
	const uint64 *row;
	int64		pos,
				neg,
				n = 0;

	while (rowstream_next(s, &row, &pos, &neg))
	{
		run_write(f, rec, row, dst->d, pos, neg);
		n++;
	}
	rowstream_end(s);
	pfree(rec);
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

/* rows ahead of the writer whose memory is prefetched (they are read in sorted order) */
#define ROWSPILL_PREFETCH	8

int64
rowspill_write_rows(BufFile *f, const DPRowSet *rs, const int32 *perm)
{
	int			d = rs->d;
	uint64	   *rec = palloc(sizeof(uint64) * (d + 2));
	int64		n = 0;

	for (int k = 0; k < rs->nrows; k++)
	{
		const uint64 *row = rs->x + (Size) perm[k] * d;

		if ((k & ROWSPILL_POLL_MASK) == 0)
			CHECK_FOR_INTERRUPTS();
		if (k + ROWSPILL_PREFETCH < rs->nrows)
		{
			int32		u = perm[k + ROWSPILL_PREFETCH];
			const uint64 *ahead = rs->x + (Size) u * d;

			rowspill_prefetch(ahead);
			rowspill_prefetch(ahead + d - 1);
			rowspill_prefetch(&rs->pos[u]);
			rowspill_prefetch(&rs->neg[u]);
		}
		/* an unindexed set's equal rows are neighbours: one record */
		if (k > 0 && memcmp(rec, row, sizeof(uint64) * d) == 0)
		{
			rec_add(rec, d, rs->pos[perm[k]], rs->neg[perm[k]]);
			continue;
		}
		if (k > 0)
			BufFileWrite(f, rec, sizeof(uint64) * (d + 2));
		memcpy(rec, row, sizeof(uint64) * d);
		rec_counts(rec, d)[0] = rs->pos[perm[k]];
		rec_counts(rec, d)[1] = rs->neg[perm[k]];
		n++;
	}
	if (n > 0)
		BufFileWrite(f, rec, sizeof(uint64) * (d + 2));
	pfree(rec);
	return n;
}

int64
rowspill_add_run(DPRowSpill *sp, DPRowSet *rs)
{
	const int32 *perm = rowset_order_in_index(rs, sp->order);
	BufFile    *f = rowspill_create(sp);
	int64		n;

	Assert(rs->d == sp->d);
	n = rowspill_write_rows(f, rs, perm);
	rowset_clear(rs);
	sp->runs[sp->nruns] = f;
	sp->runrows[sp->nruns++] = n;
	if (sp->nruns == sp->maxruns)
		rowspill_compact(sp);
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
		rowspill_read_exact(c->file, c->row, sizeof(uint64) * (d + 2));
		c->left--;
	}
	else
	{
		int			u;

		if (c->left == 0)
			return;
		u = c->perm[c->rs->nrows - c->left];
		memcpy(c->row, c->rs->x + (Size) u * d, sizeof(uint64) * d);
		rec_counts(c->row, d)[0] = c->rs->pos[u];
		rec_counts(c->row, d)[1] = c->rs->neg[u];
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
	s->row = palloc(sizeof(uint64) * (d + 2));
	for (int r = 0; r < nruns; r++)
	{
		StreamSource *c = &s->src[s->nsrc++];

		rowspill_seek_start(sp->runs[r]);
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
		s->src[k].row = palloc(sizeof(uint64) * (d + 2));
		source_advance(&s->src[k], d);
	}
	return s;
}

/* a < b in the order: the first words decide without a call unless equal */
static inline bool
stream_less(const uint64 *a, const uint64 *b, int d, DPRowOrder order)
{
	if (a[0] == b[0])
		return rowset_compare(a, b, d, order) < 0;
	if (order == DP_ROW_ORDER_INT64)
		return (int64) a[0] < (int64) b[0];
	else
	{
		double		fa,
					fb;

		/* finite values, no -0.0 (rowset_compare) */
		memcpy(&fa, &a[0], sizeof(double));
		memcpy(&fb, &b[0], sizeof(double));
		return fa < fb;
	}
}

/* one byte of the recorded order (rowstream_record) */
static inline void
stream_note(DPRowStream *s, uint8 b)
{
	s->sbuf[s->slen++] = b;
	if (s->slen == BLCKSZ)
	{
		BufFileWrite(s->script, s->sbuf, s->slen);
		s->slen = 0;
	}
}

bool
rowstream_next(DPRowStream *s, const uint64 **row, int64 *pos, int64 *neg)
{
	int			least = -1;

	if ((++s->calls & ROWSPILL_POLL_MASK) == 0 && !s->quiet)
		CHECK_FOR_INTERRUPTS();
	for (int k = 0; k < s->nsrc; k++)
		if (s->src[k].has &&
			(least < 0 || stream_less(s->src[k].row, s->src[least].row, s->d, s->order)))
			least = k;
	if (least < 0)
		return false;
	memcpy(s->row, s->src[least].row, sizeof(uint64) * s->d);
	rec_counts(s->row, s->d)[0] = 0;
	rec_counts(s->row, s->d)[1] = 0;
	for (int k = 0, more = 0; k < s->nsrc; k++)
	{
		StreamSource *c = &s->src[k];

		/* a source's equal rows are neighbours (an unindexed set repeats rows) */
		while (c->has && c->row[0] == s->row[0] &&
			   memcmp(c->row, s->row, sizeof(uint64) * s->d) == 0)
		{
			rec_add(s->row, s->d, rec_counts(c->row, s->d)[0], rec_counts(c->row, s->d)[1]);
			if (s->script != NULL)
				stream_note(s, (uint8) (k | more));
			more = ROWSTREAM_MORE;
			source_advance(c, s->d);
		}
	}
	*row = s->row;
	*pos = rec_counts(s->row, s->d)[0];
	*neg = rec_counts(s->row, s->d)[1];
	return true;
}

void
rowstream_quiet(DPRowStream *s)
{
	s->quiet = true;
}

void
rowstream_record(DPRowStream *s, BufFile *script)
{
	Assert(s->nsrc <= ROWSTREAM_MORE);
	s->script = script;
	s->sbuf = palloc(BLCKSZ);
	s->slen = 0;
}

void
rowstream_end(DPRowStream *s)
{
	if (s->script != NULL)
	{
		if (s->slen > 0)
			BufFileWrite(s->script, s->sbuf, s->slen);
		pfree(s->sbuf);
	}
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
