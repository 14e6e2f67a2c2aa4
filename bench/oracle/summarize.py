#!/usr/bin/env python3
"""Summarise adult_bench output: certified count, median / p95 / max seconds."""
import sys, statistics

def pct(xs, q):
    xs = sorted(xs)
    if not xs:
        return float('nan')
    k = max(0, min(len(xs) - 1, int(round(q * len(xs) + 0.5)) - 1))
    return xs[k]

for path in sys.argv[1:]:
    head, secs, nodes, cert, tot = '', [], [], 0, 0
    for line in open(path):
        if line.startswith('# set='):
            head = line[2:].split(' grid')[0] + ' ' + line.split()[-2]
        f = line.split()
        if len(f) >= 5 and f[0].isdigit() and f[1] in ('OPTIMAL', 'TIMELIMIT', 'INTERRUPT', 'FAILED'):
            tot += 1
            secs.append(float(f[2]) if f[1] == 'OPTIMAL' else float('inf'))
            nodes.append(int(f[3]))
            cert += f[1] == 'OPTIMAL'
    if tot:
        print(f"{path}: {head}: runs {tot} certified {cert} median {statistics.median(secs):.2f}s "
              f"p95 {pct(secs, 0.95):.2f}s max {max(secs):.2f}s median-nodes {int(statistics.median(nodes))}")
