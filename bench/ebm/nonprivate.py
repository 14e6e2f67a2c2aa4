#!/usr/bin/python3
"""bench/ebm/nonprivate.py — non-private baselines for bench/ebm (a benchmark, never a test):
scikit-learn's logistic regression and gradient boosting on the same training / test rows
as the private runs (be.rows after setup.sql), with the same public class weight of a
negative row (be.tables.w_false), scored by balanced test accuracy.  Needs scikit-learn
(not a dpobj dependency).  Reads the rows through psql (PSQL, default "psql", and the
usual PG* variables), prints one Markdown table and stores it in be.nonprivate
(compare.sql shows it).
"""
import io, os, shlex, subprocess, sys

import numpy as np
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import balanced_accuracy_score

PSQL = shlex.split(os.environ.get("PSQL", "psql"))


def query(sql):
    return subprocess.run(PSQL + ["-XAtq", "-F", "\t", "-c", sql], capture_output=True,
                          text=True, check=True).stdout


def rows(tbl, split):
    out = query(f"SELECT array_to_string(features, ','), label::int FROM be.rows "
                f"WHERE tbl = '{tbl}' AND split = '{split}' ORDER BY features::text, label")
    X, y = [], []
    for line in io.StringIO(out):
        f, l = line.rstrip("\n").split("\t")
        X.append([float(v) for v in f.split(",")])
        y.append(int(l))
    return np.array(X), np.array(y)


def main():
    tables = sys.argv[1:] or ["adult12", "adult_pm1", "adult_wide", "bank", "bank_wide", "german",
                             "german_wide"]
    query("CREATE TABLE IF NOT EXISTS be.nonprivate (tbl text, lr float8, gb float8)")
    print("| table | logistic regression | gradient boosting |")
    print("|---|---:|---:|")
    for tbl in tables:
        w_false = float(query(f"SELECT w_false FROM be.tables WHERE tbl = '{tbl}'"))
        Xtr, ytr = rows(tbl, "train")
        Xte, yte = rows(tbl, "test")
        sw = np.where(ytr == 1, 1.0, w_false)
        lr = LogisticRegression(C=1.0, max_iter=5000).fit(Xtr, ytr, sample_weight=sw)
        gb = HistGradientBoostingClassifier(random_state=0).fit(Xtr, ytr, sample_weight=sw)
        a_lr = balanced_accuracy_score(yte, lr.predict(Xte))
        a_gb = balanced_accuracy_score(yte, gb.predict(Xte))
        query(f"DELETE FROM be.nonprivate WHERE tbl = '{tbl}'; "
              f"INSERT INTO be.nonprivate VALUES ('{tbl}', {a_lr}, {a_gb})")
        print(f"| {tbl} | {a_lr:.3f} | {a_gb:.3f} |")


if __name__ == "__main__":
    main()
