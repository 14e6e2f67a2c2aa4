#!/usr/bin/python3
"""Medians per (table, epsilon) of bench/synth/results.csv, as a markdown table.

usage: summarize.py [--brief] [results.csv [plot.svg]]  (the plot: median 2-, 3-way error
against epsilon; --brief: the columns docs/BENCHMARKS.md shows, for bench/record.py synth)"""
import csv, os, statistics, sys

brief = "--brief" in sys.argv
args = [a for a in sys.argv[1:] if a != "--brief"]
path = args[0] if args else os.path.join(os.path.dirname(__file__), "results.csv")
rows = list(csv.DictReader(open(path)))
keys = sorted({(r["table"], float(r["epsilon"])) for r in rows})
cols = ["err1", "err2", "err3", "bacc", "user_s", "wall_s", "rounds", "model_cells", "peak_kb"]
if brief:
    cols = ["err1", "err2", "err3", "bacc", "user_s"]
print("| table | ε | seeds | " + " | ".join(cols) + " |")
print("|---|---:|---:|" + "---:|" * len(cols))
for t, e in keys:
    sel = [r for r in rows if r["table"] == t and float(r["epsilon"]) == e]
    med = [statistics.median(float(r[c]) for r in sel) for c in cols]
    fmt = [("%.3f" if brief else "%.4f") % m if c.startswith(("err", "bacc")) else "%.1f" % m
           if c.endswith("_s") else "%d" % m for c, m in zip(cols, med)]
    print("| %s | %g | %d | %s |" % (t, e, len(sel), " | ".join(fmt)))


def svg(path, rows):
    """Median 2- and 3-way error against epsilon (log scale), one line per table and order."""
    W, H, L, B = 520, 320, 60, 40
    eps = sorted({float(r["epsilon"]) for r in rows})
    series = []
    for t in sorted({r["table"] for r in rows}):
        for k, dash in (("err2", ""), ("err3", "6,4")):
            pts = [(e, statistics.median(float(r[k]) for r in rows
                                         if r["table"] == t and float(r["epsilon"]) == e))
                   for e in eps if any(r["table"] == t and float(r["epsilon"]) == e for r in rows)]
            series.append(("%s %s-way" % (t, k[-1]), dash, pts))
    import math
    ymax = max(y for _, _, p in series for _, y in p) * 1.1
    lx = lambda e: L + (math.log(e) - math.log(eps[0])) / max(math.log(eps[-1] / eps[0]), 1e-9) * (W - L - 20)
    ly = lambda y: H - B - y / ymax * (H - B - 20)
    colors = ["#1f77b4", "#1f77b4", "#d62728", "#d62728"]
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="11">' % (W, H),
           '<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>' % (L, H - B, W - 20, H - B),
           '<line x1="%d" y1="20" x2="%d" y2="%d" stroke="black"/>' % (L, L, H - B)]
    for e in eps:
        out.append('<text x="%.0f" y="%d" text-anchor="middle">%g</text>' % (lx(e), H - B + 15, e))
    for i in range(5):
        y = ymax * i / 4
        out.append('<text x="%d" y="%.0f" text-anchor="end">%.2f</text>' % (L - 5, ly(y) + 4, y))
    out.append('<text x="%d" y="%d" text-anchor="middle">epsilon (delta 1e-6)</text>' % ((L + W) / 2, H - 5))
    out.append('<text x="15" y="%d" transform="rotate(-90 15 %d)" text-anchor="middle">mean L1 marginal error (median of seeds)</text>' % (H / 2, H / 2))
    for i, (name, dash, pts) in enumerate(series):
        c = colors[i % len(colors)]
        out.append('<polyline fill="none" stroke="%s" stroke-dasharray="%s" points="%s"/>' % (
            c, dash, " ".join("%.1f,%.1f" % (lx(e), ly(y)) for e, y in pts)))
        out.append('<text x="%d" y="%d" fill="%s">%s%s</text>' % (W - 150, 30 + 14 * i, c, name, " (dashed)" if dash else ""))
    out.append("</svg>")
    open(path, "w").write("\n".join(out) + "\n")


if len(args) > 1:
    svg(args[1], rows)
