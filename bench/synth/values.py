#!/usr/bin/env python3
"""Score a synthetic twin against its source (bench/synth/values.sh): SRC.csv SYN.csv -> one
CSV row: rows, invented_null, out_of_range, missing_levels, mean_sd_max, mean_rel_max, tv2, tv3.

invented_null   share of the twin's cells that are NULL in a column without NULL in the source
out_of_range    share of the twin's numeric cells outside the source's [min, max]
missing_levels  the source's levels of >= 50 rows absent from the twin
mean_sd_max     the largest |twin mean - true mean| / true sd over numeric columns
mean_rel_max    the largest |twin mean - true mean| / |true mean| (the column: stderr)
tv2, tv3        mean total variation distance of every 2-way and 300 3-way marginals
                (numerics cut at the source's deciles; scoring only)
"""
import csv
import itertools
import random
import sys
from bisect import bisect_right
from collections import Counter


def read(path):
    with open(path, newline="") as f:
        r = csv.reader(f)
        head = next(r)
        return head, [[None if x == "" else x for x in row] for row in r]


def numeric(values):
    try:
        [float(v) for v in values if v is not None]
        return True
    except ValueError:
        return False


def main():
    head, src = read(sys.argv[1])
    h2, syn = read(sys.argv[2])
    idx = [h2.index(c) for c in head]
    syn = [[row[i] for i in idx] for row in syn]
    d = len(head)
    cols = list(zip(*src))
    scols = list(zip(*syn))
    num = [numeric(c) for c in cols]
    inv = cells = oor = ncells = 0
    missing = 0
    worst_sd = worst_rel = 0.0
    worst_col = ""
    cut = []
    for j in range(d):
        has_null = any(v is None for v in cols[j])
        cells += len(syn)
        if not has_null:
            inv += sum(v is None for v in scols[j])
        if num[j]:
            xs = [float(v) for v in cols[j] if v is not None]
            ys = [float(v) for v in scols[j] if v is not None]
            lo, hi = min(xs), max(xs)
            ncells += len(ys)
            oor += sum(y < lo or y > hi for y in ys)
            mx = sum(xs) / len(xs)
            sd = (sum((x - mx) ** 2 for x in xs) / len(xs)) ** 0.5 or 1.0
            my = sum(ys) / len(ys) if ys else float("nan")
            z = abs(my - mx) / sd
            rel = abs(my - mx) / (abs(mx) or 1.0)
            print(f"  {head[j]}: true mean {mx:.4g} twin {my:.4g} (max {hi:g}, twin max {max(ys) if ys else float('nan'):g})", file=sys.stderr)
            if z > worst_sd:
                worst_sd, worst_col = z, head[j]
            worst_rel = max(worst_rel, rel)
            qs = sorted(xs)
            cut.append(sorted(set(qs[int(len(qs) * k / 10)] for k in range(1, 10))))
        else:
            c = Counter(cols[j])
            s = Counter(scols[j])
            missing += sum(1 for v, n in c.items() if v is not None and n >= 50 and s[v] == 0)
            cut.append(None)

    def code(j, v):
        if v is None:
            return None
        return bisect_right(cut[j], float(v)) if cut[j] is not None else v

    a = [[code(j, row[j]) for j in range(d)] for row in src]
    b = [[code(j, row[j]) for j in range(d)] for row in syn]

    def tv(cs):
        p = Counter(tuple(r[j] for j in cs) for r in a)
        q = Counter(tuple(r[j] for j in cs) for r in b)
        n, m = len(a), max(len(b), 1)
        return 0.5 * sum(abs(p[k] / n - q[k] / m) for k in set(p) | set(q))

    pairs = list(itertools.combinations(range(d), 2))
    triples = list(itertools.combinations(range(d), 3))
    random.Random(0).shuffle(triples)
    tv2 = sum(tv(c) for c in pairs) / len(pairs)
    tv3 = sum(tv(c) for c in triples[:300]) / min(300, len(triples))
    print(f"  worst mean: {worst_col}", file=sys.stderr)
    print(f"{len(syn)},{inv / cells:.5f},{oor / max(ncells, 1):.5f},{missing},"
          f"{worst_sd:.4f},{worst_rel:.4f},{tv2:.4f},{tv3:.4f}")


if __name__ == "__main__":
    main()
