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

bool
synth_rows_usable(const SynthLayout *L)
{
	int64_t		prod = 1;

	for (int j = 0; j < L->d; j++)
	{
		if (prod > (INT64_C(1) << 62) / L->levels[j])
			return false;
		prod *= L->levels[j];
	}
	return true;
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
	return pow2_below(slots) * (int64_t) (sizeof(uint64_t) + sizeof(int64_t)) +
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
	h->key = calloc((size_t) h->size, sizeof(uint64_t));
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

void
synth_rows_fold(SynthRows *h)
{
	int			codes[SYNTH_MAX_COLUMNS];

	for (int64_t i = 0; i < h->size; i++)
	{
		uint64_t	k;

		if (h->key[i] == 0)
			continue;
		k = h->key[i] - 1;
		for (int j = h->L->d - 1; j >= 0; j--)
		{
			codes[j] = (int) (k % (uint64_t) h->L->levels[j]);
			k /= (uint64_t) h->L->levels[j];
		}
		synth_scan_add_n(&h->scan, codes, h->cnt[i]);
		h->key[i] = 0;
		h->cnt[i] = 0;
	}
	synth_scan_flush(&h->scan);
	h->used = 0;
	h->folds++;
}

void
synth_rows_add(SynthRows *h, const int *codes)
{
	uint64_t	k = 0;
	int64_t		i;

	for (int j = 0; j < h->L->d; j++)
		k = k * (uint64_t) h->L->levels[j] + (uint64_t) codes[j];
	for (i = (int64_t) (mix(k) & (uint64_t) (h->size - 1));; i = (i + 1) & (h->size - 1))
	{
		if (h->key[i] == k + 1)
		{
			h->cnt[i]++;
			return;
		}
		if (h->key[i] == 0)
			break;
	}
	h->key[i] = k + 1;
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
