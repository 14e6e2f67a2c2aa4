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
#include "dpobj.h"


#include "glm.h"
#include "glmblocks.h"
#include "glmsolve.h"
#include "mechanism.h"

#include "miscadmin.h"
#include "utils/memutils.h"

/* the observations of the state's rows (glmstate_observations) */
static void
design_observations(GLMSolveDesign *X, const GLMState *s)
{
	int		   *row;
	double	   *cnt;
	double	   *y;

	X->nobs = glmstate_observations(s, &row, &cnt, &y);
	X->row = row;
	X->cnt = cnt;
	X->y = y;
}

/*
 * The nonzero entries of the state's distinct rows, and 1 for the
 * intercept.  Their number is counted in 64 bits and the arrays are huge
 * allocations: the design is bounded by memory only, never by a fixed size.
 */
static void
design_build(GLMSolveDesign *X, const GLMState *s, bool intercept)
{
	int			d = s->d;
	int64_t		nnz = 0;		/* glmsolve.h's type, which int64 need not be */
	int64_t    *start = palloc_extended(sizeof(int64_t) * ((Size) s->nrows + 1),
										MCXT_ALLOC_HUGE);
	int		   *col;
	double	   *val;

	for (Size i = 0; i < (Size) s->nrows * d; i++)
		nnz += (s->x[i] != 0.0);
	nnz += intercept ? s->nrows : 0;
	col = palloc_extended(sizeof(int) * (Size) Max(nnz, 1), MCXT_ALLOC_HUGE);
	val = palloc_extended(sizeof(double) * (Size) Max(nnz, 1), MCXT_ALLOC_HUGE);
	nnz = 0;
	for (int u = 0; u < s->nrows; u++)
	{
		const double *x = s->x + (Size) u * d;

		start[u] = nnz;
		for (int j = 0; j < d; j++)
			if (x[j] != 0.0)
			{
				col[nnz] = j;
				val[nnz++] = x[j];
			}
		if (intercept)
		{
			col[nnz] = d;
			val[nnz++] = 1.0;
		}
	}
	start[s->nrows] = nnz;
	X->p = d + (intercept ? 1 : 0);
	X->nrows = s->nrows;
	X->start = start;
	X->col = col;
	X->val = val;
	design_observations(X, s);
}

/*
 * The state's sparse design, palloc'd.  dp_logistic builds it before the
 * charge, like the dense design of dp_noisysgd and dp_opsamp (glm_design).
 */
GLMSolveDesign *
glm_minimise_design(const GLMState *s, bool intercept)
{
	GLMSolveDesign *X = palloc0(sizeof(GLMSolveDesign));

	design_build(X, s, intercept);
	return X;
}

/* a design in blocks built from a state's row blocks (glm_minimise_blocks) */
typedef struct DesignBlocks
{
	GLMSolveBlocks B;
	GLMBlocks  *rows;
	bool		intercept;
	MemoryContext cxt;			/* the current block's design */
	GLMSolveDesign X;
} DesignBlocks;

/* GLMSolveBlocks.next: the design of the next row block */
static bool
design_next(void *arg, bool first, const GLMSolveDesign **block)
{
	DesignBlocks *db = (DesignBlocks *) arg;
	const GLMState *v = glmblocks_next(db->rows, first);
	MemoryContext old;

	if (v == NULL)
		return false;
	MemoryContextReset(db->cxt);
	old = MemoryContextSwitchTo(db->cxt);
	design_build(&db->X, v, db->intercept);
	MemoryContextSwitchTo(old);
	*block = &db->X;
	return true;
}

GLMSolveBlocks *
glm_minimise_blocks(const GLMState *s, bool intercept)
{
	DesignBlocks *db = palloc0(sizeof(DesignBlocks));
	/* a block's rows (8d + 16 bytes each) and design (about 12d + 60) */
	int			rows = glmblocks_rows(20 * (Size) s->d + 80);

	/* a design within the bound is built once; a larger one block by block */
	if (glmblocks_single(s, rows))
	{
		glmsolve_single_block(&db->B, glm_minimise_design(s, intercept));
		return &db->B;
	}
	db->rows = glmblocks_begin(s, rows);
	db->intercept = intercept;
	db->cxt = AllocSetContextCreate(CurrentMemoryContext, "dpobj design block",
									ALLOCSET_DEFAULT_SIZES);
	db->B.p = s->d + (intercept ? 1 : 0);
	db->B.next = design_next;
	db->B.arg = db;
	return &db->B;
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

/* a cancel or termination is pending (mechanism_poll()'s condition); never raises */
static bool
interrupt_pending(void *arg)
{
	return QueryCancelPending || ProcDiePending;
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
	spec.poll = interrupt_pending;
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
