/*-------------------------------------------------------------------------
 *
 * jobsettings.c
 *	  The settings a job worker pins after it connects (jobsettings.h).
 *
 * A job worker connects as the submitting role, so it starts with that
 * role's (and the database's) defaults, which the analyst sets itself
 * (ALTER ROLE itself SET ...); the scheduler starts with the database's.  Those that would make the job's own
 * bookkeeping fail after the charge -- storing the model, recording the
 * outcome -- or end the worker before it records one, are overridden here
 * at PGC_S_OVERRIDE (above every default; the job runs no SQL of the
 * analyst's that could SET them again):
 *
 *	  default_transaction_read_only     the model's UPDATE would fail
 *	  default_transaction_isolation,    a serialization failure at commit,
 *	  default_transaction_deferrable    after the model is released
 *	  exit_on_error                     any error would end the worker
 *	  statement_timeout, lock_timeout,  a cancel of the bookkeeping (the
 *	  idle_*_timeout, transaction_timeout  record sets its own lock_timeout)
 *	  session_replication_role          triggers of dpobj's tables off
 *	  row_security                      the analyst's reads raise instead
 *	  role                              the job would run (and be charged)
 *	                                    as a group the role SETs itself to
 *
 * Other defaults (search_path: every statement is schema-qualified;
 * work_mem, temp_buffers and the planner's: speed only) stay the role's,
 * as in its own sessions.  A setting this server version lacks is skipped.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "jobs/jobsettings.h"

#include "utils/guc.h"

static const char *const pinned[][2] = {
	{"default_transaction_read_only", "off"},
	{"default_transaction_isolation", "read committed"},
	{"default_transaction_deferrable", "off"},
	{"exit_on_error", "off"},
	{"statement_timeout", "0"},
	{"lock_timeout", "0"},
	{"idle_in_transaction_session_timeout", "0"},
	{"idle_session_timeout", "0"},
	{"transaction_timeout", "0"},
	{"session_replication_role", "origin"},
	{"row_security", "on"},
	{"role", "none"},
};

void
jobs_pin_worker_settings(void)
{
	for (int i = 0; i < lengthof(pinned); i++)
	{
		if (GetConfigOption(pinned[i][0], true, false) == NULL)
			continue;
		SetConfigOption(pinned[i][0], pinned[i][1], PGC_SUSET, PGC_S_OVERRIDE);
	}
}
