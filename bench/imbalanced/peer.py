#!/usr/bin/env python3
"""bench/imbalanced/peer.py -- IBM diffprivlib 0.6.6's LogisticRegression on the tables of
bench/imbalanced/run.sh, for the comparison in docs/BENCHMARKS.md ("Imbalanced labels"):
prints the table and writes it to bench/csv/imbalanced_peer.csv (bench/record.py).

Usage: PYTHONPATH=<diffprivlib 0.6.6 source> python3 peer.py DIR [REPS]
DIR holds synth.csv and adult23.csv written by run.sh (PEER_DIR=DIR): split, features
(space-separated), label (t/f).  Needs Debian's python3-sklearn and python3-pandas.

diffprivlib 0.6.6 expects scikit-learn >= 1.4, whose LinearModelLoss.loss_gradient returns
the mean loss; Debian 12's 1.2.1 returns the sum, which would make its objective
perturbation n times under-noised.  The loss is therefore patched to
divide the sample weights by their sum.  diffprivlib ignores sample weights in fit(), so it
has no class weighting.
"""
import os
import subprocess
import sys

import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression as SkLR
from sklearn.linear_model._linear_loss import LinearModelLoss

import diffprivlib.models.logistic_regression as dlr


class MeanLoss(LinearModelLoss):
    def loss_gradient(self, coef, X, y, sample_weight=None, *a, **k):
        sw = np.ones(X.shape[0]) if sample_weight is None else np.asarray(sample_weight, float)
        return super().loss_gradient(coef, X, y, sw / sw.sum(), *a, **k)


dlr.LinearModelLoss = MeanLoss


def load(path):
    df = pd.read_csv(path, header=None, names=["split", "features", "label"])
    X = np.array([np.array(s.split(), dtype=float) for s in df.features])
    y = (df.label == "t").to_numpy().astype(int)
    tr = (df.split == "train").to_numpy()
    return X[tr], y[tr], X[~tr], y[~tr]


def metrics(pred, y):
    acc = float(np.mean(pred == y))
    bacc = 0.5 * (np.mean(pred[y == 1] == 1) + np.mean(pred[y == 0] == 0))
    return acc, float(bacc)


def main():
    d, reps = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 10
    out = ["| table | ε | model | accuracy | balanced accuracy (sd) |", "|---|---:|---|---:|---:|"]
    for tbl, norm in (("synth", np.sqrt(6)), ("adult23", np.sqrt(7))):
        Xtr, ytr, Xte, yte = load(f"{d}/{tbl}.csv")
        for name, w in (("scikit-learn, non-private", None), ("scikit-learn, balanced", "balanced")):
            m = SkLR(max_iter=2000, class_weight=w).fit(Xtr, ytr)
            a, b = metrics(m.predict(Xte), yte)
            out.append(f"| {tbl} | — | {name} | {a:.3f} | {b:.3f} |")
        for eps in (0.5, 1, 2):
            res = []
            for r in range(reps):
                m = dlr.LogisticRegression(epsilon=eps, data_norm=norm, random_state=r)
                m.fit(Xtr, ytr)
                res.append(metrics(m.predict(Xte), yte))
            res = np.array(res)
            out.append(f"| {tbl} | {eps} | diffprivlib 0.6.6 | {res[:, 0].mean():.3f} | "
                       f"{res[:, 1].mean():.3f} ({res[:, 1].std(ddof=1):.3f}) |")
    text = "\n".join(out) + "\n"
    print(text, end="")
    # bench/csv/imbalanced_peer.csv, rendered into docs/BENCHMARKS.md beside dpobj's rows
    record = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "record.py")
    subprocess.run([sys.executable, record, "imbalanced_peer",
                    f"PYTHONPATH=<diffprivlib 0.6.6> python3 bench/imbalanced/peer.py DIR {reps}"],
                   input=text, text=True, check=True)


if __name__ == "__main__":
    main()
