#!/usr/bin/python3
"""The one discretization and scorer of bench/synth/aim.sh: both twins, dpobj's and AIM's,
are scored on the same coded columns.

  twinscore.py encode SRC.csv OUTDIR [TWIN.csv ...]
      codes every column as values.py cuts it for scoring: a text column by its source
      levels (NULL a level of its own when the source has it), a numeric column at the
      source's deciles (bisect_right on the distinct cut points; NULL a code of its own);
      writes OUTDIR/src.codes.csv, OUTDIR/domain.json ({column: codes}: AIM's input),
      OUTDIR/domain.txt ("column codes cat" lines: synthrun's input) and
      OUTDIR/<twin name>.codes.csv for each TWIN (columns matched by name; a value the
      source never has -- a level, or NULL where the source has none -- gets one extra code
      past the domain, so that it counts as error).
  twinscore.py score SRC.codes.csv TWIN.codes.csv [--cols]
      prints "tv2=... tv3=... rows=...": the mean total variation distance between the two
      tables' normalized marginals over every pair and every triple of columns; --cols
      adds "tv1.<column>=..." (each column's own TV) and "tv2.<column>=..." (the mean over
      the pairs holding it), columns named c0, c1, ... in the source's order.

The deciles are the source's own (not private): the same cut for both twins and AIM's
input, as values.py scores dpobj's twin."""
import csv
import itertools
import json
import os
import sys
from bisect import bisect_right

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from values import numeric, read  # noqa: E402


def coder(col):
    """A function value -> code for a source column, and its number of codes."""
    if numeric(col):
        xs = sorted(float(v) for v in col if v is not None)
        cuts = sorted(set(xs[int(len(xs) * k / 10)] for k in range(1, 10)))
        nb = len(cuts) + 1
        null = nb if any(v is None for v in col) else None
        size = nb + (null is not None)

        def f(v):
            if v is None:
                return null if null is not None else size
            return bisect_right(cuts, float(v))
        return f, size
    levels = sorted({v for v in col if v is not None})
    if any(v is None for v in col):
        levels.append(None)
    index = {v: i for i, v in enumerate(levels)}
    return (lambda v: index.get(v, len(levels))), len(levels)


def write_codes(path, head, rows):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(head)
        w.writerows(rows)


def encode(src_path, outdir, twins):
    head, src = read(src_path)
    coders = [coder(c) for c in zip(*src)]
    names = ["c%d" % j for j in range(len(head))]  # AIM's attribute names
    os.makedirs(outdir, exist_ok=True)
    write_codes(os.path.join(outdir, "src.codes.csv"), names,
                [[coders[j][0](r[j]) for j in range(len(head))] for r in src])
    with open(os.path.join(outdir, "domain.json"), "w") as f:
        json.dump({n: c[1] for n, c in zip(names, coders)}, f)
    with open(os.path.join(outdir, "domain.txt"), "w") as f:
        f.writelines("%s %d cat\n" % (n, c[1]) for n, c in zip(names, coders))
    for t in twins:
        h2, syn = read(t)
        idx = [h2.index(c) for c in head]
        name = os.path.splitext(os.path.basename(t))[0]
        write_codes(os.path.join(outdir, name + ".codes.csv"), names,
                    [[coders[j][0](r[idx[j]]) for j in range(len(head))] for r in syn])


def load(path):
    return np.loadtxt(path, delimiter=",", skiprows=1, dtype=np.int64, ndmin=2)


def tv(a, b, cols, sizes):
    ia = np.zeros(len(a), dtype=np.int64)
    ib = np.zeros(len(b), dtype=np.int64)
    for c in cols:
        ia = ia * sizes[c] + a[:, c]
        ib = ib * sizes[c] + b[:, c]
    n = int(np.prod([sizes[c] for c in cols]))
    p = np.bincount(ia, minlength=n) / max(len(a), 1)
    q = np.bincount(ib, minlength=n) / max(len(b), 1)
    return 0.5 * float(np.abs(p - q).sum())


def score(src_path, twin_path, cols=False):
    a, b = load(src_path), load(twin_path)
    sizes = np.maximum(a.max(axis=0), b.max(axis=0)) + 1
    d = a.shape[1]
    pairs = {s: tv(a, b, s, sizes) for s in itertools.combinations(range(d), 2)}
    tv3 = np.mean([tv(a, b, s, sizes) for s in itertools.combinations(range(d), 3)])
    out = "tv2=%.4f tv3=%.4f rows=%d" % (np.mean(list(pairs.values())), tv3, len(b))
    if cols:
        out += "".join(" tv1.c%d=%.4f tv2.c%d=%.4f" % (
            j, tv(a, b, (j,), sizes), j, np.mean([v for s, v in pairs.items() if j in s]))
            for j in range(d))
    print(out)


def main():
    if len(sys.argv) >= 4 and sys.argv[1] == "encode":
        encode(sys.argv[2], sys.argv[3], sys.argv[4:])
    elif len(sys.argv) in (4, 5) and sys.argv[1] == "score" and sys.argv[4:] in ([], ["--cols"]):
        score(sys.argv[2], sys.argv[3], len(sys.argv) == 5)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
