#!/usr/bin/env python3
"""bench/audit/summarize.py — bench/audit/run.sh's outputs as its result tables.

    summarize.py [--csv] COMMAND FACTOR OUTDIR

OUTDIR holds real.out (mechanisms.sh on the real build at the bench's runs), bench.out
(mutants.sh at FACTOR, bench runs) and, if run, ci.out (mutants.sh at 1.25, CI's runs).
Each audit row (tests/families/README) gets its claim, the real build's bound and, per build,
every mutant's bound marked flagged or NOT flagged, from audit.py's "# |" tables and its
"ok"/"not ok" lines.  Markdown (bench/audit/results.md), or with --csv the compact table
bench/record.py renders into docs/BENCHMARKS.md.
"""
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../tests/audit"))
import audit  # noqa: E402

SPEC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../tests/families")


def tables(path):
    """{(row, build): (claim, runs, bound, estimate, seconds)} from audit.py's "# |" lines,
    and {(row, build): flagged} from its check lines (a mutant's "is flagged")"""
    cells, flags = {}, {}
    if not os.path.exists(path):
        return cells, flags
    for line in open(path, encoding="utf-8"):
        if line.startswith("# | ") and not line.startswith("# | row |"):
            f = [x.strip() for x in line[2:].strip().strip("|").split("|")]
            if len(f) == 8 and f[0] != "---":
                cells[(f[0], f[1])] = (f[3], f[4], f[5], f[6], f[7])
        m = re.match(r"(not ok|ok) - (\S+): the (\S+ \S+×) mutant is flagged", line)
        if m:
            flags[(m.group(2), m.group(3))] = m.group(1) == "ok"
    return cells, flags


def builds_of(cells, row):
    return sorted(b for (r, b) in cells if r == row and b != "real")


def mutant_cell(cells, flags, row, short=False):
    out = []
    for b in builds_of(cells, row):
        bound = cells[(row, b)][2].split()[-1]
        family = b.split()[0]
        mark = "" if flags.get((row, b)) else (" NOT flagged" if (row, b) in flags else " ?")
        out.append("%s %s%s" % (family, bound, mark))
    return "; ".join(out) if out else "—"


def main(argv):
    csv_mode = argv[1] == "--csv"
    if csv_mode:
        argv = argv[1:]
    command, factor, outdir = argv[1], argv[2], argv[3]
    real, _ = tables(os.path.join(outdir, "real.out"))
    bench, bflags = tables(os.path.join(outdir, "bench.out"))
    ci, cflags = tables(os.path.join(outdir, "ci.out"))
    rows = audit.read_spec(SPEC)
    if csv_mode:
        print("| row | claim | runs CI/bench | real build | 1.25× (CI runs) | %s× (bench runs) |"
              % factor)
        print("|---|---|---|---|---|---|")
        for row in rows:
            name = row["name"]
            r = real.get((name, "real"))
            if r is None:
                continue
            print("| %s | %s | %s | %s | %s | %s |" % (
                name, r[0], runs_text(name), r[2], mutant_cell(ci, cflags, name),
                mutant_cell(bench, bflags, name)))
        return 0
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    load = "-".join(open("/proc/loadavg").read().split()[:3])
    print("# Empirical privacy audit: the long run (bench/audit)\n")
    print("`%s` — %s, %s UTC, load %s, %d CPUs.\n" % (
        command, commit, time.strftime("%Y-%m-%d %H:%M", time.gmtime()), load, os.cpu_count()))
    print("Every audit row (tests/families/*.txt) at its bench runs on the real build (its bound "
          "must stay within its claim), and each mutant family of src/core/auditmutant.h "
          "built %s times under-calibrated (bench runs) and 1.25 times (CI's runs): every "
          "bound listed must cross its claim (\"NOT flagged\" marks one that does not).  "
          "Sizing: `python3 tests/audit/audit.py plan tests/families %s`.\n"
          % (factor, factor))
    print("| row | kind | claim | runs CI/bench | real build: bound (estimate) | s (CPU s) "
          "| 1.25×, CI runs | %s×, bench runs |" % factor)
    print("|---|---|---|---|---|---|---|---|")
    for row in rows:
        name = row["name"]
        r = real.get((name, "real"))
        if r is None:
            print("| %s | %s | — | %s | not run | | | |" % (name, row["kind"], runs_text(name)))
            continue
        print("| %s | %s | %s | %s | %s (%s) | %s | %s | %s |" % (
            name, row["kind"], r[0], runs_text(name), r[2], r[3], r[4],
            mutant_cell(ci, cflags, name), mutant_cell(bench, bflags, name)))
    return 0


def runs_text(name):
    for row in audit.read_spec(SPEC):
        if row["name"] == name:
            return row["fields"][6]
    return "?"


if __name__ == "__main__":
    sys.exit(main(sys.argv))
