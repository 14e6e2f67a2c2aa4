/*-------------------------------------------------------------------------
 *
 * privedges.c
 *	  Private edges of numeric terms (privedges.h), dp_ebm's and dp_gbdt's.
 *
 *-------------------------------------------------------------------------
 */
#include "base/dpobj.h"

#include <math.h>

#include "base/dpnumeric.h"
#include "base/options.h"
#include "core/dpnoise.h"
#include "core/ebmbins.h"
#include "mechanisms/privedges.h"

bool
privedges_binning_option(JsonbValue *v, const char *aggname)
{
	const char *hint = "\"private\" places a numeric term's edges at private quantiles (the default), \"uniform\" cuts [lo, hi] into equal-width bins.";
	char	   *s = dp_option_string(v, "binning", hint);

	if (strcmp(s, "uniform") != 0 && strcmp(s, "private") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: option \"binning\" must be \"private\" or \"uniform\"", aggname),
				 errhint("%s", hint)));
	return strcmp(s, "private") == 0;
}

bool
privedges_any_numeric(const EBMTerm *terms, int nterms)
{
	for (int t = 0; t < nterms; t++)
		if (terms[t].type == EBM_TERM_NUMERIC)
			return true;
	return false;
}

void
privedges_init(PrivEdges *e, const EBMTerm *terms, int nterms, int bins, int want_grid,
			   int k, int max_scores, const char *aggname, const char *hint)
{
	int			off = 0;

	e->nterms = nterms;
	e->bins = bins;
	e->nnum = 0;
	for (int t = 0; t < nterms; t++)
		e->nnum += terms[t].type == EBM_TERM_NUMERIC;
	e->grid = ebmbins_fit_grid(want_grid, e->nnum);
	if (!ebm_bin_noise(e->rho, e->nnum, e->grid, k, &e->lattice, &e->sigma2))
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s: the noise is outside the exact sampler's range", aggname),
				 errhint("%s", hint)));
	e->fine = palloc(sizeof(EBMTerm) * nterms);
	for (int t = 0; t < nterms; t++)
	{
		e->fine[t] = terms[t];
		if (terms[t].type == EBM_TERM_NUMERIC)
			e->fine[t].size = e->fine[t].grid = e->grid;
		e->fine[t].offset = off;
		off += e->fine[t].size;
	}
	e->fine_scores = off;
	e->maps = palloc_extended(sizeof(uint16) * e->nnum * e->grid, MCXT_ALLOC_HUGE);
	e->cuts = palloc(sizeof(int) * e->nnum * bins);
	e->ncuts = palloc0(sizeof(int) * e->nnum);
	e->tree = dp_palloc0_int128(ebmbins_nodes(e->grid), NULL);
	e->noisy = palloc(sizeof(double) * ebmbins_nodes(e->grid));
	e->leaf = palloc(sizeof(double) * e->grid);
	e->work = palloc(sizeof(double) * 2 * ebmbins_nodes(e->grid));
	e->coarse = dp_palloc0_int128(max_scores, NULL);
}

int
privedges_begin(const PrivEdges *e, EBMTerm *terms)
{
	memcpy(terms, e->fine, sizeof(EBMTerm) * e->nterms);
	return e->fine_scores;
}

/*
 * Numeric term i's cuts from its exact fine counts (in units of lattice
 * 2^-bits): its tree released, the leaves estimated
 */
static void
privedges_cut(PrivEdges *e, gsl_rng *rng, const __int128 *leafacc, int i, int bits)
{
	int			g = e->grid;

	ebmbins_tree(leafacc, g, e->tree);
	ebm_release_acc(rng, e->tree, ebmbins_nodes(g), bits, e->lattice, e->sigma2, e->noisy);
	ebmbins_leaves(e->noisy, g, e->leaf, e->work);
	e->ncuts[i] = ebmbins_cuts(e->leaf, g, e->bins, e->cuts + i * e->bins);
	ebmbins_map(e->cuts + i * e->bins, e->ncuts[i], g, e->maps + (Size) i * g);
}

int
privedges_release(PrivEdges *e, gsl_rng *rng, EBMTerm *terms, __int128 *acc, double unit)
{
	__int128   *coarse = e->coarse;
	int			bits = DPNOISE_SUM_BITS + ilogb(e->lattice) - ilogb(unit);
	int			i = 0,
				off = 0;

	for (int t = 0; t < e->nterms; t++)
	{
		const EBMTerm *f = &e->fine[t];
		EBMTerm    *c = &terms[t];

		c->offset = off;
		if (f->type == EBM_TERM_NUMERIC)
		{
			const uint16 *map = e->maps + (Size) i * e->grid;

			privedges_cut(e, rng, acc + f->offset, i, bits);
			c->size = e->ncuts[i] + 1;
			c->grid = e->grid;
			c->map = map;
			for (int cell = 0; cell < e->grid; cell++)
				coarse[off + map[cell]] += acc[f->offset + cell];
			i++;
		}
		else
			memcpy(coarse + off, acc + f->offset, sizeof(__int128) * f->size);
		off += c->size;
	}
	memset(acc, 0, sizeof(__int128) * e->fine_scores);
	memcpy(acc, coarse, sizeof(__int128) * off);
	memset(coarse, 0, sizeof(__int128) * off);
	return off;
}

/* numeric term t's index among the numeric terms */
static int
privedges_numeric(const EBMTerm *terms, int t)
{
	int			i = 0;

	for (int u = 0; u < t; u++)
		i += terms[u].type == EBM_TERM_NUMERIC;
	return i;
}

int
privedges_cell(const PrivEdges *e, const EBMTerm *terms, int t, int bin)
{
	int			i = privedges_numeric(terms, t);

	if (bin <= 0)
		return 0;
	return bin > e->ncuts[i] ? e->grid : e->cuts[i * e->bins + bin - 1];
}

void
privedges_term_params(StringInfo buf, const PrivEdges *e, const EBMTerm *terms, int t)
{
	int			i = privedges_numeric(terms, t);

	appendStringInfo(buf, ", \"grid\": %d, \"cuts\": [", e->grid);
	for (int j = 0; j < e->ncuts[i]; j++)
		appendStringInfo(buf, "%s%d", j == 0 ? "" : ", ", e->cuts[i * e->bins + j]);
	appendStringInfoChar(buf, ']');
}
