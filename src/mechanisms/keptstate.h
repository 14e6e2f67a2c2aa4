/*-------------------------------------------------------------------------
 *
 * keptstate.h
 *	  The state of a family that keeps its rows (keptrows.h: distinct rows
 *	  with their label counts, spilled past dpobj.max_state_memory, replayed
 *	  in blocks), never clipped; a float8 label is a row's last word.  Its
 *	  transition function, the DPStateType callbacks and the final
 *	  function's start are here (keptstate.c); a family names its type and
 *	  aggregate with KEPT_STATE_TYPE and its run options' parser, and keeps
 *	  its own PG_FUNCTION entries (ebm, gbdt).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_KEPTSTATE_H
#define DPOBJ_KEPTSTATE_H

#include "postgres.h"

#include "fmgr.h"
#include "utils/jsonb.h"

#include "mechanisms/operating.h"
#include "state/aggstate.h"
#include "state/keptrows.h"

/* a yes/no label, or a float8 label (the last word of a row) */
#define KEPT_KIND_CLASS	1
#define KEPT_KIND_REG	2

/* the run's parameters from epsilon, delta and the options (a family's parser) */
typedef void (*KeptRunParams) (bool regression, OpParams *p, double epsilon, double delta,
							   Jsonb *options);

/* a family's kept-row state type: DPStateType first (its callbacks find the rest) */
typedef struct DPKeptStateType
{
	DPStateType type;
	const char *aggname;		/* the aggregate's, for messages */
	KeptRunParams run;
} DPKeptStateType;

/* the expanded state */
typedef struct DPKeptExpanded
{
	DPAggState	base;
	OpParams	params;			/* from kind, epsilon, delta, options */
	double	   *scratch;		/* the current row */
} DPKeptExpanded;

extern void keptstate_init(DPAggState *base);
extern void keptstate_check_row(const DPAggState *base, const uint64 *row);
extern bool keptstate_spills(int kind);
extern int64 keptstate_sample_rows(const DPAggState *base);
extern int64 keptstate_ship_rows(const DPAggState *base);

/*
 * A run's memory, in eighths of dpobj.max_state_memory: the state's
 * in-memory rows (a canonical copy only within the design's share, else
 * replayed), the final function's design (keptdesign.h) and each of the
 * fit's two caches (the bins, keptbins.h; gbdt's margins) fill the cap.
 */
#define KEPT_ROWS_EIGHTHS	4
#define KEPT_CACHE_EIGHTHS	1
StaticAssertDecl(KEPT_ROWS_EIGHTHS + KEPTROWS_DESIGN_EIGHTHS + 2 * KEPT_CACHE_EIGHTHS <= 8,
				 "a kept-row run's shares exceed dpobj.max_state_memory");

/* bytes of one of the fit's caches */
#define KEPT_CACHE_BYTES()	((int64) dpobj_max_state_memory * 1024 / 8 * KEPT_CACHE_EIGHTHS)

/* a family's type: name (SQL), magic, aggname_fn (DPStateType's), aggname, run */
#define KEPT_STATE_TYPE(name, magic, aggname_fn, agg, run_fn) \
	{{name, magic, DP_ROW_ORDER_FLOAT8, sizeof(DPKeptExpanded), keptstate_init, \
	  keptstate_check_row, aggname_fn, keptstate_spills, keptstate_sample_rows, \
	  keptstate_ship_rows, KEPT_ROWS_EIGHTHS}, agg, run_fn}

/* what the final function sees: the run's parameters over the kept rows */
typedef struct DPKeptState
{
	int			kind;
	OpParams	params;
	Jsonb	   *options;
	DPKeptRows	rows;			/* rows.d counts a float8 label */
} DPKeptState;

/* the transition function of a kind (args: state, features, label, eps, delta, options) */
extern Datum keptstate_accum(FunctionCallInfo fcinfo, const DPKeptStateType *t, int kind);

/*
 * As glmstate_final_begin() (families/glm/glmstate.h): the rows in
 * canonical order; the driver's admit (mechanism.h) returns it
 */
struct DPProtectedContext;
extern DPKeptState *keptstate_final_begin(FunctionCallInfo fcinfo, const DPKeptStateType *t,
										  int kind, struct DPProtectedContext **pctx);

#endif							/* DPOBJ_KEPTSTATE_H */
