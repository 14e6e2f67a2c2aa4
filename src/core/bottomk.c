/*-------------------------------------------------------------------------
 *
 * bottomk.c
 *	  Bottom-k sampling (bottomk.h): the kept items stay unordered until
 *	  the sample is full, then become a 4-ary max-heap (Floyd's
 *	  construction), so a stream of at most k items costs no heap work and
 *	  a longer one O(log k) per admitted item.  After the heap is full an
 *	  item of a stream of n is admitted with probability k/n: most items
 *	  cost one key comparison.
 *
 *-------------------------------------------------------------------------
 */
#include "core/bottomk.h"

void
bottomk_init(BottomK *s, int64_t k, BottomKItem *items, bottomk_tie_fn tie, void *arg)
{
	s->k = k;
	s->n = 0;
	s->heap = false;
	s->items = items;
	s->tie = tie;
	s->arg = arg;
}

/* bottomk_compare() inlined into the heap's loops (keys rarely tie) */
static inline int
item_compare(const BottomK *s, const BottomKItem *a, const BottomKItem *b)
{
	int			c;

	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	c = s->tie(a, b, s->arg);
	return (c > 0) - (c < 0);
}

int
bottomk_compare(const BottomK *s, const BottomKItem *a, const BottomKItem *b)
{
	return item_compare(s, a, b);
}

/*
 * The heap is 4-ary: the children of i are 4i + 1 .. 4i + 4, 64 contiguous
 * bytes, so a sift touches half the levels (and cache lines) of a binary
 * heap; most of a sample's time past k items is these sifts.
 */
#define BOTTOMK_ARITY 4

/*
 * Restores the max-heap below position i: the item there moves down a hole
 * past every larger child (one write a level instead of a swap).
 */
static void
sift_down(BottomK *s, int64_t i)
{
	BottomKItem *h = s->items;
	BottomKItem t = h[i];

	for (;;)
	{
		int64_t		first = BOTTOMK_ARITY * i + 1,
					last = first + BOTTOMK_ARITY,
					m = first;

		if (first >= s->n)
			break;
		if (last > s->n)
			last = s->n;
		for (int64_t c = first + 1; c < last; c++)
			if (item_compare(s, &h[c], &h[m]) > 0)
				m = c;
		if (item_compare(s, &h[m], &t) <= 0)
			break;
		h[i] = h[m];
		i = m;
	}
	h[i] = t;
}

static void
heapify(BottomK *s)
{
	for (int64_t i = (s->n - 2) / BOTTOMK_ARITY; i >= 0; i--)
		sift_down(s, i);
	s->heap = true;
}

bool
bottomk_admits(BottomK *s, uint64_t key, uint32_t label)
{
	BottomKItem c = {key, BOTTOMK_CANDIDATE, label};

	if (s->n < s->k)
		return true;
	if (!s->heap)
		heapify(s);
	return item_compare(s, &c, &s->items[0]) < 0;
}

bool
bottomk_add(BottomK *s, BottomKItem item, BottomKItem *evicted)
{
	if (s->n < s->k)
	{
		s->items[s->n++] = item;
		return false;
	}
	if (!s->heap)
		heapify(s);
	*evicted = s->items[0];
	s->items[0] = item;
	sift_down(s, 0);
	return true;
}

bool
bottomk_shrink(BottomK *s, int64_t k, BottomKItem *evicted)
{
	if (k < s->k)
		s->k = k;
	if (s->n <= s->k)
		return false;
	if (!s->heap)
		heapify(s);
	/* the root leaves, the last item takes its place: n ends at k, a heap */
	*evicted = s->items[0];
	s->items[0] = s->items[--s->n];
	sift_down(s, 0);
	return true;
}

void
bottomk_remap(BottomK *s, const uint32_t *map)
{
	for (int64_t i = 0; i < s->n; i++)
		s->items[i].row = map[s->items[i].row];
}
