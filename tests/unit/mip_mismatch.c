/*-------------------------------------------------------------------------
 *
 * mip_mismatch.c
 *	  Finder for instances on which GLPK's MIP oracle (opdisc_solve_mip)
 *	  reports OPTIMAL for a point that is not the argmin found by
 *	  enumeration ("The GLPK MIP oracle is not exact").  Not part
 *	  of `make check`: `make -C tests/unit mip_mismatch && ./mip_mismatch N`
 *	  tries N random small instances (non-default B / D2, tiny or huge noise,
 *	  duplicated rows, separable costs) and prints every mismatch with the
 *	  generator state that rebuilds it; test_oracles.c keeps one as a fixed
 *	  regression test (check_mip_mismatch).
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_instances.h"

/* one random instance from the current generator state (see main) */
void
mismatch_instance(Instance *in, int t)
{
	static const double noises[] = {1e-9, 1e-6, 1e-3, 0.3, 3.0, 300.0, 3e4, 3e6};
	int			d = rng_int(1, 5);
	int			B = rng_int(1, d <= 3 ? 4 : 2);
	int			full = d * B * B;
	int			D2 = (t % 3 == 0) ? rng_int(1, full) : (t % 3 == 1 ? full : full + rng_int(1, 20));

	make_instance(in, d, B, D2, rng_int(1, 40), t % 5, noises[rng_int(0, 7)],
				  (t % 5 == 0) ? 0 : ((t % 2) ? 1 : -1), t % 2 == 0);
	if (t % 7 == 3)
		add_costs(in, noises[rng_int(0, 7)], t);
}

#ifndef MISMATCH_NO_MAIN
int
main(int argc, char **argv)
{
	int			ntries = argc > 1 ? atoi(argv[1]) : 2500;
	uint64_t	base = argc > 2 ? strtoull(argv[2], NULL, 0) : 0x5EEDULL;
	int			found = 0,
				certified = 0;

	for (int t = 0; t < ntries; t++)
	{
		Instance	in;
		int			wref[16],
					wm[16];
		double		best,
					second;
		OPDiscResult mres;

		rng_state = base + (uint64_t) t * 0x9E3779B97F4A7C15ULL;
		mismatch_instance(&in, t);
		brute_force(&in.p, wref, &best, &second);
		memset(&mres, 0, sizeof(mres));
		mres.w = wm;
		in.p.time_limit = 30;
		opdisc_solve_mip(&in.p, &mres);
		if (mres.status == OPDISC_OPTIMAL)
		{
			certified++;
			if (memcmp(wm, wref, sizeof(int) * in.p.d) != 0)
			{
				found++;
				printf("mismatch t=%d state=0x%llx %s: glpk %.17g enum %.17g (diff %.3g)\n",
					   t, (unsigned long long) (base + (uint64_t) t * 0x9E3779B97F4A7C15ULL),
					   in.desc, mres.objective, best, mres.objective - best);
			}
		}
		instance_free(&in);
	}
	printf("%d instances, %d certified by GLPK, %d not the argmin\n", ntries, certified, found);
	return 0;
}
#endif
