/*-------------------------------------------------------------------------
 *
 * aggstate.c
 *	  The expanded aggregate state shared by dpobj.halfspace_state and
 *	  dpobj.glm_state, its flat form, and the type I/O (aggstate.h).
 *
 * Reading a flat state validates everything a transition function
 * guarantees (ranges, canonical order, counts, the options) and raises one
 * error for anything else: a state can come from a client (text or binary
 * input), not only from dpobj.  Every loop over the rows checks for
 * interrupts.
 *
 *-------------------------------------------------------------------------
 */
#include "state/aggstate.h"

#include <math.h>

#include "base/distributed.h"
#include "base/dpobj.h"
#include "base/options.h"
#include "context/protected.h"
#include "state/rowinput.h"
#include "context/workerpins.h"

#include "common/base64.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

#define AGGSTATE_POLL_MASK	4095

/* float8 words below this magnitude that are integers travel as varints */
#define AGGSTATE_SMALL_INT	4503599627370496.0	/* 2^52 */

/* bytes of the fixed header after the varlena header */
#define AGGSTATE_HEADER_BYTES	(4 + 1 + 1 + 2 + 8 + 8 + 8 + 4)

static Size aggstate_get_flat_size(ExpandedObjectHeader *eohptr);
static void aggstate_sample_at(DPAggState *st, int64 k);
static void aggstate_flatten_into(ExpandedObjectHeader *eohptr, void *result,
								  Size allocated_size);

static const ExpandedObjectMethods aggstate_methods = {
	aggstate_get_flat_size,
	aggstate_flatten_into
};

void
aggstate_corrupt(const DPStateType *type)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
			 errmsg("invalid %s value", type->name),
			 errhint("Aggregate states come only from dpobj's own aggregates (text: base64 of the binary form).")));
}

/* ---------------------------------------------------------------------
 * Encoding: a writer that counts bytes (out == NULL) or writes them.
 * ---------------------------------------------------------------------
 */
typedef struct FlatWriter
{
	uint8	   *out;			/* NULL: count only */
	Size		len;
} FlatWriter;

static inline void
w_bytes(FlatWriter *w, const void *src, Size n)
{
	if (w->out)
		memcpy(w->out + w->len, src, n);
	w->len += n;
}

static inline void
w_uint(FlatWriter *w, uint64 v, int nbytes)
{
	if (w->out)
		for (int k = nbytes - 1; k >= 0; k--)
			w->out[w->len + (nbytes - 1 - k)] = (uint8) (v >> (8 * k));
	w->len += nbytes;
}

static inline void
w_float8(FlatWriter *w, double f)
{
	uint64		bits;

	memcpy(&bits, &f, sizeof(bits));
	w_uint(w, bits, 8);
}

static inline void
w_varint(FlatWriter *w, uint64 v)
{
	do
	{
		uint8		b = (uint8) (v & 0x7F);

		v >>= 7;
		if (v)
			b |= 0x80;
		if (w->out)
			w->out[w->len] = b;
		w->len++;
	} while (v);
}

static inline uint64
zigzag(int64 i)
{
	return ((uint64) i << 1) ^ (uint64) (i >> 63);
}

static inline int64
unzigzag(uint64 z)
{
	return (int64) (z >> 1) ^ -(int64) (z & 1);
}

/* the canonical encoding of one word (aggstate.h) */
static inline void
w_word(FlatWriter *w, uint64 word, DPRowOrder words)
{
	double		f;

	if (words == DP_ROW_ORDER_INT64)
	{
		w_varint(w, zigzag((int64) word));
		return;
	}
	memcpy(&f, &word, sizeof(f));
	if (fabs(f) < AGGSTATE_SMALL_INT && (double) (int64) f == f)
		w_varint(w, zigzag((int64) f) << 1);
	else
	{
		w_varint(w, 1);
		w_uint(w, word, 8);
	}
}

/* one row's encoding */
static void
write_row(FlatWriter *w, const DPAggState *st, const uint64 *row, int64 pos, int64 neg)
{
	for (int j = 0; j < st->d; j++)
		w_word(w, row[j], st->type->words);
	w_varint(w, (uint64) pos);
	w_varint(w, (uint64) neg);
}

/* the sample keys of a row: items[first .. last - 1] (aggsample_by_row) */
static void
write_keys(FlatWriter *w, const BottomKItem *items, int64 first, int64 last)
{
	for (int64 i = first; i < last; i++)
		w_uint(w, items[i].key, 8);
}

/* header, options and rows in canonical order */
static void
aggstate_write(DPAggState *st, FlatWriter *w, const int32 *perm)
{
	const DPRowSet *rs = &st->rows;
	Size		optlen = st->options_text ? strlen(st->options_text) : 0;
	bool		keyed = st->sample != NULL && aggsample_keyed(st->sample);
	const BottomKItem *items = NULL;
	int64	   *start = NULL;

	/* a state that spilled became a sample first (aggstate_get_flat_size) */
	Assert(st->spill == NULL);
	/* the keys grouped by row, only to write them: counting needs just the counts */
	if (keyed && w->out != NULL)
	{
		start = palloc_extended(sizeof(int64) * ((Size) rs->nrows + 1), MCXT_ALLOC_HUGE);
		items = aggsample_by_row(st->sample, start);
	}
	w_uint(w, st->type->magic, 4);
	w_uint(w, (uint64) st->kind, 1);
	w_uint(w, keyed ? 1 : 0, 1);	/* flags */
	w_uint(w, (uint64) st->d, 2);
	w_float8(w, st->epsilon);
	w_float8(w, st->delta);
	w_uint(w, st->sample != NULL ? (uint64) aggsample_k(st->sample) : 0, 8);
	w_uint(w, optlen, 4);
	if (optlen > 0)
		w_bytes(w, st->options_text, optlen);
	w_uint(w, (uint64) rs->nrows, 4);
	for (int k = 0; k < rs->nrows; k++)
	{
		int			u = perm ? perm[k] : k;

		if ((k & AGGSTATE_POLL_MASK) == 0)
			CHECK_FOR_INTERRUPTS();
		write_row(w, st, rs->x + (Size) u * rs->d, rs->pos[u], rs->neg[u]);
		if (items != NULL)
			write_keys(w, items, start[u], start[u + 1]);
		else if (keyed)
			w->len += sizeof(uint64) * (Size) (rs->pos[u] + rs->neg[u]);
	}
	if (start != NULL)
		pfree(start);
}

/* a sampled state's rows without the ones evictions emptied */
static void
aggstate_compact(DPAggState *st)
{
	if (st->sample != NULL)
		aggsample_compact(st->sample);
}

/*
 * The counts of the sample drawn now, into new arrays *pos and *neg indexed
 * by row; false: the state's own counts are what the final function fits
 */
static bool
aggstate_draw_sample(DPAggState *st, const int32 *perm, int64 **pos, int64 **neg)
{
	Size		n = Max(st->rows.nrows, 1);

	if (st->sample == NULL || aggsample_keyed(st->sample) ||
		rowset_total(&st->rows) <= aggsample_k(st->sample))
		return false;
	*pos = palloc_extended(sizeof(int64) * n, MCXT_ALLOC_HUGE);
	*neg = palloc_extended(sizeof(int64) * n, MCXT_ALLOC_HUGE);
	return aggsample_draw(st->sample, perm, *pos, *neg);
}

int
aggstate_canonical_rows(DPAggState *st, bool draw, uint64 *x, int64 *pos_out, int64 *neg_out)
{
	const DPRowSet *rs = &st->rows;
	const int32 *perm = aggstate_order(st);
	int			d = st->d;
	int64	   *pos = rs->pos,
			   *neg = rs->neg;
	int			v = 0;
	bool		drawn = draw && aggstate_draw_sample(st, perm, &pos, &neg);

	for (int k = 0; k < rs->nrows; k++)
	{
		int			u = perm[k];

		if (pos[u] + neg[u] == 0)
			continue;
		memcpy(x + (Size) v * d, rs->x + (Size) u * d, sizeof(uint64) * d);
		pos_out[v] = pos[u];
		neg_out[v++] = neg[u];
	}
	if (drawn)
	{
		pfree(pos);
		pfree(neg);
	}
	return v;
}

const int32 *
aggstate_order(DPAggState *st)
{
	if (st->perm == NULL)
	{
		MemoryContext old;

		aggstate_compact(st);
		old = MemoryContextSwitchTo(st->hdr.eoh_context);
		st->perm = rowset_order(&st->rows, st->type->words);
		MemoryContextSwitchTo(old);
	}
	return st->perm;
}

static Size
aggstate_get_flat_size(ExpandedObjectHeader *eohptr)
{
	DPAggState *st = (DPAggState *) eohptr;

	if (st->flat_size == 0)
	{
		FlatWriter	w = {NULL, VARHDRSZ};

		/*
		 * A state that keeps every row leaves its process as a uniform sample
		 * of the K rows its node's cap holds: one value of every distinct row
		 * would grow with the table (up to PostgreSQL's 1 GB, then fail).
		 */
		aggstate_sample_at(st, PG_INT64_MAX);
		aggstate_compact(st);
		/* the size does not depend on the order */
		aggstate_write(st, &w, NULL);
		if (w.len > MaxAllocSize)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("%s is too large to be shipped (%zu bytes)", st->type->name, w.len),
					 errhint("Reduce the number of distinct rows, e.g. by rounding continuous features to a coarser grid.")));
		st->flat_size = w.len;
	}
	return st->flat_size;
}

static void
aggstate_flatten_into(ExpandedObjectHeader *eohptr, void *result, Size allocated_size)
{
	DPAggState *st = (DPAggState *) eohptr;
	FlatWriter	w = {(uint8 *) result, VARHDRSZ};

	Assert(allocated_size == aggstate_get_flat_size(eohptr));
	aggstate_write(st, &w, aggstate_order(st));
	if (w.len != allocated_size)
		elog(ERROR, "dpobj: flattened %s has %zu bytes, expected %zu",
			 st->type->name, w.len, allocated_size);
	SET_VARSIZE(result, allocated_size);
}

/* ---------------------------------------------------------------------
 * Decoding: a bounds-checked reader; any violation is aggstate_corrupt().
 * ---------------------------------------------------------------------
 */
typedef struct FlatReader
{
	const DPStateType *type;
	const uint8 *p;
	const uint8 *end;
} FlatReader;

/* header fields of a flat state */
typedef struct FlatHeader
{
	int			kind;
	int			d;
	double		epsilon;
	double		delta;
	char	   *options_text;	/* NULL: none */
	bool		keyed;			/* rows carry sample keys */
	int64		k;				/* the sample's K; 0: a kind that keeps every row */
	int			nrows;
} FlatHeader;

static inline void
r_need(FlatReader *r, Size n)
{
	if ((Size) (r->end - r->p) < n)
		aggstate_corrupt(r->type);
}

static inline uint64
r_uint(FlatReader *r, int nbytes)
{
	uint64		v = 0;

	r_need(r, nbytes);
	for (int k = 0; k < nbytes; k++)
		v = (v << 8) | r->p[k];
	r->p += nbytes;
	return v;
}

static inline double
r_float8(FlatReader *r)
{
	uint64		bits = r_uint(r, 8);
	double		f;

	memcpy(&f, &bits, sizeof(f));
	return f;
}

/* LEB128, at most 10 bytes, no overlong forms */
static inline uint64
r_varint(FlatReader *r)
{
	uint64		v = 0;

	for (int k = 0; k < 10; k++)
	{
		uint8		b;

		r_need(r, 1);
		b = *r->p++;
		if (k == 9 && b > 1)
			break;
		v |= (uint64) (b & 0x7F) << (7 * k);
		if ((b & 0x80) == 0)
		{
			if (k > 0 && b == 0)
				break;			/* overlong */
			return v;
		}
	}
	aggstate_corrupt(r->type);
}

/* one word, accepting only the canonical encoding */
static inline uint64
r_word(FlatReader *r)
{
	uint64		u = r_varint(r);
	double		f;
	uint64		bits;

	if (r->type->words == DP_ROW_ORDER_INT64)
		return (uint64) unzigzag(u);
	if ((u & 1) == 0)
	{
		int64		i = unzigzag(u >> 1);

		f = (double) i;
		if (!(fabs(f) < AGGSTATE_SMALL_INT))
			aggstate_corrupt(r->type);
		if (f == 0)
			f = 0;				/* never -0.0 */
		memcpy(&bits, &f, sizeof(bits));
		return bits;
	}
	if (u != 1)
		aggstate_corrupt(r->type);
	bits = r_uint(r, 8);
	memcpy(&f, &bits, sizeof(f));
	if (!isfinite(f) || (fabs(f) < AGGSTATE_SMALL_INT && (double) (int64) f == f))
		aggstate_corrupt(r->type);
	return bits;
}

static void
r_header(FlatReader *r, FlatHeader *h)
{
	uint32		optlen;
	uint32		nrows;
	uint64		flags,
				k;

	if (r_uint(r, 4) != r->type->magic)
		aggstate_corrupt(r->type);
	h->kind = (int) r_uint(r, 1);
	flags = r_uint(r, 1);
	if (flags > 1)
		aggstate_corrupt(r->type);
	h->keyed = (flags == 1);
	h->d = (int) r_uint(r, 2);
	h->epsilon = r_float8(r);
	h->delta = r_float8(r);
	k = r_uint(r, 8);
	if (k > (uint64) PG_INT64_MAX || (h->keyed && k == 0))
		aggstate_corrupt(r->type);
	h->k = (int64) k;
	optlen = (uint32) r_uint(r, 4);
	h->options_text = NULL;
	if (optlen > 0)
	{
		r_need(r, optlen);
		if (memchr(r->p, '\0', optlen) != NULL)
			aggstate_corrupt(r->type);
		h->options_text = pnstrdup((const char *) r->p, optlen);
		r->p += optlen;
	}
	nrows = (uint32) r_uint(r, 4);
	/* every row takes at least d + 2 bytes */
	if (h->d < 1 || nrows > DP_ROWSET_MAX_ROWS ||
		(Size) nrows * (h->d + 2) > (Size) (r->end - r->p))
		aggstate_corrupt(r->type);
	h->nrows = (int) nrows;
}

/*
 * A row's sample keys (pos label-true, then neg label-false, ascending
 * within each), added with them to dst's sample (apply) or only checked.
 */
static void
r_keyed_counts(FlatReader *r, DPAggState *dst, const uint64 *row, int64 pos, int64 neg,
			   bool apply)
{
	uint64	   *keys;
	uint64		prev = 0;

	if (dst->sample == NULL || pos > (r->end - r->p) / 8 ||
		neg > (r->end - r->p) / 8 - pos)
		aggstate_corrupt(r->type);
	keys = apply ? palloc_extended(sizeof(uint64) * Max(pos + neg, 1), MCXT_ALLOC_HUGE) : NULL;
	for (int64 c = 0; c < pos + neg; c++)
	{
		uint64		key = r_uint(r, 8);

		if (c != 0 && c != pos && key < prev)
			aggstate_corrupt(r->type);
		prev = key;
		if (keys != NULL)
			keys[c] = key;
	}
	if (keys != NULL)
	{
		aggsample_add(dst->sample, row, pos, neg, keys);
		pfree(keys);
	}
}

/*
 * The state's K becomes min(its K, the header's): the combine keeps the
 * bottom K_min of the union (aggsample.h).  Whether a kind samples is a
 * function of the kind, so a K on a kind that keeps every row, or none on
 * one that samples, is no state dpobj wrote.
 */
static void
r_apply_k(FlatReader *r, const FlatHeader *h, DPAggState *dst)
{
	/* a spilling kind's part shipped as a sample (aggstate_get_flat_size) */
	if (h->k > 0)
		aggstate_sample_at(dst, h->k);
	if ((dst->sample != NULL) != (h->k > 0))
		aggstate_corrupt(r->type);
	if (dst->sample != NULL)
		aggsample_limit(dst->sample, h->k);
}

/*
 * Reads the rows into dst, adding counts (apply), or only checks them
 * (adding cannot fail on rows that pass).  Rows must be strictly
 * ascending with a positive total count and pass the type's row check.
 */
static void
r_rows(FlatReader *r, const FlatHeader *h, DPAggState *dst, bool apply)
{
	int			d = h->d;
	uint64	   *row = palloc(sizeof(uint64) * d);
	uint64	   *prev = palloc(sizeof(uint64) * d);

	for (int k = 0; k < h->nrows; k++)
	{
		uint64		pos,
					neg;

		if ((k & AGGSTATE_POLL_MASK) == 0)
			CHECK_FOR_INTERRUPTS();
		for (int j = 0; j < d; j++)
			row[j] = r_word(r);
		pos = r_varint(r);
		neg = r_varint(r);
		if (pos > (uint64) PG_INT64_MAX || neg > (uint64) PG_INT64_MAX ||
			pos + neg == 0 ||
			(k > 0 && rowset_compare(prev, row, d, r->type->words) >= 0))
			aggstate_corrupt(r->type);
		dst->type->check_row(dst, row);
		if (h->keyed)
			r_keyed_counts(r, dst, row, (int64) pos, (int64) neg, apply);
		else if (apply)
			aggstate_add_counts(dst, row, (int64) pos, (int64) neg);
		memcpy(prev, row, sizeof(uint64) * d);
	}
	if (r->p != r->end)
		aggstate_corrupt(r->type);
	pfree(row);
	pfree(prev);
	if (apply)
		aggstate_changed(dst);
}

static Jsonb *
options_from_text(const char *text)
{
	return text ? DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(text))) : NULL;
}

/* a reader over a flat (detoasted, 4-byte header) state */
static void
reader_init(FlatReader *r, const DPStateType *type, const struct varlena *flat)
{
	r->type = type;
	r->p = (const uint8 *) VARDATA(flat);
	r->end = r->p + VARSIZE(flat) - VARHDRSZ;
}

/*
 * Decodes a flat state into a new expanded state under parent (apply), or
 * only validates it: the header and options as a decode checks them, each
 * row read and checked but not stored (an empty state is returned).
 */
static DPAggState *
aggstate_decode(const DPStateType *type, const struct varlena *flat, MemoryContext parent,
				bool apply)
{
	FlatReader	r;
	FlatHeader	h;
	DPAggState *st;

	reader_init(&r, type, flat);
	r_header(&r, &h);
	st = aggstate_new(type, parent, h.kind, h.d, h.epsilon, h.delta,
					  options_from_text(h.options_text), apply ? h.nrows : 0);
	/* the options text must be the canonical one the state would write */
	if ((h.options_text == NULL) != (st->options_text == NULL) ||
		(h.options_text && strcmp(h.options_text, st->options_text) != 0))
		aggstate_corrupt(type);
	r_apply_k(&r, &h, st);
	r_rows(&r, &h, st, apply);
	return st;
}

/* ---------------------------------------------------------------------
 * Expanded states
 * ---------------------------------------------------------------------
 */
DPAggState *
aggstate_new(const DPStateType *type, MemoryContext parent, int kind, int d,
			 double epsilon, double delta, Jsonb *options, int capacity)
{
	MemoryContext cxt = AllocSetContextCreate(parent, "dpobj aggregate state",
											  ALLOCSET_DEFAULT_SIZES);
	MemoryContext old = MemoryContextSwitchTo(cxt);
	DPAggState *st = palloc0(type->size);
	int64		k;

	EOH_init_header(&st->hdr, &aggstate_methods, cxt);
	st->type = type;
	st->kind = kind;
	st->d = d;
	st->epsilon = epsilon;
	st->delta = delta;
	if (options != NULL)
	{
		st->options = (Jsonb *) PG_DETOAST_DATUM_COPY(JsonbPGetDatum(options));
		st->options_text = JsonbToCString(NULL, &st->options->root, VARSIZE(st->options));
	}
	type->init(st);
	k = type->sample_rows != NULL ? type->sample_rows(st) : 0;
	if (k > 0)
	{
		st->sample = aggsample_new(cxt, &st->rows, k, type->words);
		/* a decoded state's size hint must not take more than the sample */
		capacity = (int) Min((int64) capacity, k);
	}
	else if (type->spills != NULL && type->spills(kind))
	{
		int			room = 64;

		st->cap = (Size) dpobj_max_state_memory * 1024;
		if (type->cap_eighths > 0)
			st->cap = st->cap / 8 * type->cap_eighths;
		/* a decoded state's size hint must not take more than the cap */
		while (room < capacity && rowset_bytes(d, 2 * room) <= st->cap)
			room *= 2;
		capacity = Min(capacity, room);
	}
	rowset_init(&st->rows, cxt, d, capacity);
	MemoryContextSwitchTo(old);
	return st;
}

/*
 * The rows a run about to be written stands for, to tell how many of them
 * repeat: an unindexed set's entries, else its counts' sum (only compared
 * with 4/3 of its rows, so the sum stops there).
 */
static int64
spill_entries(const DPRowSet *rs)
{
	int64		limit = (int64) rs->nrows + rs->nrows / 3 + 1;
	int64		sum = 0;

	if (rs->unindexed)
		return rs->nrows;
	for (int u = 0; u < rs->nrows && sum <= limit; u++)
		sum += Min(Max(rs->pos[u], 0), limit) + Min(Max(rs->neg[u], 0), limit);
	return Min(sum, limit);
}

/*
 * A new run of st's in-memory rows on its spill, and an empty set; the
 * next rows are appended unindexed if this run's rows were mostly distinct
 * (no hash probe that would miss), else counted in the hash table.
 */
static void
aggstate_spill(DPAggState *st)
{
	int64		entries,
				written;

	if (st->spill == NULL)
	{
		/* a merge of runs holds one file buffer per run: a share of the cap */
		int			fanin = (int) Min(64, st->cap / (4 * BLCKSZ));

		/*
		 * A Citus shard task of the protected query: its files must not be
		 * counted where analysts may look (the coordinator's own run is
		 * pinned by seal.c).
		 */
		if (st->options != NULL && dp_options_sealed(st->options) &&
			dpobj_protected_peek() == NULL && dp_citus_task_session())
			worker_pins_unobserved_spill();
		st->spill = rowspill_new(st->hdr.eoh_context, st->d, st->type->words, fanin);
	}
	entries = spill_entries(&st->rows);
	written = rowspill_add_run(st->spill, &st->rows);
	/* at most a quarter repeats: the hash table would mostly miss */
	st->append = written >= entries - entries / 4;
	aggstate_changed(st);
}

/*
 * A state of a spilling kind that keeps every row (no sample, a cap)
 * becomes, in place, the uniform sample (aggsample.h) of at most
 * min(k, ship_rows) rows of all it counted: at most that many distinct
 * rows exactly as they are, else every counted row offered with a fresh
 * key.  In-memory
 * rows past it are written as one more run first and their set freed, so
 * that the sample grows in memory they no longer take; the runs are read
 * once and deleted.  Any other state is left as it is.
 */
static void
aggstate_sample_at(DPAggState *st, int64 k)
{
	MemoryContext cxt = st->hdr.eoh_context;
	DPRowSpill *spill;
	DPRowStream *s;
	const uint64 *row;
	int64		pos,
				neg;

	if (st->sample != NULL || st->cap == 0 || st->type->ship_rows == NULL)
		return;
	k = Min(k, st->type->ship_rows(st));
	Assert(k > 0);
	if (st->spill == NULL && st->rows.nrows <= k)
	{
		st->sample = aggsample_adopt(cxt, &st->rows, k, st->type->words);
		st->cap = 0;
		aggstate_changed(st);
		return;
	}
	if (st->rows.nrows > 0)
		aggstate_spill(st);
	spill = st->spill;
	rowset_free(&st->rows);
	rowset_init(&st->rows, cxt, st->d, 0);
	st->sample = aggsample_new(cxt, &st->rows, k, st->type->words);
	st->cap = 0;
	st->spill = NULL;
	st->append = false;
	s = rowstream_begin(spill, NULL, st->d, st->type->words);
	while (rowstream_next(s, &row, &pos, &neg))
		aggsample_add(st->sample, row, pos, neg, NULL);
	rowstream_end(s);
	rowspill_close(spill);
	aggstate_changed(st);
}

void
aggstate_add_counts(DPAggState *st, const uint64 *row, int64 pos, int64 neg)
{
	if (st->sample != NULL)
	{
		aggsample_add(st->sample, row, pos, neg, NULL);
		return;
	}
	if (st->cap > 0 && rowset_full(&st->rows) &&
		(st->append || (rowset_bytes(st->d, 2 * st->rows.maxrows) > st->cap &&
						rowset_lookup(&st->rows, row) < 0)))
		aggstate_spill(st);
	if (st->append)
		rowset_append(&st->rows, row, pos, neg);
	else
		rowset_add_counts(&st->rows, row, pos, neg);
}

/* adds every row of src (in memory and spilled) to dst */
static void
merge_rows(DPAggState *dst, DPAggState *src)
{
	const DPRowSet *rs = &src->rows;

	/* a sampled part makes a state that kept every row sample at its K */
	if (src->sample != NULL)
		aggstate_sample_at(dst, aggsample_k(src->sample));
	if (dst->sample != NULL && src->sample != NULL)
		aggsample_merge(dst->sample, src->sample);
	else if (dst->cap == 0 && dst->sample == NULL && src->spill == NULL)
		rowset_merge(&dst->rows, rs);
	else
	{
		for (int u = 0; u < rs->nrows; u++)
		{
			if ((u & AGGSTATE_POLL_MASK) == 0)
				CHECK_FOR_INTERRUPTS();
			aggstate_add_counts(dst, rs->x + (Size) u * rs->d, rs->pos[u], rs->neg[u]);
		}
		if (src->spill != NULL)
		{
			DPRowStream *s = rowstream_begin(src->spill, NULL, src->d, src->type->words);
			const uint64 *row;
			int64		pos,
						neg;

			while (rowstream_next(s, &row, &pos, &neg))
				aggstate_add_counts(dst, row, pos, neg);
			rowstream_end(s);
		}
	}
	aggstate_changed(dst);
}

/* the expanded state behind d, or NULL when d is a flat value */
static DPAggState *
aggstate_expanded(const DPStateType *type, Datum d)
{
	ExpandedObjectHeader *eoh;

	if (!VARATT_IS_EXTERNAL_EXPANDED(DatumGetPointer(d)))
		return NULL;
	eoh = DatumGetEOHP(d);
	if (eoh->eoh_methods != &aggstate_methods || ((DPAggState *) eoh)->type != type)
		aggstate_corrupt(type);
	return (DPAggState *) eoh;
}

DPAggState *
aggstate_readable(const DPStateType *type, Datum d)
{
	DPAggState *st = aggstate_expanded(type, d);

	if (st != NULL)
		return st;
	return aggstate_decode(type, (struct varlena *) PG_DETOAST_DATUM(d), CurrentMemoryContext,
						   true);
}

DPAggState *
aggstate_writable(const DPStateType *type, Datum d, MemoryContext aggcontext)
{
	DPAggState *src = aggstate_expanded(type, d);
	DPAggState *st;

	if (src == NULL)
		return aggstate_decode(type, (struct varlena *) PG_DETOAST_DATUM(d), aggcontext, true);
	if (VARATT_IS_EXTERNAL_EXPANDED_RW(DatumGetPointer(d)) &&
		MemoryContextGetParent(src->hdr.eoh_context) == aggcontext)
		return src;
	/* someone else's (read-only) state: update a copy */
	st = aggstate_new(type, aggcontext, src->kind, src->d, src->epsilon, src->delta,
					  src->options, src->rows.nrows);
	merge_rows(st, src);
	return st;
}

/* the errors a row with other run-wide arguments gets (rowinput.c) */
static void
aggstate_check_same(const DPAggState *a, int kind, int d, double epsilon,
					double delta, const char *options_text)
{
	const char *aggname = a->type->aggname(a->kind);
	bool		same_options;

	if (kind != a->kind)
		aggstate_corrupt(a->type);
	same_options = (options_text == NULL) ? a->options_text == NULL :
		(a->options_text != NULL && strcmp(options_text, a->options_text) == 0);
	dp_run_check_same(aggname, epsilon, delta, same_options, d,
					  a->epsilon, a->delta, a->d);
}

void
aggstate_merge(DPAggState *dst, Datum src)
{
	DPAggState *s = aggstate_expanded(dst->type, src);

	if (s != NULL)
	{
		aggstate_check_same(dst, s->kind, s->d, s->epsilon, s->delta, s->options_text);
		merge_rows(dst, s);
	}
	else
	{
		struct varlena *flat = (struct varlena *) PG_DETOAST_DATUM(src);
		FlatReader	r;
		FlatHeader	h;

		reader_init(&r, dst->type, flat);
		r_header(&r, &h);
		aggstate_check_same(dst, h.kind, h.d, h.epsilon, h.delta, h.options_text);
		r_apply_k(&r, &h, dst);
		r_rows(&r, &h, dst, true);
		if ((Pointer) flat != DatumGetPointer(src))
			pfree(flat);
	}
}

bool
aggstate_combine_start(FunctionCallInfo fcinfo, const char *name, MemoryContext *aggcontext,
					   Datum *result)
{
	if (!AggCheckCallContext(fcinfo, aggcontext))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("the combine function of %s called in non-aggregate context", name),
				 errhint("Combine functions run only inside dpobj's aggregates.")));
	if (!PG_ARGISNULL(1))
		return false;
	/* nothing to merge: the first state as it is, or NULL */
	fcinfo->isnull = PG_ARGISNULL(0);
	*result = fcinfo->isnull ? (Datum) 0 : PG_GETARG_DATUM(0);
	return true;
}

/*
 * The combine function of both state types: merges the second partial
 * state into the first (either may be NULL), in the aggregate context.
 */
Datum
aggstate_combine(FunctionCallInfo fcinfo, const DPStateType *type)
{
	MemoryContext aggcontext;
	DPAggState *st;
	Datum		result;

	if (aggstate_combine_start(fcinfo, type->name, &aggcontext, &result))
		return result;
	if (PG_ARGISNULL(0))
		st = aggstate_writable(type, PG_GETARG_DATUM(1), aggcontext);
	else
	{
		st = aggstate_writable(type, PG_GETARG_DATUM(0), aggcontext);
		aggstate_merge(st, PG_GETARG_DATUM(1));
	}
	PG_RETURN_DATUM(EOHPGetRWDatum(&st->hdr));
}

void
aggstate_final_check(FunctionCallInfo fcinfo)
{
	if (AggCheckCallContext(fcinfo, NULL) != AGG_CONTEXT_AGGREGATE)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("a dpobj final function can only run as the final step of its aggregate"),
				 errhint("Call the aggregate, e.g. dpobj.dp_halfspace(features, label, epsilon, delta).")));
}

void
aggstate_obsolete(const char *function, const char *version)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("function dpobj.%s belongs to dpobj %s and is no longer available",
					function, version),
			 errdetail("The installed library is newer than the extension's SQL objects in this database."),
			 errhint("Run ALTER EXTENSION dpobj UPDATE.")));
}

/* ---------------------------------------------------------------------
 * Type I/O
 * ---------------------------------------------------------------------
 */

/* a flat value from payload bytes, validated by decoding it */
static Datum
aggstate_from_payload(const DPStateType *type, const char *data, Size len)
{
	struct varlena *flat;
	MemoryContext tmp;
	MemoryContext old;

	if (len > MaxAllocSize - VARHDRSZ)
		aggstate_corrupt(type);
	flat = palloc(len + VARHDRSZ);
	SET_VARSIZE(flat, len + VARHDRSZ);
	memcpy(VARDATA(flat), data, len);

	/*
	 * validate: read every field as a decode does, in a scratch context,
	 * without building the rows (a Citus coordinator reads each shard's
	 * state here and again in the combine)
	 */
	tmp = AllocSetContextCreate(CurrentMemoryContext, "dpobj state validation",
								ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(tmp);
	(void) aggstate_decode(type, flat, tmp, false);
	MemoryContextSwitchTo(old);
	MemoryContextDelete(tmp);
	return PointerGetDatum(flat);
}

Datum
aggstate_in(const DPStateType *type, const char *str)
{
	int			len = strlen(str);
	int			maxlen = pg_b64_dec_len(len);
	char	   *buf = palloc(maxlen + 1);
	int			n = compat_b64_decode(str, len, buf, maxlen);

	if (n < 0)
		aggstate_corrupt(type);
	return aggstate_from_payload(type, buf, n);
}

char *
aggstate_out(const DPStateType *type, Datum d)
{
	struct varlena *flat = (struct varlena *) PG_DETOAST_DATUM(d);
	int			len = VARSIZE(flat) - VARHDRSZ;
	int			maxlen = pg_b64_enc_len(len);
	char	   *out = palloc(maxlen + 1);
	int			n = compat_b64_encode(VARDATA(flat), len, out, maxlen);

	if (n < 0)
		elog(ERROR, "dpobj: could not encode %s as base64", type->name);
	out[n] = '\0';
	return out;
}

Datum
aggstate_recv(const DPStateType *type, StringInfo buf)
{
	Datum		result = aggstate_from_payload(type, buf->data + buf->cursor,
											   buf->len - buf->cursor);

	buf->cursor = buf->len;
	return result;
}

bytea *
aggstate_send(const DPStateType *type, Datum d)
{
	struct varlena *flat = (struct varlena *) PG_DETOAST_DATUM(d);
	bytea	   *out = palloc(VARSIZE(flat));

	(void) type;
	memcpy(out, flat, VARSIZE(flat));
	return out;
}
