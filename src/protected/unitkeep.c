/*-------------------------------------------------------------------------
 *
 * unitkeep.c
 *	  The contribution bounding of a table with a privacy unit (units.h):
 *	  each unit keeps a uniformly random k-subset of its selected rows, in
 *	  memory bounded by dpobj.max_state_memory whatever the number of rows
 *	  or units (trainquery.h shows the query).  Two paths, chosen inside
 *	  the query, with the same output distribution:
 *
 *	  In memory, while the units fit the cap: two sequential scans and no
 *	  sort --
 *	  1. dpobj.unit_counts(unit, k), an aggregate over the selected rows,
 *		 counts each unit's rows m_u in a hash table and returns a handle
 *		 to it (> 0);
 *	  2. dpobj.unit_keep(unit, handle), evaluated on the same selected
 *		 rows (same statement, same snapshot), keeps a row of a unit that
 *		 has seen s rows and kept j of them with probability
 *		 (k - j) / (m_u - s): selection sampling (Knuth, TAOCP vol. 2,
 *		 3.4.2, Algorithm S), which keeps exactly min(m_u, k) rows, every
 *		 k-subset equally likely, in whatever order the rows arrive.  The
 *		 first scan also records its rows' hashes, in its order, while they
 *		 fit beside the counts within the cap (they give way to the counts);
 *		 the second scan reads them a few rows ahead to prefetch the buckets
 *		 it will look up -- time only, the lookup is by the row's own unit.
 *		 A linked table's selected rows are joined to their unit once and
 *		 stored (trainquery.h): both scans read the stored rows, in the
 *		 order the join gave them (from parallel workers, any order).
 *
 *	  Spilled, when the hash table would outgrow the cap: unit_counts()
 *	  frees it at once, ignores the rest of its scan and returns 0; the
 *	  query then runs its other branch instead, one scan whose rows are
 *	  sorted by unit -- PostgreSQL's sort, which spills to temporary files
 *	  beyond work_mem (pinned at most the cap, seal.c) -- each unit's rows
 *	  numbered r = 1..m_u (row_number()) and counted (count(*) over the
 *	  unit's window), and dpobj.unit_keep_sorted(r, m_u, k) runs the same
 *	  selection sampling on them as they arrive: a uniformly random
 *	  k-subset, exactly (no random keys, so no ties).
 *
 *	  Never more than k rows of a unit are kept, whatever the counts say
 *	  or the plan does (a per-unit counter on one path, a counter reset at
 *	  each unit's row 1 of a single scan on the other, rows out of order
 *	  raising): the calibration for k rows rests on that
 *	  alone.  Which rows a unit keeps depends on that unit's rows and on
 *	  random bits drawn independently of every row, on both paths; which
 *	  path runs depends on the number of units (and the cap), and changes
 *	  the time only (docs/PRIVACY.md "Privacy units").  The choice is
 *	  never released; the bits come from a SipHash-2-4 stream keyed per run
 *	  with 128 bits of pg_strong_random() (prfstream.h) -- a keyed PRF, as
 *	  the proofs' i.i.d. bits need, where a pg_strong_random() call per row
 *	  would cost more than the scan.  Units are compared with their type's hash
 *	  and equality functions under the column's collation, as GROUP BY
 *	  would (the sort: the column's ordering, whose equality is the same).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "base/dpobj.h"
#include "state/aggstate.h"
#include "base/distributed.h"
#include "base/random.h"
#include "context/protected.h"
#include "context/workerpins.h"
#include "core/unitsample.h"

#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/typcache.h"
#include "utils/uuid.h"

PG_FUNCTION_INFO_V1(dpobj_unit_counts_sfunc);
PG_FUNCTION_INFO_V1(dpobj_unit_counts_final);
PG_FUNCTION_INFO_V1(dpobj_unit_keep);
PG_FUNCTION_INFO_V1(dpobj_unit_row_key);
PG_FUNCTION_INFO_V1(dpobj_unit_keep_sorted);

/*
 * One unit: its selected rows not seen yet (counted by the first scan) and
 * the rows it still keeps; 16 bytes, so that the table of 100k units stays
 * small (one random access per row is the bounding's main cost).  The
 * count has 48 bits: it cannot saturate (a 32-bit one did at 2^32 - 1 rows
 * of one unit, past which the kept rows were no longer a uniform k-subset);
 * a unit past 2^48 - 1 rows (petabytes of them) fails the run instead.
 */
#define UNIT_LEFT_BITS	48
#define UNIT_LEFT_MAX	((UINT64CONST(1) << UNIT_LEFT_BITS) - 1)
typedef struct UnitEntry
{
	Datum		key;
	uint64		left:UNIT_LEFT_BITS;	/* rows not seen yet */
	uint64		need:14;		/* k - kept (k <= DPOBJ_MAX_ROWS_PER_UNIT) */
	uint64		status:2;		/* simplehash's: empty or in use */
} UnitEntry;

/* how the unit column's values are hashed and compared */
typedef struct UnitKeyOps
{
	FmgrInfo	hash;
	FmgrInfo	eq;
	Oid			collation;
	bool		byval;
	int16		typlen;
	bool		integer;		/* int2, int4 or int8: compared as int64 */
} UnitKeyOps;

static inline uint32 unit_key_hash(const UnitKeyOps *ops, Datum key);
static inline bool unit_key_eq(const UnitKeyOps *ops, Datum a, Datum b);

#define SH_PREFIX unitmap
#define SH_ELEMENT_TYPE UnitEntry
#define SH_KEY_TYPE Datum
#define SH_KEY key
#define SH_HASH_KEY(tb, k) unit_key_hash((const UnitKeyOps *) (tb)->private_data, k)
#define SH_EQUAL(tb, a, b) unit_key_eq((const UnitKeyOps *) (tb)->private_data, a, b)
#define SH_SCOPE static inline
#define SH_DECLARE
#define SH_DEFINE
#include "lib/simplehash.h"

/* the hint of every refusal of these internal functions */
#define UNIT_INTERNAL_HINT "It is a part of dpobj.train()'s query on a table with a privacy unit."

/* integer keys counted together (unit_count_batch) */
#define UNIT_BATCH 32
#if defined(__GNUC__) || defined(__clang__)
#define unit_prefetch(p) __builtin_prefetch(p)
#else
#define unit_prefetch(p) ((void) (p))
#endif

/*
 * The first scan's row hashes in scan order, which the second scan (the
 * same rows, in the same order unless a synchronized scan or the plan moves
 * them) reads a few rows ahead to fetch their buckets before it needs
 * them: a lookup per row in a table larger than the cache otherwise waits
 * for memory on every row.  A hint only: a wrong or missing one costs time,
 * never changes which rows are kept.  Chunks of 64kB.
 */
#define UNIT_HINT_CHUNK		16384
#define UNIT_HINT_AHEAD		8

/* the counts of one run's first scan, as the second scan reads them */
typedef struct UnitCounts
{
	MemoryContext cxt;			/* the aggregate's context: holds this struct */
	MemoryContext mapcxt;		/* its child: the hash table and the keys */
	MemoryContext hintcxt;		/* its sibling: the hints (NULL once freed) */
	Size		cap;			/* bytes mapcxt and hintcxt may hold (dpobj.max_state_memory) */
	bool		spilled;		/* the table outgrew the cap: freed, rows ignored */
	unitmap_hash *map;
	uint32	  **hints;			/* chunks of UNIT_HINT_CHUNK row hashes */
	int			maxchunks;		/* the length of hints */
	uint64		nhints;			/* hashes recorded */
	bool		hints_full;		/* no more are recorded (full or freed) */
	uint64		pos;			/* unit_keep() calls so far: the row's position */
	UnitKeyOps	ops;
	Oid			typid;
	uint16		k;				/* the rows each unit keeps */
	int			nbatch;			/* integer keys not counted yet */
	Datum		batch[UNIT_BATCH];
	uint64		handle;			/* random: ties unit_keep() to these counts */
	DPPrfStream rng;
	MemoryContextCallback reset;
} UnitCounts;

/* the counts published by the last unit_counts() of this backend */
static UnitCounts *unit_counts_current = NULL;

/* SplitMix64's finalizer: every bit of an integer unit moves the hash */
static inline uint32
unit_mix64(uint64 x)
{
	x = (x ^ (x >> 30)) * UINT64CONST(0xbf58476d1ce4e5b9);
	x = (x ^ (x >> 27)) * UINT64CONST(0x94d049bb133111eb);
	return (uint32) (x ^ (x >> 31));
}

/* integer units are hashed and compared inline, others by their type */
static inline uint32
unit_key_hash(const UnitKeyOps *ops, Datum key)
{
	if (ops->integer)
		return unit_mix64((uint64) DatumGetInt64(key));
	return DatumGetUInt32(FunctionCall1Coll((FmgrInfo *) &ops->hash, ops->collation, key));
}

static inline bool
unit_key_eq(const UnitKeyOps *ops, Datum a, Datum b)
{
	if (ops->integer)
		return DatumGetInt64(a) == DatumGetInt64(b);
	return DatumGetBool(FunctionCall2Coll((FmgrInfo *) &ops->eq, ops->collation, a, b));
}

/* the context holding the counts is gone: nothing published any more */
static void
unit_counts_forget(void *arg)
{
	if (unit_counts_current == (UnitCounts *) arg)
		unit_counts_current = NULL;
}

static UnitCounts *
unit_counts_create(FunctionCallInfo fcinfo, MemoryContext aggcxt)
{
	Oid			typid = getBaseType(get_fn_expr_argtype(fcinfo->flinfo, 1));
	TypeCacheEntry *tc = lookup_type_cache(typid, TYPECACHE_HASH_PROC_FINFO |
										   TYPECACHE_EQ_OPR_FINFO);
	UnitCounts *uc = MemoryContextAllocZero(aggcxt, sizeof(UnitCounts));
	int64		k = PG_ARGISNULL(2) ? 0 : PG_GETARG_INT64(2);

	if (!OidIsValid(tc->hash_proc_finfo.fn_oid) || !OidIsValid(tc->eq_opr_finfo.fn_oid))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_FUNCTION),
				 errmsg("type %s has no hash function or equality operator", format_type_be(typid)),
				 errhint("A privacy unit must be an integer, text, varchar, char or uuid column.")));
	if (k < 1 || k > DPOBJ_MAX_ROWS_PER_UNIT)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the rows kept per unit must be between 1 and %d", DPOBJ_MAX_ROWS_PER_UNIT),
				 errhint("Pass the table's max_rows_per_unit.")));
	StaticAssertStmt(DPOBJ_MAX_ROWS_PER_UNIT < (1 << 14), "UnitEntry.need holds k");
	StaticAssertStmt(sizeof(UnitEntry) == 16, "a unit's entry stays 16 bytes");
	uc->k = (uint16) k;
	uc->cxt = aggcxt;
	uc->typid = typid;
	fmgr_info_copy(&uc->ops.hash, &tc->hash_proc_finfo, aggcxt);
	fmgr_info_copy(&uc->ops.eq, &tc->eq_opr_finfo, aggcxt);
	uc->ops.collation = PG_GET_COLLATION();
	uc->ops.byval = tc->typbyval;
	uc->ops.typlen = tc->typlen;
	uc->ops.integer = (typid == INT2OID || typid == INT4OID || typid == INT8OID);
	uc->cap = (Size) dpobj_max_state_memory * 1024;
	/* blocks of 8kB: a key's copy takes at most one more block than it needs */
	uc->mapcxt = AllocSetContextCreate(aggcxt, "dpobj unit counts", 0,
									   ALLOCSET_DEFAULT_INITSIZE, ALLOCSET_DEFAULT_INITSIZE);
	uc->map = unitmap_create(uc->mapcxt, 256, &uc->ops);
	uc->hintcxt = AllocSetContextCreate(aggcxt, "dpobj unit hints", 0,
										ALLOCSET_DEFAULT_INITSIZE, ALLOCSET_DEFAULT_MAXSIZE);
	uc->reset.func = unit_counts_forget;
	uc->reset.arg = uc;
	MemoryContextRegisterResetCallback(aggcxt, &uc->reset);
	return uc;
}

/* a unit argument as the table's key: integers as int64 */
static inline Datum
unit_arg(const UnitKeyOps *ops, FunctionCallInfo fcinfo, int argno)
{
	Datum		d = PG_GETARG_DATUM(argno);

	if (!ops->integer)
		return d;
	switch (ops->typlen)
	{
		case 2:
			return Int64GetDatum((int64) DatumGetInt16(d));
		case 4:
			return Int64GetDatum((int64) DatumGetInt32(d));
		default:
			return d;
	}
}

/* no more hints: those recorded are freed, the rest of the scan records none */
static void
unit_hints_free(UnitCounts *uc)
{
	if (uc->hintcxt != NULL)
		MemoryContextDelete(uc->hintcxt);
	uc->hintcxt = NULL;
	uc->hints = NULL;
	uc->hints_full = true;
	uc->nhints = 0;
}

/* the bytes the counts hold, and the room for their table to double */
static inline Size
unit_counts_bytes(UnitCounts *uc)
{
	return MemoryContextMemAllocated(uc->mapcxt, true) + (Size) uc->map->size * 2 * sizeof(UnitEntry);
}

/* the bytes the hints hold */
static inline Size
unit_hints_bytes(UnitCounts *uc)
{
	return uc->hintcxt == NULL ? 0 : MemoryContextMemAllocated(uc->hintcxt, true);
}

/*
 * Records the hash of the next counted row, in a new chunk if need be: only
 * while the hints fit beside the table within the cap (else they stop, and
 * those recorded still serve the first rows).  Never an error: a chunk that
 * cannot be allocated stops them too.  The chunks' array is sized once for
 * as many chunks as the cap could hold (an eight-thousandth of it).
 */
static void
unit_hint_add(UnitCounts *uc, uint32 hash)
{
	uint64		chunk = uc->nhints / UNIT_HINT_CHUNK;
	Size		need;
	void	   *p = NULL;

	if (uc->hints_full)
		return;
	if (uc->nhints % UNIT_HINT_CHUNK == 0)
	{
		if (uc->hints == NULL)
			uc->maxchunks = (int) Min(uc->cap / (UNIT_HINT_CHUNK * sizeof(uint32)) + 1,
									  MaxAllocSize / sizeof(uint32 *));
		need = UNIT_HINT_CHUNK * sizeof(uint32) + ALLOCSET_DEFAULT_INITSIZE +
			(uc->hints == NULL ? uc->maxchunks * sizeof(uint32 *) : 0);
		if (chunk < (uint64) uc->maxchunks &&
			unit_counts_bytes(uc) + unit_hints_bytes(uc) + need <= uc->cap)
		{
			if (uc->hints == NULL)
				uc->hints = MemoryContextAllocExtended(uc->hintcxt, uc->maxchunks * sizeof(uint32 *),
													   MCXT_ALLOC_NO_OOM);
			if (uc->hints != NULL)
				p = MemoryContextAllocExtended(uc->hintcxt, UNIT_HINT_CHUNK * sizeof(uint32),
											   MCXT_ALLOC_NO_OOM);
		}
		if (p == NULL)
		{
			/* full: the hints recorded stay, no more are added */
			uc->hints_full = true;
			return;
		}
		uc->hints[chunk] = p;
	}
	uc->hints[chunk][uc->nhints % UNIT_HINT_CHUNK] = hash;
	uc->nhints++;
}

/*
 * The units outgrew the cap: the table is freed at once and the rest of the
 * scan ignored; the query's other branch, which sorts, keeps the rows.
 */
static void
unit_counts_spill(UnitCounts *uc)
{
	uc->spilled = true;
	uc->map = NULL;
	uc->nbatch = 0;
	MemoryContextDelete(uc->mapcxt);
	uc->mapcxt = NULL;
	unit_hints_free(uc);
}

/*
 * Whether a new unit of key may be added: the table may double (a new array
 * of twice its size beside the old one) and the key be copied (a chunk of at
 * most twice its size, maybe in a new 8kB block), all within the cap.
 * Sizes only: the table's, the key's.
 */
static bool
unit_room(UnitCounts *uc, Datum key)
{
	Size		keybytes = 0;
	Size		counts;

	if (!uc->ops.integer)
		keybytes = 2 * MAXALIGN(uc->ops.typlen == -1 ? VARSIZE_ANY(DatumGetPointer(key)) :
								uc->ops.typlen > 0 ? (Size) uc->ops.typlen : 0) +
			16 + ALLOCSET_DEFAULT_INITSIZE;
	counts = unit_counts_bytes(uc) + keybytes;
	if (counts > uc->cap)
		return false;
	/* the hints give way to the counts: where the path goes depends on the units only */
	if (counts + unit_hints_bytes(uc) > uc->cap)
		unit_hints_free(uc);
	return true;
}

/* one more row of the unit key (a copy of it made if the unit is new) */
static void
unit_count(UnitCounts *uc, Datum key, uint32 hash)
{
	bool		found;
	UnitEntry  *e;

	if (!uc->ops.integer && uc->ops.typlen == -1)
		key = PointerGetDatum(PG_DETOAST_DATUM_PACKED(key));
	if (!unit_room(uc, key))
	{
		/* near the cap: a known unit is counted, a new one spills */
		e = unitmap_lookup_hash(uc->map, key, hash);
		if (e == NULL)
		{
			unit_counts_spill(uc);
			return;
		}
		found = true;
	}
	else
		e = unitmap_insert_hash(uc->map, key, hash, &found);

	if (!found)
	{
		/* the table's own copy of the value, which lives for the row only */
		if (!uc->ops.integer)
		{
			MemoryContext old = MemoryContextSwitchTo(uc->mapcxt);

			e->key = datumCopy(key, uc->ops.byval, uc->ops.typlen);
			MemoryContextSwitchTo(old);
		}
		e->left = 0;
		e->need = uc->k;
	}
	if (e->left == UNIT_LEFT_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("a privacy unit has more than %llu rows", (unsigned long long) UNIT_LEFT_MAX),
				 errhint(UNIT_INTERNAL_HINT)));
	e->left++;
	unit_hint_add(uc, hash);
}

/*
 * The batched integer keys, counted together: their buckets are fetched
 * from memory side by side (a table of many units does not fit in the
 * cache, and one row's lookup at a time waits for each miss in turn).
 */
static void
unit_count_batch(UnitCounts *uc)
{
	uint32		hash[UNIT_BATCH];

	for (int i = 0; i < uc->nbatch; i++)
	{
		hash[i] = unit_key_hash(&uc->ops, uc->batch[i]);
		unit_prefetch(&uc->map->data[hash[i] & uc->map->sizemask]);
	}
	for (int i = 0; i < uc->nbatch && !uc->spilled; i++)
		unit_count(uc, uc->batch[i], hash[i]);
	uc->nbatch = 0;
}

/* dpobj.unit_counts(unit anyelement, k bigint): transition, one selected row */
Datum
dpobj_unit_counts_sfunc(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt;
	UnitCounts *uc;
	Datum		key;

	if (!AggCheckCallContext(fcinfo, &aggcxt))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("dpobj.unit_counts() can only be called as an aggregate"),
				 errhint(UNIT_INTERNAL_HINT)));
	uc = PG_ARGISNULL(0) ? unit_counts_create(fcinfo, aggcxt) : (UnitCounts *) PG_GETARG_POINTER(0);
	if (PG_ARGISNULL(1) || uc->spilled)
		PG_RETURN_POINTER(uc);
	key = unit_arg(&uc->ops, fcinfo, 1);
	if (!uc->ops.integer)
		unit_count(uc, key, unit_key_hash(&uc->ops, key));
	else
	{
		uc->batch[uc->nbatch++] = key;
		if (uc->nbatch == UNIT_BATCH)
			unit_count_batch(uc);
	}
	PG_RETURN_POINTER(uc);
}

/*
 * dpobj.unit_counts(unit anyelement, k bigint): final, publishes the counts
 * and returns their handle (> 0); 0 when the units outgrew the cap (the
 * query's sorting branch keeps the rows); NULL when no row was selected
 * (unit_keep() then never runs: it sees the same rows, and a NULL handle
 * keeps nothing).
 */
Datum
dpobj_unit_counts_final(PG_FUNCTION_ARGS)
{
	UnitCounts *uc;

	aggstate_final_check(fcinfo);
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	uc = (UnitCounts *) PG_GETARG_POINTER(0);
	if (!uc->spilled)
		unit_count_batch(uc);
	if (uc->spilled)
		PG_RETURN_INT64(0);
	dpobj_prf_strong_seed(&uc->rng);
	/* positive: 0 says "spilled" */
	uc->handle = (dp_prf_next(&uc->rng) >> 1) | 1;
	unit_counts_current = uc;
	PG_RETURN_INT64((int64) uc->handle);
}

/* the bucket of the row UNIT_HINT_AHEAD rows on, by the first scan's order */
static inline void
unit_hint_prefetch(UnitCounts *uc)
{
	uint64		ahead = uc->pos++ + UNIT_HINT_AHEAD;

	if (ahead < uc->nhints)
		unit_prefetch(&uc->map->data[uc->hints[ahead / UNIT_HINT_CHUNK][ahead % UNIT_HINT_CHUNK] &
									 uc->map->sizemask]);
}

/* selection sampling's step for one row of a unit (the file header) */
static bool
unit_keep_row(UnitCounts *uc, UnitEntry *e)
{
	bool		keep = unit_sample_keep(&uc->rng, e->left, e->need);

	if (e->left > 0)
		e->left--;
	if (keep)
		e->need--;
	return keep;
}

/*
 * dpobj.unit_keep(unit anyelement, counts bigint) RETURNS boolean:
 * whether this selected row of the unit is one of the k it keeps.
 */
Datum
dpobj_unit_keep(PG_FUNCTION_ARGS)
{
	UnitCounts *uc = unit_counts_current;
	UnitEntry  *e;

	/* the argument's type is the call site's: looked up on its first row only */
	if (fcinfo->flinfo->fn_extra == NULL)
	{
		Oid		   *typid = MemoryContextAlloc(fcinfo->flinfo->fn_mcxt, sizeof(Oid));

		*typid = getBaseType(get_fn_expr_argtype(fcinfo->flinfo, 0));
		fcinfo->flinfo->fn_extra = typid;
	}
	if (uc == NULL || uc->spilled || uc->handle != (uint64) PG_GETARG_INT64(1) ||
		uc->typid != *(Oid *) fcinfo->flinfo->fn_extra)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("dpobj.unit_keep() needs the handle of dpobj.unit_counts() over the same rows in the same query"),
				 errhint(UNIT_INTERNAL_HINT)));
	unit_hint_prefetch(uc);
	e = unitmap_lookup(uc->map, unit_arg(&uc->ops, fcinfo, 0));
	if (e == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("dpobj.unit_keep() was called on a row dpobj.unit_counts() did not count"),
				 errhint(UNIT_INTERNAL_HINT)));
	PG_RETURN_BOOL(unit_keep_row(uc, e));
}

/*
 * dpobj.unit_row_key() RETURNS uuid (installed by 0.4.0; train()'s sorted
 * branch samples with unit_keep_sorted() since 0.5.0): a random key,
 * 128 bits from a SipHash stream keyed from pg_strong_random() once per
 * call site and query (its state lives in the expression's fn_extra), so the
 * keys are i.i.d. uniform and independent of every row.  A uuid because it
 * is 128 bits that sort fast (memcmp); only the query's sort sees it.
 */
Datum
dpobj_unit_row_key(PG_FUNCTION_ARGS)
{
	DPPrfStream *rng = (DPPrfStream *) fcinfo->flinfo->fn_extra;
	pg_uuid_t  *key = palloc(sizeof(pg_uuid_t));
	uint64		hi;
	uint64		lo;

	if (rng == NULL)
	{
		rng = MemoryContextAlloc(fcinfo->flinfo->fn_mcxt, sizeof(DPPrfStream));
		dpobj_prf_strong_seed(rng);
		fcinfo->flinfo->fn_extra = rng;
	}
	hi = dp_prf_next(rng);
	lo = dp_prf_next(rng);
	memcpy(key->data, &hi, sizeof(hi));
	memcpy(key->data + sizeof(hi), &lo, sizeof(lo));
	PG_RETURN_UUID_P(key);
}

/* the sorted branch's state at one call site: the current unit's progress */
typedef struct UnitSortedState
{
	int64		last;			/* the previous row's number in its unit */
	int64		kept;			/* rows its unit kept so far */
	DPPrfStream rng;
} UnitSortedState;

/*
 * dpobj.unit_keep_sorted(r bigint, m bigint, k bigint) RETURNS boolean: the
 * sorted branch's selection sampling (Algorithm S, as unit_keep_row) over
 * rows that arrive unit by unit -- r the row's number in its unit (1..m,
 * row_number() over the unit's window), m the unit's row count (count(*)
 * over the same window).  Keeps a row with probability (k - j) / (m - r + 1),
 * j the rows kept since the unit's row 1: exactly min(m, k) rows, a
 * uniformly random k-subset, with no keys and so no ties.  Rows out of that
 * order (a number other than 1 or the previous plus one) raise: at most k
 * rows of a unit, whatever the plan.
 */
Datum
dpobj_unit_keep_sorted(PG_FUNCTION_ARGS)
{
	UnitSortedState *st = (UnitSortedState *) fcinfo->flinfo->fn_extra;
	int64		r = PG_GETARG_INT64(0);
	int64		m = PG_GETARG_INT64(1);
	int64		k = PG_GETARG_INT64(2);
	bool		keep;

	if (st == NULL)
	{
		/*
		 * A shard's bounding on Citus (trainquery.h): its sort's temporary
		 * files, whose number and size follow the shard's rows, are counted
		 * when they are closed, after this first row, at the latest when the
		 * query ends; the worker's statistics must not count them (seal.c
		 * pins the coordinator's own run).  Put back at the query's end.
		 */
		if (dpobj_protected_peek() == NULL && dp_citus_task_session())
			worker_pins_unobserved_query(fcinfo->flinfo->fn_mcxt);
		st = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(UnitSortedState));
		dpobj_prf_strong_seed(&st->rng);
		fcinfo->flinfo->fn_extra = st;
	}
	if (r == 1)
		st->kept = 0;
	else if (r != st->last + 1)
		st->kept = -1;
	if (st->kept < 0 || r > m || k < 1 || k > DPOBJ_MAX_ROWS_PER_UNIT)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("dpobj.unit_keep_sorted() needs each unit's rows in order, numbered 1..m"),
				 errhint(UNIT_INTERNAL_HINT)));
	st->last = r;
	keep = st->kept < k && unit_sample_keep(&st->rng, (uint64) (m - r + 1), (uint64) (k - st->kept));
	if (keep)
		st->kept++;
	PG_RETURN_BOOL(keep);
}
