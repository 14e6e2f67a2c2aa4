/*-------------------------------------------------------------------------
 *
 * scanrels.c
 *	  The relations scanned below an aggregate (scanrels.h).
 *
 *-------------------------------------------------------------------------
 */
#include "context/scanrels.h"

#include "base/distributed.h"

#include "catalog/pg_inherits.h"
#include "common/hashfn.h"
#include "executor/executor.h"
#include "lib/stringinfo.h"
#include "nodes/execnodes.h"
#include "nodes/nodeFuncs.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

static bool
collect_relations(PlanState *ps, void *arg)
{
	DPScanRelations *out = (DPScanRelations *) arg;

	if (ps == NULL)
		return false;
	switch (nodeTag(ps))
	{
		case T_AggState:
			/* the outermost aggregate: the first met, top down */
			if (out->agg == NULL)
				out->agg = ps;
			break;
		case T_SeqScanState:
		case T_SampleScanState:
		case T_IndexScanState:
		case T_IndexOnlyScanState:
		case T_BitmapHeapScanState:
		case T_TidScanState:
		case T_TidRangeScanState:
			{
				Relation	rel = ((ScanState *) ps)->ss_currentRelation;

				if (rel != NULL)
					out->relids = list_append_unique_oid(out->relids,
														 RelationGetRelid(rel));
				else
					out->unrecognised = true;
				break;
			}
		case T_CustomScanState:
			/* Citus: the distributed tables its plan reads (distributed.h) */
			if (dp_citus_scan_relations((CustomScanState *) ps, &out->relids))
				out->citus = true;
			else
				out->unrecognised = true;
			break;
		case T_CteScanState:

			/*
			 * a CTE's rows come from its own plan in this query: its scans
			 * are walked from here (a recursive CTE's work table scan stays
			 * unrecognised)
			 */
			if (((CteScanState *) ps)->cteplanstate != NULL)
				collect_relations(((CteScanState *) ps)->cteplanstate, out);
			else
				out->unrecognised = true;
			break;
		case T_ForeignScanState:
		case T_FunctionScanState:
		case T_TableFuncScanState:
		case T_ValuesScanState:
		case T_WorkTableScanState:
		case T_NamedTuplestoreScanState:
			out->unrecognised = true;
			break;
		default:
			break;
	}
	return planstate_tree_walker(ps, collect_relations, arg);
}

/*
 * A Citus shard scanned in this backend (local execution on a node that
 * holds shards) counts as its distributed table.
 */
static void
map_shards(DPScanRelations *out)
{
	List	   *mapped = NIL;
	ListCell   *lc;

	if (out->relids == NIL || !dp_citus_present())
		return;
	foreach(lc, out->relids)
	{
		Oid			table = dp_citus_shard_table(lfirst_oid(lc));

		if (OidIsValid(table))
			out->citus = true;
		mapped = list_append_unique_oid(mapped, OidIsValid(table) ? table : lfirst_oid(lc));
	}
	out->relids = mapped;
}

static void
scan_relations_init(DPScanRelations *out)
{
	out->relids = NIL;
	out->unrecognised = false;
	out->found_agg = false;
	out->citus = false;
	out->agg = NULL;
}

void
dp_scan_relations(FunctionCallInfo fcinfo, DPScanRelations *out)
{
	scan_relations_init(out);
	if (fcinfo->context == NULL || !IsA(fcinfo->context, AggState))
		return;
	out->found_agg = true;
	collect_relations(outerPlanState((AggState *) fcinfo->context), out);
	out->agg = fcinfo->context;
	map_shards(out);
}

void
dp_plan_relations(PlanState *top, DPScanRelations *out)
{
	scan_relations_init(out);
	collect_relations(top, out);
	out->found_agg = out->agg != NULL;
	map_shards(out);
}

char *
dp_relation_names(List *relids)
{
	StringInfoData buf;
	ListCell   *lc;

	if (relids == NIL)
		return NULL;
	initStringInfo(&buf);
	foreach(lc, relids)
	{
		Oid			relid = lfirst_oid(lc);
		char	   *nsp = get_namespace_name(get_rel_namespace(relid));
		char	   *rel = get_rel_name(relid);

		if (nsp == NULL || rel == NULL)
			continue;
		if (buf.len > 0)
			appendStringInfoString(&buf, ", ");
		appendStringInfoString(&buf, quote_qualified_identifier(nsp, rel));
	}
	return buf.len > 0 ? buf.data : NULL;
}

uint64
dp_inheritance_tree_hash(Oid relid)
{
	List	   *tree = find_all_inheritors(relid, NoLock, NULL);
	Oid		   *oids = palloc(sizeof(Oid) * list_length(tree));
	int			n = 0;
	ListCell   *lc;

	list_sort(tree, list_oid_cmp);
	foreach(lc, tree)
		oids[n++] = lfirst_oid(lc);
	return hash_bytes_extended((const unsigned char *) oids, n * sizeof(Oid), 0);
}
