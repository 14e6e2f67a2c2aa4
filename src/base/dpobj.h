/*-------------------------------------------------------------------------
 *
 * dpobj.h
 *	  Extension-wide definitions: limits, SQLSTATEs, configuration (GUCs).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_H
#define DPOBJ_H

#include "postgres.h"

#include "utils/elog.h"
#include "utils/guc.h"

/*
 * The version of the SQL objects this library is built for (dpobj.control's
 * default_version): every charged or privileged entry point refuses, before
 * any charge, while the database holds another version.
 */
#define DPOBJ_SQL_VERSION			"0.7.0"

/* Largest feature dimension the halfspace mechanisms accept. */
#define DPOBJ_HALFSPACE_MAX_DIM		256

/* Largest feature dimension of the continuous mechanisms (GLM, linear, ebm). */
#define DPOBJ_GLM_MAX_DIM			1024

/* Default feature quantum: features are rounded to multiples of 1/Q. */
#define DPOBJ_DEFAULT_Q				64
#define DPOBJ_MAX_Q					(1 << 20)

/* Largest |round(Q x)| accepted; keeps every <w, a> exact in int64. */
#define DPOBJ_MAX_QUANTISED			((int64) 1 << 31)

/* Limits on the grid parameters (the MIP has 2B+1 + D2+1 binaries per ...) */
#define DPOBJ_MAX_B					64
#define DPOBJ_MAX_D2				4096

/*
 * Largest number of rows a privacy unit may contribute (dpobj.protect's
 * max_rows_per_unit, the mechanisms' option "rows_per_unit").
 */
#define DPOBJ_MAX_ROWS_PER_UNIT		10000

/*
 * SQLSTATEs of our own (class "DP", which PostgreSQL does not use).
 */
/* the oracle did not certify optimality: no model released, budget charged */
#define ERRCODE_DPOBJ_NOT_CERTIFIED		MAKE_SQLSTATE('D','P','0','0','1')
/* the ledger could not record a charge: nothing was computed */
#define ERRCODE_DPOBJ_LEDGER_FAILURE	MAKE_SQLSTATE('D','P','0','0','2')
/* the exact oracle failed internally (inconsistent solution, solver error) */
#define ERRCODE_DPOBJ_ORACLE_FAILURE	MAKE_SQLSTATE('D','P','0','0','3')
/* The (table, role) budget cannot cover the request: nothing charged */
#define ERRCODE_DPOBJ_BUDGET_EXCEEDED	MAKE_SQLSTATE('D','P','0','0','4')
/* dpobj.train() on a table that was not protected with dpobj.protect() */
#define ERRCODE_DPOBJ_NOT_PROTECTED		MAKE_SQLSTATE('D','P','0','0','5')
/*
 * The one error of a failed protected run (seal.c) -- fixed
 * message, detail and hint; the budget was charged, the cause is in the
 * server log only
 */
#define ERRCODE_DPOBJ_PROTECTED_FAILURE	MAKE_SQLSTATE('D','P','0','0','6')

/*
 * Solver detail (node counts, objective values, solver chatter) depends on
 * the data: it goes to the server log for the administrator (when
 * log_min_messages is debug1 or lower) and is never sent to the client,
 * whatever client_min_messages says (LOG_SERVER_ONLY).
 */
#define dpobj_log_solver(...) \
	do { \
		if (log_min_messages <= DEBUG1) \
			ereport(LOG_SERVER_ONLY, (errmsg_internal(__VA_ARGS__))); \
	} while (0)

/* GUCs (dpobj.c) */
extern int	dpobj_seed;					/* -1: cryptographic noise */
extern double dpobj_solver_time_limit;	/* seconds, 0 = none */
extern int	dpobj_oracle;				/* DPOBJ_ORACLE_* default */
extern int	dpobj_oracle_threads;		/* exact search threads (superuser) */
extern bool dpobj_glm_skip_newton;		/* tests: dp_logistic's descent only (superuser) */
extern int	dpobj_max_state_memory;		/* kB: a GLM state's in-memory rows (superuser) */
#define DPOBJ_DEFAULT_STATE_MEMORY (256 * 1024)	/* its default, kB */
#define DPOBJ_DEFAULT_ORACLE_THREADS 2	/* dpobj.oracle_threads' default */
/* The sealed protected path (docs/SECURITY.md); superuser-only */
extern double dpobj_protected_time_limit;	/* seconds, 0 = none */
extern double dpobj_max_self_grant_epsilon;	/* cap of an admin's grants to itself */
extern double dpobj_max_self_grant_delta;
extern char *dpobj_drop_confirm;			/* database name: allow DROP with a ledger */
extern double dpobj_approx_delta_reserve;	/* share of delta new budgets keep (accountant.h) */
extern double dpobj_query_epsilon;	/* a private SELECT's epsilon, 0 = refused */
extern double dpobj_query_delta;
extern int	dpobj_query_private_bound;	/* dpobj.query_rows_per_unit = private */

typedef enum DPObjOracle
{
	DPOBJ_ORACLE_AUTO = 0,		/* exact search where it certifies faster */
	DPOBJ_ORACLE_MIP,			/* GLPK branch-and-cut on the exact MIP */
	DPOBJ_ORACLE_SEARCH			/* exact depth-first search over the grid */
} DPObjOracle;

extern const char *dpobj_oracle_name(DPObjOracle oracle);

/* defines the settings above (init.c's _PG_init) */
extern void dpobj_define_gucs(void);

#endif							/* DPOBJ_H */
