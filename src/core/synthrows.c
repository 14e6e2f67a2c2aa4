/*-------------------------------------------------------------------------
 *
 * synthrows.c
 *	  Distinct coded rows in a hash, folded into the marginal counts
 *	  (synthrows.h).
 *
 *-------------------------------------------------------------------------
 */
#include "core/synthrows.h"

#include <stdlib.h>
#include <string.h>

/* the first column past the first key: columns [0, split) fit 2^62 */
static int
rows_split(const SynthLayout *L, int from)
{
	int64_t		prod = 1;
	int			j;

	for (j = from; j < L->d; j++)
	{
		if (prod > (INT64_C(1) << 62) / L->levels[j])
			break;
		prod *= L->levels[j];
	}
	return j;
}

bool
synth_rows_usable(const SynthLayout *L)
{
	return rows_split(L, rows_split(L, 0)) == L->d;
}

static int
rows_words(const SynthLayout *L)
{
	return rows_split(L, 0) == L->d ? 1 : 2;
}

static int64_t
pow2_below(int64_t slots)
{
	int64_t		s = 16;

	while (s * 2 <= slots && s < (INT64_C(1) << 40))
		s *= 2;
	return s;
}

int64_t
synth_rows_bytes(const SynthLayout *L, int64_t slots)
{
	return pow2_below(slots) * (int64_t) (rows_words(L) * sizeof(uint64_t) + sizeof(int64_t)) +
		synth_scan_bytes(L, SYNTH_SCAN_BATCH);
}

SynthStatus
synth_rows_init(SynthRows *h, const SynthLayout *L, int64_t *counts, int64_t slots)
{
	memset(h, 0, sizeof(*h));
	if (!synth_rows_usable(L))
		return SYNTH_BADARG;
	h->L = L;
	h->counts = counts;
	h->size = pow2_below(slots);
	h->split = rows_split(L, 0);
	h->words = rows_words(L);
	h->key = calloc((size_t) (h->size * h->words), sizeof(uint64_t));
	h->cnt = calloc((size_t) h->size, sizeof(int64_t));
	if (h->key == NULL || h->cnt == NULL ||
		synth_scan_init(&h->scan, L, counts, SYNTH_SCAN_BATCH) != SYNTH_OK)
	{
		synth_rows_free(h);
		return SYNTH_NOMEM;
	}
	return SYNTH_OK;
}

static uint64_t
mix(uint64_t x)
{
	x ^= x >> 33;
	x *= UINT64_C(0xff51afd7ed558ccd);
	x ^= x >> 33;
	return x;
}

/* codes[from..to) from key k (mixed radix, the last column fastest) */
static void
rows_decode(const SynthLayout *L, uint64_t k, int from, int to, int *codes)
{
	for (int j = to - 1; j >= from; j--)
	{
		codes[j] = (int) (k % (uint64_t) L->levels[j]);
		k /= (uint64_t) L->levels[j];
	}
}

void
synth_rows_fold(SynthRows *h)
{
	int			codes[SYNTH_MAX_COLUMNS];

	for (int64_t i = 0; i < h->size; i++)
	{
		uint64_t   *key = &h->key[i * h->words];

		if (key[0] == 0)
			continue;
		rows_decode(h->L, key[0] - 1, 0, h->split, codes);
		if (h->words == 2)
			rows_decode(h->L, key[1], h->split, h->L->d, codes);
		synth_scan_add_n(&h->scan, codes, h->cnt[i]);
		memset(key, 0, sizeof(uint64_t) * h->words);
		h->cnt[i] = 0;
	}
	synth_scan_flush(&h->scan);
	h->used = 0;
	h->folds++;
}

void
synth_rows_add(SynthRows *h, const int *codes)
{
	uint64_t	k = 0,
				k2 = 0;
	int64_t		i;

	for (int j = 0; j < h->split; j++)
		k = k * (uint64_t) h->L->levels[j] + (uint64_t) codes[j];
	for (int j = h->split; j < h->L->d; j++)
		k2 = k2 * (uint64_t) h->L->levels[j] + (uint64_t) codes[j];
	for (i = (int64_t) (mix(k ^ mix(k2)) & (uint64_t) (h->size - 1));; i = (i + 1) & (h->size - 1))
	{
		uint64_t   *key = &h->key[i * h->words];

		if (key[0] == k + 1 && (h->words == 1 || key[1] == k2))
		{
			h->cnt[i]++;
			return;
		}
		if (key[0] == 0)
			break;
	}
	h->key[i * h->words] = k + 1;
	if (h->words == 2)
		h->key[i * h->words + 1] = k2;
	h->cnt[i] = 1;
	if (++h->used * 2 >= h->size)
		synth_rows_fold(h);
}

void
synth_rows_free(SynthRows *h)
{
	free(h->key);
	free(h->cnt);
	synth_scan_free(&h->scan);
	h->key = NULL;
	h->cnt = NULL;
}
