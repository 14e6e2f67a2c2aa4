#!/usr/bin/env python3
"""bench/record.py — a bench script's results into bench/csv/NAME.csv, then docs/BENCHMARKS.md.

    python3 bench/record.py NAME 'COMMAND' < FILE

FILE: the Markdown the script printed, whose first table (header row, separator, rows) is
the result; or CSV with a header row (psql --csv).  Writes bench/csv/NAME.csv — the table's columns, then command (COMMAND, the
line that reproduces the run), commit (git's short hash, "+" when src/ or sql/ differ from
it), date (UTC), machine (CPUs and model) and load (the load average at the end) — replacing
the previous run's file (git keeps the history), and runs bench/render.py.
"""
import csv, os, re, subprocess, sys, time


def first_table(text):
    # Markdown when it has a table's separator row (text may come before the table)
    if not re.search(r"^\|[-:| ]+\|\s*$", text, re.M):
        return [r for r in csv.reader(text.strip().splitlines()) if r]
    rows, on = [], False
    for line in text.splitlines():
        if line.startswith("|"):
            on = True
            if not re.match(r"^\|[-:| ]+\|\s*$", line):
                rows.append([c.strip() for c in line.strip().strip("|").split("|")])
        elif on:
            break
    return rows


def meta(command):
    def git(*a):
        return subprocess.run(["git", *a], capture_output=True, text=True).stdout.strip()
    commit = git("rev-parse", "--short", "HEAD") or "unknown"
    if git("status", "--porcelain", "--", "src", "sql"):
        commit += "+"
    model = ""
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            model = line.split(":", 1)[1].strip()
            break
    load = "-".join(open("/proc/loadavg").read().split()[:3])
    return [command, commit, time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            f"{os.cpu_count()} CPUs, {model}", load]


def render():
    """bench/render.py with a python3 that has matplotlib (Debian's, under pyenv too)"""
    for py in (sys.executable, "/usr/bin/python3"):
        if subprocess.run([py, "-c", "import matplotlib"], capture_output=True).returncode == 0:
            return subprocess.run([py, "bench/render.py"]).returncode
    print("bench/record.py: no python3 with matplotlib; run bench/render.py later", file=sys.stderr)
    return 0


def main():
    name, command = sys.argv[1], sys.argv[2]
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    rows = first_table(sys.stdin.read())
    if len(rows) < 2:
        sys.exit(f"bench/record.py: no table with rows for {name}")
    m = meta(command)
    meta_cols = ["command", "commit", "date", "machine", "load"]
    # a column of the table's own that has a run column's name keeps it, marked
    header = [c + " (cell)" if c in meta_cols else c for c in rows[0]]
    with open(f"bench/csv/{name}.csv", "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(header + meta_cols)
        for r in rows[1:]:
            w.writerow([re.sub(r"\*\*(.*?)\*\*", r"\1", c) for c in r] + m)
    print(f"bench/record.py: wrote bench/csv/{name}.csv ({len(rows) - 1} rows)")
    sys.exit(render())


if __name__ == "__main__":
    main()
