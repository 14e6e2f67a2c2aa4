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

#include "workerpins.h"

#include "executor/spi.h"
#include "lib/stringinfo.h"
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
	{"force_parallel_mode", "off"},
	{"jit", "off"},
	{"debug_print_parse", "off"},
	{"debug_print_rewritten", "off"},
	{"debug_print_plan", "off"},
	{"trace_sort", "off"},
	{"row_security", "on"},
	{"synchronize_seqscans", "off"},
	{"client_min_messages", "error"},
};
const int	dp_n_user_pins = lengthof(dp_user_pins);

void
worker_pins_send(void)
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
