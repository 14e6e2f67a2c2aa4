#!/usr/bin/env python3
"""bench/ab/summarize.py CSV — bench/ab/run.sh's runs: per mechanism the median ratio to
the plain scan of build A and B with their ranges, B/A of the medians, the range of the
paired per-round B/A ratios (A and B adjacent in time), B/A of the median raw times, and
"within noise": each build's median inside the other's range of ratios; loop_* rows in microseconds per call, net of loop_count's in the same round and
build; then each mechanism's peak memory (VmHWM after minus before it, and after)."""
import csv
import statistics as st
import sys

rows = [r for r in csv.DictReader(open(sys.argv[1]))]
mechs = list(dict.fromkeys(r['mech'] for r in rows))


def runs(m, b, key):
    return {int(r['round']): float(r[key]) for r in rows
            if r['mech'] == m and r['build'] == b and r['err'] == 'ok'}


def per_call_us(m, b):
    base = runs('loop_count', b, 'mech_s') if m != 'loop_count' else {}
    return {k: (v - base.get(k, 0)) / 1e4 * 1e6 for k, v in runs(m, b, 'mech_s').items()
            if m == 'loop_count' or k in base}


print(f"{'mechanism':19} {'A median':>8} {'A range':>13} {'B median':>8} {'B range':>13}"
      f" {'B/A':>6} {'paired B/A':>15} {'raw B/A':>7}  n within")
for m in mechs:
    if m.startswith('loop_'):
        a, b = per_call_us(m, 'A'), per_call_us(m, 'B')
    else:
        a, b = runs(m, 'A', 'ratio'), runs(m, 'B', 'ratio')
    paired = [b[k] / a[k] for k in a if k in b]
    if not paired:
        print(f"{m:19} no paired runs (errors: see the CSV)")
        continue
    ma, mb = st.median(a.values()), st.median(b.values())
    raw = st.median(runs(m, 'B', 'mech_s').values()) / st.median(runs(m, 'A', 'mech_s').values())
    within = (min(a.values()) <= mb <= max(a.values())) or (min(b.values()) <= ma <= max(b.values()))
    print(f"{m:19} {ma:8.2f} {min(a.values()):6.2f}-{max(a.values()):<6.2f}"
          f" {mb:8.2f} {min(b.values()):6.2f}-{max(b.values()):<6.2f} {mb / ma:6.3f}"
          f" {min(paired):7.3f}-{max(paired):<7.3f} {raw:7.3f} {len(paired):2d} "
          f"{'yes' if within else 'NO'}")
print('peak memory, median kB: VmHWM after minus before the mechanism (after)')
for m in mechs:
    if m.startswith('loop_'):
        continue
    cell = []
    for b in 'AB':
        rs = [r for r in rows if r['mech'] == m and r['build'] == b and r['err'] == 'ok']
        if rs:
            d = st.median(int(r['hwm_after_kB']) - int(r['hwm_before_kB']) for r in rs)
            h = st.median(int(r['hwm_after_kB']) for r in rs)
            cell.append(f"{b} +{d:.0f} ({h:.0f})")
    print(f"  {m:19} " + '   '.join(cell))
