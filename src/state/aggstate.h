/*-------------------------------------------------------------------------
 *
 * aggstate.h
 *	  What the two aggregate state types share: an expanded
 *	  object around a row multiset (rowset.h), updated in place in the
 *	  aggregate's memory context, and its flat form -- a canonical, portable
 *	  varlena that PostgreSQL's parallel query and Citus ship between
 *	  processes and machines.
 *
 *	  dpobj.halfspace_state  (halfspacestate.c)  dp_halfspace, dp_halfspace_rspm, dp_expmech
 *	  dpobj.glm_state        (glmstate.c) dp_logistic, dp_noisysgd, dp_opsamp
 *
 * Lifecycle.  The transition function creates the expanded object in a
 * child context of the aggregate context and returns its read-write
 * pointer; PostgreSQL (nodeAgg) and Citus (worker_partial_agg) keep such a
 * pointer without copying, so every later row updates the same hash table
 * in place -- the cost per row is what the old "internal" state cost.
 * When a state leaves its process (a parallel worker's tuple queue, Citus's
 * worker_partial_agg text), PostgreSQL flattens it with the methods below;
 * the combine function merges a flat or expanded state into its own
 * expanded state.
 *
 * Flat form (all multi-byte fields big-endian, so it is the same on every
 * machine; docs/SCALING.md):
 *
 *	  varlena header
 *	  uint32  magic            "DPH2" / "DPG2" (0.3.0's "DPH1" / "DPG1", without K,
 *	                           are refused)
 *	  uint8   kind             0 (halfspace) or the GLMKind
 *	  uint8   flags            1 if the rows carry sample keys (aggsample.h), else 0
 *	  uint16  d
 *	  float8  epsilon, delta
 *	  uint64  K                the sample's K (aggsample.h) when the state was
 *	                           written, sampled or not: a dp_logistic or
 *	                           dp_noisysgd state that keeps every row becomes
 *	                           the sample of its ship_rows() as it is flattened,
 *	                           so every flat form is at most K rows (0, no
 *	                           sample, is read but never written).  The reader
 *	                           keeps min(its own K, K).
 *	  uint32  length of the options' jsonb text, then that text (0: none)
 *	  uint32  nrows
 *	  nrows x { d encoded words, varint pos, varint neg
 *	            [flag 1: pos label-true keys, then neg label-false keys,
 *	             each uint64, ascending within its label] }
 *
 * Words are int64 (zigzag LEB128 varint) or float8 (an integral value below
 * 2^52 as varint(zigzag(v) << 1), else varint 1 and the 8 raw bytes).
 * Rows are written in canonical order (rowset_order): strictly ascending,
 * each with a positive count, so equal multisets give byte-identical flat
 * forms, and the reader rejects anything else.  Derived parameters are
 * never stored: the reader recomputes them from epsilon, delta and the
 * options, with the same checks as a first row.
 *
 * Text form: base64 of the flat form's payload (Citus ships states as
 * text); binary form (send/recv): the payload itself.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_AGGSTATE_H
#define DPOBJ_AGGSTATE_H

#include "postgres.h"

#include "fmgr.h"
#include "lib/stringinfo.h"
#include "utils/expandeddatum.h"
#include "utils/jsonb.h"

#include "state/aggsample.h"
#include "base/pg_compat.h"
#include "state/rowset.h"
#include "state/rowspill.h"

struct DPAggState;

/* What distinguishes the two state types. */
typedef struct DPStateType
{
	const char *name;			/* SQL type name, for messages */
	uint32		magic;
	DPRowOrder	words;			/* int64 or float8 words */
	Size		size;			/* sizeof the type's expanded struct */

	/*
	 * Checks kind, d, epsilon, delta and the options as a first row would
	 * and fills in the type's derived parameters; raises on bad values.
	 */
	void		(*init) (struct DPAggState *st);

	/* raises if a decoded row is not one a transition function can make */
	void		(*check_row) (const struct DPAggState *st, const uint64 *row);

	/* the aggregate's name for messages about a run of this kind */
	const char *(*aggname) (int kind);

	/*
	 * Whether a state of this kind keeps its in-memory rows within
	 * dpobj.max_state_memory and spills the others (rowspill.h); NULL: never.
	 */
	bool		(*spills) (int kind);

	/*
	 * K > 0: a state of this kind keeps a uniform sample of at most K rows
	 * (aggsample.h), from its public parameters; 0 or NULL: every row.
	 */
	int64		(*sample_rows) (const struct DPAggState *st);

	/*
	 * K > 0 for a spilling kind: a state that keeps every row leaves its
	 * process (is flattened) as a uniform sample of at most K rows, so that
	 * no flat form outgrows the cap (aggstate.c, aggstate_sample_at); NULL:
	 * the type never spills.
	 */
	int64		(*ship_rows) (const struct DPAggState *st);

	/*
	 * Eighths of dpobj.max_state_memory a spilling kind's in-memory rows
	 * take (its final function's work the rest); 0: all of it.
	 */
	int			cap_eighths;
} DPStateType;

/* The common part of every expanded state (the type's struct embeds it first). */
typedef struct DPAggState
{
	ExpandedObjectHeader hdr;
	const DPStateType *type;
	int			kind;
	int			d;
	double		epsilon;
	double		delta;
	Jsonb	   *options;		/* NULL: none */
	char	   *options_text;	/* its canonical text, for the flat form */
	DPRowSet	rows;				/* the in-memory rows */
	Size		cap;			/* bytes rows may take; 0: no cap */
	DPRowSpill *spill;			/* the spilled rows, NULL: none */
	bool		append;			/* new rows are appended unindexed till the
								 * next run (rowspill.h) */
	DPAggSample *sample;		/* the row sample, NULL: every row is kept */
	/* caches, cleared by aggstate_changed() */
	Size		flat_size;		/* 0: not computed */
	int32	   *perm;			/* canonical order, NULL: not computed */
} DPAggState;

/*
 * A new empty state in a new child context of parent; calls type->init.
 * capacity: expected distinct rows.
 */
extern DPAggState *aggstate_new(const DPStateType *type, MemoryContext parent,
								int kind, int d, double epsilon, double delta,
								Jsonb *options, int capacity);

/*
 * The state behind a transition or combine function's state argument, for
 * updating in place: the argument itself when it is a read-write expanded
 * state living in aggcontext, else a new expanded copy in aggcontext.
 */
extern DPAggState *aggstate_writable(const DPStateType *type, Datum d,
									 MemoryContext aggcontext);

/* The state behind a datum, read only: expanded as is, flat decoded. */
extern DPAggState *aggstate_readable(const DPStateType *type, Datum d);

/*
 * Adds counts to a row of st: a new distinct row that would make the
 * in-memory rows outgrow st->cap first spills them (rowspill.h); after a
 * run of mostly distinct rows, rows are appended unindexed (st->append)
 * and a full set spills.
 */
extern void aggstate_add_counts(DPAggState *st, const uint64 *row, int64 pos, int64 neg);

/* as aggstate_add_counts, one count (the transition functions' hot path) */
static inline void
aggstate_count(DPAggState *st, const uint64 *row, bool label)
{
	if (st->sample != NULL)
		aggsample_count(st->sample, row, label);
	else if (st->cap > 0 && (st->append || rowset_full(&st->rows)))
		aggstate_add_counts(st, row, label ? 1 : 0, label ? 0 : 1);
	else
		rowset_count(&st->rows, row, label);
}

/* Merges the state src (flat or expanded) into dst; same run or an error. */
extern void aggstate_merge(DPAggState *dst, Datum src);

/* After any change to st's rows: forget the cached flat size and order. */
static inline void
aggstate_changed(DPAggState *st)
{
	st->flat_size = 0;
	if (st->perm != NULL)
	{
		pfree(st->perm);
		st->perm = NULL;
	}
}

/* The canonical order of st's rows (cached in st). */
extern const int32 *aggstate_order(DPAggState *st);

/*
 * st's rows in canonical order (aggstate_order) into x (d words a row), pos
 * and neg, which hold st's row count; returns how many were copied.  With
 * draw, a sample that kept every distinct row of more than K rows draws its
 * uniform sample of K now (aggsample_draw()) and only the rows it keeps are
 * copied, with their drawn counts; else the state's own counts are copied.
 */
extern int aggstate_canonical_rows(DPAggState *st, bool draw, uint64 *x, int64 *pos, int64 *neg);

/* The combine function of a state type (errors outside an aggregate). */
extern Datum aggstate_combine(FunctionCallInfo fcinfo, const DPStateType *type);

/*
 * A combine function's first step, for any state type (name: its SQL
 * type's, for the error outside an aggregate): its aggregate context; true
 * when the second state is NULL, *result then the function's result (the
 * first state, or NULL).
 */
extern bool aggstate_combine_start(FunctionCallInfo fcinfo, const char *name,
								   MemoryContext *aggcontext, Datum *result);

/*
 * The first check of every final function: it runs as an aggregate's final
 * function (a state can be typed in by hand, so the function must not run
 * outside one), and not on a Citus worker (distributed.h).
 */
extern void aggstate_final_check(FunctionCallInfo fcinfo);

/* A 0.1.0 entry point of the former "internal" state: a clear error. */
extern pg_noreturn void aggstate_obsolete(const char *function, const char *version);

/* Raises the error of a state that is not one dpobj made. */
extern pg_noreturn void aggstate_corrupt(const DPStateType *type);

/* Type I/O: text (base64), binary (send/recv). */
extern Datum aggstate_in(const DPStateType *type, const char *str);
extern char *aggstate_out(const DPStateType *type, Datum d);
extern Datum aggstate_recv(const DPStateType *type, StringInfo buf);
extern bytea *aggstate_send(const DPStateType *type, Datum d);

#endif							/* DPOBJ_AGGSTATE_H */
