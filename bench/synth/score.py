#!/usr/bin/python3
"""Score a synthetic table against the real one (bench only).

  score.py DOMAIN REAL_TRAIN.csv SYNTH.csv REAL_TEST.csv TARGET

Prints key=value: err1, err2, err3 -- the mean over all 1-, 2- and 3-way marginals of the
L1 distance between the real and the synthetic normalized marginals (codes as written by
prep.py); bacc -- the balanced accuracy on the real test split of scikit-learn's
GradientBoostingClassifier (default parameters, random_state 0) trained on the synthetic
rows to predict TARGET from the other columns (a binned numeric as its bin's ordinal, a
column of levels one-hot); with
REAL_BASELINE=1 in the environment the same booster trained on the real training split."""
import itertools, os, sys
import numpy as np


def load(path):
    with open(path) as fh:
        names = fh.readline().strip().split(",")
    return names, np.loadtxt(path, delimiter=",", skiprows=1, dtype=np.int64, ndmin=2)


def marginal(x, cols, sizes):
    idx = np.zeros(len(x), dtype=np.int64)
    for c in cols:
        idx = idx * sizes[c] + x[:, c]
    m = np.bincount(idx, minlength=int(np.prod([sizes[c] for c in cols]))).astype(float)
    return m / max(m.sum(), 1.0)


def errors(real, syn, sizes, k):
    d = len(sizes)
    e = [np.abs(marginal(real, s, sizes) - marginal(syn, s, sizes)).sum()
         for s in itertools.combinations(range(d), k)]
    return float(np.mean(e))


def features(x, target, sizes, kinds):
    cols = []
    for j in range(x.shape[1]):
        if j == target:
            continue
        cols.append(np.eye(sizes[j])[x[:, j]] if kinds[j] == "cat" else x[:, j:j + 1])
    return np.hstack(cols)


def bacc(train, test, target, sizes, kinds):
    from sklearn.ensemble import GradientBoostingClassifier
    from sklearn.metrics import balanced_accuracy_score
    y = train[:, target]
    if len(np.unique(y)) < 2:
        return 0.5
    clf = GradientBoostingClassifier(random_state=0).fit(features(train, target, sizes, kinds), y)
    pred = clf.predict(features(test, target, sizes, kinds))
    return float(balanced_accuracy_score(test[:, target], pred))


def main():
    dom, real_p, syn_p, test_p, target = sys.argv[1:6]
    lines = [l.split() for l in open(dom) if l.strip()]
    sizes = [int(l[1]) for l in lines]
    kinds = [l[2] if len(l) > 2 else "cat" for l in lines]
    names, real = load(real_p)
    _, syn = load(syn_p)
    _, test = load(test_p)
    t = names.index(target)
    out = {"err%d" % k: errors(real, syn, sizes, k) for k in (1, 2, 3)}
    out["bacc"] = bacc(syn, test, t, sizes, kinds)
    if os.environ.get("REAL_BASELINE"):
        out["bacc_real"] = bacc(real, test, t, sizes, kinds)
    print(" ".join("%s=%.4f" % kv for kv in out.items()))


if __name__ == "__main__":
    main()
