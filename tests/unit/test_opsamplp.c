/*
 * test_opsamplp.c -- OPSamp's LP (src/core/opsamplp.c): GLPK's peak memory
 * (glp_mem_usage) while the LP is built and re-solved as dp_opsamp does stays
 * below opsamp_lp_fixed_bytes(p) + nobs * opsamp_lp_obs_bytes(p), the bound
 * that sizes OPSamp's sample (src/state/glmstate.c), at several sizes and p
 * and for dense, sparse and label-alternating rows; and every solve reaches
 * an optimum.  A solved LP reset with opsamp_lp_start_basis has the built
 * LP's basis, which GLPK finds valid and primal feasible, and re-solves to
 * the fresh LP's optimum in as many iterations.  ./test_opsamplp NOBS P
 * [KIND] prints one measurement.
 */
#include <math.h>
#include <stdlib.h>

#include "opsamplp.h"
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

/* sigma ~ Exp of this mean (opsamp: 1 / eta, about a third of the rows' weight) */
static void
set_sigma(glp_prob *lp, int p, double mean)
{
	for (int j = 0; j < p; j++)
		glp_set_obj_coef(lp, 1 + j, log(1 - unif()) * mean);
}

/* solves lp; the simplex iterations it took, -1 when not to an optimum */
static int
solve_count(glp_prob *lp)
{
	glp_smcp	smcp;
	int			it = glp_get_it_cnt(lp);
	int			rc;

	opsamp_lp_smcp(&smcp, 250);
	while ((rc = glp_simplex(lp, &smcp)) == GLP_ETMLIM)
		;
	return rc == 0 && glp_get_status(lp) == GLP_OPT ? glp_get_it_cnt(lp) - it : -1;
}

/* GLPK's peak bytes over the build and `solves` solves; *optimal all of them */
static double
lp_peak(int nobs, int p, int kind, int solves, int *optimal)
{
	double	   *X = malloc(sizeof(double) * (size_t) nobs * p);
	double	   *cnt = malloc(sizeof(double) * nobs);
	double	   *y = malloc(sizeof(double) * nobs);
	glp_prob   *lp;
	int			count,
				cpeak;
	size_t		total,
				tpeak;

	make_rows(X, cnt, y, nobs, p, kind);
	glp_term_out(GLP_OFF);
	lp = opsamp_lp_build(X, cnt, y, nobs, p, 2.0);
	*optimal = 1;
	for (int s = 0; s < solves; s++)
	{
		set_sigma(lp, p, nobs / 3.0);
		if (solve_count(lp) < 0)
			*optimal = 0;
	}
	glp_mem_usage(&count, &cpeak, &total, &tpeak);
	glp_delete_prob(lp);
	glp_free_env();
	free(X);
	free(cnt);
	free(y);
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
 * a fresh build with the next objective: the same basis, valid and primal
 * feasible; the re-solve reaches the fresh LP's optimum in as many
 * iterations.
 */
static void
check_reset(int nobs, int p, int kind, int solves)
{
	double	   *X = malloc(sizeof(double) * (size_t) nobs * p);
	double	   *cnt = malloc(sizeof(double) * nobs);
	double	   *y = malloc(sizeof(double) * nobs);
	glp_prob   *lp,
			   *fresh;
	int			it_reset,
				it_fresh;
	double		diff = 0;

	make_rows(X, cnt, y, nobs, p, kind);
	glp_term_out(GLP_OFF);
	lp = opsamp_lp_build(X, cnt, y, nobs, p, 2.0);
	fresh = opsamp_lp_build(X, cnt, y, nobs, p, 2.0);
	for (int s = 0; s < solves; s++)
	{
		set_sigma(lp, p, nobs / 30.0);
		CHECK(solve_count(lp) >= 0, "reset nobs %d p %d: solve %d not optimal", nobs, p, s);
	}
	CHECK(basis_differs(lp, fresh), "reset nobs %d p %d: the solves left the start basis", nobs, p);
	CHECK(opsamp_lp_start_basis(lp, p), "reset nobs %d p %d: out of memory", nobs, p);
	CHECK(!basis_differs(lp, fresh), "reset nobs %d p %d: not the built LP's basis", nobs, p);
	CHECK(glp_warm_up(lp) == 0 && glp_get_prim_stat(lp) == GLP_FEAS,
		  "reset nobs %d p %d: GLPK finds the basis invalid or infeasible", nobs, p);
	set_sigma(lp, p, nobs / 30.0);
	for (int j = 1; j <= p; j++)
		glp_set_obj_coef(fresh, j, glp_get_obj_coef(lp, j));
	it_reset = solve_count(lp);
	it_fresh = solve_count(fresh);
	for (int j = 1; j <= glp_get_num_cols(lp); j++)
		diff = fmax(diff, fabs(glp_get_col_prim(lp, j) - glp_get_col_prim(fresh, j)));
	printf("reset nobs %d p %d kind %d after %d solves: %d iterations, fresh %d; max |x - x_fresh| %g\n",
		   nobs, p, kind, solves, it_reset, it_fresh, diff);
	CHECK(it_reset >= 0 && it_reset == it_fresh,
		  "reset nobs %d p %d: %d iterations from the reset, %d fresh", nobs, p, it_reset, it_fresh);
	CHECK(diff <= 1e-9, "reset nobs %d p %d: optimum %g from the fresh one", nobs, p, diff);
	glp_delete_prob(lp);
	glp_delete_prob(fresh);
	glp_free_env();
	free(X);
	free(cnt);
	free(y);
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
	static const int ps[] = {3, 11, 24, 51};

	if (argc >= 3)
	{
		check_size(atoi(argv[1]), atoi(argv[2]), argc > 3 ? atoi(argv[3]) : 0);
		return unitcheck_report();
	}
	for (int i = 0; i < 4; i++)
		for (int kind = 0; kind < 3; kind++)
		{
			check_size(1, ps[i], kind);
			check_size(200, ps[i], kind);
			check_size(ps[i] < 24 ? 10000 : 4000, ps[i], kind);
		}
	for (int kind = 0; kind < 3; kind++)
		check_reset(3000, 11, kind, 4);
	return unitcheck_report();
}
