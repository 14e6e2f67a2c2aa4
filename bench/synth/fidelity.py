#!/usr/bin/env python3
"""fidelity.py IN.csv OUT.svg: dpobj.synth_fidelity()'s rows (columns, cells, distance,
expected_noise, ratio; in release order) as a small SVG: each measurement's ratio, the
model's l1 distance to it over what its noise alone gives, against its release order; the
line at 1 is "fitted up to the noise".  Plain Python, no plotting library."""
import csv
import sys


def main(src, dst):
    rows = list(csv.DictReader(open(src)))
    ratios = [float(r["ratio"]) for r in rows]
    W, H, L, R, T, B = 520, 240, 60, 20, 20, 40
    top = max(2.0, max(ratios) * 1.05)
    x = lambda i: L + (W - L - R) * (i / max(1, len(ratios) - 1))
    y = lambda v: H - B - (H - T - B) * (v / top)
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="11">' % (W, H),
           '<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>' % (L, H - B, W - R, H - B),
           '<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>' % (L, T, L, H - B)]
    for v in sorted({0.0, 1.0, top / 2, top}):
        out.append('<text x="%d" y="%.1f" text-anchor="end">%.1f</text>' % (L - 5, y(v) + 4, v))
    out.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#999" stroke-dasharray="6,4"/>' % (L, y(1), W - R, y(1)))
    for i, v in enumerate(ratios):
        single = len(rows[i]["columns"].split()) == 1
        out.append('<circle cx="%.1f" cy="%.1f" r="2.5" fill="%s"/>' % (x(i), y(v), "#1f77b4" if single else "#d62728"))
    out.append('<text x="%d" y="%d" text-anchor="middle">measurement, in release order (blue: one column; red: two or more)</text>' % ((L + W - R) // 2, H - 10))
    out.append('<text x="15" y="%d" transform="rotate(-90 15 %d)" text-anchor="middle">distance / expected noise</text>' % ((H - B + T) // 2, (H - B + T) // 2))
    out.append("</svg>")
    open(dst, "w").write("\n".join(out) + "\n")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
