#!/usr/bin/python3
"""Two arms of run.sh's CSVs compared (bench only).

  compare.py BASE.csv VARIANT.csv [COLUMN ...]

For each table in both files and each COLUMN (default: bacc err2 err3): the runs per arm,
the medians, and the two-sided Mann-Whitney U test's p (scipy) of the variant against the base."""
import csv, sys
from scipy.stats import mannwhitneyu


def load(path):
    by = {}
    for row in csv.DictReader(open(path)):
        by.setdefault(row["table"], []).append(row)
    return by


def median(v):
    v = sorted(v)
    n = len(v)
    return (v[n // 2] + v[(n - 1) // 2]) / 2 if n else float("nan")


def main():
    base, var = load(sys.argv[1]), load(sys.argv[2])
    cols = sys.argv[3:] or ["bacc", "err2", "err3"]
    for t in sorted(set(base) & set(var)):
        for c in cols:
            a = [float(r[c]) for r in base[t]]
            b = [float(r[c]) for r in var[t]]
            p = mannwhitneyu(a, b, alternative="two-sided").pvalue
            print("%s %s: base %.4f (%d) variant %.4f (%d) p %.3g" %
                  (t, c, median(a), len(a), median(b), len(b), p))


if __name__ == "__main__":
    main()
