/*
 * test_bottomk.c -- bottom-k sampling (src/core/bottomk.c): the kept items are exactly
 * the k smallest under (key, label true first, row), whatever order the items arrive
 * in; a sample of a union is the sample of the two partial samples merged (what the
 * combine of parallel and Citus partial states does), also when the two partial
 * samples had different k: lowered to the smaller k, the merge is exactly the
 * bottom min(k) of the union; and a stream of n items keeps each one with
 * probability k/n (a chi-square check over many streams).
 */
#include <stdlib.h>
#include <string.h>

#include "core/bottomk.h"
#include "unitcheck.h"

#define NMAX 4096

/* the row a BOTTOMK_CANDIDATE item stands for (bottomk_admits()) */
static uint32_t cand_row;

/* the tie order: label true first, then row (the items' "content") */
static int
tie(const BottomKItem *a, const BottomKItem *b, void *arg)
{
	uint32_t	ra = a->row == BOTTOMK_CANDIDATE ? cand_row : a->row;
	uint32_t	rb = b->row == BOTTOMK_CANDIDATE ? cand_row : b->row;

	(void) arg;
	if (a->label != b->label)
		return a->label > b->label ? -1 : 1;
	return (ra > rb) - (ra < rb);
}

static int
cmp_items(const void *pa, const void *pb)
{
	const BottomKItem *a = pa,
			   *b = pb;

	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return tie(a, b, NULL);
}

/* feeds items[0..n-1] in order into a new sample of k; the kept items, sorted, in out */
static int64_t
sample_of(const BottomKItem *items, int n, int64_t k, BottomKItem *room, BottomKItem *out)
{
	BottomK		s;
	BottomKItem ev;

	bottomk_init(&s, k, room, tie, NULL);
	for (int i = 0; i < n; i++)
	{
		cand_row = items[i].row;
		if (bottomk_admits(&s, items[i].key, items[i].label))
			(void) bottomk_add(&s, items[i], &ev);
	}
	memcpy(out, s.items, sizeof(BottomKItem) * s.n);
	qsort(out, s.n, sizeof(BottomKItem), cmp_items);
	return s.n;
}

static void
shuffle(BottomKItem *a, int n)
{
	for (int i = n - 1; i > 0; i--)
	{
		int			j = (int) (unitcheck_next64() % (uint64_t) (i + 1));
		BottomKItem t = a[i];

		a[i] = a[j];
		a[j] = t;
	}
}

/* n random items (keys below keymod unless 0: ties), and a sorted copy */
static void
random_items(BottomKItem *items, BottomKItem *sorted, int n, uint64_t keymod)
{
	for (int i = 0; i < n; i++)
	{
		items[i].key = keymod ? unitcheck_next64() % keymod : unitcheck_next64();
		items[i].row = (uint32_t) (unitcheck_next64() % 50);
		items[i].label = (uint32_t) (unitcheck_next64() & 1);
	}
	memcpy(sorted, items, sizeof(BottomKItem) * n);
	qsort(sorted, n, sizeof(BottomKItem), cmp_items);
}

/* exactness, order independence and merging, with and without many key ties */
static void
test_exact(int n, int64_t k, uint64_t keymod)
{
	static BottomKItem items[NMAX],
				sorted[NMAX],
				room[NMAX],
				a[NMAX],
				b[NMAX],
				merged[NMAX];
	int64_t		na,
				nb,
				nm,
				want = k < n ? k : n;

	random_items(items, sorted, n, keymod);

	na = sample_of(items, n, k, room, a);
	CHECK(na == want, "n=%d k=%ld: %ld kept", n, (long) k, (long) na);
	CHECK(memcmp(a, sorted, sizeof(BottomKItem) * want) == 0,
		  "n=%d k=%ld keymod=%lu: the k smallest", n, (long) k, (unsigned long) keymod);

	shuffle(items, n);
	nb = sample_of(items, n, k, room, b);
	CHECK(nb == na && memcmp(a, b, sizeof(BottomKItem) * na) == 0,
		  "n=%d k=%ld keymod=%lu: another arrival order keeps the same items",
		  n, (long) k, (unsigned long) keymod);

	/* two partial samples (a split at n/3), merged into one */
	{
		int			cut = n / 3;
		int64_t		n1 = sample_of(items, cut, k, room, a);
		int64_t		n2 = sample_of(items + cut, n - cut, k, room, b);

		memcpy(a + n1, b, sizeof(BottomKItem) * n2);
		nm = sample_of(a, (int) (n1 + n2), k, room, merged);
		CHECK(nm == want && memcmp(merged, sorted, sizeof(BottomKItem) * want) == 0,
			  "n=%d k=%ld keymod=%lu: merged partial samples are the sample of the union",
			  n, (long) k, (unsigned long) keymod);
	}
}

/* the items of s, sorted, in out; returns their number */
static int64_t
sorted_items(const BottomK *s, BottomKItem *out)
{
	memcpy(out, s->items, sizeof(BottomKItem) * s->n);
	qsort(out, s->n, sizeof(BottomKItem), cmp_items);
	return s->n;
}

/*
 * Partial samples of k1 and k2 (k1 > k2, the first one split at cut), merged
 * into a sample of k1 lowered to k2 first or after: the bottom k2 of all items
 */
static void
test_shrink(int n, int64_t k1, int64_t k2, uint64_t keymod)
{
	static BottomKItem items[NMAX],
				sorted[NMAX],
				room[NMAX],
				part[NMAX],
				got[NMAX];
	int			cut = n / 2;
	int64_t		want = k2 < n ? k2 : n,
				n2;
	BottomK		s;
	BottomKItem ev;

	random_items(items, sorted, n, keymod);
	n2 = sample_of(items + cut, n - cut, k2, room, part);

	for (int lower_first = 0; lower_first < 2; lower_first++)
	{
		int64_t		evicted = 0,
					m;

		bottomk_init(&s, k1, room, tie, NULL);
		for (int i = 0; i < cut; i++)
		{
			cand_row = items[i].row;
			if (bottomk_admits(&s, items[i].key, items[i].label))
				(void) bottomk_add(&s, items[i], &ev);
		}
		if (lower_first)
			while (bottomk_shrink(&s, k2, &ev))
				evicted++;
		for (int64_t i = 0; i < n2; i++)
		{
			cand_row = part[i].row;
			if (bottomk_admits(&s, part[i].key, part[i].label))
				(void) bottomk_add(&s, part[i], &ev);
		}
		while (bottomk_shrink(&s, k2, &ev))
			evicted++;
		CHECK(s.k == k2 && s.n == want, "n=%d k1=%ld k2=%ld: %ld kept, limit %ld",
			  n, (long) k1, (long) k2, (long) s.n, (long) s.k);
		CHECK(!lower_first || evicted == (cut > k1 ? k1 : cut) - (cut > k2 ? k2 : cut),
			  "n=%d k1=%ld k2=%ld: lowering evicts the excess only", n, (long) k1, (long) k2);
		m = sorted_items(&s, got);
		CHECK(memcmp(got, sorted, sizeof(BottomKItem) * m) == 0,
			  "n=%d k1=%ld k2=%ld keymod=%lu lower_first=%d: the bottom k2 of the union",
			  n, (long) k1, (long) k2, (unsigned long) keymod, lower_first);
		/* still a valid sample: a key above every kept one is refused when full */
		cand_row = 1000;
		CHECK(s.n < s.k || !bottomk_admits(&s, UINT64_MAX, 0),
			  "n=%d k1=%ld k2=%ld: the lowered sample is a max-heap", n, (long) k1, (long) k2);
	}
}

/* each of n items is kept with probability k/n: chi-square over 20 000 streams */
static void
test_uniform(void)
{
	enum {N = 40, K = 10, STREAMS = 20000};
	static BottomKItem items[N],
				room[K],
				out[K];
	long		kept[N] = {0};
	double		expect = (double) STREAMS * K / N,
				chi2 = 0;

	for (int t = 0; t < STREAMS; t++)
	{
		int64_t		m;

		for (int i = 0; i < N; i++)
		{
			items[i].key = unitcheck_next64();
			items[i].row = (uint32_t) i;
			items[i].label = 0;
		}
		m = sample_of(items, N, K, room, out);
		for (int64_t j = 0; j < m; j++)
			kept[out[j].row]++;
	}
	for (int i = 0; i < N; i++)
		chi2 += (kept[i] - expect) * (kept[i] - expect) / expect;
	/* 39 degrees of freedom: P(chi2 > 80) < 1e-4 */
	CHECK(chi2 < 80, "inclusion frequencies uniform: chi2 = %.1f (39 df)", chi2);
}

/* the caller renumbers rows (compaction); the heap stays valid */
static void
test_remap(void)
{
	static BottomKItem room[8];
	BottomK		s;
	BottomKItem ev;
	uint32_t	map[100];
	uint64_t	maxkey = 0;

	bottomk_init(&s, 8, room, tie, NULL);
	for (int i = 0; i < 100; i++)
	{
		BottomKItem it = {unitcheck_next64(), (uint32_t) i, 1};

		cand_row = it.row;
		if (bottomk_admits(&s, it.key, it.label))
			(void) bottomk_add(&s, it, &ev);
	}
	for (int i = 0; i < 100; i++)
		map[i] = (uint32_t) (99 - i);
	bottomk_remap(&s, map);
	for (int64_t i = 0; i < s.n; i++)
		if (s.items[i].key > maxkey)
			maxkey = s.items[i].key;
	CHECK(s.items[0].key == maxkey, "after a remap the root is still the largest key");
	cand_row = 1000;
	CHECK(!bottomk_admits(&s, UINT64_MAX, 1), "a key above every kept one is not admitted");
	CHECK(bottomk_admits(&s, 0, 1), "key 0 is admitted into a full sample");
}

int
main(void)
{
	int			ns[] = {1, 7, 100, 1000, 4000};
	int64_t		ks[] = {1, 5, 64, 999, 5000};

	for (int i = 0; i < 5; i++)
		for (int j = 0; j < 5; j++)
		{
			test_exact(ns[i], ks[j], 0);
			test_exact(ns[i], ks[j], 3);	/* almost every key ties */
		}
	for (int i = 0; i < 5; i++)
	{
		test_shrink(ns[i], 999, 64, 0);
		test_shrink(ns[i], 64, 5, 3);
		test_shrink(ns[i], 5, 1, 0);
	}
	test_uniform();
	test_remap();
	return unitcheck_report();
}
