/*-------------------------------------------------------------------------
 *
 * init.c
 *	  The module's entry point: PG_MODULE_MAGIC and _PG_init, which defines
 *	  every subsystem's settings and, when dpobj is preloaded, registers the
 *	  ledger writers, the job launcher and their shared memory.  Nothing
 *	  else calls into this file, so it may depend on every subsystem
 *	  without closing a circle.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "miscadmin.h"
#include "utils/guc.h"

#include "base/calibsql.h"
#include "base/dpobj.h"
#include "jobs/jobs.h"
#include "ledger/ledger.h"
#include "base/progress.h"
#include "protected/roleguard.h"
#include "context/runlimit.h"
#include "protected/sealplan.h"
#include "protected/sealscan.h"
#include "base/waitsink.h"
#include "families/registry.h"
#include "protected/selecthint.h"
#include "protected/train.h"
#include "protected/sqlfront.h"

PG_MODULE_MAGIC;

void		_PG_init(void);

void
_PG_init(void)
{
	/* extension-wide settings: noise seed, oracle, protected path (dpobj.c) */
	dpobj_define_gucs();
	dpobj_progress_define_guc();
	dpobj_jobs_define_gucs();

	/* dpobj.max_runs_per_role (and its shared memory while preloading) */
	dpobj_runlimit_init();

	/* the ledger: its settings, hooks and, when preloading, its writers */
	dpobj_ledger_init();

	/* the calibrations' interrupt check (calibsql.c) */
	dpobj_calib_init();

	/* the sealed query's parallel plan shape (sealplan.c) */
	seal_plan_init();
	/* its checks, preparation and charge before its first row (sealscan.c) */
	seal_scan_init();
	/* its parallel workers' wait events (waitsink.c) */
	waitsink_init();

	/* every entry point's one way into the sealed path (train.c) */
	train_init();

	/* the hint on a plain SELECT of a protected table (selecthint.c) */
	dpobj_select_hint_init();
	/* EXPLAIN of a private query: its cost and accuracy (sqlexplain.c) */
	sqlexplain_init();
	/* DROP ROLE of a role that holds budgets or domains (roleguard.c) */
	role_guard_init();

	/* the families' registry: its order, each mechanism's model kind, the floors' copy */
	registry_init();

	MarkGUCPrefixReserved("dpobj");

	/*
	 * Loaded through shared_preload_libraries (in the postmaster): register
	 * the job launcher and the jobs' shared memory.  Loaded any other way,
	 * everything but jobs works, and dpobj.submit() says what is missing.
	 */
	if (process_shared_preload_libraries_in_progress)
		dpobj_jobs_preload_init();
}
