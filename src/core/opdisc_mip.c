/*-------------------------------------------------------------------------
 *
 * opdisc_mip.c
 *	  The exact OPDisc oracle as a mixed-integer program solved by GLPK.
 *
 * Source: Neel et al. (ICML 2020), Appendix D.2, with the corrections of
 * docs/ALGORITHMS.md, "OPDisc".  For the grid W (tau = 1):
 *
 *   minimise  sum_u [ p_u (1 - b_u) + q_u b_u ]
 *             - (1/D) sum_j eta_j w_j
 *             - (eta_{d+1}/D) sum_t sqrt(D2 - t) s_t
 *
 *   columns   w_j   integer in [-B, B]                       (j = 1..d)
 *             z_jv  binary, one-hot of w_j over v with v^2 <= D2
 *             s_t   binary, one-hot of ||w||^2 over t = 0..D2
 *             b_u   binary, b_u = 1 iff <w, x_u> > 0          (distinct rows)
 *
 *   rows      sum_v z_jv = 1,   w_j - sum_v v z_jv = 0             (one-hot w)
 *             sum_t s_t = 1,    sum_t t s_t - sum_jv v^2 z_jv = 0  (||w||^2 exact)
 *             b_u = 1 => <w, a_u> >= 1 :  <w, a_u> - (M_u + 1) b_u >= -M_u
 *             b_u = 0 => <w, a_u> <= 0 :  <w, a_u> - M_u b_u <= 0
 *
 * a_u = round(Q x_u) is integer, so "<w, x_u> > 0" is exactly "<w, a_u> >= 1"
 * (the lattice margin), and M_u = min(B ||a_u||_1, D ||a_u||_2) bounds
 * |<w, a_u>| over W (per-row big-M).  The one-hot s_t makes the normalisation
 * coordinate sqrt(D^2 - ||w||^2) exact for both signs of eta_{d+1}, with no
 * quadratic constraint.
 *
 * With problem->value_cost set, the eta terms are replaced by separable
 * costs: value_cost on each z_jv and norm_cost on each s_t (RSPM,
 * docs/ALGORITHMS.md, "RSPM": the separator term is linear in the one-hot).
 *
 * Two exact reductions (they do not change the optimal value or argmin):
 *  - a row with p_u = q_u, or with a_u = 0 (then b_u = 0 is forced), has a
 *    loss that does not depend on how b_u is chosen: it becomes a constant;
 *  - b_u's cost coefficient q_u - p_u has a fixed sign, so the solver only
 *    ever wants to move b_u one way: when q_u > p_u it prefers b_u = 0 and
 *    only the row forcing b_u = 1 when <w, a_u> >= 1 can bind (the second
 *    implication above); when p_u > q_u only the first one can.  The other
 *    row is dropped: at any optimum b_u equals the indicator of <w, a_u> >= 1.
 *
 * GLPK rules (see docs/ARCHITECTURE.md): no longjmp out of GLPK callbacks —
 * the interrupt check sets a flag and calls glp_ios_terminate(); GLPK's
 * fatal-error hook longjmps only to this file's own jmp_buf and then frees
 * the whole GLPK environment; terminal output goes to problem->log.  The
 * returned w is rebuilt from the integer columns and its objective is
 * recomputed exactly (opdisc_objective) and compared with GLPK's.
 *
 * GLPK is not an exact oracle.  Its branch-and-cut works in floating point
 * with tolerances (tol_int, tol_obj, the LP's feasibility tolerances), so a
 * point it reports as optimal can be a near-optimal non-argmin: against
 * enumeration on small random instances it returned a wrong argmin on a
 * few instances in a thousand (docs/ORACLE.md, tests/unit/test_oracles.c
 * keeps one).  OPDisc's privacy needs the exact argmin (alpha = 0), so
 * opdisc_solve_mip() never releases by itself: opdisc_solve_mip_exact()
 * hands its point to the exact search as a starting incumbent and returns
 * the search's certified answer.
 *
 *-------------------------------------------------------------------------
 */
#include <glpk.h>
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/opdisc.h"

typedef struct MipContext
{
	const OPDiscProblem *p;
	bool		interrupted;
	long		nodes;			/* branch-and-bound nodes created so far */
} MipContext;

static jmp_buf mip_error_jmp;
static const OPDiscProblem *mip_log_problem;

static double
now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* GLPK terminal hook: route solver output to the problem's log sink */
static int
mip_term_hook(void *info, const char *s)
{
	(void) info;
	if (mip_log_problem != NULL && mip_log_problem->log != NULL)
		mip_log_problem->log(mip_log_problem->log_arg, s);
	return 1;					/* non-zero: GLPK prints nothing itself */
}

/* GLPK fatal error: leave GLPK through our own jmp_buf (never PostgreSQL's) */
static void
mip_error_hook(void *info)
{
	(void) info;
	longjmp(mip_error_jmp, 1);
}

/*
 * Branch-and-cut callback: called at every node.  No error is raised here;
 * a pending stop request terminates the search and is reported after
 * glp_intopt() returns.
 */
static void
mip_callback(glp_tree *tree, void *info)
{
	MipContext *ctx = (MipContext *) info;
	int			total;

	glp_ios_tree_size(tree, NULL, NULL, &total);
	ctx->nodes = total;
	if (ctx->p->should_stop != NULL && ctx->p->should_stop(ctx->p->stop_arg))
	{
		ctx->interrupted = true;
		glp_ios_terminate(tree);
	}
}

/* Largest |<w, a>| over the grid, as a double (big-M of one row) */
static double
row_big_m(const OPDiscProblem *p, const int64_t *a)
{
	double		l1 = 0.0;
	double		l2sq = 0.0;
	double		m_box;
	double		m_ball;

	for (int j = 0; j < p->d; j++)
	{
		double		v = (double) a[j];

		l1 += fabs(v);
		l2sq += v * v;
	}
	m_box = p->B * l1;
	/* D ||a||_2, rounded up and padded so floating point cannot cut it */
	m_ball = ceil(sqrt((double) p->D2 * l2sq) * (1.0 + 1e-12)) + 1.0;
	return floor(fmin(m_box, m_ball));
}

/*
 * Columns w_j (integer in [-B, B], objective -eta_j / D) and z_jv (one-hot
 * of w_j over the values v with v^2 <= D2, objective value_cost) with the
 * rows sum_v z_jv = 1 and w_j - sum_v v z_jv = 0.  Returns the first z column.
 */
static int
mip_add_weights(glp_prob *lp, const OPDiscProblem *p, double D, int *ind, double *val)
{
	int			d = p->d;
	int			zcol0;

	glp_add_cols(lp, d);
	for (int j = 0; j < d; j++)
	{
		glp_set_col_kind(lp, 1 + j, GLP_IV);
		glp_set_col_bnds(lp, 1 + j, GLP_DB, -p->B, p->B);
		if (p->value_cost == NULL)
			glp_set_obj_coef(lp, 1 + j, -p->eta[j] / D);
	}
	zcol0 = glp_get_num_cols(lp) + 1;
	for (int j = 0; j < d; j++)
	{
		int			first = glp_get_num_cols(lp) + 1;
		int			cnt = 0;
		int			r;

		for (int v = -p->B; v <= p->B; v++)
		{
			if ((long) v * v > p->D2)
				continue;
			glp_add_cols(lp, 1);
			glp_set_col_kind(lp, first + cnt, GLP_BV);
			if (p->value_cost != NULL)
				glp_set_obj_coef(lp, first + cnt,
								 p->value_cost[j * (2 * p->B + 1) + (v + p->B)]);
			/* row 1: ind/val[1..cnt]; row 2: ind/val[2..cnt+1] after w_j */
			ind[cnt + 1] = first + cnt;
			val[cnt + 1] = 1.0;
			cnt++;
		}
		/* sum_v z_jv = 1 */
		r = glp_add_rows(lp, 1);
		glp_set_row_bnds(lp, r, GLP_FX, 1.0, 1.0);
		glp_set_mat_row(lp, r, cnt, ind, val);
		/* w_j - sum_v v z_jv = 0 */
		r = glp_add_rows(lp, 1);
		glp_set_row_bnds(lp, r, GLP_FX, 0.0, 0.0);
		ind[1] = 1 + j;
		val[1] = 1.0;
		cnt = 0;
		for (int v = -p->B; v <= p->B; v++)
		{
			if ((long) v * v > p->D2)
				continue;
			ind[cnt + 2] = first + cnt;
			val[cnt + 2] = -(double) v;
			cnt++;
		}
		glp_set_mat_row(lp, r, cnt + 1, ind, val);
	}
	return zcol0;
}

/*
 * Columns s_t (one-hot of ||w||^2 = t, objective -(eta_{d+1}/D) sqrt(D2 - t)
 * or norm_cost[t]) with sum_t s_t = 1 and sum_t t s_t - sum_jv v^2 z_jv = 0.
 */
static void
mip_add_norm(glp_prob *lp, const OPDiscProblem *p, double D, int zcol0, int *ind, double *val)
{
	int			scol0 = glp_get_num_cols(lp) + 1;
	int			len = 0;
	int			col = zcol0;
	int			r;

	glp_add_cols(lp, p->D2 + 1);
	for (int t = 0; t <= p->D2; t++)
	{
		glp_set_col_kind(lp, scol0 + t, GLP_BV);
		if (p->value_cost == NULL)
			glp_set_obj_coef(lp, scol0 + t,
							 -p->eta[p->d] * sqrt((double) (p->D2 - t)) / D);
		else if (p->norm_cost != NULL)
			glp_set_obj_coef(lp, scol0 + t, p->norm_cost[t]);
		ind[t + 1] = scol0 + t;
		val[t + 1] = 1.0;
	}
	r = glp_add_rows(lp, 1);
	glp_set_row_bnds(lp, r, GLP_FX, 1.0, 1.0);
	glp_set_mat_row(lp, r, p->D2 + 1, ind, val);

	for (int t = 1; t <= p->D2; t++)
	{
		len++;
		ind[len] = scol0 + t;
		val[len] = (double) t;
	}
	for (int j = 0; j < p->d; j++)
		for (int v = -p->B; v <= p->B; v++)
		{
			if ((long) v * v > p->D2)
				continue;
			if (v != 0)
			{
				len++;
				ind[len] = col;
				val[len] = -(double) v * v;
			}
			col++;
		}
	r = glp_add_rows(lp, 1);
	glp_set_row_bnds(lp, r, GLP_FX, 0.0, 0.0);
	glp_set_mat_row(lp, r, len, ind, val);
}

/*
 * b_u and the per-row big-M implications (docs/ALGORITHMS.md, "OPDisc", the MIP of
 * Appendix D.2); returns the objective constant sum_u p_u.
 */
static double
mip_add_rows_loss(glp_prob *lp, const OPDiscProblem *p, int *ind, double *val)
{
	double		constant = 0.0;

	for (int u = 0; u < p->nrows; u++)
	{
		const int64_t *a = p->x + (int64_t) u * p->d;
		double		cost = (double) p->neg[u] - (double) p->pos[u];
		double		M;
		int			bcol;
		int			len = 0;
		int			r;

		constant += (double) p->pos[u];
		M = row_big_m(p, a);
		if (cost == 0.0 || M <= 0.0)
			continue;			/* loss of this row is a constant */

		bcol = glp_add_cols(lp, 1);
		glp_set_col_kind(lp, bcol, GLP_BV);
		glp_set_obj_coef(lp, bcol, cost);
		for (int j = 0; j < p->d; j++)
		{
			if (a[j] == 0)
				continue;
			len++;
			ind[len] = 1 + j;
			val[len] = (double) a[j];
		}
		len++;
		ind[len] = bcol;
		r = glp_add_rows(lp, 1);
		if (cost < 0.0)
		{
			/* solver wants b_u = 1: enforce b_u = 1 => <w, a_u> >= 1 */
			val[len] = -(M + 1.0);
			glp_set_row_bnds(lp, r, GLP_LO, -M, 0.0);
		}
		else
		{
			/* solver wants b_u = 0: enforce b_u = 0 => <w, a_u> <= 0 */
			val[len] = -M;
			glp_set_row_bnds(lp, r, GLP_UP, 0.0, 0.0);
		}
		glp_set_mat_row(lp, r, len, ind, val);
	}
	return constant;
}

/*
 * Builds the MIP.  Returns the problem; the caller deletes it.  Column
 * index of w_j is 1 + j.
 */
static glp_prob *
build_mip(const OPDiscProblem *p)
{
	glp_prob   *lp = glp_create_prob();
	double		D = sqrt((double) p->D2);
	int			maxlen = p->d * (2 * p->B + 1) + p->D2 + 2 + p->d + 2;
	int		   *ind = malloc(sizeof(int) * (maxlen + 1));
	double	   *val = malloc(sizeof(double) * (maxlen + 1));
	int			zcol0;

	if (ind == NULL || val == NULL)
	{
		free(ind);
		free(val);
		glp_delete_prob(lp);
		return NULL;
	}
	glp_set_prob_name(lp, "opdisc");
	glp_set_obj_dir(lp, GLP_MIN);
	zcol0 = mip_add_weights(lp, p, D, ind, val);
	mip_add_norm(lp, p, D, zcol0, ind, val);
	glp_set_obj_coef(lp, 0, mip_add_rows_loss(lp, p, ind, val));
	free(ind);
	free(val);
	return lp;
}

/*
 * glp_intopt on the built problem (exact gap, interrupts via mip_callback,
 * the time limit); sets result->status, message, nodes and, when GLPK has a
 * solution, w and solver_objective.  GLPK errors longjmp past this frame to
 * opdisc_solve_mip's setjmp.
 */
static void
mip_run(glp_prob *lp, const OPDiscProblem *p, MipContext *ctx, OPDiscResult *result)
{
	glp_iocp	iocp;
	int			ret;
	int			mstatus;

	glp_init_iocp(&iocp);
	iocp.msg_lev = GLP_MSG_ON;
	iocp.presolve = GLP_ON;
	iocp.mip_gap = 0.0;
	iocp.cb_func = mip_callback;
	iocp.cb_info = ctx;
	if (p->time_limit > 0)
		iocp.tm_lim = (p->time_limit * 1000.0 > 2e9) ? 2000000000 : (int) (p->time_limit * 1000.0);

	ret = glp_intopt(lp, &iocp);
	mstatus = glp_mip_status(lp);
	result->nodes = ctx->nodes;
	if (ret == 0 && mstatus == GLP_OPT)
		result->status = OPDISC_OPTIMAL;
	else if (ctx->interrupted)
	{
		result->status = OPDISC_INTERRUPTED;
		snprintf(result->message, sizeof(result->message), "solve interrupted");
	}
	else if (ret == GLP_ETMLIM)
	{
		result->status = OPDISC_TIME_LIMIT;
		snprintf(result->message, sizeof(result->message),
				 "time limit reached before optimality was proven");
	}
	else
	{
		result->status = OPDISC_FAILED;
		snprintf(result->message, sizeof(result->message),
				 "GLPK glp_intopt returned %d with MIP status %d", ret, mstatus);
	}
	/* rebuild w from the integer columns (only meaningful with a solution) */
	if (mstatus == GLP_OPT || mstatus == GLP_FEAS)
	{
		for (int j = 0; j < p->d; j++)
			result->w[j] = (int) lround(glp_mip_col_val(lp, 1 + j));
		result->solver_objective = glp_mip_obj_val(lp);
	}
}

/* Never trust the solver: a point in the grid, its objective recomputed exactly */
static void
mip_verify(const OPDiscProblem *p, OPDiscResult *result)
{
	if (!opdisc_in_grid(p, result->w))
	{
		memset(result->w, 0, sizeof(int) * p->d);
		if (result->status == OPDISC_OPTIMAL)
		{
			result->status = OPDISC_FAILED;
			snprintf(result->message, sizeof(result->message),
					 "solver returned a point outside the grid");
		}
	}
	result->objective = opdisc_objective(p, result->w);
	if (result->status == OPDISC_OPTIMAL &&
		fabs(result->objective - result->solver_objective) >
		OPDISC_OBJ_TOL * fmax(1.0, fabs(result->objective)))
	{
		result->status = OPDISC_FAILED;
		snprintf(result->message, sizeof(result->message),
				 "solver objective disagrees with its exact recomputation");
	}
}

/*
 * Writes the MIP that opdisc_solve_mip() solves (build_mip, the same columns,
 * rows and objective including its constant) to path in free MPS format, for
 * the standalone peer benchmark (bench/oracle/adult_bench -W).  Never called
 * by the extension: a data-derived MIP written to a file from the server
 * would leak the data.  Returns 0 on success, non-zero on failure.  GLPK
 * stores the objective constant as the objective row's RHS entry (with the
 * sign MPS readers subtract), so readers that honour it report the same
 * objective value; the caller must check.
 */
int
opdisc_write_mip(const OPDiscProblem *p, const char *path)
{
	glp_prob   *lp = build_mip(p);
	int			ret;

	if (lp == NULL)
		return -1;
	ret = glp_write_mps(lp, GLP_MPS_FILE, NULL, path);
	glp_delete_prob(lp);
	return ret;
}

/*
 * GLPK's limit on the bytes its environment holds (0: none).  Past it
 * glp_alloc raises GLPK's fatal error, which mip_error_hook turns into a
 * failed MIP whose environment is freed (the limit with it): the search
 * then starts from the problem's own point.  GLPK counts in megabytes.
 */
static void
mip_memory_limit(size_t bytes)
{
	size_t		mb = bytes >> 20;

	if (bytes == 0 || mb >= (size_t) INT_MAX)
		glp_mem_limit(INT_MAX);
	else
		glp_mem_limit(mb > 0 ? (int) mb : 1);
}

/*
 * The GLPK MIP oracle (opdisc.h).  Its answer is alpha-approximate under
 * GLPK's tolerances, so dpobj never releases it uncertified: see
 * opdisc_solve_mip_exact() below.
 */
void
opdisc_solve_mip(const OPDiscProblem *p, OPDiscResult *result)
{
	/* volatile: modified between setjmp and a possible longjmp */
	glp_prob   *volatile lp = NULL;
	MipContext	ctx;
	double		start = now_seconds();

	memset(result->w, 0, sizeof(int) * p->d);
	result->status = OPDISC_FAILED;
	result->objective = opdisc_objective(p, result->w);
	result->solver_objective = NAN;
	result->nodes = 0;
	result->message[0] = '\0';

	ctx.p = p;
	ctx.interrupted = false;
	ctx.nodes = 0;
	mip_log_problem = p;

	if (setjmp(mip_error_jmp) != 0)
	{
		/* GLPK hit an internal error; everything it allocated is freed here */
		glp_error_hook(NULL, NULL);
		glp_term_hook(NULL, NULL);
		glp_free_env();
		mip_log_problem = NULL;
		result->status = OPDISC_FAILED;
		snprintf(result->message, sizeof(result->message),
				 "GLPK reported an internal error");
		result->seconds = now_seconds() - start;
		return;
	}
	glp_error_hook(mip_error_hook, NULL);
	glp_term_hook(mip_term_hook, NULL);
	mip_memory_limit(p->mip_memory);

	lp = build_mip(p);
	if (lp == NULL)
		snprintf(result->message, sizeof(result->message), "out of memory building the MIP");
	else
	{
		mip_run(lp, p, &ctx, result);
		glp_delete_prob(lp);
	}
	mip_memory_limit(0);
	glp_error_hook(NULL, NULL);
	glp_term_hook(NULL, NULL);
	mip_log_problem = NULL;
	mip_verify(p, result);
	result->seconds = now_seconds() - start;
}

/*
 * The "mip" oracle as dpobj runs it: GLPK first (opdisc_solve_mip), then the
 * exact search (opdisc_solve_search) started from GLPK's point, within the
 * same time limit.  Only the search's certificate makes the answer OPTIMAL,
 * so the result is the exact argmin of the documented total order whatever
 * GLPK returned; nodes and seconds cover both solvers.  Whether GLPK's
 * point was the argmin goes to the log sink (never to the client).
 */
void
opdisc_solve_mip_exact(const OPDiscProblem *p, OPDiscResult *result)
{
	OPDiscProblem sp = *p;
	OPDiscResult mres;
	int		   *wm = calloc((size_t) (p->d > 0 ? p->d : 1), sizeof(int));
	double		start = now_seconds();
	char		line[200];

	if (wm == NULL)
	{
		memset(result->w, 0, sizeof(int) * p->d);
		result->status = OPDISC_FAILED;
		result->objective = opdisc_objective(p, result->w);
		snprintf(result->message, sizeof(result->message), "out of memory");
		return;
	}
	memset(&mres, 0, sizeof(mres));
	mres.w = wm;
	opdisc_solve_mip(p, &mres);
	if (mres.status == OPDISC_INTERRUPTED)
	{
		*result = (OPDiscResult) {.w = result->w};
		memcpy(result->w, wm, sizeof(int) * p->d);
		result->status = OPDISC_INTERRUPTED;
		result->objective = mres.objective;
		result->nodes = mres.nodes;
		snprintf(result->message, sizeof(result->message), "%s", mres.message);
		result->seconds = now_seconds() - start;
		free(wm);
		return;
	}
	/* the search gets what is left of the time limit */
	if (p->time_limit > 0)
	{
		sp.time_limit = p->time_limit - (now_seconds() - start);
		if (sp.time_limit <= 0)
			sp.time_limit = 1e-9;
	}
	sp.initial_w = (mres.status == OPDISC_OPTIMAL || mres.status == OPDISC_TIME_LIMIT) &&
		opdisc_in_grid(p, wm) ? wm : p->initial_w;
	opdisc_solve_search(&sp, result);
	result->solver_objective = mres.solver_objective;
	result->nodes += mres.nodes;
	result->seconds = now_seconds() - start;
	if (p->log != NULL)
	{
		snprintf(line, sizeof(line),
				 "GLPK status %d, objective %.9g; exact search status %d: GLPK's point %s\n",
				 (int) mres.status, mres.objective, (int) result->status,
				 result->status != OPDISC_OPTIMAL ? "not verified" :
				 memcmp(wm, result->w, sizeof(int) * p->d) == 0 ?
				 "is the certified argmin" : "is NOT the argmin (search's answer used)");
		p->log(p->log_arg, line);
	}
	free(wm);
}
