/*-------------------------------------------------------------------------
 *
 * aggsample.c
 *	  The uniform row sample of a state (aggsample.h): exact mode, the
 *	  switch to keys, and the bottom-K updates on the state's row set.
 *
 * Exact mode lasts while the distinct rows fit in K, however many rows
 * they stand for; past that every counted row gets its key.  An exact
 * state of more than K rows has its sample drawn by the final function
 * (aggsample_draw()), in canonical order.
 *
 * An evicted row keeps its place in the set with its counts lowered (to
 * zero if it lost them all); rows at zero are dropped when a new distinct
 * row finds the set full and they are a quarter of it, and before the
 * rows are ordered or written (aggsample_compact()).
 *
 *-------------------------------------------------------------------------
 */
#include "state/aggsample.h"

#include "base/dpobj.h"
#include "base/random.h"

#include "access/parallel.h"
#include "common/int.h"
#include "miscadmin.h"
#include "utils/memutils.h"

#define AGGSAMPLE_POLL_MASK	4095

struct DPAggSample
{
	MemoryContext mcxt;
	DPRowSet   *rows;			/* the state's rows */
	DPRowOrder	words;			/* their word order (the tie order) */
	int64		k;
	int64		total;			/* exact mode: the rows counted (may pass k) */
	bool		keyed;			/* keys drawn: heap holds every kept row */
	BottomK		heap;
	int			zero_rows;		/* rows in the set with no count left */
	const uint64 *cand;			/* the row a BOTTOMK_CANDIDATE item stands for */
	DPPrfStream rng;
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
	Assert(rows->nrows <= k);
	return s;
}

bool
aggsample_keyed(const DPAggSample *s)
{
	return s->keyed;
}

/*
 * Key source: a SipHash stream keyed with 128 bits of pg_strong_random(),
 * or (tests) by dpobj.seed and the parallel worker's number.  The keys
 * are never released; only which rows are kept depends on them.
 */
static void
sample_seed(DPPrfStream *rng)
{
	if (dpobj_seed >= 0)
		dpobj_prf_seeded(rng, (uint64) dpobj_seed, (uint64) (ParallelWorkerNumber + 2));
	else
		dpobj_prf_strong_seed(rng);
}

/* exact mode's total, raising on a count no table has (a forged state) */
static void
sample_add_total(DPAggSample *s, int64 pos, int64 neg)
{
	if (pg_add_s64_overflow(s->total, pos, &s->total) ||
		pg_add_s64_overflow(s->total, neg, &s->total))
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("row count out of range in a dpobj aggregate state"),
				 errhint("Partial states come only from dpobj's own aggregates.")));
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

/*
 * An item of row u that bottomk_admits() let in (s->cand its row): counted
 * and kept; the item it evicts loses its count.
 */
static void
sample_keep(DPAggSample *s, int u, bool label, uint64 key)
{
	DPRowSet   *rs = s->rows;
	BottomKItem it,
				out;

	if (rs->pos[u] + rs->neg[u] == 0)
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

/*
 * The switch to keys: every row counted so far gets a fresh key and the
 * bottom K stay (exact mode may have counted more than K rows).
 */
static void
sample_materialise(DPAggSample *s)
{
	DPRowSet   *rs = s->rows;
	BottomKItem *items = MemoryContextAllocHuge(s->mcxt, bottomk_bytes(s->k));

	bottomk_init(&s->heap, s->k, items, sample_tie, s);
	sample_seed(&s->rng);
	s->keyed = true;
	for (int u = 0; u < rs->nrows; u++)
	{
		int64		pos = rs->pos[u],
					neg = rs->neg[u];

		/* the row's copies are offered again, each with its key */
		rs->pos[u] = rs->neg[u] = 0;
		s->zero_rows++;
		s->cand = rs->x + (Size) u * rs->d;
		for (int64 c = 0; c < pos + neg; c++)
		{
			uint64		key = dp_prf_next(&s->rng);

			if ((c & AGGSAMPLE_POLL_MASK) == 0)
				CHECK_FOR_INTERRUPTS();
			if (bottomk_admits(&s->heap, key, c < pos ? 1 : 0))
				sample_keep(s, u, c < pos, key);
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

/* one keyed row: into the sample if its key is among the K smallest */
static void
sample_offer(DPAggSample *s, const uint64 *row, bool label, uint64 key)
{
	bool		fresh;
	int			u;

	s->cand = row;
	if (!bottomk_admits(&s->heap, key, label ? 1 : 0))
		return;
	u = sample_find_or_add(s, row, &fresh);
	if (fresh)
		s->zero_rows++;			/* a new row starts at zero: sample_keep counts it */
	sample_keep(s, u, label, key);
}

/*
 * Exact mode: the row's index, added if the set has room for one more
 * distinct row (at most K), or -1 (the switch to keys)
 */
static int
sample_exact_row(DPAggSample *s, const uint64 *row)
{
	if (s->rows->nrows < s->k)
		return rowset_find_or_add(s->rows, row);
	return rowset_lookup(s->rows, row);
}

void
aggsample_count(DPAggSample *s, const uint64 *row, bool label)
{
	if (!s->keyed)
	{
		int			u = sample_exact_row(s, row);

		if (u >= 0)
		{
			if (label)
				s->rows->pos[u]++;
			else
				s->rows->neg[u]++;
			sample_add_total(s, 1, 0);
			return;
		}
		sample_materialise(s);
	}
	sample_offer(s, row, label, dp_prf_next(&s->rng));
}

void
aggsample_add(DPAggSample *s, const uint64 *row, int64 pos, int64 neg, const uint64 *keys)
{
	if (!s->keyed && keys == NULL && sample_exact_row(s, row) >= 0)
	{
		rowset_add_counts(s->rows, row, pos, neg);
		sample_add_total(s, pos, neg);
		return;
	}
	if (!s->keyed)
		sample_materialise(s);
	for (int64 c = 0; c < pos + neg; c++)
	{
		if ((c & AGGSAMPLE_POLL_MASK) == 0)
			CHECK_FOR_INTERRUPTS();
		sample_offer(s, row, c < pos, keys ? keys[c] : dp_prf_next(&s->rng));
	}
}

int64
aggsample_k(const DPAggSample *s)
{
	return s->k;
}

/*
 * Exact mode stays exact while its distinct rows fit in the new K, else
 * draws the keys of every counted row at the new K; a keyed sample lets its
 * largest keys go.
 */
void
aggsample_limit(DPAggSample *s, int64 k)
{
	BottomKItem out;

	if (k >= s->k)
		return;
	s->k = k;
	if (!s->keyed)
	{
		if (s->rows->nrows > k)
			sample_materialise(s);
		return;
	}
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

#define ST_SORT sort_positions
#define ST_ELEMENT_TYPE uint64
#define ST_COMPARE(a, b) ((*(a) > *(b)) - (*(a) < *(b)))
#define ST_CHECK_FOR_INTERRUPTS	/* the sort holds no resources */
#define ST_SCOPE static
#define ST_DEFINE
#include "lib/sort_template.h"

/*
 * m distinct positions in 0 .. n - 1 (m <= n / 2), ascending, uniform
 * among the m-subsets: iid uniform draws until m of them are distinct (a
 * stop that depends only on how many are, so the set is uniform by
 * symmetry), drawn in batches of the deficit; each draw is new with
 * probability at least 1/2.
 */
static void
draw_positions(DPPrfStream *rng, int64 n, int64 m, uint64 *at)
{
	int64		got = 0;

	while (got < m)
	{
		int64		v = 0;

		for (int64 i = got; i < m; i++)
		{
			if ((i & AGGSAMPLE_POLL_MASK) == 0)
				CHECK_FOR_INTERRUPTS();
			at[i] = dp_prf_below(rng, (uint64) n);
		}
		sort_positions(at, m);
		for (int64 i = 0; i < m; i++)
			if (i == 0 || at[i] != at[v - 1])
				at[v++] = at[i];
		got = v;
	}
}

bool
aggsample_draw(const DPAggSample *s, const int32 *perm, int64 *pos, int64 *neg)
{
	const DPRowSet *rs = s->rows;
	int64		n = s->total;
	bool		complement;
	int64		m,
				base = 0,
				i = 0;
	uint64	   *at;
	DPPrfStream rng;

	if (s->keyed || n <= s->k)
		return false;
	/* the kept positions, or the left-out ones when they are fewer */
	complement = s->k > n - s->k;
	m = complement ? n - s->k : s->k;
	at = palloc_extended(sizeof(uint64) * m, MCXT_ALLOC_HUGE);
	sample_seed(&rng);
	draw_positions(&rng, n, m, at);
	/* the rows' copies in canonical order, label-true first: positions to counts */
	for (int k = 0; k < rs->nrows; k++)
	{
		int			u = perm[k];
		int64		end_pos = base + rs->pos[u],
					end = end_pos + rs->neg[u],
					hp = 0,
					hn = 0;

		for (; i < m && at[i] < (uint64) end_pos; i++)
			hp++;
		for (; i < m && at[i] < (uint64) end; i++)
			hn++;
		pos[u] = complement ? rs->pos[u] - hp : hp;
		neg[u] = complement ? rs->neg[u] - hn : hn;
		base = end;
	}
	pfree(at);
	return true;
}
