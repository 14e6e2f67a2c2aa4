/*-------------------------------------------------------------------------
 *
 * opsamplp.c
 *	  OPSamp's LP in GLPK (opsamplp.h): built once per run in its dual
 *	  form, re-solved with new row bounds -sigma for each of the m
 *	  perturbations.
 *
 * The dual form has p rows and one column u_k in [0, c_k] per observation;
 * sigma only moves the rows' bounds, so a basis that is dual feasible for
 * one sigma is for every sigma, and each solve is the dual simplex's phase
 * 2 from the previous optimum.  Its dual variables are w: the long-step
 * ratio test flips every u_k whose hinge term switches on or off along the
 * step, passing all the breakpoints of the hinge loss on a line in one
 * iteration.  The primal LP in GLPK (one row per observation) crossed them
 * one pivot at a time: 42 493 observations with random labels, p = 11, 135
 * solves: 212 687 iterations and 229 s there, 81 iterations and 3.5 s
 * here (docs/BENCHMARKS.md, "OPSamp within the cap").
 *
 *-------------------------------------------------------------------------
 */
#include "core/opsamplp.h"

#include <limits.h>
#include <stdlib.h>

/* column of v_j^+ (v_j^- follows it); the observations' u_k from 1 + 2p */
#define OPSAMP_LP_V(j)	(1 + 2 * (j))

/* observation k's column u_k: y <x, w> / (1 + R1) in the rows, in [0, c_k] */
static void
opsamp_lp_col(glp_prob *lp, int col, const double *x, double y, double c, int p, double R1,
			  int *ind, double *val)
{
	int			len = 0;

	for (int j = 0; j < p; j++)
	{
		double		a = y * x[j] / (1.0 + R1);

		if (a != 0)
		{
			ind[len + 1] = 1 + j;
			val[len + 1] = a;
			len++;
		}
	}
	glp_set_mat_col(lp, col, len, ind, val);
	glp_set_col_bnds(lp, col, GLP_DB, 0.0, c);
	glp_set_obj_coef(lp, col, 1.0 / (1.0 + R1));
}

/* v_j^+ and v_j^- >= 0 of cost 1 each: -v_j^+ + v_j^- in row j */
static void
opsamp_lp_v(glp_prob *lp, int j)
{
	int			ind[2] = {0, 1 + j};
	double		minus[2] = {0, -1.0};
	double		plus[2] = {0, 1.0};

	glp_set_mat_col(lp, OPSAMP_LP_V(j), 1, ind, minus);
	glp_set_mat_col(lp, OPSAMP_LP_V(j) + 1, 1, ind, plus);
	for (int s = 0; s < 2; s++)
	{
		glp_set_col_bnds(lp, OPSAMP_LP_V(j) + s, GLP_LO, 0.0, 0.0);
		glp_set_obj_coef(lp, OPSAMP_LP_V(j) + s, -1.0);
	}
	glp_set_row_bnds(lp, 1 + j, GLP_FX, 0.0, 0.0);
}

glp_prob *
opsamp_lp_build(const double *X, const double *cnt, const double *y, int64_t nobs, int p,
				double R1)
{
	glp_prob   *lp;
	int		   *ind;
	double	   *val;

	if (nobs < 0 || nobs > (int64_t) INT_MAX - 2 * p - 1)
		return NULL;
	ind = malloc(sizeof(int) * (p + 1));
	val = malloc(sizeof(double) * (p + 1));
	if (ind == NULL || val == NULL)
	{
		free(ind);
		free(val);
		return NULL;
	}
	lp = glp_create_prob();
	glp_set_obj_dir(lp, GLP_MAX);
	glp_add_rows(lp, p);
	glp_add_cols(lp, 2 * p + (int) nobs);
	for (int j = 0; j < p; j++)
		opsamp_lp_v(lp, j);
	for (int k = 0; k < (int) nobs; k++)
		opsamp_lp_col(lp, 1 + 2 * p + k, X + (size_t) k * p, y[k], cnt[k], p, R1, ind, val);
	free(ind);
	free(val);
	opsamp_lp_start_basis(lp, p);
	return lp;
}

void
opsamp_lp_start_basis(glp_prob *lp, int p)
{
	int			ncols = glp_get_num_cols(lp);

	for (int j = 0; j < p; j++)
	{
		glp_set_row_stat(lp, 1 + j, GLP_BS);
		glp_set_col_stat(lp, OPSAMP_LP_V(j), GLP_NL);
		glp_set_col_stat(lp, OPSAMP_LP_V(j) + 1, GLP_NL);
	}
	for (int col = 1 + 2 * p; col <= ncols; col++)
		glp_set_col_stat(lp, col, GLP_NU);
}

void
opsamp_lp_set_sigma(glp_prob *lp, int p, const double *sigma)
{
	for (int j = 0; j < p; j++)
		glp_set_row_bnds(lp, 1 + j, GLP_FX, -sigma[j], -sigma[j]);
}

double
opsamp_lp_w(glp_prob *lp, int j)
{
	double		w = glp_get_row_dual(lp, 1 + j);

	return w > 1.0 ? 1.0 : w < -1.0 ? -1.0 : w;
}

void
opsamp_lp_smcp(glp_smcp *smcp, int tm_lim)
{
	glp_init_smcp(smcp);
	smcp->msg_lev = GLP_MSG_ERR;
	smcp->meth = GLP_DUALP;
	smcp->r_test = GLP_RT_FLIP;
	smcp->presolve = GLP_OFF;
	smcp->tm_lim = tm_lim;
}
