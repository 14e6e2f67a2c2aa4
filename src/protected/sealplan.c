/*-------------------------------------------------------------------------
 *
 * sealplan.c
 *	  The sealed query's plan shape (sealplan.h).
 *
 * Where train() allows a parallel plan (DPProtectedContext.parallel), the
 * planner's choice between the serial aggregate and the partial aggregates
 * in parallel workers must not follow the rows.  Left to costs, it would
 * weigh the aggregate's estimated input rows, which come from the planner
 * statistics of a filter's column: derived from the rows and readable only
 * with SELECT on it.  So for the sealed query the finalising aggregate over
 * the workers' partial states is the only path kept whenever the table's
 * scan has a partial path (add_path may have dropped that aggregate as
 * dearer: it is then built again).  The scan's number of workers is
 * compute_parallel_worker's, from the table's size in pages (observable,
 * docs/SECURITY.md), the min_parallel_table_scan_size and
 * max_parallel_workers_per_gather settings -- no statistic and no row value.
 * The workers PostgreSQL then launches depend on free worker slots only.
 * A linked table's run (privacy units) gathers its path's join instead:
 * the leader bounds and aggregates the gathered rows (keep_gathered_join).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "protected/sealplan.h"
#include "context/protected.h"

#include "nodes/pathnodes.h"
#include "optimizer/pathnode.h"
#include "optimizer/planner.h"

static create_upper_paths_hook_type prev_upper_paths_hook = NULL;

/* the path finalises partial states from parallel workers */
static bool
path_finalises_partials(Path *path)
{
	return IsA(path, AggPath) &&
		((AggPath *) path)->aggsplit == AGGSPLIT_FINAL_DESERIAL;
}

/* the partially grouped relation of grouped, with its gathered paths; NULL if none */
static RelOptInfo *
partial_grouping_rel(PlannerInfo *root, RelOptInfo *grouped)
{
	ListCell   *lc;

	foreach(lc, root->upper_rels[UPPERREL_PARTIAL_GROUP_AGG])
	{
		RelOptInfo *rel = (RelOptInfo *) lfirst(lc);

		if (bms_equal(rel->relids, grouped->relids))
			return rel->pathlist != NIL && rel->cheapest_total_path != NULL ? rel : NULL;
	}
	return NULL;
}

/*
 * The finalising aggregate over the gathered partial states: kept alone when
 * the planner built it; built here as add_paths_to_grouping_rel does when
 * add_path had discarded it as dearer (a plain aggregate: one group).
 */
static void
keep_parallel_plan(PlannerInfo *root, RelOptInfo *grouped, GroupPathExtraData *extra)
{
	List	   *kept = NIL;
	ListCell   *lc;
	RelOptInfo *partial;

	foreach(lc, grouped->pathlist)
	{
		Path	   *path = (Path *) lfirst(lc);

		if (path_finalises_partials(path))
			kept = lappend(kept, path);
	}
	if (kept == NIL && extra->partial_costs_set && root->parse->groupClause == NIL &&
		(partial = partial_grouping_rel(root, grouped)) != NULL)
		kept = list_make1(create_agg_path(root, grouped, partial->cheapest_total_path,
										  grouped->reltarget, AGG_PLAIN,
										  AGGSPLIT_FINAL_DESERIAL, NIL,
										  (List *) extra->havingQual,
										  &extra->agg_final_costs, 1));
	if (kept != NIL)
		grouped->pathlist = kept;
}

/*
 * A query whose result is its scan and join: no aggregate, sort, window or
 * limit (OFFSET 0, which keeps a subquery apart, is none)
 */
static bool
query_is_scan_join(const Query *parse)
{
	Const	   *offset = (Const *) parse->limitOffset;

	if (offset != NULL &&
		(!IsA(offset, Const) || offset->constisnull || DatumGetInt64(offset->constvalue) != 0))
		return false;
	return parse->commandType == CMD_SELECT && !parse->hasAggs && !parse->hasWindowFuncs &&
		!parse->hasTargetSRFs && parse->groupClause == NIL && parse->groupingSets == NIL &&
		parse->havingQual == NULL && parse->sortClause == NIL && parse->distinctClause == NIL &&
		parse->setOperations == NULL && parse->limitCount == NULL && parse->rowMarks == NIL;
}

/*
 * A privacy unit's run (train.c: a linked table's) joins its path in a
 * materialized CTE that only the leader reads: that join is gathered from
 * the workers whenever it has a partial path (which follows the tables'
 * sizes in pages), never chosen by the join's estimated rows.  The gather
 * is built again when add_path had discarded it as dearer.
 */
static void
keep_gathered_join(PlannerInfo *root, RelOptInfo *joined, RelOptInfo *final)
{
	List	   *kept = NIL;
	ListCell   *lc;

	if (!query_is_scan_join(root->parse) || joined->partial_pathlist == NIL)
		return;
	foreach(lc, final->pathlist)
	{
		Path	   *path = (Path *) lfirst(lc);

		if (IsA(path, GatherPath) || IsA(path, GatherMergePath))
			kept = lappend(kept, path);
	}
	if (kept == NIL)
		kept = list_make1(create_gather_path(root, joined, linitial(joined->partial_pathlist),
											 joined->reltarget, NULL, NULL));
	final->pathlist = kept;
}

static void
seal_upper_paths(PlannerInfo *root, UpperRelationKind stage,
				 RelOptInfo *input_rel, RelOptInfo *output_rel, void *extra)
{
	const DPProtectedContext *ctx = dpobj_protected_peek();

	if (prev_upper_paths_hook)
		prev_upper_paths_hook(root, stage, input_rel, output_rel, extra);
	if (stage == UPPERREL_FINAL && ctx != NULL && ctx->parallel && !ctx->consumed &&
		ctx->rows_per_unit > 0)
	{
		keep_gathered_join(root, input_rel, output_rel);
		return;
	}
	/* only the sealed query's own aggregate, before its final function ran */
	if (stage != UPPERREL_GROUP_AGG || ctx == NULL || !ctx->parallel ||
		ctx->consumed || root->parent_root != NULL || extra == NULL)
		return;
	keep_parallel_plan(root, output_rel, (GroupPathExtraData *) extra);
}

void
seal_plan_init(void)
{
	prev_upper_paths_hook = create_upper_paths_hook;
	create_upper_paths_hook = seal_upper_paths;
}
