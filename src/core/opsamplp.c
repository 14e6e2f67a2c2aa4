/*-------------------------------------------------------------------------
 *
 * opsamplp.c
 *	  OPSamp's LP in GLPK (opsamplp.h): built once per run, re-solved with
 *	  a new objective for each of the m perturbations.
 *
 * The starting basis is primal feasible, so no solve needs a phase 1 (a
 * re-solve that fails from the previous optimum is retried from it too,
 * opsamp.c): from GLPK's standard basis (every slack basic) the first solve of an LP
 * of n observations took quadratic time (n = 10 000, p = 3: 28 665
 * iterations, 18 s; 543 iterations and 0.1 s from this basis with the dual
 * simplex's long-step ratio test).  It puts w at its upper bounds: sigma
 * is positive, so the perturbation pulls every w_j up and the first
 * optimum is often that corner (42 493 observations with random labels,
 * p = 11: 21 257 iterations and 26 s from w = -1, none from w = 1).  A
 * re-solve whose optimum leaves the corner still walks the breakpoints,
 * thousands of iterations of O(n) each.
 *
 *-------------------------------------------------------------------------
 */
#include "opsamplp.h"

#include <limits.h>
#include <stdlib.h>

/* the observation's row: xi_k + y <x, w> / (1 + R1) >= 1 / (1 + R1) */
static void
opsamp_lp_row(glp_prob *lp, int k, const double *x, double y, int p, double R1,
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
	ind[len + 1] = 1 + p + k;
	val[len + 1] = 1.0;
	len++;
	glp_set_mat_row(lp, 1 + k, len, ind, val);
	glp_set_row_bnds(lp, 1 + k, GLP_LO, 1.0 / (1.0 + R1), 0.0);
}

/*
 * Row i's starting status at w = (1, ..., 1), from its coefficients as
 * stored: wsum (p doubles, zero on entry and on return) collects those of
 * w, summed in column order.
 */
static void
opsamp_lp_row_stat(glp_prob *lp, int i, int p, int *ind, double *val, double *wsum)
{
	int			len = glp_get_mat_row(lp, i, ind, val);
	double		at_upper = 0;	/* y <x, w> / (1 + R1) at w_j = 1 */

	for (int t = 1; t <= len; t++)
		if (ind[t] <= p)
			wsum[ind[t] - 1] = val[t];
	for (int j = 0; j < p; j++)
	{
		if (wsum[j] != 0)
			at_upper += wsum[j];
		wsum[j] = 0;
	}
	if (glp_get_row_lb(lp, i) - at_upper > 0)
	{
		/* xi_k = rhs - at_upper > 0: basic, the row at its bound */
		glp_set_col_stat(lp, p + i, GLP_BS);
		glp_set_row_stat(lp, i, GLP_NL);
	}
	else
	{
		/* xi_k = 0 at its bound, the row's slack basic */
		glp_set_col_stat(lp, p + i, GLP_NL);
		glp_set_row_stat(lp, i, GLP_BS);
	}
}

int
opsamp_lp_start_basis(glp_prob *lp, int p)
{
	int			nrows = glp_get_num_rows(lp);
	int		   *ind = malloc(sizeof(int) * (p + 2));
	double	   *val = malloc(sizeof(double) * (p + 2));
	double	   *wsum = calloc(p + 1, sizeof(double));

	if (ind != NULL && val != NULL && wsum != NULL)
	{
		for (int j = 0; j < p; j++)
			glp_set_col_stat(lp, 1 + j, GLP_NU);
		for (int i = 1; i <= nrows; i++)
			opsamp_lp_row_stat(lp, i, p, ind, val, wsum);
	}
	free(ind);
	free(val);
	free(wsum);
	return ind != NULL && val != NULL && wsum != NULL;
}

glp_prob *
opsamp_lp_build(const double *X, const double *cnt, const double *y, int64_t nobs, int p,
				double R1)
{
	glp_prob   *lp;
	int		   *ind;
	double	   *val;

	if (nobs < 0 || nobs > (int64_t) INT_MAX - p - 1)
		return NULL;
	ind = malloc(sizeof(int) * (p + 2));
	val = malloc(sizeof(double) * (p + 2));
	if (ind == NULL || val == NULL)
	{
		free(ind);
		free(val);
		return NULL;
	}
	lp = glp_create_prob();
	glp_set_obj_dir(lp, GLP_MIN);
	glp_add_cols(lp, p + (int) nobs);
	for (int j = 0; j < p; j++)
		glp_set_col_bnds(lp, 1 + j, GLP_DB, -1.0, 1.0);
	for (int k = 0; k < (int) nobs; k++)
	{
		glp_set_col_bnds(lp, 1 + p + k, GLP_DB, 0.0, 2.0);
		glp_set_obj_coef(lp, 1 + p + k, cnt[k]);
	}
	if (nobs > 0)
		glp_add_rows(lp, (int) nobs);
	for (int k = 0; k < (int) nobs; k++)
		opsamp_lp_row(lp, k, X + (size_t) k * p, y[k], p, R1, ind, val);
	free(ind);
	free(val);
	if (!opsamp_lp_start_basis(lp, p))
	{
		glp_delete_prob(lp);
		return NULL;
	}
	return lp;
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
