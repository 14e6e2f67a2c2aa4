#!/usr/bin/python3
"""Run the authors' AIM (McKenna et al., private-pgm's mechanisms/aim.py, the numpy `mbi`)
on a coded table (bench/synth/aim.sh).

  aim_run.py AIM_DIR CODES.csv DOMAIN.json OUT.csv SEED [EPSILON [DELTA [MAX_ITERS [NEIGHBOURS]]]]

CODES.csv: one integer code per column and a header (twinscore.py encode); DOMAIN.json:
{column: size}.  Workload: every 3-way marginal of at most 10 000 cells, weight 1 (AIM's
own cap on a workload marginal); AIM selects from its downward closure, so every 1- and
2-way marginal is a candidate too.  AIM's parameters are its defaults (rounds 16 x columns,
max_model_size 80 MB) but max_iters, the mirror-descent iterations of each estimation
(default here 100, AIM's 1000).  NEIGHBOURS: add_remove (AIM's own, the default) or
replace (dpobj's: one row replaced, docs/PRIVACY.md): AIM's zCDP budget halved (a
measurement's L2 sensitivity is sqrt 2, twice the rho AIM books for it) and its selection's
score sensitivity doubled (a replaced row moves an L1 error by 2), so that the run is
(EPSILON, DELTA)-DP for replace neighbours as dpobj's is (it books 0.95 of rho).  Writes the synthetic codes to OUT.csv; prints
"aim_s=<seconds> rounds=<measurements>".

The private-pgm tree is the user's: nothing of it is kept here.  Two imports it names but
AIM does not use are stood in for: hdmm.matrix.Identity (the identity measurement, which
mbi itself builds as scipy.sparse.eye when none is given) and autodp (Gaussian
calibration AIM does not call: it charges zCDP directly)."""
import itertools
import json
import os
import sys
import time
import types

import numpy as np
import scipy.sparse


def stand_ins():
    hdmm = types.ModuleType("hdmm")
    matrix = types.ModuleType("hdmm.matrix")
    matrix.Identity = lambda n: scipy.sparse.eye(n, format="csr")
    hdmm.matrix = matrix
    autodp = types.ModuleType("autodp")
    autodp.privacy_calibrator = types.ModuleType("autodp.privacy_calibrator")
    sys.modules.update({"hdmm": hdmm, "hdmm.matrix": matrix, "autodp": autodp,
                        "autodp.privacy_calibrator": autodp.privacy_calibrator})


def main():
    aim_dir, codes, domain, out, seed = sys.argv[1:6]
    eps = float(sys.argv[6]) if len(sys.argv) > 6 else 1.0
    delta = float(sys.argv[7]) if len(sys.argv) > 7 else 1e-6
    iters = int(sys.argv[8]) if len(sys.argv) > 8 else 100
    replace = len(sys.argv) > 9 and sys.argv[9] == "replace"
    os.environ.setdefault("MPLBACKEND", "Agg")
    stand_ins()
    sys.path[:0] = [os.path.join(aim_dir, "src"), os.path.join(aim_dir, "mechanisms"), aim_dir]
    from mbi import Dataset
    from aim import AIM

    np.random.seed(int(seed))  # AIM draws from np.random (its prng argument lands in "bounded")
    data = Dataset.load(codes, domain)
    workload = [(cl, 1.0) for cl in itertools.combinations(data.domain, 3)
                if data.domain.size(cl) <= 10000]
    t0 = time.time()
    mech = AIM(eps, delta, max_iters=iters)
    if replace:
        mech.rho /= 2
        em = mech.exponential_mechanism
        mech.exponential_mechanism = lambda q, e, sens=1.0, **kw: em(q, e, 2 * sens, **kw)
    _, synth = mech.run(data, workload)
    spent = time.time() - t0
    synth.df.to_csv(out, index=False)
    print("aim_s=%.1f workload=%d" % (spent, len(workload)))


if __name__ == "__main__":
    main()
