/*-------------------------------------------------------------------------
 *
 * synthstate.c
 *	  The one-scan state of candidate marginal counts (synthstate.h).
 *
 *-------------------------------------------------------------------------
 */
#include "core/synthstate.h"

#include <stdlib.h>
#include <string.h>

typedef struct Cand
{
	SynthSet	set;
	int64_t		cells;
	int			size;
} Cand;

static int
cand_cmp(const void *a, const void *b)
{
	const Cand *x = a,
			   *y = b;

	if (x->size != y->size)
		return x->size - y->size;
	if (x->cells != y->cells)
		return x->cells < y->cells ? -1 : 1;
	return x->set < y->set ? -1 : x->set > y->set;
}

static bool
covered(const SynthSet *keep, int n, SynthSet s)
{
	for (int i = 0; i < n; i++)
		if ((keep[i] & s) == s)
			return true;
	return false;
}

/* the stored sets, chosen as the header says; their count, or -1 */
static int
choose(int d, const int *levels, Cand *c, int n, int64_t max_cells, SynthSet *keep)
{
	int			nk = 0;
	int64_t		used = 0;

	qsort(c, n, sizeof(Cand), cand_cmp);
	for (int i = 0; i < n; i++)
	{
		int64_t		freed = 0;
		int			m = 0;

		if (c[i].cells < 0 || covered(keep, nk, c[i].set))
			continue;
		for (int k = 0; k < nk; k++)
			if ((keep[k] & c[i].set) == keep[k])
				freed += synth_set_cells(keep[k], levels, INT64_C(1) << 62);
		if (used - freed + c[i].cells > max_cells)
		{
			if (c[i].size == 1)
				return -1;
			continue;
		}
		for (int k = 0; k < nk; k++)
			if ((keep[k] & c[i].set) != keep[k])
				keep[m++] = keep[k];
		nk = m;
		keep[nk++] = c[i].set;
		used += c[i].cells - freed;
	}
	(void) d;
	return nk;
}

SynthStatus
synth_layout_build(int d, const int *levels, const SynthSet *cand, int n, int64_t max_cells,
				   SynthLayout *L)
{
	Cand	   *c = malloc(sizeof(Cand) * (size_t) (n + d));
	SynthSet   *keep = malloc(sizeof(SynthSet) * (size_t) (n + d));
	int			nc = 0,
				nk;
	int64_t		off = 0;

	memset(L, 0, sizeof(*L));
	if (c == NULL || keep == NULL)
	{
		free(c);
		free(keep);
		return SYNTH_NOMEM;
	}
	for (int j = 0; j < d + n; j++)
	{
		SynthSet	s = j < d ? SYNTH_BIT(j) : cand[j - d];

		c[nc].set = s;
		c[nc].size = synth_set_size(s);
		c[nc].cells = synth_set_cells(s, levels, max_cells);
		nc++;
	}
	nk = choose(d, levels, c, nc, max_cells, keep);
	free(c);
	L->d = d;
	memcpy(L->levels, levels, sizeof(int) * d);
	L->stored = nk > 0 ? calloc((size_t) nk, sizeof(SynthStored)) : NULL;
	if (nk < 0 || L->stored == NULL)
	{
		free(keep);
		return nk < 0 ? SYNTH_TOOBIG : SYNTH_NOMEM;
	}
	for (int k = 0; k < nk; k++)
	{
		SynthStored *s = &L->stored[k];
		int64_t		acc = 1;

		s->set = keep[k];
		s->offset = off;
		s->ncells = synth_set_cells(keep[k], levels, max_cells);
		for (int j = d - 1; j >= 0; j--)
			if (keep[k] & SYNTH_BIT(j))
			{
				s->var[s->nvars] = j;
				s->stride[s->nvars] = acc;
				s->nvars++;
				acc *= levels[j];
			}
		off += s->ncells;
	}
	L->nstored = nk;
	L->cells = off;
	free(keep);
	return SYNTH_OK;
}

void
synth_layout_free(SynthLayout *L)
{
	free(L->stored);
	L->stored = NULL;
	L->nstored = 0;
}

int64_t
synth_layout_bytes(const SynthLayout *L)
{
	return L->cells * (int64_t) sizeof(int64_t);
}

int
synth_layout_covers(const SynthLayout *L, SynthSet s)
{
	int			best = -1;

	/* the smallest stored superset: the cheapest to sum */
	for (int k = 0; k < L->nstored; k++)
		if ((L->stored[k].set & s) == s &&
			(best < 0 || L->stored[k].ncells < L->stored[best].ncells))
			best = k;
	return best;
}

void
synth_state_add_n(const SynthLayout *L, int64_t *counts, const int *codes, int64_t n)
{
	for (int k = 0; k < L->nstored; k++)
	{
		const SynthStored *s = &L->stored[k];
		int64_t		idx = s->offset;

		for (int i = 0; i < s->nvars; i++)
			idx += s->stride[i] * codes[s->var[i]];
		counts[idx] += n;
	}
}

void
synth_state_add(const SynthLayout *L, int64_t *counts, const int *codes)
{
	synth_state_add_n(L, counts, codes, 1);
}

void
synth_state_merge(const SynthLayout *L, int64_t *dst, const int64_t *src)
{
	for (int64_t i = 0; i < L->cells; i++)
		dst[i] += src[i];
}

void
synth_state_marginal(const SynthLayout *L, const int64_t *counts, SynthSet s,
					 const int *const *map, const int *mlevels, int64_t *out)
{
	const SynthStored *st = &L->stored[synth_layout_covers(L, s)];
	int			code[SYNTH_MAX_COLUMNS] = {0};
	int64_t		ncells = synth_set_cells(s, mlevels, INT64_C(1) << 62);

	memset(out, 0, sizeof(int64_t) * (size_t) ncells);
	for (int64_t x = 0; x < st->ncells; x++)
	{
		int64_t		rest = x,
					idx = 0;

		/* stored cells: var[0] is the last column, fastest */
		for (int i = 0; i < st->nvars; i++)
		{
			code[st->var[i]] = (int) (rest % L->levels[st->var[i]]);
			rest /= L->levels[st->var[i]];
		}
		for (int j = 0; j < L->d; j++)
			if (s & SYNTH_BIT(j))
				idx = idx * mlevels[j] + (map && map[j] ? map[j][code[j]] : code[j]);
		out[idx] += counts[st->offset + x];
	}
}
