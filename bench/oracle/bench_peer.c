/*-------------------------------------------------------------------------
 *
 * bench_peer.c
 *	  Peer row of the oracle benchmark: dpobj's GLPK MIP written as free MPS
 *	  (opdisc_write_mip) and solved by CBC's command line.
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_peer.h"

static double
wall(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + 1e-9 * t.tv_nsec;
}

/*
 * Peer row: solve the MPS file with CBC's command line and compare
 * with the search's certified answer.  The MIP's objective has the constant
 * C = sum_u p_u (build_mip: glp_set_obj_coef(lp, 0, C)); glp_write_mps writes
 * it as the objective row's RHS entry +C, and CBC 2.10 reads an objective RHS
 * r as the constant -r (measured on d4: CBC's value = opdisc_objective - 2C).
 * So the comparable value is CBC's "Objective value" + 2C; "diff" below is
 * that minus the search's opdisc_objective (0 up to rounding when CBC agrees).
 * Prints: cbc STATUS wall_s nodes cbc_objective diff=... same_w=0/1/-1
 */
void
bench_peer_cbc(const char *mps, double tlimit, const OPDiscResult *ref, int d,
		 double constant)
{
	char		cmd[4096],
				sol[1100],
				line[4096];
	char		status[64] = "UNKNOWN";
	double		obj = NAN;
	long		nodes = -1;
	int			wc[BENCH_PEER_MAXD];
	int			same_w = -1;
	double		t0 = wall(),
				secs;
	FILE	   *f;

	snprintf(sol, sizeof(sol), "%s.sol", mps);
	remove(sol);
	snprintf(cmd, sizeof(cmd), "cbc '%s' -sec %g -threads 1 -solve -solu '%s' -quit 2>&1",
			 mps, tlimit, sol);
	f = popen(cmd, "r");
	if (f == NULL)
	{
		perror("popen cbc");
		return;
	}
	while (fgets(line, sizeof(line), f) != NULL)
	{
		if (strncmp(line, "Result - ", 9) == 0)
		{
			if (strstr(line, "Optimal solution found"))
				strcpy(status, "OPTIMAL");
			else if (strstr(line, "Stopped on time"))
				strcpy(status, "TIMELIMIT");
			else if (strstr(line, "infeasible"))
				strcpy(status, "INFEASIBLE");
			else
			{
				line[strcspn(line, "\n")] = '\0';
				snprintf(status, sizeof(status), "OTHER(%.40s)", line + 9);
				for (char *c = status; *c; c++)
					if (*c == ' ')
						*c = '_';
			}
		}
		else if (strncmp(line, "Objective value:", 16) == 0)
			obj = atof(line + 16);
		else if (strncmp(line, "Enumerated nodes:", 17) == 0)
			nodes = atol(line + 17);
	}
	pclose(f);
	secs = wall() - t0;

	/* w from the solution file: lines "index name value reduced_cost", w_j is C<j+1> */
	f = fopen(sol, "r");
	if (f != NULL && strcmp(status, "OPTIMAL") == 0)
	{
		memset(wc, 0, sizeof(wc));
		same_w = 1;
		while (fgets(line, sizeof(line), f) != NULL)
		{
			int			idx;
			char		name[256];
			double		v;

			if (sscanf(line, "%d %255s %lf", &idx, name, &v) == 3 &&
				name[0] == 'C' && atoi(name + 1) >= 1 && atoi(name + 1) <= d && d <= BENCH_PEER_MAXD)
				wc[atoi(name + 1) - 1] = (int) lround(v);
		}
		for (int j = 0; j < d; j++)
			if (wc[j] != ref->w[j])
				same_w = 0;
	}
	if (f != NULL)
		fclose(f);
	printf("  cbc  %-9s %-10.3f %-12ld %-14.4f diff=%.3g same_w=%d\n", status, secs, nodes,
		   obj, obj + 2.0 * constant - ref->objective, same_w);
	fflush(stdout);
}

