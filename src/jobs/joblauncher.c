/*-------------------------------------------------------------------------
 *
 * joblauncher.c
 *	  The job launcher: a static background worker connected to no
 *	  database.  At start-up and every JOBS_RESCAN_INTERVAL_MS it runs the
 *	  scheduler of every database; in between, of the databases that shared
 *	  memory says have news.  One scheduler at a time (jobsint.h).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <signal.h>

#include "jobs/jobsint.h"

#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/pg_database.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/latch.h"
#include "tcop/tcopprot.h"
#include "utils/guc.h"
#include "utils/snapmgr.h"
#include "utils/timestamp.h"

#define JOBS_RESCAN_INTERVAL_MS	30000
#define JOBS_POLL_MS			1000

static volatile sig_atomic_t got_sighup = false;

static void
jobs_sighup(SIGNAL_ARGS)
{
	int			save_errno = errno;

	got_sighup = true;
	SetLatch(MyLatch);
	errno = save_errno;
}

static List *
jobs_database_list(void)
{
	List	   *dbs = NIL;
	Relation	rel;
	TableScanDesc scan;
	HeapTuple	tup;
	MemoryContext outer = CurrentMemoryContext;

	StartTransactionCommand();
	(void) GetTransactionSnapshot();
	rel = table_open(DatabaseRelationId, AccessShareLock);
	scan = table_beginscan_catalog(rel, 0, NULL);
	while (HeapTupleIsValid(tup = heap_getnext(scan, ForwardScanDirection)))
	{
		Form_pg_database db = (Form_pg_database) GETSTRUCT(tup);
		MemoryContext old;

		/* templates never run jobs (and CREATE DATABASE needs them unused) */
		if (!db->datallowconn || db->datistemplate)
			continue;
		old = MemoryContextSwitchTo(outer);
		dbs = lappend_oid(dbs, db->oid);
		MemoryContextSwitchTo(old);
	}
	table_endscan(scan);
	table_close(rel, AccessShareLock);
	CommitTransactionCommand();
	return dbs;
}

/* runs one scheduler for dboid and waits for it */
static void
jobs_run_scheduler(Oid dboid)
{
	BackgroundWorker worker;
	BackgroundWorkerHandle *handle;

	jobs_worker_template(&worker, "dpobj_jobs_scheduler_main", "dpobj job scheduler");
	snprintf(worker.bgw_name, BGW_MAXLEN, "dpobj job scheduler for database %u", dboid);
	worker.bgw_main_arg = ObjectIdGetDatum(dboid);
	worker.bgw_notify_pid = MyProcPid;
	if (!RegisterDynamicBackgroundWorker(&worker, &handle))
	{
		/* no worker slot now: try again on the next round */
		jobs_wake_launcher(dboid, false);
		return;
	}
	(void) WaitForBackgroundWorkerShutdown(handle);
}

/*
 * The databases to schedule now: those shared memory says have news, or
 * every one (at start-up, on request, and every JOBS_RESCAN_INTERVAL_MS
 * since *last_full).
 */
static List *
launcher_databases_with_news(TimestampTz *last_full)
{
	bool		all;
	int			n;
	Oid			pending[JOBS_PENDING_DBS];
	List	   *dbs = NIL;

	SpinLockAcquire(&jobs_shared->mutex);
	all = jobs_shared->rescan_all;
	n = jobs_shared->npending;
	memcpy(pending, jobs_shared->pending, sizeof(Oid) * n);
	jobs_shared->rescan_all = false;
	jobs_shared->npending = 0;
	SpinLockRelease(&jobs_shared->mutex);

	if (TimestampDifferenceExceeds(*last_full, GetCurrentTimestamp(), JOBS_RESCAN_INTERVAL_MS))
		all = true;
	if (all)
	{
		dbs = jobs_database_list();
		*last_full = GetCurrentTimestamp();
	}
	else
		for (int i = 0; i < n; i++)
			dbs = list_append_unique_oid(dbs, pending[i]);
	return dbs;
}

void
dpobj_jobs_launcher_main(Datum arg)
{
	TimestampTz last_full = 0;

	pqsignal(SIGTERM, die);
	pqsignal(SIGHUP, jobs_sighup);
	BackgroundWorkerUnblockSignals();

	SpinLockAcquire(&jobs_shared->mutex);
	jobs_shared->launcher_latch = MyLatch;
	jobs_shared->launcher_pid = MyProcPid;
	jobs_shared->rescan_all = true;		/* start-up: every database (recovery) */
	SpinLockRelease(&jobs_shared->mutex);

	BackgroundWorkerInitializeConnection(NULL, NULL, 0);
	pgstat_report_appname("dpobj job launcher");

	for (;;)
	{
		List	   *dbs;
		ListCell   *lc;

		CHECK_FOR_INTERRUPTS();
		if (got_sighup)
		{
			got_sighup = false;
			ProcessConfigFile(PGC_SIGHUP);
		}
		dbs = launcher_databases_with_news(&last_full);
		foreach(lc, dbs)
		{
			CHECK_FOR_INTERRUPTS();
			jobs_run_scheduler(lfirst_oid(lc));
		}
		list_free(dbs);

		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 JOBS_POLL_MS, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
	}
}

