/*-------------------------------------------------------------------------
 *
 * distributed.c
 *	  Citus awareness without linking against Citus (distributed.h).
 *
 * Everything is looked up by name at run time (Citus 11/12 metadata in
 * pg_catalog: pg_dist_local_group, pg_dist_partition, pg_dist_shard), and
 * only when the citus extension exists in this database.  Anything that
 * does not look exactly as expected is treated as "not mapped", never as
 * a match: the ledger then names what it can, and the protected path
 * (which needs a recognised scan) refuses.
 *
 *-------------------------------------------------------------------------
 */
#include "base/distributed.h"

#include <ctype.h>

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_type.h"
#include "commands/extension.h"
#include "nodes/extensible.h"
#include "nodes/readfuncs.h"
#include "nodes/primnodes.h"
#include "parser/parse_relation.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

/* application_name prefixes of Citus's own connections (Citus 11+) */
static const char *const citus_internal_prefixes[] = {
	"citus_internal gpid=",
	"citus_rebalancer gpid=",
	"citus_run_command gpid="
};

/* the custom scan Citus uses for distributed SELECTs */
#define CITUS_ADAPTIVE_SCAN		"AdaptiveExecutorScan"

bool
dp_citus_present(void)
{
	return OidIsValid(get_extension_oid("citus", true));
}

/*
 * Looks up the first row of pg_catalog.<catalog> whose column keycol
 * equals key (with the equality function eqfn; keycol NULL: any row) and
 * returns its column wantcol in *result.  False when the catalog, a column
 * or a matching row is missing (or the value is NULL).
 */
static bool
citus_lookup(const char *catalog, const char *keycol, RegProcedure eqfn, Datum key,
			 const char *wantcol, Datum *result)
{
	Oid			relid = get_relname_relid(catalog, PG_CATALOG_NAMESPACE);
	Relation	rel;
	SysScanDesc scan;
	ScanKeyData skey;
	HeapTuple	tup;
	AttrNumber	want;
	bool		found = false;

	if (!OidIsValid(relid))
		return false;
	rel = table_open(relid, AccessShareLock);
	want = attnameAttNum(rel, wantcol, false);
	if (keycol != NULL)
	{
		AttrNumber	keyatt = attnameAttNum(rel, keycol, false);

		if (keyatt == InvalidAttrNumber)
		{
			table_close(rel, AccessShareLock);
			return false;
		}
		ScanKeyInit(&skey, keyatt, BTEqualStrategyNumber, eqfn, key);
	}
	if (want != InvalidAttrNumber)
	{
		scan = systable_beginscan(rel, InvalidOid, false, NULL, keycol ? 1 : 0, &skey);
		tup = systable_getnext(scan);
		if (HeapTupleIsValid(tup))
		{
			bool		isnull;

			*result = heap_getattr(tup, want, RelationGetDescr(rel), &isnull);
			found = !isnull;
		}
		systable_endscan(scan);
	}
	table_close(rel, AccessShareLock);
	return found;
}

/* this backend runs on behalf of a Citus coordinator (or rebalancer) */
static bool
citus_internal_backend(void)
{
	if (application_name == NULL)
		return false;
	for (int i = 0; i < lengthof(citus_internal_prefixes); i++)
		if (strncmp(application_name, citus_internal_prefixes[i],
					strlen(citus_internal_prefixes[i])) == 0)
			return true;
	return false;
}

/* this node's Citus group: 0 on the coordinator (and without Citus) */
static int32
citus_local_group(void)
{
	Datum		group;

	if (!dp_citus_present())
		return 0;
	if (citus_lookup("pg_dist_local_group", NULL, InvalidOid, (Datum) 0, "groupid", &group))
		return DatumGetInt32(group);
	return 0;
}

bool
dp_citus_task_session(void)
{
	return dp_citus_present() && (citus_local_group() != 0 || citus_internal_backend());
}

void
dp_citus_refuse_worker(FunctionCallInfo fcinfo)
{
	int32		groupid;
	Aggref	   *aggref;
	const char *aggname = NULL;

	if (!dp_citus_task_session())
		return;
	groupid = citus_local_group();

	aggref = AggGetAggref(fcinfo);
	if (aggref != NULL)
		aggname = get_func_name(aggref->aggfnoid);
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("%s: dpobj mechanisms run only on the Citus coordinator",
					aggname ? aggname : "dpobj"),
			 groupid != 0 ?
			 errdetail("This node is a Citus worker (group %d); its ledger is not the cluster's. Nothing was charged.",
					   groupid) :
			 errdetail("This backend runs a task for a Citus coordinator; the mechanism would run outside the session that called it. Nothing was charged."),
			 errhint("A filter on the distribution column or GROUP BY the distribution column makes Citus run the whole aggregate on one worker. "
					 "Run it on the coordinator so that the workers only build partial states: group by an expression of the column "
					 "(e.g. GROUP BY col::text), or SET citus.enable_router_execution = off for a single-shard filter.")));
}

char
dp_citus_partition(Oid relid, AttrNumber *distcol, uint32 *coloc)
{
	Oid			meta = get_relname_relid("pg_dist_partition", PG_CATALOG_NAMESPACE);
	AttrNumber	att;
	AttrNumber	method_att;
	AttrNumber	key_att;
	AttrNumber	coloc_att;
	Relation	rel;
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tup;
	char		method = '\0';

	if (distcol != NULL)
		*distcol = 0;
	if (coloc != NULL)
		*coloc = 0;
	if (!OidIsValid(meta))
		return '\0';			/* Citus is not installed here */
	att = get_attnum(meta, "logicalrelid");
	method_att = get_attnum(meta, "partmethod");
	key_att = get_attnum(meta, "partkey");
	coloc_att = get_attnum(meta, "colocationid");
	if (att == InvalidAttrNumber || method_att == InvalidAttrNumber)
		return '?';
	rel = table_open(meta, AccessShareLock);
	ScanKeyInit(&key, att, BTEqualStrategyNumber, F_OIDEQ, ObjectIdGetDatum(relid));
	scan = systable_beginscan(rel, InvalidOid, false, NULL, 1, &key);
	tup = systable_getnext(scan);
	if (HeapTupleIsValid(tup))
	{
		TupleDesc	desc = RelationGetDescr(rel);
		bool		isnull;
		Datum		d = heap_getattr(tup, method_att, desc, &isnull);

		method = (isnull || TupleDescAttr(desc, method_att - 1)->atttypid != CHAROID)
			? '?' : DatumGetChar(d);
		if (distcol != NULL && key_att != InvalidAttrNumber &&
			TupleDescAttr(desc, key_att - 1)->atttypid == TEXTOID)
		{
			d = heap_getattr(tup, key_att, desc, &isnull);
			if (!isnull)
			{
				Node	   *n = stringToNode(TextDatumGetCString(d));

				if (n != NULL && IsA(n, Var))
					*distcol = ((Var *) n)->varattno;
			}
		}
		if (coloc != NULL && coloc_att != InvalidAttrNumber &&
			TupleDescAttr(desc, coloc_att - 1)->atttypid == INT4OID)
		{
			d = heap_getattr(tup, coloc_att, desc, &isnull);
			*coloc = isnull ? 0 : (uint32) DatumGetInt32(d);
		}
	}
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return method;
}

bool
dp_citus_reference_table(Oid relid)
{
	Datum		v;

	return dp_citus_partition(relid, NULL, NULL) == 'n' &&
		citus_lookup("pg_dist_partition", "logicalrelid", F_OIDEQ, ObjectIdGetDatum(relid),
					 "repmodel", &v) && DatumGetChar(v) == 't';
}

/* the relation is a table Citus knows (distributed, reference, local) */
static bool
citus_table(Oid relid)
{
	Datum		v;

	return citus_lookup("pg_dist_partition", "logicalrelid", F_OIDEQ,
						ObjectIdGetDatum(relid), "logicalrelid", &v);
}

bool
dp_citus_table(Oid relid)
{
	return citus_table(relid);
}

/*
 * Parses an OID list as outNode writes it -- "<>" (empty) or
 * "(o 123 456)" -- at *p; false if it is something else.
 */
static bool
parse_oid_list(const char *p, List **out)
{
	if (strncmp(p, "<>", 2) == 0)
		return true;
	if (strncmp(p, "(o ", 3) != 0)
		return false;
	p += 3;
	for (;;)
	{
		char	   *end;
		unsigned long v;

		while (*p == ' ')
			p++;
		if (*p == ')')
			return true;
		if (!isdigit((unsigned char) *p))
			return false;
		v = strtoul(p, &end, 10);
		if (end == p || v == 0 || v > PG_UINT32_MAX)
			return false;
		*out = lappend_oid(*out, (Oid) v);
		p = end;
	}
}

bool
dp_citus_scan_relations(CustomScanState *css, List **relids)
{
	CustomScan *cscan = (CustomScan *) css->ss.ps.plan;
	char	   *text;
	const char *rel;
	const char *sub;
	List	   *found = NIL;
	ListCell   *lc;

	if (css->methods == NULL || css->methods->CustomName == NULL ||
		strcmp(css->methods->CustomName, CITUS_ADAPTIVE_SCAN) != 0 ||
		list_length(cscan->custom_private) != 1 || !dp_citus_present())
		return false;

	/*
	 * The DistributedPlan (a Citus extensible node) lists the tables it
	 * reads in relationIdList; its subPlanList must be empty, else rows
	 * also come from intermediate results of other plans.  Citus writes
	 * the node with its own out function; outToken escapes blanks inside
	 * names and strings, so " :field " occurs only as a field label.
	 */
	text = nodeToString(linitial(cscan->custom_private));
	rel = strstr(text, " :relationIdList ");
	if (rel == NULL)
		return false;
	sub = strstr(rel, " :subPlanList ");
	if (sub == NULL || strncmp(sub + strlen(" :subPlanList "), "<>", 2) != 0)
		return false;
	if (!parse_oid_list(rel + strlen(" :relationIdList "), &found) || found == NIL)
		return false;
	foreach(lc, found)
		if (!citus_table(lfirst_oid(lc)))
			return false;
	foreach(lc, found)
		*relids = list_append_unique_oid(*relids, lfirst_oid(lc));
	return true;
}

Oid
dp_citus_shard_table(Oid relid)
{
	char	   *name = get_rel_name(relid);
	char	   *us;
	char	   *end;
	int64		shardid;
	Datum		v;
	Oid			table;
	char	   *tname;

	/* a shard is named <table>_<shardid> */
	if (name == NULL || (us = strrchr(name, '_')) == NULL || !isdigit((unsigned char) us[1]))
		return InvalidOid;
	errno = 0;
	shardid = strtoi64(us + 1, &end, 10);
	if (*end != '\0' || errno != 0 || shardid <= 0 || !dp_citus_present())
		return InvalidOid;
	if (!citus_lookup("pg_dist_shard", "shardid", F_INT8EQ, Int64GetDatum(shardid),
					  "logicalrelid", &v))
		return InvalidOid;
	table = DatumGetObjectId(v);
	tname = get_rel_name(table);
	if (tname == NULL || get_rel_namespace(table) != get_rel_namespace(relid) ||
		strlen(tname) != (Size) (us - name) || strncmp(tname, name, us - name) != 0)
		return InvalidOid;
	return table;
}
