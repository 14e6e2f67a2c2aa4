#!/usr/bin/env python3
"""Summarise bench/oracle/peer.sh output (adult_bench -C DIR -m): per set, one row per
solver (search, CBC, GLPK): certified / draws, median and max wall seconds (runs that
did not certify count as "> limit"), median nodes, and whether every certified CBC /
GLPK answer equals the search's (same w; CBC objective + 2C = search objective)."""
import re, statistics, sys

rows = []
for path in sys.argv[1:]:
    head = {}
    runs = []                            # per draw: dict solver -> fields
    for line in open(path):
        if line.startswith('# set='):
            head = dict(kv.split('=', 1) for kv in line[2:].split() if '=' in kv)
        f = line.split()
        if len(f) >= 5 and f[0].isdigit() and f[1] in ('OPTIMAL', 'TIMELIMIT', 'INTERRUPT', 'FAILED'):
            runs.append({'search': (f[1], float(f[2]), int(f[3]), True)})
        elif f and f[0] in ('cbc', 'mip') and runs:
            m = re.search(r'same_w=(-?\d)', line)
            d = re.search(r'diff=(\S+)', line)
            agree = m is not None and m.group(1) == '1'
            if f[0] == 'cbc' and d is not None:
                agree = agree and abs(float(d.group(1))) < 1e-6 * max(1.0, abs(float(f[4])))
            runs[-1][f[0]] = (f[1], float(f[2]), int(f[3]), agree)
    rows.append((head, runs))

print('| set | distinct rows | eps | draws | limit | solver | certified | median | max | '
      'median nodes | certified answers = search |')
print('|---|---|---|---|---|---|---|---|---|---|---|')
for head, runs in rows:
    limit = head.get('limit', '?')
    for solver, name in (('search', 'dpobj search'), ('cbc', 'CBC (MPS file, 1 thread)'),
                         ('mip', 'GLPK (dpobj oracle=mip)')):
        rs = [r[solver] for r in runs if solver in r]
        if not rs:
            continue
        cert = [r for r in rs if r[0] == 'OPTIMAL']
        secs = [r[1] if r[0] == 'OPTIMAL' else float('inf') for r in rs]
        def s(v):
            return f'> {limit} s' if v == float('inf') else ('< 0.01 s' if v < 0.005 else f'{v:.2f} s')
        agree = '-' if solver == 'search' or not cert else \
            ('yes' if all(r[3] for r in cert) else 'NO')
        print(f"| {head.get('set')} | {head.get('distinct')} | {head.get('eps')} | {len(rs)} | "
              f"{limit} s | {name} | {len(cert)}/{len(rs)} | {s(statistics.median(secs))} | "
              f"{s(max(secs))} | {int(statistics.median(r[2] for r in rs))} | {agree} |")
