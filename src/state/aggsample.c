/*-------------------------------------------------------------------------
 *
 * aggsample.c
 *	  The uniform row sample of a state (aggsample.h): exact mode, the
 *	  switch to keys, and the bottom-K updates on the state's row set.
 *
 * An evicted row keeps its place in the set with its counts lowered (to
 * zero if it lost them all); rows at zero are dropped when a new distinct
 * row finds the set full and they are a quarter of it, and before the
 * rows are ordered or written (aggsample_compact()).
 *
 *-------------------------------------------------------------------------
 */
#include "aggsample.h"

#include "dpobj.h"
#include "random.h"

#include "access/parallel.h"
#include "common/pg_prng.h"
#include "miscadmin.h"
#include "utils/memutils.h"

#define AGGSAMPLE_POLL_MASK	4095

struct DPAggSample
{
	MemoryContext mcxt;
	DPRowSet   *rows;			/* the state's rows */
	DPRowOrder	words;			/* their word order (the tie order) */
	int64		k;
	int64		total;			/* exact mode: the rows counted */
	bool		keyed;			/* keys drawn: heap holds every kept row */
	BottomK		heap;
	int			zero_rows;		/* rows in the set with no count left */
	const uint64 *cand;			/* the row a BOTTOMK_CANDIDATE item stands for */
	pg_prng_state rng;
};

/*
 * The worst case of one kept row: its key (16 bytes) and up to three row
 * slots of the set (a set at most 4/3 full of live rows, doubled), plus
 * the compaction's map; and what the final function needs per row
 * (final_row) and in all (final_fixed), so that the state and the final
 * function's work together stay within the cap.
 */
int64
aggsample_rows(int d, int64 option, double final_row, double final_fixed)
{
	double		cap = (double) dpobj_max_state_memory * 1024 - final_fixed;
	double		per_row = sizeof(BottomKItem) + 3 * rowset_bytes(d, 1) + 2 * sizeof(uint32) + final_row;
	int64		k = cap > per_row ? (int64) (cap / per_row) : 1;

	if (option > 0 && option < k)
		k = option;
	return k;
}

/* keys: label-true first, then row words in canonical order */
static int
sample_tie(const BottomKItem *a, const BottomKItem *b, void *arg)
{
	DPAggSample *s = (DPAggSample *) arg;
	int			d = s->rows->d;
	const uint64 *ra,
			   *rb;

	if (a->label != b->label)
		return a->label > b->label ? -1 : 1;
	ra = a->row == BOTTOMK_CANDIDATE ? s->cand : s->rows->x + (Size) a->row * d;
	rb = b->row == BOTTOMK_CANDIDATE ? s->cand : s->rows->x + (Size) b->row * d;
	return rowset_compare(ra, rb, d, s->words);
}

DPAggSample *
aggsample_new(MemoryContext mcxt, DPRowSet *rows, int64 k, DPRowOrder words)
{
	DPAggSample *s = MemoryContextAllocZero(mcxt, sizeof(DPAggSample));

	s->mcxt = mcxt;
	s->rows = rows;
	s->words = words;
	s->k = k;
	return s;
}

bool
aggsample_keyed(const DPAggSample *s)
{
	return s->keyed;
}

/*
 * Key source: pg_prng seeded with 128 bits of pg_strong_random(), or
 * (tests) from dpobj.seed and the parallel worker's number.  The keys
 * are never released; only which rows are kept depends on them.
 */
static void
sample_seed(DPAggSample *s)
{
	if (dpobj_seed >= 0)
		pg_prng_seed(&s->rng, (uint64) dpobj_seed * UINT64CONST(0x9E3779B97F4A7C15) +
					 (uint64) (ParallelWorkerNumber + 2));
	else
		dpobj_prng_strong_seed(&s->rng);
}

/* the switch to keys: every row counted so far gets a fresh key */
static void
sample_materialise(DPAggSample *s)
{
	DPRowSet   *rs = s->rows;
	BottomKItem *items = MemoryContextAllocHuge(s->mcxt, bottomk_bytes(s->k));

	bottomk_init(&s->heap, s->k, items, sample_tie, s);
	sample_seed(s);
	s->keyed = true;
	for (int u = 0; u < rs->nrows; u++)
	{
		for (int64 c = 0; c < rs->pos[u] + rs->neg[u]; c++)
		{
			BottomKItem it = {pg_prng_uint64(&s->rng), (uint32) u, c < rs->pos[u]};
			BottomKItem unused;

			if ((c & AGGSAMPLE_POLL_MASK) == 0)
				CHECK_FOR_INTERRUPTS();
			(void) bottomk_add(&s->heap, it, &unused);
		}
	}
}

void
aggsample_compact(DPAggSample *s)
{
	uint32	   *map;

	if (s->zero_rows == 0)
		return;
	map = palloc_extended(sizeof(uint32) * Max(s->rows->nrows, 1), MCXT_ALLOC_HUGE);
	rowset_compact(s->rows, map);
	/* ties compare row contents, not indexes: still a heap */
	bottomk_remap(&s->heap, map);
	pfree(map);
	s->zero_rows = 0;
}

/*
 * The row's index (*fresh: newly added), making room first by dropping
 * emptied rows when a new row finds the set full
 */
static int
sample_find_or_add(DPAggSample *s, const uint64 *row, bool *fresh)
{
	DPRowSet   *rs = s->rows;
	int			u = rowset_lookup(rs, row);

	*fresh = (u < 0);
	if (u >= 0)
		return u;
	if (rowset_full(rs) && s->zero_rows > 0 && s->zero_rows >= rs->nrows / 4)
		aggsample_compact(s);
	return rowset_find_or_add(rs, row);
}

/* an item the sample no longer holds: its row loses one count */
static void
sample_uncount(DPAggSample *s, const BottomKItem *out)
{
	DPRowSet   *rs = s->rows;

	if (out->label)
		rs->pos[out->row]--;
	else
		rs->neg[out->row]--;
	if (rs->pos[out->row] + rs->neg[out->row] == 0)
		s->zero_rows++;
}

/* one keyed row: into the sample if its key is among the K smallest */
static void
sample_offer(DPAggSample *s, const uint64 *row, bool label, uint64 key)
{
	DPRowSet   *rs = s->rows;
	BottomKItem it,
				out;
	bool		fresh;
	int			u;

	s->cand = row;
	if (!bottomk_admits(&s->heap, key, label ? 1 : 0))
		return;
	u = sample_find_or_add(s, row, &fresh);
	if (!fresh && rs->pos[u] + rs->neg[u] == 0)
		s->zero_rows--;			/* an emptied row comes back */
	if (label)
		rs->pos[u]++;
	else
		rs->neg[u]++;
	it.key = key;
	it.row = (uint32) u;
	it.label = label ? 1 : 0;
	if (bottomk_add(&s->heap, it, &out))
		sample_uncount(s, &out);
}

void
aggsample_count(DPAggSample *s, const uint64 *row, bool label)
{
	if (!s->keyed)
	{
		if (s->total < s->k)
		{
			rowset_count(s->rows, row, label);
			s->total++;
			return;
		}
		sample_materialise(s);
	}
	sample_offer(s, row, label, pg_prng_uint64(&s->rng));
}

void
aggsample_add(DPAggSample *s, const uint64 *row, int64 pos, int64 neg, const uint64 *keys)
{
	if (!s->keyed && keys == NULL && pos <= s->k - s->total && neg <= s->k - s->total - pos)
	{
		rowset_add_counts(s->rows, row, pos, neg);
		s->total += pos + neg;
		return;
	}
	if (!s->keyed)
		sample_materialise(s);
	for (int64 c = 0; c < pos + neg; c++)
	{
		if ((c & AGGSAMPLE_POLL_MASK) == 0)
			CHECK_FOR_INTERRUPTS();
		sample_offer(s, row, c < pos, keys ? keys[c] : pg_prng_uint64(&s->rng));
	}
}

int64
aggsample_k(const DPAggSample *s)
{
	return s->k;
}

/*
 * Exact mode past the new K first draws the keys of every counted row (a
 * heap of just those rows, fewer than the old K), then the largest leave.
 */
void
aggsample_limit(DPAggSample *s, int64 k)
{
	BottomKItem out;

	if (k >= s->k)
		return;
	if (!s->keyed && s->total > k)
	{
		s->k = s->total;
		sample_materialise(s);
	}
	s->k = k;
	if (!s->keyed)
		return;
	while (bottomk_shrink(&s->heap, k, &out))
	{
		if ((s->heap.n & AGGSAMPLE_POLL_MASK) == 0)
			CHECK_FOR_INTERRUPTS();
		sample_uncount(s, &out);
	}
}

void
aggsample_merge(DPAggSample *dst, DPAggSample *src)
{
	const DPRowSet *rs = src->rows;
	int			d = rs->d;

	aggsample_limit(dst, src->k);

	if (!src->keyed)
	{
		for (int u = 0; u < rs->nrows; u++)
			aggsample_add(dst, rs->x + (Size) u * d, rs->pos[u], rs->neg[u], NULL);
		return;
	}
	if (!dst->keyed)
		sample_materialise(dst);
	for (int64 i = 0; i < src->heap.n; i++)
	{
		const BottomKItem *it = &src->heap.items[i];

		if ((i & AGGSAMPLE_POLL_MASK) == 0)
			CHECK_FOR_INTERRUPTS();
		sample_offer(dst, rs->x + (Size) it->row * d, it->label != 0, it->key);
	}
}

typedef struct ByRowArg
{
	uint32		calls;
} ByRowArg;

static int
by_row_cmp(const void *pa, const void *pb, void *arg)
{
	const BottomKItem *a = pa;
	const BottomKItem *b = pb;
	ByRowArg   *x = arg;

	if ((++x->calls & 0xFFFF) == 0)
		CHECK_FOR_INTERRUPTS();
	if (a->row != b->row)
		return a->row < b->row ? -1 : 1;
	if (a->label != b->label)
		return a->label > b->label ? -1 : 1;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return 0;
}

const BottomKItem *
aggsample_by_row(DPAggSample *s, int64 *start)
{
	ByRowArg	arg = {0};
	int64		i = 0;

	Assert(s->keyed && s->zero_rows == 0);
	qsort_arg(s->heap.items, s->heap.n, sizeof(BottomKItem), by_row_cmp, &arg);
	s->heap.heap = false;
	for (int u = 0; u < s->rows->nrows; u++)
	{
		start[u] = i;
		while (i < s->heap.n && s->heap.items[i].row == (uint32) u)
			i++;
	}
	start[s->rows->nrows] = i;
	return s->heap.items;
}
