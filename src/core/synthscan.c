/*-------------------------------------------------------------------------
 *
 * synthscan.c
 *	  The state's accumulation a batch at a time (synthscan.h).
 *
 *-------------------------------------------------------------------------
 */
#include "core/synthscan.h"

#include <stdlib.h>
#include <string.h>

int64_t
synth_scan_bytes(const SynthLayout *L, int batch)
{
	return (int64_t) batch * ((int64_t) L->d * (int64_t) sizeof(uint16_t) +
							  (int64_t) sizeof(int64_t));
}

SynthStatus
synth_scan_init(SynthScan *s, const SynthLayout *L, int64_t *counts, int batch)
{
	memset(s, 0, sizeof(*s));
	if (batch < 1)
		return SYNTH_BADARG;
	for (int j = 0; j < L->d; j++)
		if (L->levels[j] > 65536)
			return SYNTH_BADARG;
	s->L = L;
	s->counts = counts;
	s->cap = batch;
	s->codes = malloc(sizeof(uint16_t) * (size_t) batch * (size_t) (L->d > 0 ? L->d : 1));
	s->weight = malloc(sizeof(int64_t) * (size_t) batch);
	if (s->codes == NULL || s->weight == NULL)
	{
		synth_scan_free(s);
		return SYNTH_NOMEM;
	}
	return SYNTH_OK;
}

void
synth_scan_add_n(SynthScan *s, const int *codes, int64_t n)
{
	int			i = s->n;

	for (int j = 0; j < s->L->d; j++)
		s->codes[(size_t) j * s->cap + i] = (uint16_t) codes[j];
	s->weight[i] = n;
	s->weighted |= n != 1;
	if (++s->n == s->cap)
		synth_scan_flush(s);
}

/* the batch's rows into one stored set's table */
static void
count_set(const SynthScan *s, const SynthStored *st)
{
	int64_t    *t = s->counts + st->offset;
	int			n = s->n;
	const uint16_t *c[SYNTH_MAX_COLUMNS];
	int64_t		str[SYNTH_MAX_COLUMNS];

	for (int v = 0; v < st->nvars; v++)
	{
		c[v] = s->codes + (size_t) st->var[v] * s->cap;
		str[v] = st->stride[v];
	}
	if (s->weighted)
	{
		for (int i = 0; i < n; i++)
		{
			int64_t		idx = 0;

			for (int v = 0; v < st->nvars; v++)
				idx += str[v] * c[v][i];
			t[idx] += s->weight[i];
		}
		return;
	}
	/* the common shapes unrolled; the rest through the strides' loop */
	switch (st->nvars)
	{
		case 1:
			for (int i = 0; i < n; i++)
				t[str[0] * c[0][i]]++;
			break;
		case 2:
			for (int i = 0; i < n; i++)
				t[str[0] * c[0][i] + str[1] * c[1][i]]++;
			break;
		case 3:
			for (int i = 0; i < n; i++)
				t[str[0] * c[0][i] + str[1] * c[1][i] + str[2] * c[2][i]]++;
			break;
		default:
			for (int i = 0; i < n; i++)
			{
				int64_t		idx = 0;

				for (int v = 0; v < st->nvars; v++)
					idx += str[v] * c[v][i];
				t[idx]++;
			}
	}
}

void
synth_scan_flush(SynthScan *s)
{
	if (s->n == 0)
		return;
	for (int k = 0; k < s->L->nstored; k++)
		count_set(s, &s->L->stored[k]);
	s->n = 0;
	s->weighted = false;
}

void
synth_scan_free(SynthScan *s)
{
	free(s->codes);
	free(s->weight);
	s->codes = NULL;
	s->weight = NULL;
}
