/*-------------------------------------------------------------------------
 *
 * sealprep.c
 *	  Everything the sealed query can touch, taken or loaded before it
 *	  reads its first row (sealprep.h).
 *
 * A scan does per-row work only for the rows a condition lets through, and
 * that work leaves things behind in the backend: a lock in pg_locks while a
 * value comes out of TOAST, a collator loaded for a comparison (and the
 * warning PostgreSQL gives once per backend when the collation's version
 * changed), an enum's labels or a type's support functions in the caches.
 * Anything left behind only for some rows would tell the analyst, after the
 * run or from a second session, whether a row matched.  So, from the
 * catalog alone, before the first row:
 *	  - the table's whole inheritance tree, each relation's TOAST relation
 *		and every index of both are share-locked (the locks a scan or a
 *		detoast takes, held to the end of the transaction: later takes
 *		change nothing in pg_locks) and their relation cache entries built;
 *	  - every type of every column of the tree, recursively through arrays,
 *		composites, ranges and domains, and text (what keys, classes and
 *		levels become): its input and output functions, its comparison,
 *		equality, hash and sort support, a composite's row type, an enum's
 *		labels and order, money's locale data;
 *	  - every collation of those columns and types and every collation an
 *		expression of the plan names (the owner's row-security code too):
 *		a comparison and a hash in it, which load the collator, check its
 *		version and fill the collation cache.
 * What cannot be prepared is refused before the charge (a key whose text
 * needs a catalog lookup per value: trainquery.c) or never depends on
 * which rows a condition selects (every filter condition runs on every
 * row: trainquery.c).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "protected/sealprep.h"

#include "access/genam.h"
#include "access/relation.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_enum.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_type.h"
#include "nodes/execnodes.h"
#include "nodes/nodeFuncs.h"
#include "storage/lmgr.h"
#include "utils/builtins.h"
#include "utils/catcache.h"
#include "utils/fmgrprotos.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/sortsupport.h"
#include "utils/syscache.h"
#include "utils/typcache.h"
#include "utils/varlena.h"

/* how deep types nest (arrays of composites of ranges ...) before we stop */
#define PREP_TYPE_DEPTH 8

typedef struct Prep
{
	List	   *types;			/* type OIDs prepared */
	List	   *collations;		/* collation OIDs to load */
} Prep;

/* share-locks relid (locked already or not) and builds its relcache entry */
static void
prep_lock(Oid relid)
{
	LockRelationOid(relid, AccessShareLock);
	relation_close(relation_open(relid, NoLock), NoLock);
}

/* relid's indexes, its TOAST relation and the TOAST relation's indexes */
static void
prep_relation_family(Oid relid)
{
	Relation	rel = relation_open(relid, AccessShareLock);
	Oid			toast = rel->rd_rel->reltoastrelid;
	List	   *indexes = RelationGetIndexList(rel);
	ListCell   *lc;

	relation_close(rel, NoLock);
	foreach(lc, indexes)
		prep_lock(lfirst_oid(lc));
	if (!OidIsValid(toast))
		return;
	rel = relation_open(toast, AccessShareLock);
	indexes = RelationGetIndexList(rel);
	relation_close(rel, NoLock);
	foreach(lc, indexes)
		prep_lock(lfirst_oid(lc));
}

static void prep_type(Prep *p, Oid typid, int depth);

/* an enum's labels by OID (its output) and its order (its comparisons) */
static void
prep_enum(Oid typid)
{
	CatCList   *labels = SearchSysCacheList1(ENUMTYPOIDNAME, ObjectIdGetDatum(typid));
	TypeCacheEntry *tc = lookup_type_cache(typid, 0);
	Oid			first = InvalidOid;

	for (int i = 0; i < labels->n_members; i++)
	{
		Oid			label = ((Form_pg_enum) GETSTRUCT(&labels->members[i]->tuple))->oid;
		HeapTuple	tup = SearchSysCache1(ENUMOID, ObjectIdGetDatum(label));

		if (HeapTupleIsValid(tup))
			ReleaseSysCache(tup);
		if (!OidIsValid(first))
			first = label;
		else if (i == 1)
			(void) compare_values_of_enum(tc, first, label);
	}
	ReleaseSysCacheList(labels);
}

/* what a composite type's row holds */
static void
prep_composite(Prep *p, Oid typid, int depth)
{
	TupleDesc	desc = lookup_rowtype_tupdesc(typid, -1);

	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		if (att->attisdropped)
			continue;
		prep_type(p, att->atttypid, depth + 1);
		p->collations = list_append_unique_oid(p->collations, att->attcollation);
	}
	ReleaseTupleDesc(desc);
}

/* a sort on the type's "<", as a tuplesort prepares one, in a scratch context */
static void
prep_sort(Oid lt_opr, Oid collation)
{
	MemoryContext cxt = AllocSetContextCreate(CurrentMemoryContext, "dpobj sort support",
											  ALLOCSET_SMALL_SIZES);
	SortSupportData ssup;

	memset(&ssup, 0, sizeof(ssup));
	ssup.ssup_cxt = cxt;
	ssup.ssup_collation = collation;
	PrepareSortSupportFromOrderingOp(lt_opr, &ssup);
	MemoryContextDelete(cxt);
}

static void
prep_type(Prep *p, Oid typid, int depth)
{
	TypeCacheEntry *tc;
	Oid			func;
	Oid			ioparam;
	bool		varlena;
	FmgrInfo	flinfo;
	char		typtype;

	if (!OidIsValid(typid) || depth > PREP_TYPE_DEPTH || list_member_oid(p->types, typid))
		return;
	p->types = lappend_oid(p->types, typid);
	getTypeOutputInfo(typid, &func, &varlena);
	fmgr_info(func, &flinfo);
	getTypeInputInfo(typid, &func, &ioparam);
	fmgr_info(func, &flinfo);
	tc = lookup_type_cache(typid, TYPECACHE_EQ_OPR_FINFO | TYPECACHE_CMP_PROC_FINFO |
						   TYPECACHE_HASH_PROC_FINFO | TYPECACHE_HASH_EXTENDED_PROC_FINFO |
						   TYPECACHE_LT_OPR | TYPECACHE_GT_OPR);
	p->collations = list_append_unique_oid(p->collations, tc->typcollation);
	if (OidIsValid(tc->lt_opr))
		prep_sort(tc->lt_opr, tc->typcollation);
	if (typid == CASHOID)
		(void) DirectFunctionCall1(cash_out, Int64GetDatum(0));	/* loads the locale data */
	typtype = get_typtype(typid);
	if (typtype == TYPTYPE_DOMAIN)
	{
		(void) lookup_type_cache(typid, TYPECACHE_DOMAIN_BASE_INFO | TYPECACHE_DOMAIN_CONSTR_INFO);
		prep_type(p, getBaseType(typid), depth + 1);
	}
	else if (typtype == TYPTYPE_ENUM)
		prep_enum(typid);
	else if (typtype == TYPTYPE_COMPOSITE)
		prep_composite(p, typid, depth);
	else if (typtype == TYPTYPE_RANGE)
	{
		tc = lookup_type_cache(typid, TYPECACHE_RANGE_INFO);
		p->collations = list_append_unique_oid(p->collations, tc->rng_collation);
		prep_type(p, get_range_subtype(typid), depth + 1);
	}
	else if (typtype == TYPTYPE_MULTIRANGE)
	{
		(void) lookup_type_cache(typid, TYPECACHE_MULTIRANGE_INFO);
		prep_type(p, get_multirange_range(typid), depth + 1);
	}
	prep_type(p, get_element_type(typid), depth + 1);
}

/* a comparison and a hash in the collation: its collator, version check and cache entry */
static void
prep_collation(Oid collid)
{
	if (!OidIsValid(collid))
		return;
	(void) varstr_cmp("a", 1, "b", 1, collid);
	(void) DirectFunctionCall1Coll(hashtext, collid, PointerGetDatum(cstring_to_text("a")));
}

/* the relation's columns: their types and collations */
static void
prep_columns(Prep *p, Oid relid)
{
	Relation	rel = relation_open(relid, NoLock);
	TupleDesc	desc = RelationGetDescr(rel);

	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		if (att->attisdropped)
			continue;
		prep_type(p, att->atttypid, 0);
		p->collations = list_append_unique_oid(p->collations, att->attcollation);
	}
	relation_close(rel, NoLock);
}

/* every collation an expression names: its own, its inputs' */
static bool
prep_expr_collations(Node *node, void *arg)
{
	Prep	   *p = (Prep *) arg;

	if (node == NULL)
		return false;
	switch (nodeTag(node))
	{
		case T_Var:
		case T_Const:
		case T_Param:
		case T_Aggref:
		case T_WindowFunc:
		case T_SubscriptingRef:
		case T_FuncExpr:
		case T_OpExpr:
		case T_DistinctExpr:
		case T_NullIfExpr:
		case T_FieldSelect:
		case T_RelabelType:
		case T_CoerceViaIO:
		case T_ArrayCoerceExpr:
		case T_CaseExpr:
		case T_ArrayExpr:
		case T_CoalesceExpr:
		case T_MinMaxExpr:
		case T_CoerceToDomain:
		case T_CollateExpr:
			p->collations = list_append_unique_oid(p->collations, exprCollation(node));
			break;
		case T_RowCompareExpr:
			p->collations = list_concat_unique_oid(p->collations,
												   ((RowCompareExpr *) node)->inputcollids);
			break;
		default:
			break;
	}
	p->collations = list_append_unique_oid(p->collations, exprInputCollation(node));
	return expression_tree_walker(node, prep_expr_collations, arg);
}

/* the expressions of every node of the plan (subplans and init plans too) */
static bool
prep_plan_collations(PlanState *ps, void *arg)
{
	Plan	   *plan;

	if (ps == NULL)
		return false;
	plan = ps->plan;
	prep_expr_collations((Node *) plan->targetlist, arg);
	prep_expr_collations((Node *) plan->qual, arg);
	if (IsA(plan, NestLoop) || IsA(plan, MergeJoin) || IsA(plan, HashJoin))
		prep_expr_collations((Node *) ((Join *) plan)->joinqual, arg);
	if (IsA(plan, Result))
		prep_expr_collations(((Result *) plan)->resconstantqual, arg);
	return planstate_tree_walker(ps, prep_plan_collations, arg);
}

void
seal_prepare(Oid relid, PlanState *top)
{
	List	   *tree;
	ListCell   *lc;
	Prep		p = {NIL, NIL};

	/* the tree, locked as it is found, then each member's family in OID order */
	tree = find_all_inheritors(relid, AccessShareLock, NULL);
	list_sort(tree, list_oid_cmp);
	foreach(lc, tree)
		prep_relation_family(lfirst_oid(lc));
	foreach(lc, tree)
		prep_columns(&p, lfirst_oid(lc));
	prep_type(&p, TEXTOID, 0);
	prep_plan_collations(top, &p);
	foreach(lc, p.collations)
		prep_collation(lfirst_oid(lc));
}

/* the relations a parallel worker's part of the plan scans */
static bool
prep_worker_scans(PlanState *ps, void *arg)
{
	if (ps == NULL)
		return false;
	if (IsA(ps, SeqScanState) && ((ScanState *) ps)->ss_currentRelation != NULL)
		prep_relation_family(RelationGetRelid(((ScanState *) ps)->ss_currentRelation));
	return planstate_tree_walker(ps, prep_worker_scans, arg);
}

void
seal_prepare_worker(PlanState *top)
{
	prep_worker_scans(top, NULL);
}
