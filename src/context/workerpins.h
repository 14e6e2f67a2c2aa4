/*-------------------------------------------------------------------------
 *
 * workerpins.h
 *	  Pinning the settings of the Citus shard sessions that run the
 *	  protected query's tasks (workerpins.c; docs/SCALING.md).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_WORKERPINS_H
#define DPOBJ_WORKERPINS_H

#include "postgres.h"

#include "utils/memutils.h"

/* a setting and the value the protected query runs under */
typedef struct DPSettingPin
{
	const char *name;
	const char *value;
} DPSettingPin;

/*
 * The pins any role may set (the planner's scan choices, parallelism, JIT,
 * debug printing, row security, synchronized scans, client messages):
 * seal.c pins them on the coordinator, worker_pins_send() on the workers.
 */
extern const DPSettingPin dp_user_pins[];
extern const int dp_n_user_pins;

/*
 * Inside seal.c's subtransaction, as the table owner, after the
 * coordinator's own settings are pinned (into the current GUC nest level)
 * and before the query: makes Citus send SET LOCALs of the planner
 * settings to every worker session of the query, after any the caller's
 * transaction propagated, so that each shard is read by one full
 * sequential scan, without parallel workers, JIT or debug output.  With
 * sorts (a privacy unit's bounding sorts each shard's rows by unit), also
 * this server's pinned work_mem, hash_mem_multiplier and temp_tablespaces
 * (seal.c): a shard's sort spills past the same memory, into the
 * database's default tablespace, whatever the caller set.  Call inside SPI.
 */
extern void worker_pins_send(bool sorts);

/*
 * In a shard session of the protected query (an aggregate state with
 * {"sealed": true} and no protected context in this backend), before the
 * state's first temporary file: pins the statistics settings only a
 * superuser may set -- track_counts, log_temp_files and, when loaded,
 * pg_stat_statements.track -- for the rest of the shard's transaction, so
 * that the worker's pg_stat_database, server log and statement statistics
 * do not count files whose number follows the shard's distinct rows.
 */
extern void worker_pins_unobserved_spill(void);

/*
 * The same pins for one query of a shard session (a unit's sorted
 * bounding, unitkeep.c), put back when query_cxt (its executor's) is
 * deleted -- after its nodes closed their temporary files -- so that the
 * shard tasks this session runs next in the transaction count their scans
 * as those before it did: whether a task pinned them (it read a selected
 * row) must not change the next one's counters.
 */
extern void worker_pins_unobserved_query(MemoryContext query_cxt);

/*
 * Before the charge of a run on a Citus table, as exec_user (the role the
 * shard tasks connect as, so that per-role settings are the ones the tasks
 * get), inside SPI: reads dpobj.max_state_memory and dpobj.oracle_threads on
 * every worker and refuses (55000) when a cap is smaller or a thread count
 * larger than this server's (either lowers a sample's K), or when its dpobj
 * SQL objects are not this library's version (55000, as on this server), or
 * (08006) when a worker does not answer.  A sampled state's K comes
 * from its node's cap and partial states combine at the smallest K among
 * those that reached the coordinator; a shard with no rows sends none, so
 * with a smaller cap on some worker one row could change the K of the
 * release (docs/PRIVACY.md, "Uniform row samples").  Settings are public:
 * a refusal here depends on no row.
 */
extern void worker_caps_check(const char *relation, Oid exec_user);

#endif							/* DPOBJ_WORKERPINS_H */
