/*-------------------------------------------------------------------------
 *
 * synthfit.c
 *	  A run that fits dpobj.max_state_memory (synthfit.h).
 *
 *-------------------------------------------------------------------------
 */
#include "families/synth/synthfit.h"

#include <math.h>

#include "base/dpobj.h"
#include "base/pg_compat.h"
#include "core/synthrows.h"
#include "core/synthwork.h"
#include "lib/stringinfo.h"
#include "utils/memutils.h"

/* the entry point the messages name */
#define SYNTHFIT_NAME				"dpobj.synthesize"

/* the distinct-row hash: at most 2^20 slots, at most 1/16 of the memory cap */
#define SYNTH_HASH_MAX_SLOTS		(INT64CONST(1) << 20)

/* no cap on a set's cells */
#define SYNTH_NO_SET_CAP			(INT64CONST(1) << 62)

/* the fit's steps (each shrinks a share by a quarter: 2^26 cells in fewer than 70) */
#define SYNTH_FIT_MAX_STEPS			400

/* the sets the NOTICE names */
#define SYNTH_FIT_NAMED				5

int64
synthfit_cap_bytes(void)
{
	return (int64) dpobj_max_state_memory * 1024;
}

/* dpobj.max_state_memory as its messages show it: "256 MB", "64 kB" */
static char *
synthfit_cap_text(void)
{
	return dpobj_max_state_memory % 1024 == 0 ?
		psprintf("%d MB", dpobj_max_state_memory / 1024) :
		psprintf("%d kB", dpobj_max_state_memory);
}

/* bytes > 0: the bound with the single columns alone; else they exceed max_state_cells */
static pg_noreturn void
synthfit_refuse(double bytes, int64 max_state_cells)
{
	if (bytes <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: the columns' single levels alone need more than " INT64_FORMAT " counts (\"max_state_cells\")",
						SYNTHFIT_NAME, max_state_cells),
				 errdetail("Nothing was charged."),
				 errhint("Synthesize fewer columns, declare fewer levels or bins, or raise \"max_state_cells\" (or dpobj.max_state_memory).")));
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("%s: the single columns alone need up to %.0f MB, more than dpobj.max_state_memory (%s)",
					SYNTHFIT_NAME, ceil(bytes / 1048576.0), synthfit_cap_text()),
			 errdetail("Nothing was charged."),
			 errhint("Synthesize fewer columns, declare fewer levels or bins, lower \"max_model_cells\", or ask a superuser to raise dpobj.max_state_memory.")));
}

/* the workload's sets: the analyst's, else the default workload (core/synthwork.h) */
static const SynthSet *
synthfit_workload(const SynthFit *p, int *n)
{
	SynthSet   *c;

	if (p->workload != NULL)
	{
		*n = p->nworkload;
		return p->workload;
	}
	c = palloc(sizeof(SynthSet) * SYNTH_DEFAULT_MAX_WORKLOAD);
	*n = synth_workload_default(p->d, p->label, SYNTH_DEFAULT_MAX_WORKLOAD, c);
	if (*n < 0)
		ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory")));
	return c;
}

/* s if it has at most cap cells, else its subsets one column smaller, recursively */
static void
synthfit_coarsen(const SynthFit *p, SynthSet s, int64 cap, SynthSet *out, int *n)
{
	if (synth_set_size(s) <= 1 || synth_set_cells(s, p->levels, SYNTH_NO_SET_CAP) <= cap)
	{
		out[(*n)++] = s;		/* a single column is always stored */
		return;
	}
	for (SynthSet a = s; a; a &= a - 1)
		synthfit_coarsen(p, s & ~(a & -a), cap, out, n);
}

/* the layout's input: the workload's sets, each coarsened to at most cap cells */
static SynthSet *
synthfit_sets(const SynthFit *p, const SynthSet *w, int nw, int64 cap, int *n)
{
	/* a set of c columns gives at most c! / 1 subsets down to the singles: 4! = 24 */
	SynthSet   *out = palloc(sizeof(SynthSet) * (size_t) nw * 24);

	*n = 0;
	for (int i = 0; i < nw; i++)
		synthfit_coarsen(p, w[i], cap, out, n);
	return out;
}

/* the sum and the largest of the cells of the candidates (w's subsets) the layout covers */
static void
synthfit_candidate_cells(const SynthFit *p, const SynthSet *w, int nw,
						 double *sum, double *largest)
{
	*sum = 0;
	*largest = 0;
	for (int i = 0; i < nw; i++)
		for (SynthSet sub = w[i]; sub; sub = (sub - 1) & w[i])
			if (synth_layout_covers(p->layout, sub) >= 0)
			{
				double		c = (double) synth_set_cells(sub, p->model_levels, SYNTH_NO_SET_CAP);

				*sum += c;
				*largest = Max(*largest, c);
			}
}

/*
 * The bound of the file header for p's layout; *state its share that
 * max_state_cells bounds, *meas the share that max_set_cells bounds.
 */
static double
synthfit_bytes(SynthFit *p, const SynthSet *w, int nw, double *state, double *meas)
{
	double		sum,
				largest,
				rounds = p->rounds;
	int64		slots = Min(SYNTH_HASH_MAX_SLOTS, synthfit_cap_bytes() / 16 / 16);

	p->hash_slots = synth_rows_usable(p->layout) && slots >= 1024 ? slots : 0;
	synthfit_candidate_cells(p, w, nw, &sum, &largest);
	*state = 2.0 * (synth_layout_bytes(p->layout) + 8.0 * p->sums) +
		(p->hash_slots > 0 ? synth_rows_bytes(p->layout, p->hash_slots) : 0) + 24.0 * sum;
	*meas = 16.0 * (p->d + rounds) * largest;
	return *state + *meas + 96.0 * p->max_model_cells + 1024.0 * (p->d + rounds);
}

/* the most cells of a single column */
static int64
synthfit_single_cells(const SynthFit *p)
{
	int64		m = 0;

	for (int j = 0; j < p->d; j++)
		m = Max(m, p->levels[j]);
	return m;
}

/* the largest set the layout stores */
static int64
synthfit_largest_stored(const SynthFit *p)
{
	int64		m = 0;

	for (int k = 0; k < p->layout->nstored; k++)
		m = Max(m, p->layout->stored[k].ncells);
	return m;
}

static void
synthfit_free_layout(void *arg)
{
	synth_layout_free((SynthLayout *) arg);
}

void
synthfit_fit(SynthFit *p, MemoryContext cxt)
{
	MemoryContextCallback *cb = MemoryContextAllocZero(cxt, sizeof(MemoryContextCallback));
	int			nw,
				ns;
	const SynthSet *w = synthfit_workload(p, &nw);
	int64		single = synthfit_single_cells(p),
				singles = 0;
	double		bytes = 0,
				state,
				meas;

	for (int j = 0; j < p->d; j++)
		singles += p->levels[j];	/* the least state: the single columns' counts */
	if (p->max_set_cells <= 0)
		p->max_set_cells = SYNTH_NO_SET_CAP;
	cb->func = synthfit_free_layout;
	cb->arg = p->layout;
	MemoryContextRegisterResetCallback(cxt, cb);
	for (int step = 0; step < SYNTH_FIT_MAX_STEPS; step++)
	{
		SynthSet   *s = synthfit_sets(p, w, nw, p->max_set_cells, &ns);
		SynthStatus st;

		synth_layout_free(p->layout);
		st = synth_layout_build(p->d, p->levels, s, ns, p->max_state_cells, p->layout);
		pfree(s);
		if (st == SYNTH_NOMEM)
			ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory")));
		if (st != SYNTH_OK)
			synthfit_refuse(0, p->max_state_cells);	/* the singles exceed max_state_cells */
		bytes = synthfit_bytes(p, w, nw, &state, &meas);
		if (bytes <= (double) synthfit_cap_bytes())
		{
			p->run_bytes = (int64) bytes;
			return;
		}
		/* the larger share shrinks; a set of the single columns' size is the least */
		if (meas >= state && synthfit_largest_stored(p) > single)
			p->max_set_cells = Max(synthfit_largest_stored(p) * 3 / 4, single);
		else if (p->layout->cells > singles)
			p->max_state_cells = Max(p->layout->cells * 3 / 4, singles);
		else
			break;
	}
	if (96.0 * p->max_model_cells > synthfit_cap_bytes() / 2)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: \"max_model_cells\" (" INT64_FORMAT ") needs %.0f MB, more than half of dpobj.max_state_memory (%s)",
						SYNTHFIT_NAME, p->max_model_cells, ceil(96.0 * p->max_model_cells / 1048576.0),
						synthfit_cap_text()),
				 errdetail("Nothing was charged."),
				 errhint("Lower \"max_model_cells\" (96 bytes a cell), or ask a superuser to raise dpobj.max_state_memory.")));
	synthfit_refuse(bytes, p->max_state_cells);
}

/* "(a, b, c)" */
static void
synthfit_append_set(StringInfo b, const SynthFit *p, SynthSet s)
{
	bool		first = true;

	appendStringInfoChar(b, '(');
	for (int j = 0; j < p->d; j++)
		if (s & SYNTH_BIT(j))
		{
			appendStringInfo(b, "%s%s", first ? "" : ", ", p->names[j]);
			first = false;
		}
	appendStringInfoChar(b, ')');
}

void
synthfit_notice(const SynthFit *p)
{
	int			nw,
				left = 0;
	const SynthSet *w = synthfit_workload(p, &nw);
	StringInfoData b;

	initStringInfo(&b);
	for (int i = 0; i < nw; i++)
		if (synth_layout_covers(p->layout, w[i]) < 0)
		{
			if (left < SYNTH_FIT_NAMED)
			{
				appendStringInfoString(&b, left > 0 ? ", " : "");
				synthfit_append_set(&b, p, w[i]);
			}
			left++;
		}
	if (left == 0)
		return;
	ereport(NOTICE,
			(errmsg("%s: %d of the %d workload column sets are left out to fit dpobj.max_state_memory (%s): %s%s",
					SYNTHFIT_NAME, left, nw, synthfit_cap_text(), b.data,
					left > SYNTH_FIT_NAMED ? ", ..." : ""),
			 p->max_set_cells < SYNTH_NO_SET_CAP ?
			 errdetail("A set of more than " INT64_FORMAT " cells is replaced by its subsets; the state keeps at most " INT64_FORMAT " counts; the run needs up to %.0f MB (from the declared levels and the cap only).",
					   p->max_set_cells, p->max_state_cells, ceil(p->run_bytes / 1048576.0)) :
			 errdetail("The state keeps at most " INT64_FORMAT " counts; the run needs up to %.0f MB (from the declared levels and the cap only).",
					   p->max_state_cells, ceil(p->run_bytes / 1048576.0))));
}
