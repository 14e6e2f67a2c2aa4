/*-------------------------------------------------------------------------
 *
 * unitsample.h
 *	  Selection sampling (Knuth, TAOCP vol. 2, 3.4.2, Algorithm S) of one
 *	  privacy unit's rows: a row of a unit with `left` rows not yet seen
 *	  (this one included) and `need` rows still to keep is kept with
 *	  probability need / left -- exactly min(m, k) of the unit's m rows
 *	  kept, every k-subset equally likely, in any arrival order.  Both
 *	  paths of the bounding (protected/unitkeep.c) take this step, on
 *	  64-bit counts: exact at any count a unit's rows reach.  Plain C,
 *	  tested in tests/unit/test_unitsample.c.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_UNITSAMPLE_H
#define DPOBJ_UNITSAMPLE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/prfstream.h"

/*
 * whether to keep this row; the caller then counts it seen, and kept.  left
 * 0 (a row no count saw) is kept while need lasts: never more than need.
 */
extern bool unit_sample_keep(DPPrfStream *rng, uint64_t left, uint64_t need);

#endif							/* DPOBJ_UNITSAMPLE_H */
