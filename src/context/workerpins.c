/*-------------------------------------------------------------------------
 *
 * workerpins.c
 *	  The shard sessions' settings on the protected path (workerpins.h).
 *
 * A Citus worker plans each shard task under its own settings plus the
 * SET LOCALs Citus forwards from the coordinator's transaction
 * (citus.propagate_set_commands = 'local'): an analyst's
 * "SET LOCAL enable_seqscan = off" before train() would make the shards
 * use full index scans.  Citus forwards a SET LOCAL only while it counts
 * the transaction as multi-statement (a transaction block, a DO block, a
 * procedure), and sends the forwarded ones to a new worker session in
 * order: those of outer (sub)transactions first, then the current one's.
 * So the pins go out as SET LOCALs inside a DO block, with forwarding
 * switched on for this nest level, in seal.c's subtransaction, right
 * before the query: they come last and win.  On the coordinator the same
 * settings are pinned already in the role switch's GUC nest level, which
 * also undoes these SET LOCALs there when train() returns.
 *
 * Only settings an ordinary role may set: the owner runs the query.  The
 * superuser-only ones (statistics, log_*_stats) cannot be forwarded by the
 * analyst either.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "context/workerpins.h"

#include "base/dpobj.h"
#include "base/pg_compat.h"
#include "base/privileged.h"

#include "access/xact.h"
#include "executor/spi.h"
#include "lib/stringinfo.h"
#include "utils/builtins.h"
#include "utils/guc.h"

const DPSettingPin dp_user_pins[] =
{
	{"enable_seqscan", "on"},
	{"enable_indexscan", "off"},
	{"enable_indexonlyscan", "off"},
	{"enable_bitmapscan", "off"},
	{"enable_tidscan", "off"},
	{"enable_partitionwise_aggregate", "off"},
	{"max_parallel_workers_per_gather", "0"},
	{COMPAT_DEBUG_PARALLEL_GUC, "off"},
	{"jit", "off"},
	{"debug_print_parse", "off"},
	{"debug_print_rewritten", "off"},
	{"debug_print_plan", "off"},
	{"trace_sort", "off"},
	{"row_security", "on"},
	{"synchronize_seqscans", "off"},
	{"client_min_messages", "error"},

	/*
	 * The planner runs a scan's conditions by security level, then by
	 * estimated cost: the owner's row-security conditions first (dpobj's
	 * filter is one expression that is not leakproof, trainquery.c), among
	 * them the cheapest first, where a subquery's cost weighs page and tuple
	 * costs against operator costs.  The defaults, not the analyst's, set
	 * which runs first.
	 */
	{"cpu_operator_cost", "0.0025"},
	{"cpu_tuple_cost", "0.01"},
	{"cpu_index_tuple_cost", "0.005"},
	{"seq_page_cost", "1"},
	{"random_page_cost", "4"},
};
const int	dp_n_user_pins = lengthof(dp_user_pins);

/* the coordinator's pinned values of these go to the shards of a sorting run */
static const char *const sort_pins[] = {"work_mem", "hash_mem_multiplier", "temp_tablespaces"};

void
worker_pins_send(bool sorts)
{
	StringInfoData sql;
	int			ret;

	/* forwarding on for this nest level only (the role switch's) */
	(void) set_config_option("citus.propagate_set_commands", "local", PGC_SUSET,
							 PGC_S_SESSION, GUC_ACTION_SAVE, true, 0, false);
	initStringInfo(&sql);
	appendStringInfoString(&sql, "DO $dpobj$ BEGIN ");
	for (int i = 0; i < dp_n_user_pins; i++)
	{
		/* optional settings (trace_sort needs TRACE_SORT) may be missing */
		if (GetConfigOption(dp_user_pins[i].name, true, false) == NULL)
			continue;
		appendStringInfo(&sql, "SET LOCAL %s = %s; ", dp_user_pins[i].name, dp_user_pins[i].value);
	}
	for (int i = 0; sorts && i < lengthof(sort_pins); i++)
		appendStringInfo(&sql, "SET LOCAL %s = %s; ", sort_pins[i],
						 quote_literal_cstr(GetConfigOption(sort_pins[i], false, false)));
	appendStringInfoString(&sql, "END $dpobj$");
	ret = SPI_execute(sql.data, false, 0);
	if (ret != SPI_OK_UTILITY)
		elog(ERROR, "dpobj.train: could not pin the Citus workers' settings: %s",
			 SPI_result_code_string(ret));
	pfree(sql.data);
}

/*
 * The settings seal.c pins on the coordinator and a shard session cannot
 * take from the DO block (superuser only); LOCAL: until the shard task's
 * transaction ends.
 */
static const DPSettingPin spill_pins[] =
{
	{"track_counts", "off"},
	{"log_temp_files", "-1"},
	{"pg_stat_statements.track", "none"},
};

void
worker_pins_unobserved_spill(void)
{
	for (int i = 0; i < lengthof(spill_pins); i++)
	{
		/* pg_stat_statements may not be loaded */
		if (GetConfigOption(spill_pins[i].name, true, false) == NULL)
			continue;
		(void) set_config_option(spill_pins[i].name, spill_pins[i].value, PGC_SUSET,
								 PGC_S_SESSION, GUC_ACTION_LOCAL, true, 0, false);
	}
}

/* the values the spill pins replaced, put back when a query's context goes */
typedef struct SpillPinsSaved
{
	MemoryContextCallback cb;
	char	   *values[lengthof(spill_pins)];
} SpillPinsSaved;

static void
worker_pins_restore(void *arg)
{
	SpillPinsSaved *saved = (SpillPinsSaved *) arg;

	/* an aborting transaction puts every setting back itself */
	if (!IsTransactionState())
		return;
	for (int i = 0; i < lengthof(spill_pins); i++)
		if (saved->values[i] != NULL)
			(void) set_config_option(spill_pins[i].name, saved->values[i], PGC_SUSET,
									 PGC_S_SESSION, GUC_ACTION_LOCAL, true, 0, false);
}

void
worker_pins_unobserved_query(MemoryContext query_cxt)
{
	SpillPinsSaved *saved = MemoryContextAllocZero(query_cxt, sizeof(SpillPinsSaved));

	for (int i = 0; i < lengthof(spill_pins); i++)
	{
		const char *v = GetConfigOption(spill_pins[i].name, true, false);

		if (v != NULL)
			saved->values[i] = MemoryContextStrdup(query_cxt, v);
	}
	worker_pins_unobserved_spill();
	saved->cb.func = worker_pins_restore;
	saved->cb.arg = saved;
	MemoryContextRegisterResetCallback(query_cxt, &saved->cb);
}

/*
 * A worker's setting from run_command_on_workers' text: an empty value (a
 * NULL: no session setting and dpobj not yet loaded there) is the default;
 * -1 when the text is not a number (of kB for the cap).
 */
static int
worker_setting(const char *value, int flags, int dflt)
{
	int			v;

	if (value == NULL || value[0] == '\0')
		return dflt;
	if (!parse_int(value, &v, flags, NULL))
		return -1;
	return v;
}

/* the refusal, before the charge, naming the worker, the setting and how it differs */
static void
worker_refuse(const char *relation, const char *node, const char *port, const char *what,
			  int theirs, const char *than, int ours)
{
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("dpobj cannot train on %s: %s on the Citus worker %s:%s (%d) is %s than on this server (%d)",
					relation, what, node, port, theirs, than, ours),
			 errhint("Set dpobj.max_state_memory on every worker to at least the coordinator's, and dpobj.oracle_threads to at most the coordinator's (docs/SCALING.md, \"Setup\"); nothing was charged.")));
}

/*
 * The worker's dpobj objects must be those of this library: the pushed-down
 * query calls them (dpobj.numeric_feature, the state functions), so older
 * objects on a worker would fail the run after the charge.
 */
static void
worker_check_version(const char *relation, const char *node, const char *port,
					 const char *version)
{
	if (strcmp(version, DPOBJ_SQL_VERSION) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("dpobj cannot train on %s: dpobj's SQL objects on the Citus worker %s:%s are version %s, this library's are %s",
						relation, node, port, version[0] != '\0' ? version : "(none)",
						DPOBJ_SQL_VERSION),
				 errhint("Run ALTER EXTENSION dpobj UPDATE on the coordinator (Citus propagates it) or on that worker; nothing was charged.")));
}

/*
 * The worker's answer "cap/threads/version" (cap or threads empty when
 * unset; version dpobj's extversion there, empty without it): a sample's K
 * grows with the cap and shrinks with the threads (aggsample.h), so both
 * must leave the worker's K at least the coordinator's.
 */
static void
worker_check_one(const char *relation, const char *node, const char *port, bool ok,
				 const char *answer)
{
	const char *slash = answer != NULL ? strchr(answer, '/') : NULL;
	const char *slash2 = slash != NULL ? strchr(slash + 1, '/') : NULL;
	int			kb = -1,
				threads = -1;

	if (ok && slash2 != NULL)
	{
		kb = worker_setting(pnstrdup(answer, slash - answer), GUC_UNIT_KB,
							DPOBJ_DEFAULT_STATE_MEMORY);
		threads = worker_setting(pnstrdup(slash + 1, slash2 - slash - 1), 0,
								 DPOBJ_DEFAULT_ORACLE_THREADS);
	}
	if (kb < 0 || threads < 0)
		ereport(ERROR,
				(errcode(ERRCODE_CONNECTION_FAILURE),
				 errmsg("dpobj cannot train on %s: could not read dpobj.max_state_memory on the Citus worker %s:%s",
						relation, node ? node : "?", port ? port : "?"),
				 errhint("Every worker must be reachable and run dpobj; nothing was charged.")));
	if (kb < dpobj_max_state_memory)
		worker_refuse(relation, node, port, "dpobj.max_state_memory", kb, "smaller",
					  dpobj_max_state_memory);
	if (threads > dpobj_oracle_threads)
		worker_refuse(relation, node, port, "dpobj.oracle_threads", threads, "larger",
					  dpobj_oracle_threads);
	worker_check_version(relation, node, port, slash2 + 1);
}

void
worker_caps_check(const char *relation, Oid exec_user)
{
	RoleSwitch	rs;
	int			ret;

	role_switch_begin(&rs, exec_user, true);
	ret = SPI_execute("SELECT nodename, nodeport, success, result"
					  "  FROM pg_catalog.run_command_on_workers("
					  "$q$SELECT pg_catalog.concat("
					  "pg_catalog.current_setting('dpobj.max_state_memory', true), '/', "
					  "pg_catalog.current_setting('dpobj.oracle_threads', true), '/', "
					  "(SELECT e.extversion FROM pg_catalog.pg_extension e"
					  " WHERE e.extname OPERATOR(pg_catalog.=) 'dpobj'))$q$)",
					  false, 0);
	role_switch_end(&rs);
	if (ret != SPI_OK_SELECT)
		elog(ERROR, "dpobj.train: could not read the Citus workers' settings: %s",
			 SPI_result_code_string(ret));
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		HeapTuple	tup = SPI_tuptable->vals[i];
		TupleDesc	desc = SPI_tuptable->tupdesc;
		char	   *success = SPI_getvalue(tup, desc, 3);

		worker_check_one(relation, SPI_getvalue(tup, desc, 1), SPI_getvalue(tup, desc, 2),
						 success != NULL && strcmp(success, "t") == 0,
						 SPI_getvalue(tup, desc, 4));
	}
}
