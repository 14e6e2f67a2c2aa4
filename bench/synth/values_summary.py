#!/usr/bin/env python3
"""Medians of bench/synth/values.sh's runs per (label, table) as a Markdown table (means in
CI: numeric columns whose twin mean lies in aggregate()'s interval, over all runs):
    bench/synth/values_summary.py [bench/synth/values.csv]
(| python3 bench/record.py synth_values 'nice bash bench/synth/values.sh' for BENCHMARKS)."""
import csv
import statistics
import sys
from collections import OrderedDict

COLS = [("invented_null", "invented NULL %", 100, 3), ("out_of_range", "outside [min, max] %", 100, 3),
        ("missing_levels", "levels ≥ 50 rows missing", 1, 0), ("mean_sd_max", "worst mean error (sd)", 1, 2),
        ("tv2", "2-way TV", 1, 3), ("tv3", "3-way TV", 1, 3)]


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "bench/synth/values.csv"
    groups = OrderedDict()
    for r in csv.DictReader(open(path)):
        groups.setdefault((r["table"], r["label"]), []).append(r)
    print("| table | build | runs | " + " | ".join(c[1] for c in COLS) + " | means in CI |")
    print("|---|---|---:|" + "---:|" * (len(COLS) + 1))
    for (table, label), rows in groups.items():
        cells = [f"{statistics.median(float(r[k]) for r in rows) * m:.{d}f}" for k, _, m, d in COLS]
        ci = [tuple(int(x) for x in r["means_in_ci"].split("/")) for r in rows if r.get("means_in_ci")]
        cells.append(f"{sum(a for a, _ in ci)}/{sum(b for _, b in ci)}" if ci else "")
        print(f"| {table} | {label} | {len(rows)} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
