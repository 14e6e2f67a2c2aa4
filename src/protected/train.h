/*-------------------------------------------------------------------------
 *
 * train.h
 *	  dpobj.train(rel, mechanism, features, label, epsilon, delta, options)
 *	  and its validation, shared with dpobj.submit; the sealed run of every
 *	  entry point's request (context/sealedrun.h).  Implemented in train.c;
 *	  the query it runs is built by trainquery.c and run sealed by seal.c.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_TRAIN_H
#define DPOBJ_TRAIN_H

#include "postgres.h"

#include "fmgr.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"

/*
 * Smallest epsilon dpobj.train() charges: every probe of a
 * protected table costs at least this much budget.
 */
#define DPOBJ_MIN_EPSILON_TEXT	"0.000001"

/*
 * dpobj.submit(): runs dpobj.train()'s own argument checks and
 * budget pre-check on fcinfo (train's seven arguments) without scanning or
 * charging anything; raises exactly the errors train() would raise first.
 */
extern void dpobj_train_validate(FunctionCallInfo fcinfo);

/*
 * The mechanism dpobj.train() (or dpobj.evaluate(), aggregate(),
 * describe()) runs for name: an alias ('objective', 'output', 'cms') is
 * 'logistic' with its method added to *options, 'describe' is 'aggregate';
 * an unknown name is an error listing every name (mechanism_lookup_entry).
 */
extern const char *train_resolve_mechanism(const char *name, Jsonb **options);

/*
 * train()'s checks of epsilon and delta (finite, in range, short, epsilon
 * at least DPOBJ_MIN_EPSILON_TEXT); their numeric text into *eps_text and
 * *delta_text.
 */
extern void train_check_privacy(Numeric epsilon, Numeric delta, char **eps_text,
								char **delta_text);
/* the same, delta 0 allowed when delta_zero (the mechanism's registry flag) */
extern void train_check_privacy_of(Numeric epsilon, Numeric delta, bool delta_zero,
								   char **eps_text, char **delta_text);

/*
 * The run lock of the caller's budget on relid (runlimit.h), held to the
 * end of the transaction; none without a budget.  train() takes it before
 * its budget pre-check; an entry point that locks a name its run creates
 * takes it first (the same order everywhere: no deadlock between runs).
 */
extern void train_lock_budget(Oid relid);

/*
 * Installs train()'s sealed run as dp_sealed_run() and dp_sealed_check()
 * (context/sealedrun.h): called by _PG_init.
 */
extern void train_init(void);

#endif							/* DPOBJ_TRAIN_H */
