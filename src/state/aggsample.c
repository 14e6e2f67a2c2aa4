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

DPAggSample *
aggsample_adopt(MemoryContext mcxt, DPRowSet *rows, int64 k, DPRowOrder words)
{
	DPAggSample *s = aggsample_new(mcxt, rows, k, words);

	s->total = rowset_total(rows);
	Assert(s->total <= k);
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

/* one row's items of one label by key (equal keys there are interchangeable) */
#define ST_SORT sort_by_key
#define ST_ELEMENT_TYPE BottomKItem
#define ST_COMPARE(a, b) (((a)->key > (b)->key) - ((a)->key < (b)->key))
#define ST_CHECK_FOR_INTERRUPTS	/* the sort holds no resources */
#define ST_SCOPE static
#define ST_DEFINE
#include "lib/sort_template.h"

/*
 * Moves items[n] into rows' ranges in place (start[u] .. start[u + 1] - 1,
 * from the rows' counts): each swap puts one item in its final range, so
 * O(n + nrows), with one cursor a row.
 */
static void
distribute_by_row(BottomKItem *items, int64 n, int nrows, int64 *start)
{
	int64	   *next = palloc_extended(sizeof(int64) * Max(nrows, 1), MCXT_ALLOC_HUGE);
	int64		moved = 0;

	memset(start, 0, sizeof(int64) * ((Size) nrows + 1));
	for (int64 i = 0; i < n; i++)
		start[items[i].row + 1]++;
	for (int u = 0; u < nrows; u++)
	{
		start[u + 1] += start[u];
		next[u] = start[u];
	}
	for (int u = 0; u < nrows; u++)
		while (next[u] < start[u + 1])
		{
			uint32		v = items[next[u]].row;

			if ((++moved & AGGSAMPLE_POLL_MASK) == 0)
				CHECK_FOR_INTERRUPTS();
			if (v == (uint32) u)
				next[u]++;
			else
			{
				BottomKItem t = items[next[v]];

				items[next[v]++] = items[next[u]];
				items[next[u]] = t;
			}
		}
	pfree(next);
}

/* a row's items: label-true first, then by key within each label */
static void
order_row_items(BottomKItem *items, int64 n)
{
	int64		t = 0;

	for (int64 i = 0; i < n; i++)
		if (items[i].label)
		{
			BottomKItem x = items[i];

			items[i] = items[t];
			items[t++] = x;
		}
	sort_by_key(items, t);
	sort_by_key(items + t, n - t);
}

const BottomKItem *
aggsample_by_row(DPAggSample *s, int64 *start)
{
	Assert(s->keyed && s->zero_rows == 0);
	distribute_by_row(s->heap.items, s->heap.n, s->rows->nrows, start);
	s->heap.heap = false;
	for (int u = 0; u < s->rows->nrows; u++)
		order_row_items(s->heap.items + start[u], start[u + 1] - start[u]);
	return s->heap.items;
}
