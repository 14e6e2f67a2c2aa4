/*-------------------------------------------------------------------------
 *
 * ledgerint.h
 *	  Internals of the ledger (ledger.h is the public API): the fixed
 *	  requests a backend hands to a ledger writer, and the interfaces between
 *	  the ledger's files.
 *
 *	  ledger.c          client API: charge, budget charge, finish; settings
 *	  ledgerrun.c       the runs of this backend and their true outcomes
 *	                    (executor/utility hooks, transaction callbacks)
 *	  ledgertransport.c which transport carries a request, and its bounds
 *	  ledgershm.c       with shared_preload_libraries: the request queue in
 *	                    shared memory and the static ledger writers' table
 *	  ledgerwriter.c    the long-lived writer process (batches of requests)
 *	  ledgeroneshot.c   without preloading: one background worker per write
 *	  ledgerexec.c      the fixed statements, shared by both kinds of worker,
 *	                    and the guarded budget debit
 *	  accountant.c      the budget arithmetic (accountant.h: its C API),
 *	  budgetrow.c,      a dpobj.budgets row as its state, and the SQL
 *	  accountsql.c      functions over one
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_LEDGERINT_H
#define DPOBJ_LEDGERINT_H

#include "postgres.h"

#include "ledger/ledger.h"

#include "datatype/timestamp.h"
#include "nodes/nodes.h"
#include "postmaster/bgworker.h"

/* The operations.  A request never carries SQL text: an op and bound values. */
typedef enum LedgerOp
{
	LEDGER_OP_CHARGE = 1,		/* insert a ledger row (direct aggregate run) */
	LEDGER_OP_FINISH = 2,		/* record the outcome of a charged run */
	LEDGER_OP_BUDGET_CHARGE = 3 /* guarded budget debit + its ledger row */
} LedgerOp;

/* Outcomes as codes; ledgerexec.c maps them to the ledger's text values. */
typedef enum LedgerOutcome
{
	LEDGER_OC_RELEASED = 1,
	LEDGER_OC_NOT_CERTIFIED,
	LEDGER_OC_CANCELLED,
	LEDGER_OC_FAILED,
	LEDGER_OC_ABORTED
} LedgerOutcome;

#define LEDGER_DETAIL_LEN		128
#define LEDGER_RELATION_LEN		512
#define LEDGER_MECHANISM_LEN	64

typedef struct LedgerRequest
{
	LedgerOp	op;
	Oid			dboid;
	int64		id;				/* FINISH: the ledger row */
	LedgerOutcome outcome;		/* FINISH */
	Oid			relid;			/* BUDGET_CHARGE: the protected table */
	Oid			analyst;		/* BUDGET_CHARGE: the charged role */
	bool		has_relation;
	char		rolname[NAMEDATALEN];
	char		mechanism[LEDGER_MECHANISM_LEN];
	char		epsilon[LEDGER_AMOUNT_LEN];	/* exact decimal text */
	char		delta[LEDGER_AMOUNT_LEN];
	LedgerCost	cost;			/* CHARGE, BUDGET_CHARGE: kind and rho */
	char		relation[LEDGER_RELATION_LEN];
	char		detail[LEDGER_DETAIL_LEN];
} LedgerRequest;

/* What a request came to */
typedef enum LedgerStatus
{
	LEDGER_DONE = 1,			/* committed (or, for a refused debit, nothing to write) */
	LEDGER_FAILED,				/* not committed: nothing was written */
	LEDGER_LOST,				/* the worker stopped: written or not, unknown */
	LEDGER_RETRY,				/* a lock was busy: queued again (writer only) */
	LEDGER_TIMEOUT				/* the caller stopped waiting (caller only) */
} LedgerStatus;

typedef struct LedgerReply
{
	int64		id;				/* charged ledger row (CHARGE, BUDGET_CHARGE) */
	LedgerBudgetStatus budget_status;
	char		remaining_epsilon[LEDGER_AMOUNT_LEN];
	char		remaining_delta[LEDGER_AMOUNT_LEN];
} LedgerReply;

/*
 * A request posted without waiting (an outcome).  The transport says when
 * it has been written; ledgerrun.c waits for its own posts where the
 * session must see them (see there).
 */
typedef struct LedgerTicket
{
	int			slot;			/* shared-memory queue: slot and its ... */
	uint64		seq;			/* ... allocation number */
	BackgroundWorkerHandle *handle; /* one-shot worker (palloc'd), or NULL */
} LedgerTicket;

/* ledgertransport.c: the queue when preloaded, else one-shot workers */
extern int	dpobj_ledger_timeout;	/* ms a caller waits for a write */
extern int	dpobj_ledger_writers;	/* static writers (preload only) */

extern LedgerStatus ledger_call(const LedgerRequest *req, LedgerReply *reply,
								const char **why);
extern bool ledger_post(const LedgerRequest *req, LedgerTicket *ticket);
extern bool ledger_ticket_done(const LedgerTicket *ticket);
extern void ledger_ticket_forget(LedgerTicket *ticket);

/* ledgerrun.c: this backend's charged runs */
extern void ledger_runs_init(void);
extern void ledger_run_open(int64 id, bool protected_path);
extern void ledger_run_finish(int64 id, LedgerOutcome outcome, const char *detail);
extern void ledger_runs_flush(void);

/* ledgershm.c: the queue (only with shared_preload_libraries = 'dpobj') */
#define LEDGER_MAX_WRITERS		64
#define LEDGER_BATCH_MAX		32

extern void ledger_shm_preload_init(void);
extern bool ledger_shm_available(void);
extern int	ledger_shm_submit(const LedgerRequest *req, bool async, uint64 *seq);
extern LedgerStatus ledger_shm_wait(int slot, LedgerReply *reply, int timeout_ms);
extern bool ledger_shm_slot_done(int slot, uint64 seq);
extern void ledger_shm_utility(Node *parsetree);

/* ledgershm.c, for the writer process */
extern void ledger_shm_writer_start(int w);
extern Oid	ledger_shm_writer_poll(int w);
extern void ledger_shm_writer_ready(int w);
extern int	ledger_shm_take_batch(int w, Oid dboid, int *slots, int max);
extern void ledger_shm_batch_request(int slot, LedgerRequest *req);
extern void ledger_shm_set_pending(int slot, int64 id);
extern void ledger_shm_batch_done(int w, const int *slots, const LedgerStatus *status,
								  const LedgerReply *replies, const int64 *pending, int n);
extern bool ledger_shm_writer_should_exit(int w, Oid dboid, bool idle_too_long);
extern void ledger_shm_writer_exit(int code, Datum arg);

/* ledgeroneshot.c: without preloading */
extern LedgerStatus ledger_oneshot_call(const LedgerRequest *req, LedgerReply *reply,
										const char **why);
extern bool ledger_oneshot_post(const LedgerRequest *req, LedgerTicket *ticket);
extern bool ledger_oneshot_done(const LedgerTicket *ticket);

/* ledgerexec.c: requests and the fixed statements */
extern void ledger_finish_request(LedgerRequest *req, Oid dboid, int64 id,
								  LedgerOutcome outcome, const char *detail);
extern const char *ledger_outcome_name(LedgerOutcome outcome);
extern void ledger_exec_settings(int lock_timeout_ms);
extern void ledger_exec(const LedgerRequest *req, LedgerReply *reply, int64 *pending_id);

/* background worker entry points */
extern PGDLLEXPORT void dpobj_ledger_writer_main(Datum arg);
extern PGDLLEXPORT void dpobj_ledger_worker_main(Datum arg);

#endif							/* DPOBJ_LEDGERINT_H */
