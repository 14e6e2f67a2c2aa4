/*-------------------------------------------------------------------------
 *
 * mechanism.h
 *	  The protected driver every mechanism's final function runs
 *	  (mechanism.c): mechanism_drive() owns the privacy-critical sequence
 *
 *	    admit -> calibrate -> charge -> compute -> record -> release
 *
 *	  and a mechanism supplies only the steps' computations (DPRunOps);
 *	  a failure after the charge goes through mechanism_fail().  The costs
 *	  of the names runs charge under come from the registry (family.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_MECHANISM_H
#define DPOBJ_MECHANISM_H

#include "postgres.h"

#include <gsl/gsl_rng.h>

#include "fmgr.h"
#include "utils/jsonb.h"

#include "state/claim.h"
#include "base/clientcheck.h"
#include "context/protected.h"
#include "ledger/ledger.h"
#include "base/pg_compat.h"
#include "context/trainquery.h"
#include "miscadmin.h"
#include "storage/procsignal.h"

/* One run of a mechanism, as mechanism_drive() hands it to the steps */
typedef struct DPRun
{
	FunctionCallInfo fcinfo;
	DPProtectedContext *pctx;	/* admit: the protected context, or NULL */
	void	   *state;			/* admit: the aggregate's final state */
	/* calibrate: what the charge is for (the name's cost: family.c) */
	const char *ledger_name;
	double		epsilon;
	double		delta;
	bool		private_r;		/* "R": "private": zcdp, not gauss */
	int64		ledger_id;		/* the charge's ledger row */
	gsl_rng    *rng;			/* compute: the noise source (random.h) */
	const char *detail;			/* compute: the released outcome's ledger detail */
	void	   *work;			/* the mechanism's own, from calibrate on */
} DPRun;

typedef struct DPRunOps
{
	/*
	 * The final state of the given kind, after mechanism_claim() (the
	 * state's final_begin); NULL when no row reached the aggregate off the
	 * protected path
	 */
	void	   *(*admit) (FunctionCallInfo fcinfo, int kind, DPProtectedContext **pctx);
	int			kind;			/* the state's kind, for admit */
	/* public inputs only: the charge's fields, the calibration, every buffer */
	void		(*calibrate) (DPRun *run);
	/*
	 * After the charge: noise (from run->rng only) and computation; sets
	 * detail, or mechanism_fail()
	 */
	void		(*compute) (DPRun *run);
	/* after the record: the model (DP output and public parameters only) */
	Datum		(*release) (DPRun *run);
} DPRunOps;

/* calibrate's result: the mechanism's work, and the charge the driver makes */
static inline void
mechanism_calibrated(DPRun *run, void *work, const char *ledger_name, double epsilon,
					 double delta)
{
	run->work = work;
	run->ledger_name = ledger_name;
	run->epsilon = epsilon;
	run->delta = delta;
}

/*
 * A mechanism's final function: admit (NULL result when there is nothing
 * to run), calibrate on public inputs, charge durably before any noise
 * exists (on the protected path the guarded budget debit seal.c made before
 * the scan, whose ledger row admit's claim returns; else a plain ledger row
 * naming the scanned relations), compute, record the release in the
 * ledger, then build the model.
 */
extern Datum mechanism_drive(FunctionCallInfo fcinfo, const DPRunOps *ops);

/* defines the final function fn: mechanism_drive() with the DPRunOps given */
#define MECHANISM_FINAL_FUNCTION(fn, ...) \
	static const DPRunOps fn##_ops = {__VA_ARGS__}; \
	Datum \
	fn(PG_FUNCTION_ARGS) \
	{ \
		return mechanism_drive(fcinfo, &fn##_ops); \
	}

/*
 * A charged run that releases nothing: the ledger records the outcome
 * (LEDGER_OUTCOME_*) with detail, then the error is raised (a cancel
 * raises the pending interrupt first).  Nothing in it may depend on the
 * rows; on the protected path seal.c replaces it with its fixed error.
 */
extern pg_noreturn void mechanism_fail(const DPRun *run, const char *outcome,
									   const char *detail, int sqlerrcode,
									   const char *msg, const char *errdetail_text,
									   const char *hint);

/*
 * Interrupt check for a charged run's long loops (between LP solves, SGD
 * steps, grid points): on a cancel, a terminate or a vanished client
 * (clientcheck.h) records the outcome 'cancelled' in the ledger, then
 * raises the pending interrupt.  The budget stays charged.  A cluster-wide
 * barrier (DROP DATABASE waits for every backend to absorb one) is absorbed
 * here too, so that a long run does not hold other sessions up.
 */
/*
 * mechanism_poll()'s check for a solver's callback, where nothing may be
 * raised: absorbs a pending barrier (dpobj_absorb_barrier()) and says
 * whether a cancel or termination is pending; arg is unused.  The caller
 * raises it after the solver returns, through mechanism_poll().
 */
extern bool mechanism_stop_pending(void *arg);

static inline void
mechanism_poll(int64 ledger_id)
{
	if (ProcSignalBarrierPending)
		ProcessProcSignalBarrier();
	if (dpobj_stop_requested())
	{
		ledger_finish(ledger_id, LEDGER_OUTCOME_CANCELLED, "interrupted");
		CHECK_FOR_INTERRUPTS();
	}
}

#endif							/* DPOBJ_MECHANISM_H */
