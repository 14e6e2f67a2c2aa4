/*-------------------------------------------------------------------------
 *
 * models.h
 *	  The model catalog dpobj.models (docs/USAGE.md "Store and use
 *	  models by name"): named models per owner, written only by dpobj's C
 *	  code -- dpobj.train(..., model_name) and dpobj.save_model() -- and read
 *	  under row-level security.  A row holds the released model and public
 *	  parameters only: name, owner, mechanism, creation time, epsilon,
 *	  delta, params, and for a protected run the source relation and the
 *	  ledger row.  Implemented in models.c.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_MODELS_H
#define DPOBJ_MODELS_H

#include "postgres.h"

#include "fmgr.h"

/*
 * A valid model name (1..63 printable ASCII characters without quotes or
 * backslashes) that owner does not use yet -- unless replace; errors
 * otherwise.  dpobj.train() calls it before anything is charged.  It locks
 * the owner's name to the end of the transaction before it looks, so that
 * of two calls storing under one name the second is refused here, not at
 * its INSERT.
 */
extern void models_check_name(Oid owner, const char *name, bool replace);

/*
 * Stores model (a dpobj.model datum) as owner's model name; replace
 * drops an existing model of that name first.  relation and ledger_id
 * (NULL / 0 when unknown) name the protected run that made it.
 */
extern void models_store(Oid owner, const char *name, Datum model, bool replace,
						 const char *relation, int64 ledger_id);

#endif							/* DPOBJ_MODELS_H */
