#!/usr/bin/python3
"""Medians per (table, epsilon) of bench/synth/results.csv, as a markdown table.

usage: summarize.py [results.csv]"""
import csv, os, statistics, sys

path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "results.csv")
rows = list(csv.DictReader(open(path)))
keys = sorted({(r["table"], float(r["epsilon"])) for r in rows})
cols = ["err1", "err2", "err3", "bacc", "user_s", "wall_s", "rounds", "model_cells", "peak_kb"]
print("| table | epsilon | seeds | " + " | ".join(cols) + " |")
print("|---|---:|---:|" + "---:|" * len(cols))
for t, e in keys:
    sel = [r for r in rows if r["table"] == t and float(r["epsilon"]) == e]
    med = [statistics.median(float(r[c]) for r in sel) for c in cols]
    fmt = ["%.4f" % m if c.startswith(("err", "bacc")) else "%.1f" % m if c.endswith("_s")
           else "%d" % m for c, m in zip(cols, med)]
    print("| %s | %g | %d | %s |" % (t, e, len(sel), " | ".join(fmt)))
