/*
 * test_opsamplp.c -- OPSamp's LP (src/core/opsamplp.c): GLPK's peak memory
 * (glp_mem_usage) while the LP is built and re-solved as dp_opsamp does stays
 * below opsamp_lp_fixed_bytes(p) + nobs * opsamp_lp_obs_bytes(p), the bound
 * that sizes OPSamp's sample (src/families/glm/glmstate.c), at several sizes and p
 * and for dense, sparse and label-alternating rows; and every solve reaches
 * an optimum, whose w (the rows' dual values) is the optimum of the LP in
 * its first form (opsamplp.h).  A solved LP reset with
 * opsamp_lp_start_basis has the built LP's basis, which GLPK finds valid
 * and dual feasible, and re-solves to the fresh LP's optimum in as many
 * iterations.  ./test_opsamplp NOBS P
 * [KIND] prints one measurement.
 */
#include <math.h>
#include <stdlib.h>

#include "core/opsamplp.h"
#include "unitcheck.h"

/* uniform on [0, 1) from the test's stream */
static double
unif(void)
{
	return (double) (unitcheck_next64() >> 11) / 9007199254740992.0;
}

/*
 * nobs rows of p features scaled to ||x||_1 = R1 = 2 (last feature the
 * intercept's 1 before scaling): kind 0 dense uniform with a label from a
 * linear rule plus noise, 1 sparse {-1, 0, 1} entries, 2 dense with
 * alternating labels (no separating w)
 */
static void
make_rows(double *X, double *cnt, double *y, int nobs, int p, int kind)
{
	for (int k = 0; k < nobs; k++)
	{
		double	   *x = X + (size_t) k * p;
		double		s = 0;

		for (int j = 0; j < p; j++)
		{
			x[j] = kind == 1 ? (double) ((int) (unif() * 3) - 1) : 2 * unif() - 1;
			if (kind != 1 && j == p - 1)
				x[j] = 1.0;
			s += fabs(x[j]);
		}
		for (int j = 0; j < p && s > 0; j++)
			x[j] *= 2.0 / s;
		y[k] = kind == 2 ? (k % 2 ? 1 : -1) : (x[0] + 0.3 * x[1] + 0.2 * (unif() - 0.5) > 0 ? 1 : -1);
		cnt[k] = 1 + (k % 3 == 0);
	}
}

/* an LP's observations, and p-vectors for its solves */
typedef struct Rows
{
	int			nobs;
	int			p;
	double	   *X;
	double	   *cnt;
	double	   *y;
	double	   *sigma;
	double	   *w;
	double	   *w_ref;
} Rows;

static void
rows_make(Rows *r, int nobs, int p, int kind)
{
	r->nobs = nobs;
	r->p = p;
	r->X = malloc(sizeof(double) * (size_t) nobs * p);
	r->cnt = malloc(sizeof(double) * nobs);
	r->y = malloc(sizeof(double) * nobs);
	r->sigma = malloc(sizeof(double) * p);
	r->w = malloc(sizeof(double) * p);
	r->w_ref = malloc(sizeof(double) * p);
	make_rows(r->X, r->cnt, r->y, nobs, p, kind);
}

static void
rows_free(Rows *r)
{
	free(r->X);
	free(r->cnt);
	free(r->y);
	free(r->sigma);
	free(r->w);
	free(r->w_ref);
}

/* sigma ~ Exp of this mean (opsamp: 1 / eta, about a third of the rows' weight) */
static void
draw_sigma(double *sigma, int p, double mean)
{
	for (int j = 0; j < p; j++)
		sigma[j] = -log(1 - unif()) * mean;
}

/*
 * w is the optimum of the LP in its first form (opsamplp.h): in the box,
 * and its objective sum_k c_k max(0, b - <a_k, w>) - <sigma, w> is the
 * dual form's optimal value z (weak duality: no w does better), relative
 * to the objective's scale
 */
static int
primal_optimal(const Rows *r, const double *sigma, const double *w, double z)
{
	double		f = 0,
				scale = 0;

	for (int k = 0; k < r->nobs; k++)
	{
		double		m = 1.0 / 3.0;	/* b - <a_k, w> at R1 = 2 */

		for (int j = 0; j < r->p; j++)
			m -= r->y[k] * r->X[(size_t) k * r->p + j] * w[j] / 3.0;
		f += r->cnt[k] * fmax(0, m);
		scale += r->cnt[k];
	}
	for (int j = 0; j < r->p; j++)
	{
		if (!(fabs(w[j]) <= 1))
			return 0;
		f -= sigma[j] * w[j];
		scale += sigma[j];
	}
	return fabs(f - z) <= 1e-9 * scale;
}

/*
 * solves lp with sigma, w its solution; the simplex iterations it took, -1
 * when not to an optimum of the first form
 */
static int
solve_w(glp_prob *lp, const Rows *r, const double *sigma, double *w)
{
	glp_smcp	smcp;
	int			it = glp_get_it_cnt(lp);
	int			rc;

	opsamp_lp_set_sigma(lp, r->p, sigma);
	opsamp_lp_smcp(&smcp, 250);
	while ((rc = glp_simplex(lp, &smcp)) == GLP_ETMLIM)
		;
	if (rc != 0 || glp_get_status(lp) != GLP_OPT)
		return -1;
	for (int j = 0; j < r->p; j++)
		w[j] = opsamp_lp_w(lp, j);
	return primal_optimal(r, sigma, w, glp_get_obj_val(lp)) ? glp_get_it_cnt(lp) - it : -1;
}

/* GLPK's peak bytes over the build and `solves` solves; *optimal all of them */
static double
lp_peak(int nobs, int p, int kind, int solves, int *optimal)
{
	Rows		r;
	glp_prob   *lp;
	int			count,
				cpeak;
	size_t		total,
				tpeak;

	rows_make(&r, nobs, p, kind);
	glp_term_out(GLP_OFF);
	lp = opsamp_lp_build(r.X, r.cnt, r.y, nobs, p, 2.0);
	*optimal = 1;
	for (int s = 0; s < solves; s++)
	{
		draw_sigma(r.sigma, p, nobs / 3.0);
		if (solve_w(lp, &r, r.sigma, r.w) < 0)
			*optimal = 0;
	}
	glp_mem_usage(&count, &cpeak, &total, &tpeak);
	glp_delete_prob(lp);
	glp_free_env();
	rows_free(&r);
	return (double) tpeak;
}

/* the statuses of lp and ref differ somewhere */
static int
basis_differs(glp_prob *lp, glp_prob *ref)
{
	for (int i = 1; i <= glp_get_num_rows(ref); i++)
		if (glp_get_row_stat(lp, i) != glp_get_row_stat(ref, i))
			return 1;
	for (int j = 1; j <= glp_get_num_cols(ref); j++)
		if (glp_get_col_stat(lp, j) != glp_get_col_stat(ref, j))
			return 1;
	return 0;
}

/*
 * An LP re-solved `solves` times, then reset to the starting basis, against
 * a fresh build with the next sigma: the same basis, valid and dual
 * feasible; the re-solve reaches the fresh LP's optimum in as many
 * iterations.
 */
static void
check_reset(int nobs, int p, int kind, int solves)
{
	Rows		r;
	glp_prob   *lp,
			   *fresh;
	double		diff = 0;
	int			it_reset,
				it_fresh;

	rows_make(&r, nobs, p, kind);
	glp_term_out(GLP_OFF);
	lp = opsamp_lp_build(r.X, r.cnt, r.y, nobs, p, 2.0);
	fresh = opsamp_lp_build(r.X, r.cnt, r.y, nobs, p, 2.0);
	for (int s = 0; s < solves; s++)
	{
		draw_sigma(r.sigma, p, nobs / 3.0);
		CHECK(solve_w(lp, &r, r.sigma, r.w) >= 0, "reset nobs %d p %d: solve %d not optimal", nobs, p, s);
	}
	CHECK(basis_differs(lp, fresh), "reset nobs %d p %d: the solves left the start basis", nobs, p);
	opsamp_lp_start_basis(lp, p);
	CHECK(!basis_differs(lp, fresh), "reset nobs %d p %d: not the built LP's basis", nobs, p);
	CHECK(glp_warm_up(lp) == 0 && glp_get_dual_stat(lp) == GLP_FEAS,
		  "reset nobs %d p %d: GLPK finds the basis invalid or not dual feasible", nobs, p);
	draw_sigma(r.sigma, p, nobs / 3.0);
	it_reset = solve_w(lp, &r, r.sigma, r.w);
	it_fresh = solve_w(fresh, &r, r.sigma, r.w_ref);
	for (int j = 0; j < p; j++)
		diff = fmax(diff, fabs(r.w[j] - r.w_ref[j]));
	printf("reset nobs %d p %d kind %d after %d solves: %d iterations, fresh %d; max |w - w_fresh| %g\n",
		   nobs, p, kind, solves, it_reset, it_fresh, diff);
	CHECK(it_reset >= 0 && it_reset == it_fresh,
		  "reset nobs %d p %d: %d iterations from the reset, %d fresh", nobs, p, it_reset, it_fresh);
	CHECK(diff <= 1e-9, "reset nobs %d p %d: optimum %g from the fresh one", nobs, p, diff);
	glp_delete_prob(lp);
	glp_delete_prob(fresh);
	glp_free_env();
	rows_free(&r);
}

static void
check_size(int nobs, int p, int kind)
{
	int			optimal;
	double		peak = lp_peak(nobs, p, kind, 4, &optimal);
	double		bound = opsamp_lp_fixed_bytes(p) + nobs * opsamp_lp_obs_bytes(p);

	printf("nobs %d p %d kind %d: GLPK peak %.0f bytes (%.0f an observation), %.2f of the bound\n",
		   nobs, p, kind, peak, peak / nobs, peak / bound);
	CHECK(peak <= bound, "nobs %d p %d kind %d: GLPK's peak %.0f exceeds the bound %.0f",
		  nobs, p, kind, peak, bound);
	CHECK(optimal, "nobs %d p %d kind %d: a solve did not reach an optimum", nobs, p, kind);
}

int
main(int argc, char **argv)
{
	static const int ps[] = {3, 11, 24, 51, 101, 400, 1024};

	if (argc >= 3)
	{
		check_size(atoi(argv[1]), atoi(argv[2]), argc > 3 ? atoi(argv[3]) : 0);
		return unitcheck_report();
	}
	for (int i = 0; i < 7; i++)
		for (int kind = 0; kind < 3; kind++)
		{
			check_size(1, ps[i], kind);
			check_size(200, ps[i], kind);
			check_size(ps[i] < 24 ? 10000 : ps[i] < 400 ? 4000 : 1000, ps[i], kind);
		}
	for (int kind = 0; kind < 3; kind++)
		check_reset(3000, 11, kind, 4);
	return unitcheck_report();
}
