#!/usr/bin/env python3
"""bench/oracle_sql/report.py RUNS_CSV SERVER_LOG LIMIT > table.md

Attach to each run of oracle_sql.runs (CSV from \\copy, with header) the oracle line the
server logged for it: in the run's backend (log_line_prefix '%m [%p] ...'), the first
"dpobj oracle <name>: status S, N nodes, T s" after the marker "dpobj-oracle-sql run <id>"
and before that backend's next marker.  Runs that RSPM's "auto" oracle solved by
enumeration log no such line (nodes "-").  Prints one markdown row per
(set, epsilon, mechanism) and, on stderr, the per-run join for checking.
"""
import csv, math, re, statistics, sys

runs_csv, log_path, limit = sys.argv[1], sys.argv[2], float(sys.argv[3])
runs = list(csv.DictReader(open(runs_csv)))

marker = re.compile(r'\[(\d+)\] .*dpobj-oracle-sql run (\d+)\s*$')
oline = re.compile(r'\[(\d+)\] .*dpobj oracle (\w+): status (-?\d+), (-?\d+) nodes, ([0-9.]+) s')
current = {}                      # pid -> run id of its latest marker
found = {}                        # run id -> (oracle, status, nodes, seconds)
for line in open(log_path, errors='replace'):
    m = marker.search(line)
    if m:
        current[m.group(1)] = int(m.group(2))
        continue
    m = oline.search(line)
    if m and m.group(1) in current:
        rid = current.pop(m.group(1))      # one oracle line per run
        found[rid] = (m.group(2), int(m.group(3)), int(m.group(4)), float(m.group(5)))

def pct(xs, q):                   # nearest rank
    xs = sorted(xs)
    k = max(0, min(len(xs) - 1, math.ceil(q * len(xs)) - 1))
    return xs[k]

def fmt_s(v):
    if math.isinf(v):
        return f'> {limit:g} s'
    return '< 0.01 s' if v < 0.005 else f'{v:.2f} s'

cells = {}
for r in runs:
    rid = int(r['run_id'])
    o = found.get(rid)
    cert = r['certified'] == 't'
    print(f"run {rid} {r['feature_set']} {r['mechanism']} eps={r['epsilon']} seed={r['seed']} "
          f"pid={r['pid']} {float(r['seconds']):.3f}s certified={cert} "
          f"sqlstate={r['sqlstate'] or '-'} log={o}", file=sys.stderr)
    if o is not None and (o[1] == 0) != cert:
        print(f"WARNING: run {rid}: log status {o[1]} but certified={cert}", file=sys.stderr)
    key = (r['feature_set'], float(r['epsilon']), r['mechanism'])
    cells.setdefault(key, []).append((r, o, cert))

order = {'d4': 0, 'd9': 1, 'd15': 2, 'd23': 3}
print('| set | eps | mechanism | oracle | certified (<= %g s) | median | p95 | max | '
      'median oracle s | median nodes | p95 nodes |' % limit)
print('|---|---|---|---|---|---|---|---|---|---|---|')
for key in sorted(cells, key=lambda k: (order.get(k[0], 9), k[2], k[1])):
    rs = cells[key]
    n = len(rs)
    ncert = sum(c for _, _, c in rs)
    secs = [float(r['seconds']) if c else math.inf for r, _, c in rs]
    oracles = sorted({o[0] if o else ('enumeration' if 'enumeration' in (r['params'] or '')
                                      else 'no log line') for r, o, _ in rs})
    nodes = [o[2] for _, o, _ in rs if o is not None]
    osecs = [o[3] for _, o, _ in rs if o is not None]
    print(f"| {key[0]} | {key[1]:g} | {'OPDisc' if key[2] == 'opdisc' else 'RSPM'} | "
          f"{', '.join(oracles)} | {ncert}/{n} ({100.0 * ncert / n:.0f} %) | "
          f"{fmt_s(statistics.median(secs))} | {fmt_s(pct(secs, 0.95))} | {fmt_s(max(secs))} | "
          f"{fmt_s(statistics.median(osecs)) if osecs else '-'} | "
          f"{int(statistics.median(nodes)) if nodes else '-'} | "
          f"{pct(nodes, 0.95) if nodes else '-'} |")
