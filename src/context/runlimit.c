/*-------------------------------------------------------------------------
 *
 * runlimit.c
 *	  dpobj.max_runs_per_role: how many mechanism runs one role holds at
 *	  once (runlimit.h).
 *
 * A backend is in a run from dpobj_run_enter() until the memory context
 * current at that call is reset or deleted (the end of the final function's
 * output tuple, train()'s SPI context), or its (sub)transaction ends --
 * whichever comes first.  Runs nested in the same backend only deepen the
 * count of that one run.
 *
 * Superusers are counted but never refused.
 *
 * Preloaded: one entry per backend (indexed by its backend slot) in shared
 * memory holds the role it runs for; the check counts the entries of the
 * caller's own role under one LWLock.  Otherwise: session-level advisory
 * locks (database, role, slot k < limit, class RUNLIMIT_LOCK_CLASS), one
 * free slot taken without waiting; they count per database and appear in
 * pg_locks.  A budget's run lock: a transaction-level advisory lock
 * (database, budget id, class RUNLIMIT_BUDGET_CLASS).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "base/pg_compat.h"
#include "context/runlimit.h"

#include "access/xact.h"
#include "miscadmin.h"
#include "postmaster/postmaster.h"
#include "storage/ipc.h"
#include "storage/lmgr.h"
#include "storage/lock.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "utils/guc.h"
#include "utils/memutils.h"

int			dpobj_max_runs_per_role = 2;

/* locktag_field4 of dpobj's advisory run locks (1 and 2 are SQL's own) */
#define RUNLIMIT_LOCK_CLASS		0x4450
/* ... and of the budgets' run locks (units.c's protection lock has 0x4451) */
#define RUNLIMIT_BUDGET_CLASS	0x4452

typedef struct RunEntry
{
	Oid			role;			/* InvalidOid: not in a run */
	bool		session;		/* a client backend, not a background worker */
} RunEntry;

typedef struct RunsShared
{
	LWLock	   *lock;
	int			nentries;
	RunEntry	entries[FLEXIBLE_ARRAY_MEMBER];
} RunsShared;

static RunsShared *runs_shared = NULL;
static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;

/* this backend's run */
static int	run_depth = 0;
static uint64 run_generation = 0;	/* a leave of an older generation is void */
static int	run_xact_level = 0;	/* transaction nest level of the outer enter */
static int	run_lock_slot = -1;	/* the advisory slot held (not preloaded) */
static Oid	run_role = InvalidOid;
static bool callbacks_registered = false;

typedef struct RunLeave
{
	MemoryContextCallback cb;
	uint64		generation;
} RunLeave;

static Size
runlimit_shmem_size(void)
{
	return add_size(offsetof(RunsShared, entries), mul_size(MaxBackends, sizeof(RunEntry)));
}

static void
runlimit_shmem_request(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
	RequestAddinShmemSpace(MAXALIGN(runlimit_shmem_size()));
	RequestNamedLWLockTranche("dpobj runs", 1);
}

static void
runlimit_shmem_startup(void)
{
	bool		found;

	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();
	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	runs_shared = ShmemInitStruct("dpobj runs", runlimit_shmem_size(), &found);
	if (!found)
	{
		memset(runs_shared, 0, runlimit_shmem_size());
		runs_shared->lock = &(GetNamedLWLockTranche("dpobj runs"))->lock;
		runs_shared->nentries = MaxBackends;
	}
	LWLockRelease(AddinShmemInitLock);
}

void
dpobj_runlimit_init(void)
{
	DefineCustomIntVariable("dpobj.max_runs_per_role",
							"Maximum number of mechanism runs (train, evaluate, a direct mechanism call, a running job) one role holds at a time; 0 means no limit.",
							"A run beyond it is refused before anything is charged.  Only the caller's own role is counted.",
							&dpobj_max_runs_per_role,
							2, 0, MAX_BACKENDS,
							PGC_SUSET, 0,
							NULL, NULL, NULL);
	if (!process_shared_preload_libraries_in_progress)
		return;
	prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = runlimit_shmem_request;
	prev_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = runlimit_shmem_startup;
}

static RunEntry *
my_entry(void)
{
	int			slot = compat_backend_slot();

	if (runs_shared == NULL || slot < 0 || slot >= runs_shared->nentries)
		return NULL;
	return &runs_shared->entries[slot];
}

/* shared memory: take this backend's entry unless role is at the limit */
static bool
runlimit_take_shared(RunEntry *me, Oid role)
{
	int			n = 0;

	LWLockAcquire(runs_shared->lock, LW_EXCLUSIVE);
	for (int i = 0; i < runs_shared->nentries; i++)
		if (runs_shared->entries[i].role == role)
			n++;
	if (dpobj_max_runs_per_role > 0 && n >= dpobj_max_runs_per_role && !superuser_arg(role))
	{
		LWLockRelease(runs_shared->lock);
		return false;
	}
	me->role = role;
	me->session = (MyBackendType == B_BACKEND);
	LWLockRelease(runs_shared->lock);
	return true;
}

static void
runlimit_locktag(LOCKTAG *tag, Oid role, int k)
{
	SET_LOCKTAG_ADVISORY(*tag, MyDatabaseId, role, (uint32) k, RUNLIMIT_LOCK_CLASS);
}

/* no shared memory: one free advisory slot of role, without waiting */
static bool
runlimit_take_lock(Oid role)
{
	LOCKTAG		tag;

	if (dpobj_max_runs_per_role <= 0 || superuser_arg(role))
		return true;
	for (int k = 0; k < dpobj_max_runs_per_role; k++)
	{
		runlimit_locktag(&tag, role, k);
		if (LockAcquire(&tag, ExclusiveLock, true, true) != LOCKACQUIRE_NOT_AVAIL)
		{
			run_lock_slot = k;
			return true;
		}
	}
	return false;
}

/* the run is over: give back what it holds */
static void
runlimit_end(void)
{
	RunEntry   *me = my_entry();

	if (me != NULL && me->role != InvalidOid)
	{
		LWLockAcquire(runs_shared->lock, LW_EXCLUSIVE);
		me->role = InvalidOid;
		LWLockRelease(runs_shared->lock);
	}
	if (run_lock_slot >= 0)
	{
		LOCKTAG		tag;

		runlimit_locktag(&tag, run_role, run_lock_slot);
		(void) LockRelease(&tag, ExclusiveLock, true);
		run_lock_slot = -1;
	}
	run_depth = 0;
	run_role = InvalidOid;
	run_generation++;
}

static void
runlimit_leave(void *arg)
{
	RunLeave   *leave = (RunLeave *) arg;

	if (leave->generation != run_generation || run_depth <= 0)
		return;
	if (--run_depth == 0)
		runlimit_end();
}

static void
runlimit_xact_callback(XactEvent event, void *arg)
{
	if (run_depth > 0 && event != XACT_EVENT_PRE_COMMIT &&
		event != XACT_EVENT_PARALLEL_PRE_COMMIT && event != XACT_EVENT_PRE_PREPARE)
		runlimit_end();
}

static void
runlimit_subxact_callback(SubXactEvent event, SubTransactionId mySubid,
						  SubTransactionId parentSubid, void *arg)
{
	if (event == SUBXACT_EVENT_ABORT_SUB && run_depth > 0 &&
		run_xact_level >= GetCurrentTransactionNestLevel())
		runlimit_end();
}

static void
runlimit_exit(int code, Datum arg)
{
	if (run_depth > 0)
		runlimit_end();
}

static void
runlimit_register_callbacks(void)
{
	if (callbacks_registered)
		return;
	RegisterXactCallback(runlimit_xact_callback, NULL);
	RegisterSubXactCallback(runlimit_subxact_callback, NULL);
	before_shmem_exit(runlimit_exit, (Datum) 0);
	callbacks_registered = true;
}

void
dpobj_run_enter(void)
{
	RunLeave   *leave;

	runlimit_register_callbacks();
	if (run_depth == 0)
	{
		Oid			role = GetUserId();
		RunEntry   *me = my_entry();
		bool		ok;

		ok = me != NULL ? runlimit_take_shared(me, role) : runlimit_take_lock(role);
		if (!ok)
			ereport(ERROR,
					(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
					 errmsg("role \"%s\" already holds %d mechanism runs at a time",
							GetUserNameFromId(role, false), dpobj_max_runs_per_role),
					 errdetail("dpobj.max_runs_per_role is %d.  Nothing was charged.",
							   dpobj_max_runs_per_role),
					 errhint("Wait until one of this role's runs or jobs ends, or ask a superuser to raise dpobj.max_runs_per_role.")));
		run_role = role;
		run_xact_level = GetCurrentTransactionNestLevel();
	}
	run_depth++;
	leave = MemoryContextAllocZero(CurrentMemoryContext, sizeof(RunLeave));
	leave->generation = run_generation;
	leave->cb.func = runlimit_leave;
	leave->cb.arg = leave;
	MemoryContextRegisterResetCallback(CurrentMemoryContext, &leave->cb);
}

int
dpobj_runs_in_sessions(Oid role)
{
	int			n = 0;

	if (runs_shared == NULL)
		return -1;
	LWLockAcquire(runs_shared->lock, LW_SHARED);
	for (int i = 0; i < runs_shared->nentries; i++)
		if (runs_shared->entries[i].role == role && runs_shared->entries[i].session)
			n++;
	LWLockRelease(runs_shared->lock);
	return n;
}

void
dpobj_run_budget_lock(int64 budget_id)
{
	LOCKTAG		tag;

	SET_LOCKTAG_ADVISORY(tag, MyDatabaseId, (uint32) ((uint64) budget_id >> 32),
						 (uint32) budget_id, RUNLIMIT_BUDGET_CLASS);
	(void) LockAcquire(&tag, ExclusiveLock, false, false);
}
