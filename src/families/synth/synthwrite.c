/*-------------------------------------------------------------------------
 *
 * synthwrite.c
 *	  Synthetic rows written into a table (synthwrite.h), and
 *	  dpobj.sample_into(model, target, n): post-processing of the model
 *	  alone, no charge; the caller's INSERT privilege and the table's own
 *	  rules (constraints, indexes; triggers, rules, row security through
 *	  the INSERT path) apply as to any insert.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/heapam.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/catalog.h"
#include "catalog/pg_class.h"
#include "commands/trigger.h"
#include "executor/executor.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "tcop/utility.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/rls.h"

#include "base/distributed.h"
#include "base/pg_compat.h"
#include "families/synth/synthtyped.h"
#include "families/synth/synthwrite.h"
#include "model/model.h"

PG_FUNCTION_INFO_V1(dpobj_synth_sample_into);

/* rows per table_multi_insert (COPY FROM buffers up to 1000) */
#define SYNTHWRITE_BUFFER	1000

/* INSERT on the table, or on each of its columns; a writable transaction for a shared table */
static void
write_check(Relation rel, const char *fn)
{
	Oid			relid = RelationGetRelid(rel);
	TupleDesc	desc = RelationGetDescr(rel);

	if (pg_class_aclcheck(relid, GetUserId(), ACL_INSERT) != ACLCHECK_OK)
		for (int k = 0; k < desc->natts; k++)
			if (!TupleDescAttr(desc, k)->attisdropped &&
				pg_attribute_aclcheck(relid, k + 1, GetUserId(), ACL_INSERT) != ACLCHECK_OK)
				aclcheck_error(ACLCHECK_NO_PRIV, get_relkind_objtype(rel->rd_rel->relkind),
							   RelationGetRelationName(rel));
	if (!RelationUsesLocalBuffers(rel))
		PreventCommandIfReadOnly(fn);
	PreventCommandIfParallelMode(fn);
}

/* whether an INSERT fires a trigger of the table's (a statement's, a row's, a constraint's) */
static bool
write_triggers(Relation rel)
{
	TriggerDesc *t = rel->trigdesc;

	return t != NULL && (t->trig_insert_before_row || t->trig_insert_after_row ||
						 t->trig_insert_instead_row || t->trig_insert_before_statement ||
						 t->trig_insert_after_statement || t->trig_insert_new_table);
}

/* whether the batches may write the table: a plain table, nothing to run per row but its checks */
static bool
write_fast_ok(Relation rel, const SynthTyped *t)
{
	TupleDesc	desc = RelationGetDescr(rel);

	if (rel->rd_rel->relkind != RELKIND_RELATION || rel->rd_rel->relispartition ||
		RELATION_IS_OTHER_TEMP(rel) || IsCatalogRelation(rel) || write_triggers(rel) ||
		rel->rd_rel->relhasrules || dp_citus_table(RelationGetRelid(rel)) ||
		check_enable_rls(RelationGetRelid(rel), InvalidOid, true) == RLS_ENABLED ||
		synthtyped_others(t) > 0)
		return false;
	for (int k = 0; k < desc->natts; k++)
		if (TupleDescAttr(desc, k)->attgenerated != '\0')
			return false;
	return true;
}

typedef struct WriteBuffer
{
	Relation	rel;
	EState	   *estate;
	ResultRelInfo *rri;
	BulkInsertState bis;
	CommandId	cid;
	int			options;
	TupleTableSlot *slots[SYNTHWRITE_BUFFER];
	int			n;
} WriteBuffer;

/* the buffered rows into the table and its indexes; the buffer and the rows' memory emptied */
static void
write_flush(WriteBuffer *w)
{
	CHECK_FOR_INTERRUPTS();
	table_multi_insert(w->rel, w->slots, w->n, w->cid, w->options, w->bis);
	for (int i = 0; i < w->n; i++)
	{
		if (w->rri->ri_NumIndices > 0)
			list_free(compat_insert_index_tuples(w->rri, w->slots[i], w->estate));
		ExecClearTuple(w->slots[i]);
	}
	w->n = 0;
	ResetPerTupleExprContext(w->estate);
}

/* the draw's rows into rel, SYNTHWRITE_BUFFER at a time, as COPY FROM does */
static int64
write_fast(Relation rel, SynthTyped *t, SynthDraw *s)
{
	WriteBuffer w;
	int64		written = 0;
	int			nbatch;
	bool		checks = RelationGetDescr(rel)->constr != NULL;

	memset(&w, 0, sizeof(w));
	w.rel = rel;
	w.estate = CreateExecutorState();
	w.rri = makeNode(ResultRelInfo);
	InitResultRelInfo(w.rri, rel, 0, NULL, 0);
	ExecOpenIndices(w.rri, false);
	w.bis = GetBulkInsertState();
	w.cid = GetCurrentCommandId(true);
	/* a table created in this subtransaction: no free space to look for */
	w.options = rel->rd_createSubid != InvalidSubTransactionId ? TABLE_INSERT_SKIP_FSM : 0;
	for (int i = 0; i < SYNTHWRITE_BUFFER; i++)
		w.slots[i] = table_slot_create(rel, NULL);
	while ((nbatch = synthdraw_batch(s)) > 0)
		for (int i = 0; i < nbatch; i++)
		{
			TupleTableSlot *slot = w.slots[w.n];
			MemoryContext old = MemoryContextSwitchTo(GetPerTupleMemoryContext(w.estate));

			ExecClearTuple(slot);
			memset(slot->tts_isnull, true, sizeof(bool) * slot->tts_tupleDescriptor->natts);
			synthtyped_row(t, s, i, slot->tts_values, slot->tts_isnull);
			ExecStoreVirtualTuple(slot);
			MemoryContextSwitchTo(old);
			if (checks)
				ExecConstraints(w.rri, slot, w.estate);
			written++;
			if (++w.n == SYNTHWRITE_BUFFER)
				write_flush(&w);
		}
	if (w.n > 0)
		write_flush(&w);
	table_finish_bulk_insert(rel, w.options);
	FreeBulkInsertState(w.bis);
	for (int i = 0; i < SYNTHWRITE_BUFFER; i++)
		ExecDropSingleTupleTableSlot(w.slots[i]);
	ExecCloseIndices(w.rri);
	FreeExecutorState(w.estate);
	return written;
}

/* any other table: INSERT ... SELECT from dpobj.sample_rows(), the table's every rule applied */
static int64
write_insert(Relation rel, const Encoding *enc, HeapTupleHeader model, int64 n, const char *fn)
{
	StringInfoData cols,
				defs;
	TupleDesc	desc = RelationGetDescr(rel);
	int64		written;

	initStringInfo(&cols);
	initStringInfo(&defs);
	for (int j = 0; j < enc->ncols; j++)
	{
		AttrNumber	att = get_attnum(RelationGetRelid(rel), enc->cols[j].column);
		Form_pg_attribute a = TupleDescAttr(desc, att - 1);
		const char *name = quote_identifier(enc->cols[j].column);

		appendStringInfo(&cols, "%s%s", j ? ", " : "", name);
		appendStringInfo(&defs, "%s%s %s", j ? ", " : "", name,
						 format_type_with_typemod(a->atttypid, a->atttypmod));
	}
	SPI_connect();
	if (SPI_execute_with_args(psprintf("INSERT INTO %s (%s) SELECT %s FROM dpobj.sample_rows($1, $2) AS t(%s)",
									   quote_qualified_identifier(get_namespace_name(RelationGetNamespace(rel)),
																  RelationGetRelationName(rel)),
									   cols.data, cols.data, defs.data),
							  2, (Oid[]) {model_type_oid(), INT8OID},
							  (Datum[]) {PointerGetDatum(model), Int64GetDatum(n)},
							  NULL, false, 0) != SPI_OK_INSERT)
		elog(ERROR, "%s: INSERT failed", fn);
	written = (int64) SPI_processed;
	SPI_finish();
	return written;
}

int64
synthwrite_table(Oid relid, HeapTupleHeader model, int64 n, const char *fn)
{
	MemoryContext cxt = AllocSetContextCreate(CurrentMemoryContext, "dpobj synthetic rows",
											  ALLOCSET_DEFAULT_SIZES);
	char		kind = get_rel_relkind(relid);
	Relation	rel;
	SynthDraw  *s;
	SynthTyped *t;
	int64		written;

	/* an index or a composite type: one message on every version (17 words table_open's) */
	if (kind == RELKIND_INDEX || kind == RELKIND_PARTITIONED_INDEX || kind == RELKIND_COMPOSITE_TYPE)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("%s: \"%s\" is not a table", fn, get_rel_name(relid))));
	rel = try_table_open(relid, RowExclusiveLock);
	/* an OID of no relation (a dropped table, a regclass typed by hand) */
	if (rel == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("%s: relation with OID %u does not exist", fn, relid)));
	write_check(rel, fn);
	s = synthdraw_begin(model, n, cxt, fn);
	t = synthtyped_plan(s->f->enc, RelationGetDescr(rel), SYNTHTYPED_TABLE, fn, cxt);
	if (write_fast_ok(rel, t))
		written = write_fast(rel, t, s);
	else
		written = write_insert(rel, s->f->enc, model, n, fn);
	table_close(rel, NoLock);
	MemoryContextDelete(cxt);
	return written;
}

/* dpobj.sample_into(model, target, n): n rows into the existing table target */
Datum
dpobj_synth_sample_into(PG_FUNCTION_ARGS)
{
	for (int i = 0; i < 3; i++)
		if (PG_ARGISNULL(i))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("dpobj.sample_into: argument %d must not be NULL", i + 1),
					 errhint("Pass a synthesizer model, an existing table and a row count.")));
	PG_RETURN_INT64(synthwrite_table(PG_GETARG_OID(1), PG_GETARG_HEAPTUPLEHEADER(0),
									 PG_GETARG_INT64(2), "dpobj.sample_into"));
}
