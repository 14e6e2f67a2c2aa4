/*-------------------------------------------------------------------------
 *
 * opdisc.h
 *	  The OPDisc oracle problem: L(D, w) - <eta, pi(w)> over the integer grid
 *	  W = { w in Z^d : |w_j| <= B, ||w||^2 <= D2 }  (tau = 1).
 *
 * Source: Neel, Roth, Vietri, Wu, "Differentially Private Objective
 * Perturbation: Beyond Smoothness and Convexity" (ICML 2020), Algorithm 1
 * and Appendix D.2; docs/ALGORITHMS.md, "OPDisc".
 *
 * This header and the oracle files (opdisc_objective.c, opdisc_mip.c,
 * opdisc_search.c) are plain C: they include no PostgreSQL header, never
 * longjmp, and free everything they allocate on every return path.  The
 * server side (halfspace.c) supplies a stop callback that looks at the
 * backend's pending interrupts and raises them after the oracle returns.
 *
 * Features are quantised to the lattice (1/Q)Z before they reach an oracle:
 * a_uj = round(Q * x_uj) is stored as int64.  With integer w, Q<w, x_u> =
 * <w, a_u> is an integer, so "<w, x_u> > 0" is exactly "<w, a_u> >= 1" and
 * every oracle can decide each row's prediction in exact integer arithmetic.
 *
 *-------------------------------------------------------------------------
 */
#ifndef DPOBJ_OPDISC_H
#define DPOBJ_OPDISC_H

#include <stdbool.h>
#include <stdint.h>

/* Return true when the solve must stop now (query cancel, backend exit). */
typedef bool (*opdisc_stop_fn) (void *arg);

/* Receives solver chatter (one or more lines); never data for the client. */
typedef void (*opdisc_log_fn) (void *arg, const char *text);

typedef struct OPDiscProblem
{
	int			d;				/* dimension (number of features) */
	int			nrows;			/* number of distinct quantised rows */
	const int64_t *x;			/* nrows x d, row-major: a_uj = round(Q x_uj) */
	const int64_t *pos;			/* p_u: rows with label +1 and features a_u */
	const int64_t *neg;			/* q_u: rows with label -1 and features a_u */
	int			B;				/* box bound: |w_j| <= B */
	int			D2;				/* squared norm bound: ||w||^2 <= D2 */
	const double *eta;			/* noise eta_1..eta_{d+1} (length d + 1) */

	/*
	 * Optional separable costs that replace the eta terms (RSPM and other
	 * mechanisms whose perturbation is not <eta, pi(w)>).  When value_cost
	 * is set, the objective is
	 *   L(D, w) + sum_j value_cost[j*(2B+1) + (w_j + B)] + norm_cost[||w||^2]
	 * (norm_cost may be NULL = 0) and eta is ignored.
	 */
	const double *value_cost;	/* d x (2B+1), or NULL */
	const double *norm_cost;	/* D2 + 1, or NULL */

	/* control: none of these affects the argmin */
	const int  *initial_w;		/* optional grid point to start from (a hint:
								 * e.g. another oracle's answer), or NULL */
	double		time_limit;		/* seconds; <= 0 means no limit */
	int			threads;		/* exact search threads; <= 1: the caller's
								 * thread only (opdisc_pool.h) */
	size_t		mip_memory;		/* "mip": bytes GLPK may hold (at least 1 MB;
								 * 0: no limit); past it GLPK fails and the
								 * search starts from initial_w: the same
								 * answer */
	opdisc_stop_fn should_stop;	/* may be NULL */
	void	   *stop_arg;
	opdisc_log_fn log;			/* may be NULL */
	void	   *log_arg;
} OPDiscProblem;

typedef enum OPDiscStatus
{
	OPDISC_OPTIMAL = 0,			/* argmin found and certified */
	OPDISC_TIME_LIMIT,			/* stopped by time_limit, not certified */
	OPDISC_INTERRUPTED,			/* stopped by should_stop, not certified */
	OPDISC_FAILED				/* solver failure / inconsistency; message says */
} OPDiscStatus;

typedef struct OPDiscResult
{
	OPDiscStatus status;
	int		   *w;				/* caller-allocated, length d: the argmin */
	double		objective;		/* opdisc_objective(problem, w), exact */
	double		solver_objective;	/* what the solver reported (MIP) */
	long		nodes;			/* search / branch-and-bound nodes */
	double		seconds;		/* wall time spent in the oracle */
	char		message[256];	/* human-readable reason when not OPTIMAL */
} OPDiscResult;

/* Objective value of w (docs/ALGORITHMS.md, "OPDisc"; see value_cost above):
 *   sum_u [ p_u (1 - b_u) + q_u b_u ]  -  (1/D) sum_j eta_j w_j
 *                                      -  (eta_{d+1}/D) sqrt(D2 - ||w||^2)
 * with b_u = 1 iff <w, a_u> >= 1 (sgn(0) = -1).  w must lie in the grid. */
extern double opdisc_objective(const OPDiscProblem *p, const int *w);

/* Integer 0/1 loss of w: sum_u p_u (1 - b_u) + q_u b_u. */
extern int64_t opdisc_loss(const OPDiscProblem *p, const int *w);

/* True if w lies in the grid W (box and norm constraints). */
extern bool opdisc_in_grid(const OPDiscProblem *p, const int *w);

/* Number of grid points, saturating at 1e300 (for choosing an oracle). */
extern double opdisc_grid_size(int d, int B, int D2);

/*
 * The default grid of a d-feature table: D2 = min(d, OPDISC_DEFAULT_D2) and
 * B = floor(sqrt(min(d, D2))) (a larger B adds no grid point once ||w||^2 <=
 * D2).  A public rule of d only.  The sound noise grows with D2 (the shift's
 * norm is 4 D2) while the 0/1 loss only sees w's direction, so a small norm
 * bound both fits better and certifies faster on the oracle ladder
 * (docs/ORACLE.md, "The default grid").  The paper's grid (B = floor(sqrt d),
 * D2 = d) stays available through the options.  d2_option / b_option: the
 * caller's values, or <= 0 for the default.
 */
#define OPDISC_DEFAULT_D2 4
extern void opdisc_default_grid(int d, int b_option, int d2_option, int *B, int *D2);

/*
 * Lexicographic enumeration of the grid {w in Z^d : |w_j| <= B, ||w||^2 <=
 * D2} (values ordered -B < ... < B): first sets the smallest point, next the
 * successor (false after the last).  Each step costs O(d), however few of
 * the box's (2B + 1)^d points lie in the grid.
 */
extern void opdisc_grid_first(int *w, int d, int B, int D2);
extern bool opdisc_grid_next(int *w, int d, int B, int D2);

/* Relative tolerance for comparing objective values of the same w. */
#define OPDISC_OBJ_TOL 1e-7

/*
 * Oracles.  Each fills result->w with a grid point and
 * result->objective with opdisc_objective(w).  The exact ones
 * (opdisc_solve_search, opdisc_solve_mip_exact) set OPDISC_OPTIMAL only
 * when w is proven to be the argmin of the documented total order
 * (objective, then lexicographically smallest w; docs/ORACLE.md).
 */
extern void opdisc_solve_search(const OPDiscProblem *p, OPDiscResult *result);	/* DFS */

/*
 * What opdisc_solve_search() allocates at most on n distinct rows of d
 * features, grid (B, D2), with the given threads: per_row * n + fixed
 * bytes, whatever the rows (opdisc_searchsetup.c counts its tables).
 */
extern void opdisc_search_memory(int d, int B, int D2, int threads,
								 double *per_row, double *fixed);

/*
 * GLPK branch-and-cut on the MIP of Appendix D.2.  NOT exact: GLPK's
 * floating-point tolerances can make it report a near-optimal point as
 * optimal (docs/ORACLE.md).  Used only as a warm start and cross-check:
 * opdisc_solve_mip_exact() runs it, then certifies with the exact search
 * started from its point; only that function's OPTIMAL may be released.
 */
extern void opdisc_solve_mip(const OPDiscProblem *p, OPDiscResult *result);
extern void opdisc_solve_mip_exact(const OPDiscProblem *p, OPDiscResult *result);

/*
 * Benchmark only (bench/oracle/adult_bench): write opdisc_solve_mip()'s MIP
 * to path as free MPS.  Returns 0 on success.  Never exposed in SQL.
 */
extern int	opdisc_write_mip(const OPDiscProblem *p, const char *path);


#endif							/* DPOBJ_OPDISC_H */
