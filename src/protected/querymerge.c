/*-------------------------------------------------------------------------
 *
 * querymerge.c
 *	  A merged plan's cells (sqlcompile.h's "merge", made by sqlmerge.c):
 *	  validated, checked to cover the group columns' declared levels before
 *	  the charge, and the released cells summed into one group per merged
 *	  value -- post-processing of the released counts and sums alone.  A
 *	  merged interval adds its cells' endpoints: it holds whenever every
 *	  cell's interval holds (a union bound, conservative).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/lsyscache.h"

#include "base/pg_compat.h"
#include "model/encode.h"
#include "protected/queryrun.h"

/* cells at most (sqlmerge.c's bound) */
#define QUERYMERGE_MAX_CELLS 1000

struct QueryMerge
{
	int			nout;			/* the distinct merged values */
	int		   *target;			/* per cell: its merged group */
	QueryGroup *acc;			/* per merged group: the cells' sums */
	bool	   *seen;
};

static pg_noreturn void
querymerge_bad(const char *msg)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("dpobj.query_run: %s", msg),
			 errhint("query_run runs the plan a private query's rewrite made; write the SELECT itself.")));
}

/* a string's text, NULL for JSON null, else an error */
static char *
querymerge_text(JsonbValue *v)
{
	if (v->type == jbvNull)
		return NULL;
	if (v->type != jbvString)
		querymerge_bad("a merge cell's levels and value must be strings or null");
	return pnstrdup(v->val.string.val, v->val.string.len);
}

void
querymerge_parse(QueryPlan *p, JsonbContainer *merge)
{
	if (!JsonContainerIsArray(merge) || JsonContainerSize(merge) < 1 ||
		JsonContainerSize(merge) > QUERYMERGE_MAX_CELLS || p->nkeys < 1)
		querymerge_bad("the plan's \"merge\" must be an array of cells of its group columns");
	for (int i = 0; i < p->nstats; i++)
		if (p->stat_kind[i] != 'c' && p->stat_kind[i] != 's')
			querymerge_bad("a merged plan's statistics must be counts and sums");
	p->ncells = JsonContainerSize(merge);
	p->cells = palloc0(sizeof(char *) * p->ncells * p->nkeys);
	p->to = palloc0(sizeof(char *) * p->ncells);
	for (int c = 0; c < p->ncells; c++)
	{
		JsonbValue *e = getIthJsonbValueFromContainer(merge, c);
		JsonbValue *lv;

		if (e->type != jbvBinary || !JsonContainerIsArray(e->val.binary.data) ||
			JsonContainerSize(e->val.binary.data) != 2)
			querymerge_bad("a merge cell must be [levels, value]");
		lv = getIthJsonbValueFromContainer(e->val.binary.data, 0);
		if (lv->type != jbvBinary || !JsonContainerIsArray(lv->val.binary.data) ||
			JsonContainerSize(lv->val.binary.data) != p->nkeys)
			querymerge_bad("a merge cell's levels must be one per group column");
		for (int k = 0; k < p->nkeys; k++)
			p->cells[c * p->nkeys + k] =
				querymerge_text(getIthJsonbValueFromContainer(lv->val.binary.data, k));
		p->to[c] = querymerge_text(getIthJsonbValueFromContainer(e->val.binary.data, 1));
	}
}

/* the cell of these levels (NULL: other), or -1 */
static int
querymerge_find(const QueryPlan *p, char **levels)
{
	for (int c = 0; c < p->ncells; c++)
	{
		int			k;

		for (k = 0; k < p->nkeys; k++)
		{
			const char *a = p->cells[c * p->nkeys + k];

			if ((a == NULL) != (levels[k] == NULL) || (a != NULL && strcmp(a, levels[k]) != 0))
				break;
		}
		if (k == p->nkeys)
			return c;
	}
	return -1;
}

void
querymerge_check(const QueryPlan *p, Jsonb *enc, Oid t)
{
	Encoding   *e = enc ? encoding_parse(enc) : NULL;
	EncColumn **cols = palloc0(sizeof(EncColumn *) * p->nkeys);
	int		   *k = palloc0(sizeof(int) * p->nkeys);
	char	  **levels = palloc0(sizeof(char *) * p->nkeys);
	double		n = 1;
	Oid			in,
				ioparam;

	for (int i = 0; i < p->nkeys; i++)
	{
		for (int j = 0; e != NULL && j < e->ncols; j++)
			if (strcmp(e->cols[j].column, p->keys[i]) == 0)
				cols[i] = &e->cols[j];
		if (cols[i] == NULL || cols[i]->nlevels == 0)
			querymerge_bad("a merged plan's group columns must have declared levels");
		n *= cols[i]->nlevels + 1;
	}
	/* one cell per combination of levels ("other" included), each once */
	if (n != p->ncells)
		querymerge_bad("the plan's \"merge\" must have one cell per combination of levels");
	for (;;)
	{
		int			i;

		for (i = 0; i < p->nkeys; i++)
			levels[i] = k[i] == cols[i]->nlevels ? NULL : cols[i]->levels[k[i]];
		if (querymerge_find(p, levels) < 0)
			querymerge_bad("the plan's \"merge\" misses a cell of the declared levels");
		for (i = p->nkeys - 1; i >= 0; i--)
		{
			if (++k[i] <= cols[i]->nlevels)
				break;
			k[i] = 0;
		}
		if (i < 0)
			break;
	}
	getTypeInputInfo(t, &in, &ioparam);
	for (int c = 0; c < p->ncells; c++)
		if (p->to[c] != NULL)
			OidInputFunctionCall(in, p->to[c], ioparam, -1);
}

QueryMerge *
querymerge_begin(const QueryPlan *p)
{
	QueryMerge *m = palloc0(sizeof(QueryMerge));

	m->target = palloc(sizeof(int) * p->ncells);
	m->acc = palloc0(sizeof(QueryGroup) * p->ncells);
	m->seen = palloc0(sizeof(bool) * p->ncells);
	for (int c = 0; c < p->ncells; c++)
	{
		int			t;

		for (t = 0; t < m->nout; t++)
			if ((m->acc[t].merged == NULL) == (p->to[c] == NULL) &&
				(p->to[c] == NULL || strcmp(m->acc[t].merged, p->to[c]) == 0))
				break;
		if (t == m->nout)
		{
			m->acc[t].merged = p->to[c];
			m->acc[t].est = palloc0(sizeof(double) * p->nstats);
			m->acc[t].lo = palloc0(sizeof(double) * p->nstats);
			m->acc[t].hi = palloc0(sizeof(double) * p->nstats);
			m->acc[t].has = palloc0(sizeof(bool) * p->nstats);
			m->nout++;
		}
		m->target[c] = t;
	}
	return m;
}

void
querymerge_add(void *arg, const QueryPlan *p, const QueryGroup *g)
{
	QueryMerge *m = arg;
	char	  **levels = palloc(sizeof(char *) * p->nkeys);
	QueryGroup *a;
	int			c;

	for (int k = 0; k < p->nkeys; k++)
	{
		JsonbValue *gv = getKeyJsonValueFromContainer(&g->group->root, p->keys[k],
													  strlen(p->keys[k]), NULL);

		levels[k] = gv == NULL || gv->type != jbvString ? NULL :
			pnstrdup(gv->val.string.val, gv->val.string.len);
	}
	/* every released cell is one of the plan's (querymerge_check) */
	if ((c = querymerge_find(p, levels)) < 0)
		elog(ERROR, "dpobj: a released cell is not in the merge");
	a = &m->acc[m->target[c]];
	m->seen[m->target[c]] = true;
	for (int s = 0; s < p->nstats; s++)
	{
		a->est[s] += g->est[s];
		a->lo[s] += g->lo[s];
		a->hi[s] += g->hi[s];
		a->has[s] |= g->has[s];
	}
	pfree(levels);
}

void
querymerge_end(QueryMerge *m, const QueryPlan *p, QueryEmit emit, void *arg)
{
	for (int t = 0; t < m->nout; t++)
		if (m->seen[t])
			emit(arg, p, &m->acc[t]);
}
