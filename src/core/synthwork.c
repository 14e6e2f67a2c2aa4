/*-------------------------------------------------------------------------
 *
 * synthwork.c
 *	  The default workload and the candidates (synthwork.h).
 *
 *-------------------------------------------------------------------------
 */
#include "core/synthwork.h"

#include <stdlib.h>
#include <string.h>

typedef struct Triple
{
	uint64_t	key;			/* the order: label's first, then the hash */
	SynthSet	set;
} Triple;

static uint64_t
mix(uint64_t x)
{
	x ^= x >> 33;
	x *= UINT64_C(0xff51afd7ed558ccd);
	x ^= x >> 33;
	x *= UINT64_C(0xc4ceb9fe1a85ec53);
	x ^= x >> 33;
	return x;
}

static int
triple_cmp(const void *a, const void *b)
{
	const Triple *x = a,
			   *y = b;

	return x->key < y->key ? -1 : x->key > y->key;
}

/* the pairs of t not yet in covered (bit i*64+j of a d x d matrix) */
static int
new_pairs(SynthSet t, const SynthSet *covered)
{
	int			n = 0;

	for (SynthSet a = t; a; a &= a - 1)
		n += synth_set_size(t & ~covered[synth_set_first(a)] & ~(a & -a));
	return n / 2;
}

static void
cover(SynthSet t, SynthSet *covered)
{
	for (SynthSet a = t; a; a &= a - 1)
		covered[synth_set_first(a)] |= t;
}

int
synth_workload_default(int d, int label, int max_sets, SynthSet *out)
{
	int64_t		all = (int64_t) d * (d - 1) * (d - 2) / 6;
	Triple	   *t;
	SynthSet	covered[SYNTH_MAX_COLUMNS] = {0};
	int			n = 0,
				k = 0;

	if (d < 3)
	{
		out[0] = SYNTH_BIT(d) - 1;
		return 1;
	}
	t = malloc(sizeof(Triple) * (size_t) all);
	if (t == NULL)
		return -1;
	for (int a = 0; a < d; a++)
		for (int b = a + 1; b < d; b++)
			for (int c = b + 1; c < d; c++)
			{
				t[k].set = SYNTH_BIT(a) | SYNTH_BIT(b) | SYNTH_BIT(c);
				t[k].key = all <= max_sets ? (uint64_t) k : mix(t[k].set) >> 1;
				if (all > max_sets && label >= 0 && (t[k].set & SYNTH_BIT(label)))
					t[k].key >>= 1;		/* the label's first: below 2^62 */
				else if (all > max_sets)
					t[k].key |= UINT64_C(1) << 62;
				k++;
			}
	if (all > max_sets)
		qsort(t, (size_t) all, sizeof(Triple), triple_cmp);
	/* pairs first: triples adding 3, then 2, then 1 new pair; then the rest in order */
	for (int need = all > max_sets ? 3 : 0; need >= 0 && n < max_sets; need--)
		for (int64_t i = 0; i < all && n < max_sets; i++)
		{
			if (t[i].key == UINT64_MAX || (need > 0 && new_pairs(t[i].set, covered) < need))
				continue;
			out[n++] = t[i].set;
			cover(t[i].set, covered);
			t[i].key = UINT64_MAX;	/* taken */
		}
	free(t);
	return n;
}

static int
set_cmp(const void *a, const void *b)
{
	SynthSet	x = *(const SynthSet *) a,
				y = *(const SynthSet *) b;

	return x < y ? -1 : x > y;
}

SynthStatus
synth_candidates(const SynthSet *w, int nw, int label, int64_t label_weight,
				 SynthSet **cand, int64_t **weight, int *ncand)
{
	int64_t		cap = 0;
	SynthSet   *c;
	int			n = 0;

	*cand = NULL;
	*weight = NULL;
	*ncand = 0;
	for (int i = 0; i < nw; i++)
	{
		if (w[i] == 0 || synth_set_size(w[i]) > SYNTH_MAX_WORKLOAD_COLUMNS)
			return SYNTH_BADARG;
		cap += (INT64_C(1) << synth_set_size(w[i])) - 1;
	}
	c = malloc(sizeof(SynthSet) * (size_t) (cap + 1));
	if (c == NULL)
		return SYNTH_NOMEM;
	for (int i = 0; i < nw; i++)
		for (SynthSet sub = w[i]; sub; sub = (sub - 1) & w[i])
			c[n++] = sub;
	qsort(c, (size_t) n, sizeof(SynthSet), set_cmp);
	{
		int			m = 0;

		for (int i = 0; i < n; i++)
			if (m == 0 || c[m - 1] != c[i])
				c[m++] = c[i];
		n = m;
	}
	*weight = calloc((size_t) n + 1, sizeof(int64_t));
	if (*weight == NULL)
	{
		free(c);
		return SYNTH_NOMEM;
	}
	for (int i = 0; i < nw; i++)
	{
		int64_t		lw = label >= 0 && (w[i] & SYNTH_BIT(label)) && label_weight > 1 ?
			label_weight : 1;

		for (int r = 0; r < n; r++)
			(*weight)[r] += lw * synth_set_size(c[r] & w[i]);
	}
	*cand = c;
	*ncand = n;
	return SYNTH_OK;
}
