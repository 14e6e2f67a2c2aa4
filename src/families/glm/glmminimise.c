/*-------------------------------------------------------------------------
 *
 * glmminimise.c
 *	  dp_logistic's minimiser in the server (glm.h glm_minimise()): the
 *	  sparse design of a glm_state (huge palloc's), the solver's work
 *	  memory (reserved before the charge), the interrupt poll, and the
 *	  errors of the plain-C solver (glmsolve.c) as PostgreSQL errors.  The
 *	  solver always ends within the public bound (Newton, else the
 *	  accelerated descent of glmdescent.c), so no status of it depends on
 *	  the rows; only an interrupt or a bug stops a run here.
 *
 *	  The solver never longjmps: the poll callback only reports a pending
 *	  cancel or termination, the solver frees its memory and returns
 *	  GLMSOLVE_STOPPED, and mechanism_poll() then records the outcome
 *	  'cancelled' and raises the interrupt here.  A state that spilled
 *	  (rowspill.h) gives its design in blocks read from its file
 *	  (glm_minimise_blocks): the reader checks no interrupts (the solver
 *	  polls), and only a file error raises through the solver, whose work
 *	  memory is then this file's palloc'd block.
 *
 *-------------------------------------------------------------------------
 */
#include "base/dpobj.h"


#include "families/glm/glm.h"
#include "families/glm/glmblocks.h"
#include "core/glmsolve.h"
#include "mechanisms/mechanism.h"
#include "core/rowclip.h"

#include "miscadmin.h"
#include "utils/memutils.h"

/*
 * The arrays of a design built block after block, kept from block to block
 * and pass to pass (grown when a block needs more): allocating them per
 * block mapped and faulted in fresh pages on every pass.
 */
typedef struct DesignArrays
{
	Size		rows;			/* capacity of start (rows + 1) and of the observations (2 rows) */
	Size		nnz;			/* capacity of col and val */
	int64_t    *start;
	int		   *col;
	double	   *val;
	int		   *row;
	double	   *cnt;
	double	   *y;
} DesignArrays;

/* a huge array of n elements of size sz in mcxt, or the old one if it holds n */
static void *
design_array(void *old, Size have, Size n, Size sz, MemoryContext mcxt)
{
	if (old != NULL && have >= n)
		return old;
	if (old != NULL)
		pfree(old);
	return MemoryContextAllocExtended(mcxt, sz * Max(n, 1), MCXT_ALLOC_HUGE);
}

/*
 * The nonzero entries of the state's distinct rows, and 1 for the
 * intercept, and their observations (glmstate_observations), into a's
 * arrays (grown in mcxt as needed).  Their number is counted in 64 bits and
 * the arrays are huge allocations: the design is bounded by memory only,
 * never by a fixed size.
 */
static void
design_build(GLMSolveDesign *X, const GLMState *s, bool intercept, DesignArrays *a,
			 MemoryContext mcxt)
{
	int			d = s->rows.d;
	int64_t		nnz = 0;		/* glmsolve.h's type, which int64 need not be */
	Size		rows = (Size) s->rows.nrows;

	for (Size i = 0; i < rows * d; i++)
		nnz += (s->rows.x[i] != 0.0);
	nnz += intercept ? s->rows.nrows : 0;
	a->start = design_array(a->start, a->rows + 1, rows + 1, sizeof(int64_t), mcxt);
	a->row = design_array(a->row, 2 * a->rows, 2 * rows, sizeof(int), mcxt);
	a->cnt = design_array(a->cnt, 2 * a->rows, 2 * rows, sizeof(double), mcxt);
	a->y = design_array(a->y, 2 * a->rows, 2 * rows, sizeof(double), mcxt);
	a->rows = Max(a->rows, rows);
	a->col = design_array(a->col, a->nnz, (Size) nnz, sizeof(int), mcxt);
	a->val = design_array(a->val, a->nnz, (Size) nnz, sizeof(double), mcxt);
	a->nnz = Max(a->nnz, (Size) nnz);
	nnz = 0;
	for (int u = 0; u < s->rows.nrows; u++)
	{
		const double *x = s->rows.x + (Size) u * d;

		a->start[u] = nnz;
		for (int j = 0; j < d; j++)
			if (x[j] != 0.0)
			{
				a->col[nnz] = j;
				a->val[nnz++] = x[j];
			}
		if (intercept)
		{
			a->col[nnz] = d;
			a->val[nnz++] = 1.0;
		}
	}
	a->start[s->rows.nrows] = nnz;
	X->p = d + (intercept ? 1 : 0);
	X->nrows = s->rows.nrows;
	X->start = a->start;
	X->col = a->col;
	X->val = a->val;
	X->nobs = glmstate_observations_into(s, a->row, a->cnt, a->y);
	X->row = a->row;
	X->cnt = a->cnt;
	X->y = a->y;
}

/*
 * The state's sparse design, palloc'd.  dp_logistic builds it before the
 * charge, like the dense design of dp_noisysgd and dp_opsamp (glm_design).
 */
GLMSolveDesign *
glm_minimise_design(const GLMState *s, bool intercept)
{
	GLMSolveDesign *X = palloc0(sizeof(GLMSolveDesign));
	DesignArrays a = {0};

	design_build(X, s, intercept, &a, CurrentMemoryContext);
	return X;
}

/* a design in blocks built from a state's row blocks (glm_minimise_blocks) */
typedef struct DesignBlocks
{
	GLMSolveBlocks B;			/* first: the caller's handle */
	GLMSolveDesign *whole;		/* the one block, built at once; or NULL: */
	GLMBlocks  *rows;
	bool		intercept;
	double		clip;			/* > 0: rows clipped to this l2 norm (glm_minimise_clip) */
	DesignArrays arrays;		/* the current block's design */
	GLMSolveDesign X;
} DesignBlocks;

/*
 * Clips each row of X (its features: the intercept's 1 is the row's last
 * entry) to l2 norm R.  A fixed per-row map of the nonzero entries: a
 * zero stays zero, so the sparse pattern is the unclipped one's.
 */
static void
design_clip(const GLMSolveDesign *X, bool intercept, double R)
{
	double	   *val = (double *) X->val;	/* the design's own arrays */

	for (int u = 0; u < X->nrows; u++)
	{
		int64_t		a = X->start[u],
					n = X->start[u + 1] - a - (intercept ? 1 : 0);

		rowclip_apply(val + a, (int) n, R, false);
	}
}

/* GLMSolveBlocks.next: the design of the next row block */
static bool
design_next(void *arg, bool first, const GLMSolveDesign **block)
{
	DesignBlocks *db = (DesignBlocks *) arg;
	const GLMState *v = glmblocks_next(db->rows, first);

	if (v == NULL)
		return false;
	design_build(&db->X, v, db->intercept, &db->arrays, GetMemoryChunkContext(db));
	if (db->clip > 0)
		design_clip(&db->X, db->intercept, db->clip);
	*block = &db->X;
	return true;
}

GLMSolveBlocks *
glm_minimise_blocks(const GLMState *s, bool intercept)
{
	DesignBlocks *db = palloc0(sizeof(DesignBlocks));
	/* a block's rows (8d + 16 bytes each) and design (about 12d + 60) */
	int			rows = keptrows_block_rows(20 * (Size) s->rows.d + 80);

	db->intercept = intercept;
	/* a design within the bound is built once; a larger one block by block */
	if (keptrows_single(&s->rows, rows))
	{
		db->whole = glm_minimise_design(s, intercept);
		glmsolve_single_block(&db->B, db->whole);
		return &db->B;
	}
	db->rows = glmblocks_begin(s, rows);
	db->B.p = s->rows.d + (intercept ? 1 : 0);
	db->B.next = design_next;
	db->B.arg = db;
	/* known without a pass: the solver's first pass also thins (glmsolve.h) */
	db->B.nobs = keptrows_nobs(&s->rows);
	return &db->B;
}

void
glm_minimise_clip(GLMSolveBlocks *B, double R)
{
	DesignBlocks *db = (DesignBlocks *) B;

	if (db->whole != NULL)
		design_clip(db->whole, db->intercept, R);
	else
		db->clip = R;
}

/*
 * The solver's work memory for pp parameters (glmsolve_work_doubles), in
 * CurrentMemoryContext.  It depends on the public pp only: dp_logistic
 * reserves it before the charge, so that running out of it is never a
 * charged failure.
 */
double *
glm_minimise_work(int pp)
{
	size_t		n = glmsolve_work_doubles(pp);

	if (n == 0)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("dp_logistic: %d parameters are more than the minimiser supports", pp),
				 errhint("Use at most %d features.", GLMSOLVE_MAX_P - 1)));
	return palloc_extended(sizeof(double) * n, MCXT_ALLOC_HUGE);
}

/* the solver stopped for an interrupt: raise it (mechanism_poll records 'cancelled') */
static void
raise_stopped(int64 ledger_id)
{
	mechanism_poll(ledger_id);

	/* the interrupt was held off: the solver's work is gone, so still stop */
	ereport(ERROR,
			(errcode(ERRCODE_QUERY_CANCELED),
			 errmsg("dp_logistic: the minimiser was interrupted"),
			 errhint("The privacy budget of this run is spent; run it again.")));
}

void
glm_minimise(const GLMSolveDesign *X, double Reff, GLMLoss loss, double h, double reg,
			 const double *b, double *work, double *theta, int64 ledger_id)
{
	GLMSolveBlocks B;

	glmsolve_single_block(&B, X);
	glm_minimise_over(&B, Reff, loss, h, reg, b, work, theta, ledger_id);
}

void
glm_minimise_over(const GLMSolveBlocks *X, double Reff, GLMLoss loss, double h, double reg,
				  const double *b, double *work, double *theta, int64 ledger_id)
{
	GLMSolveSpec spec = {0};

	spec.loss = loss;
	spec.h = h;
	spec.reg = reg;
	spec.b = b;
	/* ||grad J|| <= GLM_GRAD_TOL L R_eff, L = 1 (glm.h) */
	spec.grad_tol = GLM_GRAD_TOL * Reff;
	spec.skip_newton = dpobj_glm_skip_newton;
	/* the warm start's thinned design (about 2^15 rows): a share of the cap */
	spec.warm_bytes = (size_t) dpobj_max_state_memory * 1024 / 4;
	spec.poll = mechanism_stop_pending;
	spec.work = work;
	switch (glmsolve_minimise_blocks(X, &spec, theta, NULL))
	{
		case GLMSOLVE_CONVERGED:
		case GLMSOLVE_BOUNDED:
			return;				/* within the public bound either way (glm.h) */
		case GLMSOLVE_STOPPED:
			raise_stopped(ledger_id);
			break;
		case GLMSOLVE_NO_MEMORY:
			ereport(ERROR,
					(errcode(ERRCODE_OUT_OF_MEMORY),
					 errmsg("out of memory"),
					 errdetail("dp_logistic's minimiser needs %d x %d doubles.", X->p, X->p),
					 errhint("Use fewer features.")));
			break;
		case GLMSOLVE_INVALID:
			break;
	}
	ereport(ERROR,
			(errcode(ERRCODE_INTERNAL_ERROR),
			 errmsg("dp_logistic: the minimiser refused its input"),
			 errhint("This is a bug in dpobj; please report it.")));
}
