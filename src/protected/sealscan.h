/*-------------------------------------------------------------------------
 *
 * sealscan.h
 *	  The moment the sealed query is about to read its first row: its plan
 *	  checked, everything it can touch prepared, the budget charged
 *	  (docs/SECURITY.md, "Charging").  Implemented in sealscan.c.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_SEALSCAN_H
#define DPOBJ_SEALSCAN_H

#include "postgres.h"

#include "executor/spi.h"

#include "context/protected.h"

/*
 * plan (a one-statement SPI plan) is the sealed query of ctx's run: when
 * the executor is about to run it, before its first row, its plan is
 * checked (dpobj_protected_check_plan), what it can touch is prepared
 * (sealprep.h), the pg_cast locks of a key's check are released
 * (trainquery.h) and ctx's budget is charged (dpobj_budget_charge), unless
 * a first query of the run was (seal.c).  Armed until it ran or
 * seal_scan_disarm().
 */
extern void seal_scan_arm(const DPProtectedContext *ctx, SPIPlanPtr plan);
extern void seal_scan_disarm(void);

/* installs the executor hook (_PG_init) */
extern void seal_scan_init(void);

#endif							/* DPOBJ_SEALSCAN_H */
