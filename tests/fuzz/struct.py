#!/usr/bin/env python3
"""tests/fuzz/struct.py — the structure-aware model fuzz: real models of every kind, each case
one to three structural mutations of one (tests/fuzz/struct.sql: fz.struct_model), passed
through every function that takes a model; each must end in a result or a plain error.

Usage: struct.py DB SEED CASES (run by tests/fuzz/run.sh and tests/fuzz/sanitize.sh, after
tests/fuzz/setup.sql and struct.sql).  CASES cases of each model (fz.smodels: one per kind,
and models with an encoding, a multi-class noisy SGD one, a three-column synthesizer);
each case's model is built anew from (model, SEED, case) on the server, so cases replay;
DPOBJ_FUZZ_STRUCT_MODELS (names, space-separated) runs only those; DPOBJ_FUZZ_STRUCT_JOBS
(default 1) sessions run models side by side, each in its own copy of DB.

The cases run on the server, CHUNK of them per statement (fz.struct_run), so that a campaign
of 100 000 cases per model takes minutes, not hours.  First each unmodified model must pass
through the functions of its kind (a check that the cases reach the readers).  A case fails
on SQLSTATE XX000/XX001 (an internal error), a lost connection (a crash: the chunk is run
again case by case, then the case function by function, to name both) or no answer within
the wall time (a hang that ignores cancel: the server is restarted).  A chunk cancelled by
its statement timeout is run again case by case with a 5 s timeout each; a case's timeout
(57014) is an outcome, not a failure, and is counted.  After DPOBJ_FUZZ_STRUCT_MAX_CRASHES
(default 3) crashing cases a model's further cases are skipped (one failure more).  Each
failure prints with its replay:
  SELECT * FROM fz.struct_run('NAME', SEED, CASE, 1, ARRAY['FN']);  -- the model:
  SELECT fz.struct_model('NAME', SEED, CASE);
Last line: "N passed, M failed" (one check per model and its baseline, one per failure).
"""
import os
import queue
import re
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import fuzzlib

DB, SEED, CASES = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
CHUNK = 100                 # cases per statement
CHUNK_TIMEOUT_S = 120       # statement_timeout of a chunk (a sanitizer build is slower)
CASE_TIMEOUT_MS = 5000      # of a case run alone
MAX_CRASHES = int(os.environ.get("DPOBJ_FUZZ_STRUCT_MAX_CRASHES", "3"))
BAD = ("XX000", "XX001")
LOST = re.compile(r"server closed the connection|connection to server was lost|"
                  r"terminated abnormally|no connection to the server|could not connect")
out_lock = threading.Lock()


def say(*lines):
    with out_lock:
        for line in lines:
            print(line, flush=True)


def run_script(db, stmts, timeout_ms, wall):
    """Runs stmts in one session, each after a marker line; returns ({statement index: its
    rows, or the SQLSTATE it failed with}, the index a lost connection ended the session at
    or None, hung)."""
    script = "\\set VERBOSITY sqlstate\nSET statement_timeout = %d;\n" % timeout_ms
    script += "".join("\\echo '#@ %d'\n%s;\n" % (i, s) for i, s in enumerate(stmts))
    try:
        p = subprocess.run(["psql", "-X", "-q", "-At", "-d", db], input=script,
                           capture_output=True, text=True, timeout=wall)
    except subprocess.TimeoutExpired:
        return {}, None, True
    rows, cur = {}, None
    for line in p.stdout.splitlines():
        if line.startswith("#@ "):
            cur = int(line[3:])
            rows[cur] = []
        elif cur is not None:
            rows[cur].append((line.split("|", 3) + ["", "", ""])[:4])
    for m in re.finditer(r"^psql:<stdin>:(\d+): ERROR:\s+(\w+)", p.stderr, re.M):
        rows[(int(m.group(1)) - 4) // 2] = m.group(2)       # (2 lines before, 2 a statement)
    crashed = None
    if LOST.search(p.stderr) or p.returncode not in (0, 1):
        crashed = cur if cur is not None else 0
        rows.pop(crashed, None)
    return rows, crashed, False


class Model:
    """One model's cases: the outcomes tallied, the failures."""

    def __init__(self, name, fnlist, db):
        self.name, self.fnlist, self.db = name, fnlist, db
        self.tally, self.failures, self.crashes = {}, [], 0

    def stmt(self, first, n, fn=None):
        return "SELECT * FROM fz.struct_run('%s', %d, %d, %d%s)" % (
            self.name, SEED, first, n, ", ARRAY['%s']" % fn if fn else "")

    def count(self, rows):
        for fn, outcome, cnt, detail in rows:
            if outcome in BAD or fn == "generator":
                case = re.sub(r".* case (-?\d+):.*", r"\1", detail)
                self.failures.append("%s %s\n#   replay: %s" % (
                    self.name, detail, self.stmt(int(case), 1, fn if fn != "generator" else None)))
            else:
                self.tally[fn + " " + outcome] = self.tally.get(fn + " " + outcome, 0) + int(cnt)

    def baseline(self):
        """The unmodified model: the functions of its kind must return (a fuzz that never
        reaches a reader proves nothing)."""
        rc, out, err = fuzzlib.psql(self.db, self.stmt(-1, 1))
        ok = {l.split("|")[0] for l in out.splitlines() if l.split("|")[1:2] == ["ok"]}
        if self.name.startswith("synth"):
            need = {"model_kind", "sample", "marginal", "fidelity", "sample_named", "sample_into", "sample_rows"}
        else:
            need = {"model_kind", "explain", "save_model", "explain_named", "evaluate"}
            need |= {"encode"} if self.name.endswith("_enc") else {"dp_evaluate"}
            need |= {"predict_class" if "multiclass" in self.name else "score"}
        missing = sorted(need - ok)
        say("%s - %s: the unmodified model passes through %s%s" % (
            "ok" if rc == 0 and not missing else "not ok", self.name, ", ".join(sorted(need)),
            "" if rc == 0 and not missing else "\n#   missing %s %s" % (missing, err[:300])))
        return rc == 0 and not missing

    def crash_where(self, case, before):
        """Where case crashes when run again: in a function named alone, in all of its
        functions together, or only after the cases before it in one session."""
        _, crashed, _ = run_script(self.db, [self.stmt(case, 1)], CASE_TIMEOUT_MS, 120)
        fuzzlib.wait_up(DB)
        if crashed is None:
            return "only after cases %d..%d in the same session" % (before, case - 1)
        _, crashed, _ = run_script(self.db, [self.stmt(case, 1, f) for f in self.fnlist],
                                   CASE_TIMEOUT_MS, 60 + 6 * len(self.fnlist))
        fuzzlib.wait_up(DB)
        return "all functions together" if crashed is None else self.fnlist[crashed]

    def alone(self, cases):
        """Cases one statement each: a timeout is an outcome; a crash is named and replayed."""
        while cases and self.crashes < MAX_CRASHES:
            rows, crashed, hung = run_script(self.db, [self.stmt(k, 1) for k in cases],
                                             CASE_TIMEOUT_MS, 120 + 6 * len(cases))
            if hung:
                return self.hang(cases[0])
            for i, r in rows.items():
                if isinstance(r, list):
                    self.count(r)
                elif r == "57014":              # its statement timeout: an outcome
                    self.tally["(case) 57014"] = self.tally.get("(case) 57014", 0) + 1
                else:
                    self.failures.append("%s case %d: the case failed with %s\n#   replay: %s"
                                         % (self.name, cases[i], r, self.stmt(cases[i], 1)))
            if crashed is None:
                return
            fuzzlib.wait_up(DB)
            k = cases[crashed]
            where = self.crash_where(k, cases[0])
            self.crashes += 1
            rc, model, _ = fuzzlib.psql(self.db, "SELECT fz.struct_model('%s', %d, %d)"
                                        % (self.name, SEED, k))
            self.failures.append("%s case %d: lost connection (a crash), run again: %s\n"
                                 "#   replay: %s\n#   the model: %s" % (
                                     self.name, k, where, self.stmt(k, 1, where if where in
                                                                     self.fnlist else None),
                                     model.strip()[:800]))
            cases = cases[crashed + 1:]

    def hang(self, first):
        fuzzlib.restart()
        fuzzlib.wait_up(DB)
        self.failures.append("%s cases from %d: no answer within the wall time (a hang that "
                             "ignores cancel)" % (self.name, first))
        self.crashes = MAX_CRASHES

    def run(self):
        """Every case, CHUNK a statement, the chunks in one session until one fails."""
        t0 = time.time()
        base = self.baseline()
        todo = [(c, min(CHUNK, CASES - c)) for c in range(0, CASES, CHUNK)]
        while todo and self.crashes < MAX_CRASHES:
            rows, crashed, hung = run_script(self.db, [self.stmt(c, n) for c, n in todo],
                                             CHUNK_TIMEOUT_S * 1000,
                                             120 + CHUNK_TIMEOUT_S * len(todo))
            if hung:
                self.hang(todo[0][0])
                break
            for i in sorted(rows):
                if isinstance(rows[i], list):
                    self.count(rows[i])
                else:                               # cancelled by its timeout, or failed
                    self.alone(list(range(todo[i][0], sum(todo[i]))))
            if crashed is None:
                break
            fuzzlib.wait_up(DB)
            self.alone(list(range(todo[crashed][0], sum(todo[crashed]))))
            todo = todo[crashed + 1:]
        if self.crashes >= MAX_CRASHES:
            self.failures.append("%s: the cases after %d crashing ones skipped"
                                 % (self.name, MAX_CRASHES))
        for f in self.failures[:10]:
            say("not ok - %s" % f)
        if len(self.failures) > 10:
            say("not ok - %s: %d failures more" % (self.name, len(self.failures) - 10))
            self.failures = self.failures[:11]
        n = sum(v for k, v in self.tally.items() if k.startswith("model_kind "))
        if n + self.tally.get("(case) 57014", 0) < CASES and not self.crashes:
            self.failures.append("%s: %d of %d cases ran" % (self.name, n, CASES))
            say("not ok - %s" % self.failures[-1])
        shown = sorted((k, v) for k, v in self.tally.items()
                       if k.split()[0] in ("model_kind", "predict", "sample", "evaluate"))
        say("%s - %s: %d cases, no crash, hang or internal error" % (
            "ok" if not self.failures else "not ok", self.name, n),
            "# %s: %.0f s; outcomes %s" % (self.name, time.time() - t0,
                                          ", ".join("%s %d" % kv for kv in shown)))
        return int(base) + (not self.failures), int(not base) + len(self.failures)


def main():
    names = os.environ.get("DPOBJ_FUZZ_STRUCT_MODELS", "").split()
    if not names:
        rc, out, err = fuzzlib.psql(DB, "SELECT name FROM fz.smodels ORDER BY name")
        names = out.split()
    fnlist = fuzzlib.psql(DB, "SELECT array_to_string(fz.struct_fns(), ' ')")[1].split()
    say("# structure-aware model fuzz: seed %d, %d cases of each of %d models through %d "
        "functions" % (SEED, CASES, len(names), len(fnlist)))
    t0 = time.time()
    # one database a session (copies of DB): evaluate()'s ledger lock and the stored model's
    # row are the database's, held by a statement's transaction
    jobs = max(int(os.environ.get("DPOBJ_FUZZ_STRUCT_JOBS", "1")), 1)
    dbs = queue.Queue()
    dbs.put(DB)
    for j in range(2, jobs + 1):
        fuzzlib.psql("postgres", "DROP DATABASE IF EXISTS %s_%d" % (DB, j))
        rc, _, err = fuzzlib.psql("postgres", "CREATE DATABASE %s_%d TEMPLATE %s" % (DB, j, DB))
        if rc == 0:
            dbs.put("%s_%d" % (DB, j))
        else:
            say("# no copy of %s for session %d: %s" % (DB, j, err.strip()))

    def one(name):
        db = dbs.get()
        try:
            return Model(name, fnlist, db).run()
        finally:
            dbs.put(db)

    with ThreadPoolExecutor(max_workers=jobs) as ex:
        results = list(ex.map(one, names))
    for j in range(2, jobs + 1):
        fuzzlib.psql("postgres", "DROP DATABASE IF EXISTS %s_%d" % (DB, j))
    passed = sum(r[0] for r in results)
    failed = sum(r[1] for r in results)
    ok = bool(names) and bool(fnlist)
    say("%s - the models and functions were read (%d, %d)" % ("ok" if ok else "not ok",
                                                              len(names), len(fnlist)))
    say("# %d cases in %.0f s" % (CASES * len(names), time.time() - t0))
    say("%d passed, %d failed" % (passed + ok, failed + (not ok)))
    return 1 if failed or not ok else 0


if __name__ == "__main__":
    sys.exit(main())
