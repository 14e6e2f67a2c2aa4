#!/usr/bin/python3
"""The booster of bench/synth/boost.sh: score.py's (scikit-learn's GradientBoostingClassifier,
defaults, random_state 0; balanced accuracy on the real test split) on raw columns.

  boost.py score TRAIN.csv TEST.csv TARGET POSITIVE ROWS.csv [--rate]
      trains on ROWS (a twin, or TRAIN itself: the real line), tests on TEST; prints
      "bacc=... bacc_dec=... rows=...".  Features, fixed by TRAIN and TEST: a text column
      one-hot over their levels (NULL a level; a twin's other value all zeros), a numeric
      column as its number (NULL: below the column's least value); bacc_dec: every numeric
      at TRAIN's deciles as its ordinal (twinscore.py's cut, AIM's input).  The label:
      TARGET's text equals POSITIVE; a twin of one class scores 0.5.  --rate: cut at the
      fitted rows' positive share (as dpobj's classifiers do), not at ½.
  boost.py decode TRAIN.csv CODES.csv OUT.csv
      AIM's twin (twinscore.py's codes of TRAIN, columns c0, c1, ...) back to TRAIN's
      columns: a level code to its level, a numeric's decile code to the median of TRAIN's
      values in it, so that it is scored as the dpobj twin is.
  boost.py report BOOST.csv LABEL [AIM_LABEL]
      medians and IQR of LABEL's runs per table and method, the gaps to the real line
      (Markdown, bench/synth/boost.md)."""
import csv
import os
import statistics
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from twinscore import coder  # noqa: E402
from values import numeric, read  # noqa: E402


def columns(train, test, head, target):
    """[(index, kind, levels or (coder, fill))] for the features, from TRAIN and TEST"""
    out = []
    for j, name in enumerate(head):
        if name == target:
            continue
        col = [r[j] for r in train]
        if numeric(col) and numeric([r[j] for r in test]):
            xs = [float(v) for v in col + [r[j] for r in test] if v is not None]
            out.append((j, "num", (coder(col)[0], min(xs) - 1)))
        else:
            out.append((j, "cat", sorted({r[j] for r in train + test}, key=lambda v: (v is None, v or ""))))
    return out


def features(rows, cols, dec):
    parts = []
    for j, kind, arg in cols:
        vals = [r[j] for r in rows]
        if kind == "cat":
            idx = {v: i for i, v in enumerate(arg)}
            m = np.zeros((len(rows), len(arg)))
            for i, v in enumerate(vals):
                if v in idx:
                    m[i, idx[v]] = 1
            parts.append(m)
        else:
            code, fill = arg
            x = [code(v) for v in vals] if dec else [fill if v is None else float(v) for v in vals]
            parts.append(np.array(x, dtype=float).reshape(-1, 1))
    return np.hstack(parts)


def bacc(fit_rows, test, cols, t, pos, dec, rate=False):
    """the booster's balanced accuracy at its cut (predict); rate: cut at the fitted rows'
    positive share instead (as dpobj's classifiers cut)"""
    from sklearn.ensemble import GradientBoostingClassifier
    from sklearn.metrics import balanced_accuracy_score
    y = np.array([r[t] == pos for r in fit_rows])
    if len(set(y)) < 2:
        return 0.5
    clf = GradientBoostingClassifier(random_state=0).fit(features(fit_rows, cols, dec), y)
    x = features(test, cols, dec)
    pred = clf.predict_proba(x)[:, 1] >= y.mean() if rate else clf.predict(x)
    return float(balanced_accuracy_score([r[t] == pos for r in test], pred))


def score(train_p, test_p, target, pos, rows_p, rate=False):
    head, train = read(train_p)
    h2, test = read(test_p)
    test = [[r[h2.index(c)] for c in head] for r in test]
    h3, fit = read(rows_p)
    fit = [[r[h3.index(c)] for c in head] for r in fit]
    cols = columns(train, test, head, target)
    t = head.index(target)
    print("bacc=%.4f bacc_dec=%.4f rows=%d" % (
        bacc(fit, test, cols, t, pos, False, rate), bacc(fit, test, cols, t, pos, True, rate), len(fit)))


def decode(train_p, codes_p, out_p):
    head, train = read(train_p)
    back = []
    for j in range(len(head)):
        col = [r[j] for r in train]
        f, size = coder(col)
        if numeric(col):
            groups = {}
            for v in col:
                groups.setdefault(f(v), []).append(v)
            # a numeric's code: the median of its values (NULL's code: NULL)
            back.append({k: None if vs[0] is None else statistics.median_low(sorted(float(x) for x in vs))
                         for k, vs in groups.items()})
        else:
            levels = sorted({v for v in col if v is not None})
            if any(v is None for v in col):
                levels.append(None)
            back.append(dict(enumerate(levels)))
    with open(codes_p) as f:
        r = csv.reader(f)
        next(r)
        rows = [[back[j].get(int(x)) for j, x in enumerate(row)] for row in r]
    with open(out_p, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(head)
        for row in rows:
            w.writerow(["" if v is None else ("%.10g" % v if isinstance(v, float) else v) for v in row])


NAMES = {"real": "real training rows", "dpobj_label": "dpobj twin, \"label\" named",
         "dpobj": "dpobj twin, no label", "dpobj_label_width": "dpobj twin, \"label\", equal-width bins",
         "aim": "AIM twin (add/remove)", "aim_replace": "AIM twin (replace, as dpobj)",
         "direct": "dpobj.train 'auto' (no twin)"}
TARGET = {"dpobj_label": 2, "dpobj": 4}


def report(csv_p, label, aim_label=None):
    """the label's runs; AIM's arms (and their share cuts) from aim_label's, if given"""
    aim = lambda r: r["method"].startswith("aim")
    rows = [r for r in csv.DictReader(open(csv_p))
            if r["label"] == (aim_label or label if aim(r) else label)]
    tables = [t for t in dict.fromkeys(r["table"] for r in rows)
              if any(r["table"] == t and r["method"] == "real" for r in rows)]
    got = lambda t, m, k: [float(r[k]) for r in rows
                           if r["table"] == t and r["method"] == m and r[k] != ""]
    name = lambda t: t + (" (held out)" if t.startswith("german") else "")
    real = {t: statistics.median(got(t, "real", "bacc")) for t in tables}

    print("# A booster trained on a private twin against references (bench/synth/boost.sh)\n")
    print("Balanced accuracy on the test rows, medians (runs: each column's); ε 1, δ 10⁻⁶; "
          "real rows: raw / numerics at the deciles (AIM's cut).\n")
    short = {"dpobj_label": "twin, \"label\"", "dpobj": "twin, no label",
             "aim": "AIM twin", "aim_replace": "AIM, replace", "direct": "train 'auto'"}
    ms = [m for m in short if any(got(t, m, "bacc") for t in tables)]
    med = lambda t, m, k="bacc": "%.3f" % statistics.median(got(t, m, k)) if got(t, m, k) else ""
    print("| table | real rows | " + " | ".join(short[m] for m in ms) + " | runs |")
    print("|---|---:|" + "---:|" * len(ms) + "---|")
    for t in tables:
        print("| %s | %s / %s | %s | %s |" % (name(t), med(t, "real"), med(t, "real", "bacc_dec"),
                                             " | ".join(med(t, m) for m in ms),
                                             " / ".join(str(len(got(t, m, "bacc"))) for m in ms)))
    print("\nEvery arm: bacc with its IQR, with numerics at the training rows' deciles (AIM's input), "
          "the gap to the real rows' booster in points (the issue's targets: 2 with \"label\", 4 "
          "without); then the same booster cut at its fitted rows' positive share (as dpobj's "
          "classifiers cut; train 'auto' is its own model at its own cut) and that gap:\n")
    print("| table | method | runs | bacc | IQR | at deciles | real − it (points) | target (points) "
          "| bacc, share cut | real − it, share cut |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for t in tables:
        for m in NAMES:
            xs = got(t, m, "bacc")
            if not xs:
                continue
            q = statistics.quantiles(xs, n=4, method="inclusive") if len(xs) > 1 else [xs[0], 0, xs[0]]
            dec = got(t, m, "bacc_dec")
            gap = "" if m == "real" else "%.1f" % (100 * (real[t] - statistics.median(xs)))
            rs, rr = got(t, m + "_rate", "bacc"), got(t, "real_rate", "bacc")
            if m == "direct":
                rs = xs
            rgap = ("%.1f" % (100 * (statistics.median(rr) - statistics.median(rs)))
                    if rs and rr and m != "real" else "")
            print("| %s | %s | %d | %.3f | %.3f–%.3f | %s | %s | %s | %s | %s |" % (
                name(t), NAMES[m], len(xs), statistics.median(xs), q[0], q[2],
                "%.3f" % statistics.median(dec) if dec else "", gap,
                "≤ %d" % TARGET[m] if m in TARGET else "",
                "%.3f" % statistics.median(rs) if rs else "", rgap))


def main():
    a = sys.argv[1:]
    if len(a) in (6, 7) and a[0] == "score" and a[6:] in ([], ["--rate"]):
        score(*a[1:6], rate=len(a) == 7)
    elif len(a) == 4 and a[0] == "decode":
        decode(*a[1:])
    elif len(a) in (3, 4) and a[0] == "report":
        report(*a[1:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
