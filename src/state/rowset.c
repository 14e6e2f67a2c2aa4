/*-------------------------------------------------------------------------
 *
 * rowset.c
 *	  A multiset of distinct fixed-width rows with label counts (rowset.h).
 *
 * The hash index keeps the load factor at or below 1/2 and its size a
 * power of two, so linear probing always reaches an empty slot (a
 * combined GLM state once got a table size that was not a power of two,
 * and its probe loop never ended).  Every loop over all rows checks for
 * interrupts.
 *
 *-------------------------------------------------------------------------
 */
#include "state/rowset.h"

#include "common/int.h"
#include "miscadmin.h"
#include "utils/memutils.h"

#define ROWSET_MIN_ROWS		64

/* rows between interrupt checks in loops over a whole state */
#define ROWSET_POLL_MASK	4095

/*
 * Hash of a row: two independent multiply-xorshift lanes over alternate
 * words (short dependency chains), then a 64-bit finaliser (MurmurHash3's
 * fmix64).  Not cryptographic; only the index's spread depends on it.
 */
static inline uint32
rowset_hash(const uint64 *w, int d)
{
	uint64		a = UINT64CONST(0x9E3779B97F4A7C15) + (uint64) d;
	uint64		b = UINT64CONST(0xC2B2AE3D27D4EB4F);
	int			j = 0;

	for (; j + 1 < d; j += 2)
	{
		a = (a ^ w[j]) * UINT64CONST(0xBF58476D1CE4E5B9);
		a ^= a >> 29;
		b = (b ^ w[j + 1]) * UINT64CONST(0x94D049BB133111EB);
		b ^= b >> 32;
	}
	if (j < d)
	{
		a = (a ^ w[j]) * UINT64CONST(0xBF58476D1CE4E5B9);
		a ^= a >> 29;
	}
	a ^= (b << 32) | (b >> 32);
	a ^= a >> 33;
	a *= UINT64CONST(0xFF51AFD7ED558CCD);
	a ^= a >> 33;
	a *= UINT64CONST(0xC4CEB9FE1A85EC53);
	a ^= a >> 33;
	return (uint32) a;
}

static void
rowset_too_many(void)
{
	ereport(ERROR,
			(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			 errmsg("too many distinct feature vectors (more than %d)", DP_ROWSET_MAX_ROWS),
			 errhint("Reduce the number of distinct rows, e.g. by rounding continuous features to a coarser grid.")));
}

/* slots: low 32 bits the row's hash, high 32 bits row + 1 (0 = empty) */
static inline uint64
slot_make(uint32 h, int u)
{
	return ((uint64) (u + 1) << 32) | h;
}

void
rowset_init(DPRowSet *rs, MemoryContext mcxt, int d, int capacity)
{
	int			maxrows = ROWSET_MIN_ROWS;

	if (capacity > DP_ROWSET_MAX_ROWS)
		rowset_too_many();
	while (maxrows < capacity)
		maxrows *= 2;
	rs->mcxt = mcxt;
	rs->d = d;
	rs->nrows = 0;
	rs->maxrows = maxrows;
	rs->x = MemoryContextAllocHuge(mcxt, sizeof(uint64) * d * maxrows);
	rs->pos = MemoryContextAllocHuge(mcxt, sizeof(int64) * maxrows);
	rs->neg = MemoryContextAllocHuge(mcxt, sizeof(int64) * maxrows);
	rs->slots = MemoryContextAllocHuge(mcxt, sizeof(uint64) * 2 * maxrows);
	memset(rs->slots, 0, sizeof(uint64) * 2 * maxrows);
	rs->mask = (uint32) (2 * maxrows - 1);
	rs->unindexed = false;
}

/* doubles the capacity and rebuilds the index (load factor back to 1/4) */
static void
rowset_grow(DPRowSet *rs)
{
	int			newmax = rs->maxrows * 2;
	uint64	   *old = rs->slots;
	uint32		oldn = rs->mask + 1;
	uint32		mask = (uint32) (2 * newmax - 1);
	uint64	   *slots;

	if (rs->maxrows >= DP_ROWSET_MAX_ROWS)
		rowset_too_many();
	rs->x = repalloc_huge(rs->x, sizeof(uint64) * rs->d * newmax);
	rs->pos = repalloc_huge(rs->pos, sizeof(int64) * newmax);
	rs->neg = repalloc_huge(rs->neg, sizeof(int64) * newmax);
	slots = MemoryContextAllocHuge(rs->mcxt, sizeof(uint64) * 2 * newmax);
	memset(slots, 0, sizeof(uint64) * 2 * newmax);
	for (uint32 k = 0; k < oldn; k++)
	{
		uint32		i;

		if ((k & ROWSET_POLL_MASK) == 0)
			CHECK_FOR_INTERRUPTS();
		if (old[k] == 0)
			continue;
		i = (uint32) old[k] & mask;
		while (slots[i] != 0)
			i = (i + 1) & mask;
		slots[i] = old[k];
	}
	pfree(old);
	rs->slots = slots;
	rs->mask = mask;
	rs->maxrows = newmax;
}

int
rowset_lookup(const DPRowSet *rs, const uint64 *row)
{
	int			d = rs->d;
	uint32		h = rowset_hash(row, d);
	uint32		i = h & rs->mask;
	uint64		s;

	while ((s = rs->slots[i]) != 0)
	{
		if ((uint32) s == h)
		{
			int			u = (int) (s >> 32) - 1;

			if (memcmp(rs->x + (Size) u * d, row, sizeof(uint64) * d) == 0)
				return u;
		}
		i = (i + 1) & rs->mask;
	}
	return -1;
}

void
rowset_clear(DPRowSet *rs)
{
	rs->nrows = 0;
	memset(rs->slots, 0, sizeof(uint64) * ((Size) rs->mask + 1));
	rs->unindexed = false;
}

void
rowset_free(DPRowSet *rs)
{
	pfree(rs->x);
	pfree(rs->pos);
	pfree(rs->neg);
	pfree(rs->slots);
	rs->x = NULL;
	rs->pos = rs->neg = NULL;
	rs->slots = NULL;
	rs->nrows = rs->maxrows = 0;
}

void
rowset_append(DPRowSet *rs, const uint64 *row, int64 pos, int64 neg)
{
	int			u = rs->nrows++;

	Assert(u < rs->maxrows);
	rs->unindexed = true;
	memcpy(rs->x + (Size) u * rs->d, row, sizeof(uint64) * rs->d);
	rs->pos[u] = pos;
	rs->neg[u] = neg;
}

int
rowset_find_or_add(DPRowSet *rs, const uint64 *row)
{
	int			d = rs->d;
	uint32		h = rowset_hash(row, d);
	uint32		i = h & rs->mask;
	uint64		s;
	int			u;

	Assert(!rs->unindexed);
	/* terminates: at most half of the slots are used */
	while ((s = rs->slots[i]) != 0)
	{
		if ((uint32) s == h)
		{
			u = (int) (s >> 32) - 1;
			if (memcmp(rs->x + (Size) u * d, row, sizeof(uint64) * d) == 0)
				return u;
		}
		i = (i + 1) & rs->mask;
	}
	if (rs->nrows >= rs->maxrows)
	{
		rowset_grow(rs);
		i = h & rs->mask;
		while (rs->slots[i] != 0)
			i = (i + 1) & rs->mask;
	}
	u = rs->nrows++;
	memcpy(rs->x + (Size) u * d, row, sizeof(uint64) * d);
	rs->pos[u] = 0;
	rs->neg[u] = 0;
	rs->slots[i] = slot_make(h, u);
	return u;
}

void
rowset_add_counts(DPRowSet *rs, const uint64 *row, int64 pos, int64 neg)
{
	int			u = rowset_find_or_add(rs, row);

	if (pg_add_s64_overflow(rs->pos[u], pos, &rs->pos[u]) ||
		pg_add_s64_overflow(rs->neg[u], neg, &rs->neg[u]))
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("row count out of range in a dpobj aggregate state"),
				 errhint("Partial states come only from dpobj's own aggregates.")));
}

void
rowset_merge(DPRowSet *dst, const DPRowSet *src)
{
	Assert(dst->d == src->d);
	for (int u = 0; u < src->nrows; u++)
	{
		if ((u & ROWSET_POLL_MASK) == 0)
			CHECK_FOR_INTERRUPTS();
		rowset_add_counts(dst, src->x + (Size) u * src->d, src->pos[u], src->neg[u]);
	}
}

int
rowset_compact(DPRowSet *rs, uint32 *map)
{
	int			d = rs->d;
	int			v = 0;

	memset(rs->slots, 0, sizeof(uint64) * ((Size) rs->mask + 1));
	for (int u = 0; u < rs->nrows; u++)
	{
		uint32		h,
					i;

		if ((u & ROWSET_POLL_MASK) == 0)
			CHECK_FOR_INTERRUPTS();
		if (rs->pos[u] + rs->neg[u] == 0)
		{
			map[u] = PG_UINT32_MAX;
			continue;
		}
		if (v != u)
		{
			memmove(rs->x + (Size) v * d, rs->x + (Size) u * d, sizeof(uint64) * d);
			rs->pos[v] = rs->pos[u];
			rs->neg[v] = rs->neg[u];
		}
		h = rowset_hash(rs->x + (Size) v * d, d);
		i = h & rs->mask;
		while (rs->slots[i] != 0)
			i = (i + 1) & rs->mask;
		rs->slots[i] = slot_make(h, v);
		map[u] = (uint32) v++;
	}
	rs->nrows = v;
	return v;
}

int64
rowset_total(const DPRowSet *rs)
{
	int64		n = 0;

	for (int u = 0; u < rs->nrows; u++)
		n += rs->pos[u] + rs->neg[u];
	return n;
}

int
rowset_compare(const uint64 *a, const uint64 *b, int d, DPRowOrder order)
{
	for (int j = 0; j < d; j++)
	{
		if (a[j] == b[j])
			continue;
		if (order == DP_ROW_ORDER_INT64)
			return (int64) a[j] < (int64) b[j] ? -1 : 1;
		else
		{
			double		fa,
						fb;

			/* finite values, no -0.0: value order equals bit equality */
			memcpy(&fa, &a[j], sizeof(double));
			memcpy(&fb, &b[j], sizeof(double));
			return fa < fb ? -1 : 1;
		}
	}
	return 0;
}

typedef struct RowOrderArg
{
	const DPRowSet *rs;
	DPRowOrder	order;
} RowOrderArg;

/*
 * A row in the sort: the top 32 bits of its first word mapped so that
 * unsigned order is the word's order, and its index.  The items are sorted
 * by prefix without touching the rows themselves (an index sort with a
 * comparison through them missed the cache on every call; a comparison
 * sort of the items still took a sixth of a spilling state's build); only
 * equal prefixes fall back to the full comparison.
 */
typedef struct RowSortItem
{
	uint32		prefix;
	int32		index;
} RowSortItem;

/* the first word's order-preserving 32-bit prefix (finite float8, no -0.0) */
static inline uint32
row_prefix(uint64 word, DPRowOrder order)
{
	if (order == DP_ROW_ORDER_INT64)
		word ^= UINT64CONST(1) << 63;
	else if (word >> 63)
		word = ~word;			/* negative: larger magnitude sorts first */
	else
		word |= UINT64CONST(1) << 63;
	return (uint32) (word >> 32);
}

static inline int
row_sort_cmp(const RowSortItem *a, const RowSortItem *b, RowOrderArg *arg)
{
	int			d = arg->rs->d;

	if (a->prefix != b->prefix)
		return a->prefix < b->prefix ? -1 : 1;
	return rowset_compare(arg->rs->x + (Size) a->index * d,
						  arg->rs->x + (Size) b->index * d, d, arg->order);
}

#define ST_SORT row_sort
#define ST_ELEMENT_TYPE RowSortItem
#define ST_COMPARE(a, b, arg) row_sort_cmp(a, b, arg)
#define ST_COMPARE_ARG_TYPE RowOrderArg
#define ST_CHECK_FOR_INTERRUPTS	/* the sort holds no resources */
#define ST_SCOPE static
#define ST_DEFINE
#include "lib/sort_template.h"

/*
 * Sorts items by prefix: a least-significant-digit radix sort, 8 bits a
 * pass, skipping the passes whose digit is the same in every item; tmp
 * (n items) is its scratch.  Stable.  Returns the array holding the result
 * (items or tmp).
 */
static RowSortItem *
row_radix(RowSortItem *items, RowSortItem *tmp, int n)
{
	Size		count[4][256] = {{0}};
	RowSortItem *src = items,
			   *dst = tmp;

	for (int i = 0; i < n; i++)
	{
		if ((i & ROWSET_POLL_MASK) == 0)
			CHECK_FOR_INTERRUPTS();
		for (int p = 0; p < 4; p++)
			count[p][(items[i].prefix >> (8 * p)) & 0xFF]++;
	}
	for (int p = 0; p < 4; p++)
	{
		Size		at = 0;
		RowSortItem *t;

		if (count[p][(items[0].prefix >> (8 * p)) & 0xFF] == (Size) n)
			continue;
		for (int b = 0; b < 256; b++)
		{
			Size		c = count[p][b];

			count[p][b] = at;
			at += c;
		}
		for (int i = 0; i < n; i++)
		{
			if ((i & ROWSET_POLL_MASK) == 0)
				CHECK_FOR_INTERRUPTS();
			dst[count[p][(src[i].prefix >> (8 * p)) & 0xFF]++] = src[i];
		}
		t = src;
		src = dst;
		dst = t;
	}
	return src;
}

/*
 * Sorts the rows of rs into out (nrows items) in canonical order, with tmp
 * (nrows items) as scratch: the prefixes by radix, then each group of equal
 * prefixes by full comparison (rare: distinct rows mostly differ in the
 * prefix).
 */
static void
row_sort_items(const DPRowSet *rs, DPRowOrder order, RowSortItem *out, RowSortItem *tmp)
{
	int			n = rs->nrows;
	RowSortItem *sorted;
	RowOrderArg arg;

	if (n <= 0)					/* never negative; says so to the compiler's size checks */
		return;
	for (int u = 0; u < n; u++)
	{
		if ((u & ROWSET_POLL_MASK) == 0)
			CHECK_FOR_INTERRUPTS();
		out[u].prefix = rs->d > 0 ? row_prefix(rs->x[(Size) u * rs->d], order) : 0;
		out[u].index = u;
	}
	sorted = row_radix(out, tmp, n);
	if (sorted != out)
		memcpy(out, sorted, sizeof(RowSortItem) * n);
	arg.rs = rs;
	arg.order = order;
	for (int i = 0, j; i < n; i = j)
	{
		if ((i & ROWSET_POLL_MASK) == 0)
			CHECK_FOR_INTERRUPTS();
		for (j = i + 1; j < n && out[j].prefix == out[i].prefix; j++)
			;
		if (j - i > 1)
			row_sort(out + i, j - i, &arg);
	}
}

/*
 * The items' indexes as a permutation, in place: perm[u] (bytes 4u..4u+3)
 * never overwrites an item not yet read.
 */
static int32 *
row_items_perm(RowSortItem *items, int n)
{
	int32	   *perm = (int32 *) items;

	for (int u = 0; u < n; u++)
		perm[u] = items[u].index;
	return perm;
}

int32 *
rowset_order(const DPRowSet *rs, DPRowOrder order)
{
	RowSortItem *items = palloc_extended(sizeof(RowSortItem) * Max(rs->nrows, 1),
										 MCXT_ALLOC_HUGE);
	RowSortItem *tmp = palloc_extended(sizeof(RowSortItem) * Max(rs->nrows, 1),
									   MCXT_ALLOC_HUGE);

	row_sort_items(rs, order, items, tmp);
	pfree(tmp);
	return row_items_perm(items, rs->nrows);
}

const int32 *
rowset_order_in_index(DPRowSet *rs, DPRowOrder order)
{
	/* the index has 2 * maxrows slots of 8 bytes: room for items and tmp */
	RowSortItem *items = (RowSortItem *) rs->slots;

	StaticAssertStmt(sizeof(RowSortItem) == sizeof(uint64), "an item fills a slot");
	row_sort_items(rs, order, items, items + rs->maxrows);
	return row_items_perm(items, rs->nrows);
}
