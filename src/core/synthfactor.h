/*-------------------------------------------------------------------------
 *
 * synthfactor.h
 *	  Tables over sets of discrete columns (the synthesizer's factors): a
 *	  set of columns is a bit mask (column j is bit j, at most
 *	  SYNTH_MAX_COLUMNS columns), a table holds one double per cell in
 *	  row-major order over its columns in ascending order (the last column
 *	  fastest).  Marginalising, broadcasting products and sums: the
 *	  arithmetic of the graphical model (synthpgm.c), of the marginals kept
 *	  by the scan (synthstate.c) and of the intervals (synthci.c).  Plain C,
 *	  malloc'd memory; no function raises or exits.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_SYNTHFACTOR_H
#define DPOBJ_SYNTHFACTOR_H

#include <stdbool.h>
#include <stdint.h>

#define SYNTH_MAX_COLUMNS 64

typedef uint64_t SynthSet;

#define SYNTH_BIT(j) (((SynthSet) 1) << (j))

typedef struct SynthFactor
{
	SynthSet	set;			/* its columns */
	int			nvars;
	int			var[SYNTH_MAX_COLUMNS];	/* ascending */
	int			dim[SYNTH_MAX_COLUMNS];	/* levels of var[i] */
	int64_t		ncells;
	double	   *val;			/* ncells values, malloc'd */
} SynthFactor;

/* columns in a set */
static inline int
synth_set_size(SynthSet s)
{
	s = s - ((s >> 1) & UINT64_C(0x5555555555555555));
	s = (s & UINT64_C(0x3333333333333333)) + ((s >> 2) & UINT64_C(0x3333333333333333));
	s = (s + (s >> 4)) & UINT64_C(0x0f0f0f0f0f0f0f0f);
	return (int) ((s * UINT64_C(0x0101010101010101)) >> 56);
}

/* the lowest column of a nonempty set */
static inline int
synth_set_first(SynthSet s)
{
#if defined(__GNUC__) || defined(__clang__)
	return __builtin_ctzll(s);
#else
	int			j = 0;

	while (!(s & 1))
	{
		s >>= 1;
		j++;
	}
	return j;
#endif
}

/*
 * Cells of the table over set s whose column j has sizes[j] levels: the
 * product, or -1 when it exceeds limit (limit <= 2^62).
 */
extern int64_t synth_set_cells(SynthSet s, const int *sizes, int64_t limit);

/* a table over s filled with value; false when out of memory (f->val NULL) */
extern bool synth_factor_init(SynthFactor *f, SynthSet s, const int *sizes, double value);
extern void synth_factor_free(SynthFactor *f);
extern bool synth_factor_copy(SynthFactor *dst, const SynthFactor *src);

/* the flat index of a cell from its levels (codes[j] for each column j) */
extern int64_t synth_factor_index(const SynthFactor *f, const int *codes);

/* levels of every column of cell `index` into codes[var[i]] */
extern void synth_factor_cell(const SynthFactor *f, int64_t index, int *codes);

/* dst (over a subset of src's columns, initialised) = src summed over the others */
extern void synth_factor_sum_to(const SynthFactor *src, SynthFactor *dst);

/* dst *= src broadcast (src's columns a subset of dst's) */
extern void synth_factor_mul(SynthFactor *dst, const SynthFactor *src);

/* dst /= src broadcast; a zero divisor gives 0 */
extern void synth_factor_div(SynthFactor *dst, const SynthFactor *src);

/* dst += scale * src broadcast */
extern void synth_factor_add(SynthFactor *dst, const SynthFactor *src, double scale);

/* out (uninitialised) = a * b over the union of their columns; false when out of memory */
extern bool synth_factor_product(const SynthFactor *a, const SynthFactor *b,
								 const int *sizes, SynthFactor *out);

/*
 * The most cells a table held since the last reset (statistics: what bounds
 * the model's marginals is tested on it).
 */
extern int64_t synth_factor_largest(void);
extern void synth_factor_largest_reset(void);

/* sum of the values */
extern double synth_factor_total(const SynthFactor *f);

/* every value times s */
extern void synth_factor_scale(SynthFactor *f, double s);

#endif							/* DPOBJ_SYNTHFACTOR_H */
