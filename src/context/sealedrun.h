/*-------------------------------------------------------------------------
 *
 * sealedrun.h
 *	  The one typed entry into the sealed path: a run's request, as every
 *	  entry point states it -- dpobj.train() and submit() from their
 *	  arguments, evaluate(), aggregate(), describe() and synthesize() from
 *	  theirs.  Declared here, below the families, so that an entry point in
 *	  any layer above may call it; implemented by protected/train.c, which
 *	  installs it at _PG_init (sealedrun.c holds the pointer).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_SEALEDRUN_H
#define DPOBJ_SEALEDRUN_H

#include "postgres.h"

#include "fmgr.h"
#include "utils/array.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"

/*
 * A run's request.  The run checks every field itself, in train()'s order
 * (train.c), before any charge; the caller makes its own checks first.
 */
typedef struct DPRunRequest
{
	Oid			relid;			/* the protected table */
	/*
	 * the mechanism as named, and the ledger's entry name: an alias with a
	 * method ('objective') is recorded under its mechanism, another alias
	 * ('describe') under its own name
	 */
	const char *mechanism;
	/*
	 * the mechanism's own entry point (evaluate(), aggregate(), describe(),
	 * synthesize()), not train() or submit(): the mechanism must be one
	 * that runs only there
	 */
	bool		own_entry;
	ArrayType  *columns;		/* text[]: the columns read, in order */
	const char *label;			/* the label column (none: any column read) */
	Numeric		epsilon;		/* exact, as given */
	Numeric		delta;
	Jsonb	   *options;		/* the caller's, as given */
	/*
	 * own_entry: the run's encoding (NULL: the raw columns); train() and
	 * submit() encode the table's declared domains
	 */
	Jsonb	   *encoding;
	/* or NULL: the layout of aggregate()'s cells, its mechanism's "layout" */
	Jsonb	   *layout;
	/* or NULL: evaluate()'s model as text, its mechanism's "model" */
	const char *model;
	const char *model_name;		/* store the released model under it, or NULL */
	bool		unit_bound;		/* aggregate()'s "rows_per_unit": "private" (unitbound.h) */
} DPRunRequest;

/*
 * Runs req sealed: every check, the budget's lock and pre-check, the
 * charge, the scan; the release (a model, or the mechanism's jsonb), the
 * model stored under req->model_name.
 */
extern Datum dp_sealed_run(const DPRunRequest *req);

/*
 * dpobj.submit(): the same checks and budget pre-check, nothing scanned or
 * charged; raises exactly what dp_sealed_run() would raise first.
 */
extern void dp_sealed_check(const DPRunRequest *req);

/* a request's columns: text[] of n names */
extern ArrayType *dp_run_columns(char **cols, int ncols);

/* the implementation (train.c), installed at _PG_init */
typedef Datum (*DPSealedRunFn) (const DPRunRequest *req, bool validate_only);
extern void dp_sealed_install(DPSealedRunFn fn);

#endif							/* DPOBJ_SEALEDRUN_H */
