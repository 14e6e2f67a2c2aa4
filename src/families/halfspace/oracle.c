/*-------------------------------------------------------------------------
 *
 * oracle.c
 *	  Runs the exact oracles inside a backend.
 *
 * The oracles (opdisc_mip.c, opdisc_search.c) are plain C and never raise
 * PostgreSQL errors.  This file gives them a stop callback that looks at
 * the backend's pending cancel/terminate flags (set by query cancel and by
 * statement_timeout) and, in a session, whether the client is still
 * connected (clientcheck.h), collects their log output in a fixed buffer (no
 * palloc, no elog inside solver callbacks) and writes it to the server log
 * after the solve, and turns their status into a release or a failure of
 * the already-charged run (mechanism_fail: the ledger records it first).
 * The halfspace kinds' driver steps (mechanism.h) share the rest.
 *
 *-------------------------------------------------------------------------
 */
#include "families/halfspace/oracle.h"

#include "base/clientcheck.h"
#include "context/deadline.h"
#include "ledger/ledger.h"
#include "base/progress.h"
#include "families/halfspace/halfspacestate.h"
#include "model/model.h"

#include "miscadmin.h"

/* solver output collected during one solve; the tail is kept if it overflows */
#define ORACLE_LOG_BYTES 65536

static char oracle_log_buf[ORACLE_LOG_BYTES];
static size_t oracle_log_len;
static bool oracle_log_truncated;

static bool
oracle_should_stop(void *arg)
{
	(void) arg;
	/* Phase/elapsed NOTICE when dpobj.progress is on; never throws */
	dpobj_progress_tick();
	/* a DROP DATABASE elsewhere does not wait for the solve; never throws */
	dpobj_absorb_barrier();
	/* query cancel, statement_timeout, terminate, or the client is gone */
	return dpobj_stop_requested();
}

static void
oracle_log(void *arg, const char *text)
{
	size_t		n = strlen(text);

	(void) arg;
	if (n >= ORACLE_LOG_BYTES)
	{
		text += n - (ORACLE_LOG_BYTES - 1);
		n = ORACLE_LOG_BYTES - 1;
	}
	if (oracle_log_len + n >= ORACLE_LOG_BYTES)
	{
		/* keep the most recent output: drop the oldest half */
		size_t		keep = oracle_log_len / 2;

		memmove(oracle_log_buf, oracle_log_buf + oracle_log_len - keep, keep);
		oracle_log_len = keep;
		oracle_log_truncated = true;
		if (oracle_log_len + n >= ORACLE_LOG_BYTES)
			oracle_log_len = 0;
	}
	memcpy(oracle_log_buf + oracle_log_len, text, n);
	oracle_log_len += n;
	oracle_log_buf[oracle_log_len] = '\0';
}

static void
oracle_flush_log(void)
{
	if (oracle_log_len > 0 && log_min_messages <= DEBUG1)
	{
		char	   *line = oracle_log_buf;

		if (oracle_log_truncated)
			dpobj_log_solver("dpobj oracle: (earlier solver output omitted)");
		while (line != NULL && *line != '\0')
		{
			char	   *nl = strchr(line, '\n');

			if (nl)
				*nl = '\0';
			if (*line)
				dpobj_log_solver("dpobj oracle: %s", line);
			line = nl ? nl + 1 : NULL;
		}
	}
	oracle_log_len = 0;
	oracle_log_truncated = false;
	oracle_log_buf[0] = '\0';
}

const char *
oracle_used_name(DPObjOracle oracle)
{
	return oracle == DPOBJ_ORACLE_MIP ? "mip" : "search";
}

DPObjOracle
oracle_solve_opdisc(OPDiscProblem *problem, OPDiscResult *result,
					DPObjOracle oracle, double time_limit)
{
	problem->should_stop = oracle_should_stop;
	problem->stop_arg = NULL;
	problem->log = oracle_log;
	problem->log_arg = NULL;
	/* a release deadline ends the search in time to deliver its outcome */
	problem->time_limit = dpobj_deadline_time_limit(time_limit);
	problem->threads = dpobj_oracle_threads;	/* public: superuser setting */

	oracle_log_len = 0;
	oracle_log_truncated = false;
	dpobj_progress_phase(DPOBJ_PHASE_SOLVING);
	if (oracle == DPOBJ_ORACLE_MIP)
		opdisc_solve_mip_exact(problem, result);	/* GLPK, certified by the search */
	else
		opdisc_solve_search(problem, result);
	oracle_flush_log();
	dpobj_progress_phase(DPOBJ_PHASE_RELEASING);

	/* solver effort goes to the administrator's log only: it is data-dependent */
	dpobj_log_solver("dpobj oracle %s: status %d, %ld nodes, %.3f s",
		 oracle_used_name(oracle), (int) result->status, result->nodes, result->seconds);
	return oracle;
}

void *
oracle_admit(FunctionCallInfo fcinfo, int kind, DPProtectedContext **pctx)
{
	(void) kind;				/* one kind */
	return hsstate_final_begin(fcinfo, pctx);
}

void
oracle_prepare(DPRun *run, const char *mechanism, int B, int D2, double sigma)
{
	HSState    *state = run->state;
	OracleRun  *o = palloc0(sizeof(OracleRun));

	o->oracle = state->params.oracle == DPOBJ_ORACLE_MIP ? DPOBJ_ORACLE_MIP : DPOBJ_ORACLE_SEARCH;
	o->time_limit = state->params.time_limit >= 0 ? state->params.time_limit
		: dpobj_solver_time_limit;
	o->B = B;
	o->D2 = D2;
	o->sigma = sigma;
	mechanism_calibrated(run, o, mechanism, state->params.epsilon, state->params.delta);
}

void
oracle_solve(DPRun *run, OPDiscProblem *problem)
{
	OracleRun  *o = run->work;

	memset(&o->result, 0, sizeof(o->result));
	o->result.w = palloc0(sizeof(int) * ((HSState *) run->state)->d);
	o->oracle = oracle_solve_opdisc(problem, &o->result, o->oracle, o->time_limit);
}

void
oracle_outcome(DPRun *run, const char *mechanism)
{
	OracleRun  *o = run->work;
	char		detail[128];

	snprintf(detail, sizeof(detail), "oracle=%s", oracle_used_name(o->oracle));
	switch (o->result.status)
	{
		case OPDISC_OPTIMAL:
			run->detail = pstrdup(detail);
			return;

		case OPDISC_INTERRUPTED:
			/* the flag consumed elsewhere: still never release */
			mechanism_fail(run, LEDGER_OUTCOME_CANCELLED, detail, ERRCODE_QUERY_CANCELED,
						   psprintf("canceling %s: the exact oracle was interrupted", mechanism),
						   "No model was released; the privacy budget of this run is spent.",
						   NULL);

		case OPDISC_TIME_LIMIT:
			mechanism_fail(run, LEDGER_OUTCOME_NOT_CERTIFIED, detail, ERRCODE_DPOBJ_NOT_CERTIFIED,
						   psprintf("%s: the exact oracle did not certify optimality within %g s",
									mechanism, o->time_limit),
						   "No model was released: the privacy guarantee holds only for the exact argmin. "
						   "The privacy budget of this run is spent.",
						   "Raise dpobj.solver_time_limit (or the \"time_limit\" option), or use fewer features.");

		case OPDISC_FAILED:
		default:
			/* the reason may depend on the rows (sizes, values): log only */
			dpobj_log_solver("dpobj oracle %s failed: %s", oracle_used_name(o->oracle),
							 o->result.message);
			mechanism_fail(run, LEDGER_OUTCOME_FAILED, detail, ERRCODE_DPOBJ_ORACLE_FAILURE,
						   psprintf("%s: the exact oracle failed", mechanism),
						   "No model was released; the privacy budget of this run is spent.",
						   "Try the other oracle with the \"oracle\" option, and report the problem.");
	}
}

Datum
oracle_release(DPRun *run, const char *mechanism, StringInfo params)
{
	HSState    *state = run->state;

	return model_build_grid(run->fcinfo, mechanism, ((OracleRun *) run->work)->result.w,
							state->d, state->params.epsilon, state->params.delta, params);
}
