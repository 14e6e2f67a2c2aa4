/*-------------------------------------------------------------------------
 *
 * encode.h
 *	  Feature encodings from declared public domains (encode.c).
 *
 * An encoding is a jsonb array, one element per raw column, in feature
 * order:
 *
 *	  [{"column": "education", "levels": ["Bachelors", "HS-grad"]},
 *	   {"column": "age", "lo": 17, "hi": 90}]
 *
 * A categorical column becomes k + 1 one-hot coordinates (its k levels,
 * then "other": any value not listed, and NULL); a numeric column becomes
 * one coordinate, the value clipped to [lo, hi] and scaled to [-1, 1]
 * (NULL or NaN: the row has no features, i.e. a dropped row on the
 * protected path).  Every encoded row has ||x||_2^2 <= m and ||x||_1 <= m
 * for m raw columns.  The encoding comes from public declarations only
 * (dpobj.feature_domains, or a model's params), never from the data.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_ENCODE_H
#define DPOBJ_ENCODE_H

#include "postgres.h"

#include "fmgr.h"
#include "utils/array.h"
#include "utils/jsonb.h"

/* limits of a declaration (public, checked before anything runs) */
#define DPOBJ_MAX_LEVELS		1024
#define DPOBJ_MAX_LEVEL_BYTES	256
#define DPOBJ_MAX_ENCODED_D		4096

/*
 * A slot of a categorical column's levels' hash (encoding_level): a level's
 * length and its first and last 8 bytes (a shorter level's bytes packed
 * whole), so that up to 16 bytes two word compares decide byte equality;
 * its index, or -1 for an empty slot
 */
typedef struct EncLevelSlot
{
	uint64		head;
	uint64		tail;
	int32		len;
	int32		level;
} EncLevelSlot;

typedef struct EncColumn
{
	char	   *column;
	int			nlevels;		/* > 0: categorical; 0: numeric */
	char	  **levels;
	int		   *level_len;
	EncLevelSlot *level_slot;	/* open-addressing hash of the levels */
	uint32		level_mask;		/* its size - 1 (a power of 2 >= 2 nlevels) */
	double		lo;
	double		hi;
} EncColumn;

typedef struct Encoding
{
	int			ncols;
	int			ncat;			/* categorical columns */
	int			nnum;			/* numeric columns */
	int			d;				/* encoded dimension */
	EncColumn  *cols;
} Encoding;

/* Parses and validates an encoding (public grounds: every error is free). */
extern Encoding *encoding_parse(Jsonb *spec);

/* The derived row-norm bound: sqrt(m) for the l2 norm, m for the l1 norm. */
extern double encoding_row_bound(const Encoding *enc, bool l1);
extern char *encoding_groups_option(const Encoding *enc);

/* a numeric value clipped to [lo, hi] and scaled to [-1, 1] (its coordinate) */
static inline double
encoding_scale(double x, double lo, double hi)
{
	double		v;

	if (x <= lo)
		return -1.0;
	if (x >= hi)
		return 1.0;
	v = 2.0 * ((x - lo) / (hi - lo)) - 1.0;
	return v < -1.0 ? -1.0 : (v > 1.0 ? 1.0 : v);
}

/* The index of a categorical value among c's levels; c->nlevels ("other") if none (or NULL). */
extern int	encoding_level(const EncColumn *c, const char *cat, int len);

/*
 * One row: cats[i] (NULL allowed) for the i-th categorical column, nums[i]
 * (numnull[i]) for the i-th numeric one, into out[enc->d].  Returns false
 * for a row without features (a numeric NULL or NaN) unless missing, which
 * keeps it: a numeric NULL or NaN as NaN, a categorical NULL as no level
 * set (the statistics' NULL); never raises.
 */
extern bool encoding_row(const Encoding *enc, char *const *cats, const int *cat_len,
						 const double *nums, const bool *numnull, bool missing, double *out);

/* encoding_row() as a float8[], or NULL for a row without features */
extern ArrayType *encoding_row_array(const Encoding *enc, char *const *cats, const int *cat_len,
									 const double *nums, const bool *numnull, bool missing);

#endif							/* DPOBJ_ENCODE_H */
