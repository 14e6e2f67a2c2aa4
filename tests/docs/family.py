#!/usr/bin/env python3
"""tests/docs/family.py — adding a family touches only its own places.

Run from the repository root.  Copies the tree (the files git tracks) into a temporary
folder and adds a throwaway family "scratchfam" the way a contributor would: its folder
(src/families/scratchfam/: a header giving its entries and argument check, a .c file
over the floors below defining its descriptor), its SQL objects (sql/families/), its
regression test (sql/, expected/), its harness lines
(tests/families/scratchfam.txt), its docs
(docs/ARCHITECTURE.md's file table) and X(scratchfam) at the registry's marked place.  Then:
  1. tests/docs/structure.py passes on the copy, and the harnesses read the family's lines
     (tests/families/lines.sh);
  2. the build takes the family's files and pg_regress its test with no list edited
     (the Makefile's OBJS and REGRESS, read through make with PGXS), and the upgrade script
     the Makefile builds ends with its SQL objects;
  3. the family's files and the registry compile against the installed server headers;
  4. the name appears nowhere else, and in the registry on at most REGISTRY_LINES lines;
  5. the same family including another family's header, or the registry's, fails
     structure.py.
What the tree cannot show yet is printed as "# pending" lines (docs/ARCHITECTURE.md,
"Families").  Needs pg_config ($PG_CONFIG or on PATH) for 2 and 3.
Last line: "N passed, M failed".
"""
import glob, os, re, shutil, subprocess, sys, tempfile

NAME = "scratchfam"
# the registry's lines that name a new family: its DP_FAMILIES line
REGISTRY = "src/families/registry.c"
REGISTRY_LINES = 1
PENDING = []


sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from structure import check  # noqa: E402  (its "ok"/"not ok" lines and counts)
import structure as checks  # noqa: E402


def tracked():
    r = subprocess.run(["git", "ls-files"], capture_output=True, text=True)
    if r.returncode == 0:
        return r.stdout.split()
    return [os.path.relpath(os.path.join(d, f)) for d, _, fs in os.walk(".")
            if "/.git" not in d for f in fs]


def write(root, path, text):
    p = os.path.join(root, path)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    open(p, "w", encoding="utf-8").write(text)


def insert_before(root, path, marker, text):
    p = os.path.join(root, path)
    s = open(p, encoding="utf-8").read()
    if marker not in s:
        raise SystemExit(f"not ok - {path} has no marked place {marker!r}\n0 passed, 1 failed")
    open(p, "w", encoding="utf-8").write(s.replace(marker, text + marker, 1))


HEADER = """/*
 * scratchfam.h
 *	  A throwaway family: its argument check and entries.
 */
#ifndef DPOBJ_SCRATCHFAM_H
#define DPOBJ_SCRATCHFAM_H

#include "postgres.h"

#include "utils/jsonb.h"

extern void scratchfam_check_args(const char *aggname, double epsilon, double delta,
								  int d, Jsonb *options);

#define SCRATCHFAM_FAMILY_MECHANISMS \\
	{.name = "scratchfam", .aggregate = "dpobj.dp_scratchfam", .aggname = "dp_scratchfam", \\
		.check_args = scratchfam_check_args, .model_kind = MODEL_KIND_LINEAR, .r_norm = 2, \\
		.ledger = DP_LEDGER({"scratchfam", LEDGER_COST_PURE})}

#endif							/* DPOBJ_SCRATCHFAM_H */
"""

SOURCE = """/*
 * scratchfam.c
 *	  A throwaway family's argument check and descriptor, over the floors below.
 */
#include "postgres.h"

#include "families/scratchfam/scratchfam.h"
#include "base/dpobj.h"
#include "mechanisms/family.h"
#include "mechanisms/mechanism.h"

static const DPMechanism scratchfam_mechanisms[] = {SCRATCHFAM_FAMILY_MECHANISMS};

const DPFamily scratchfam_family = DP_FAMILY(scratchfam, scratchfam_mechanisms);

void
scratchfam_check_args(const char *aggname, double epsilon, double delta, int d,
					  Jsonb *options)
{
	if (!(epsilon > 0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: epsilon must be positive", aggname)));
}
"""


SQL = """-- a throwaway family's aggregate
CREATE FUNCTION dpobj.dp_scratchfam_finalfn(internal) RETURNS dpobj.model
AS 'MODULE_PATHNAME', 'dpobj_scratchfam_finalfn' LANGUAGE C;
CREATE AGGREGATE dpobj.dp_scratchfam(float8[], boolean, float8, float8) (
    SFUNC = dpobj.dp_scratchfam_transfn, STYPE = internal,
    FINALFUNC = dpobj.dp_scratchfam_finalfn);
"""


def add_family(root):
    fam = f"src/families/{NAME}"
    write(root, f"{fam}/{NAME}.h", HEADER)
    write(root, f"{fam}/{NAME}.c", SOURCE)
    insert_before(root, REGISTRY, "/* a new family: X(<f>) */", f"X({NAME}) ")
    write(root, f"sql/{NAME}.sql", "SELECT 1 AS scratchfam;\n")
    write(root, f"sql/families/{NAME}.sql", SQL)
    write(root, f"expected/{NAME}.out", "SELECT 1 AS scratchfam;\n scratchfam \n"
          "------------\n          1\n(1 row)\n\n")
    write(root, f"tests/families/{NAME}.txt",
          f"[neighbours]\n{NAME}       {NAME}       continuous  {{}}\n\n[audit]\n"
          f"{NAME} | eps | pts | 1 | 0 | eps=1 delta=0 | 100 | "
          f"dpobj.dp_{NAME}(x, y, @EPS@, @DELTA@) | m | -\n\n[citus]\n"
          f"{NAME}   dpobj.dp_{NAME}(x, y, 1, 0)\n")
    arch = os.path.join(root, "docs/ARCHITECTURE.md")
    s = open(arch, encoding="utf-8").read()
    row = f"| `{NAME}/`: `{NAME}.h`, `{NAME}.c` | a throwaway family |\n"
    s = s.replace("\n\n### `src/model/`", "\n" + row + "\n### `src/model/`", 1)
    open(arch, "w", encoding="utf-8").write(s)


def structure(root):
    r = subprocess.run([sys.executable, "tests/docs/structure.py"], cwd=root,
                       capture_output=True, text=True)
    return r.returncode, [l for l in r.stdout.splitlines() if l.startswith("not ok")]


def harness_lines(root):
    """the harness sections (tests/families/lines.sh) whose lines in the copy name it"""
    out = []
    for section, cmd in (("neighbours", "neighbour_lines"), ("audit", "family_lines audit"),
                         ("citus", "family_lines citus")):
        r = subprocess.run(["bash", "-c", f". tests/families/lines.sh && {cmd}"], cwd=root,
                           capture_output=True, text=True)
        if r.returncode == 0 and re.search(rf"^{NAME}\b", r.stdout, re.M):
            out.append(section)
    return out


def pg_config():
    cands = [os.environ.get("PG_CONFIG", ""), shutil.which("pg_config") or ""]
    cands += sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_config"), reverse=True)
    return next((c for c in cands if c and os.access(c, os.X_OK)), None)


def next_script(root, pgc, name):
    """builds the next upgrade script (the Makefile's NEXT_SCRIPT) in the copy: its text
    (removed again: a built file)"""
    p = os.path.join(root, name)
    r = subprocess.run(["make", "-s", "--no-print-directory", name, f"PG_CONFIG={pgc}"],
                       cwd=root, capture_output=True, text=True)
    text = open(p, encoding="utf-8").read() if r.returncode == 0 and os.path.exists(p) else ""
    if os.path.exists(p):
        os.remove(p)
    return text


def make_vars(root, pgc):
    extra = os.path.join(root, "show-vars.mk")
    open(extra, "w").write("show-vars:\n\t@echo OBJS: $(OBJS)\n\t@echo REGRESS: $(REGRESS)\n"
                           "\t@echo NEXT_SCRIPT: $(NEXT_SCRIPT)\n")
    r = subprocess.run(["make", "-s", "--no-print-directory", "-f", "Makefile", "-f", extra,
                        "show-vars", f"PG_CONFIG={pgc}"], cwd=root, capture_output=True,
                       text=True)
    out = dict(l.split(": ", 1) for l in r.stdout.splitlines() if ": " in l)
    return (out.get("OBJS", "").split(), out.get("REGRESS", "").split(),
            out.get("NEXT_SCRIPT", "").strip())


def compiles(root, pgc, files):
    inc = subprocess.check_output([pgc, "--includedir-server"], text=True).strip()
    bad = []
    for f in files:
        r = subprocess.run(["cc", "-std=gnu11", "-fsyntax-only",
                            "-Werror=implicit-function-declaration",
                            "-I", os.path.join(root, "src"), "-I", inc, f], cwd=root,
                           capture_output=True, text=True)
        if r.returncode:
            bad.append(f + ": " + (r.stderr.strip().splitlines() or ["?"])[0])
    return bad


def named(root):
    """files of the copy that name the family, and the registry's lines that do"""
    where, reg = [], 0
    for d, _, fs in os.walk(root):
        for f in fs:
            p = os.path.relpath(os.path.join(d, f), root)
            try:
                text = open(os.path.join(d, f), encoding="utf-8").read()
            except (UnicodeDecodeError, IsADirectoryError):
                continue
            if re.search(r"scratchfam", text, re.I):
                where.append(p)
                if p == REGISTRY:
                    reg = sum(1 for l in text.splitlines() if re.search("scratchfam", l, re.I))
    return sorted(where), reg


def main():
    files = tracked()
    with tempfile.TemporaryDirectory(prefix="dpobj-family-") as root:
        for f in files + [".gitignore"]:
            if os.path.isfile(f):
                os.makedirs(os.path.join(root, os.path.dirname(f)), exist_ok=True)
                shutil.copy2(f, os.path.join(root, f))
        add_family(root)
        rc, bad = structure(root)
        check("tests/docs/structure.py passes with the family added", rc == 0 and not bad,
              "; ".join(bad))
        read = harness_lines(root)
        check("the harnesses read the family's lines (neighbours, audit, citus)",
              read == ["neighbours", "audit", "citus"], " ".join(read))
        pgc = pg_config()
        if pgc:
            objs, regress, script = make_vars(root, pgc)
            check("the build takes the family's files (OBJS)",
                  f"src/families/{NAME}/{NAME}.o" in objs, " ".join(objs[-3:]))
            check("pg_regress runs the family's test (REGRESS), not its SQL objects",
                  NAME in regress and "families" not in " ".join(regress), " ".join(regress[-3:]))
            if script:
                text = next_script(root, pgc, script)
                check(f"the built upgrade script {script} ends with the family's SQL objects "
                      f"(sql/families/{NAME}.sql)", text.endswith(SQL), text[-80:])
            else:
                # a release: its scripts are frozen, the next version's begin builds one
                waiting = sorted(glob.glob("sql/families/*.sql"))
                check("a release builds no upgrade script: no family SQL file waits for one",
                      not waiting, ", ".join(waiting))
                PENDING.append("a family's SQL objects go into the next version's upgrade "
                               "script, which the Makefile builds once its development begins")
            bad = compiles(root, pgc, [f"src/families/{NAME}/{NAME}.c",
                                       REGISTRY])
            check("the family and the registry compile", not bad, "; ".join(bad))
        else:
            check("pg_config found (the build's lists and a compile)", False,
                  "set PG_CONFIG")
        allowed = re.compile(rf"^(src/families/{NAME}/|sql/(families/)?{NAME}\.sql$|expected/{NAME}\.out$"
                             r"|tests/|docs/|src/families/registry\.c$)")
        where, reg = named(root)
        check("the family is named only in its folder, SQL files, tests, docs and registry",
              not [p for p in where if not allowed.match(p)],
              ", ".join(p for p in where if not allowed.match(p)))
        check(f"the registry names it on at most {REGISTRY_LINES} lines ({reg})",
              0 < reg <= REGISTRY_LINES)
        src = os.path.join(root, f"src/families/{NAME}/{NAME}.c")
        clean = open(src, encoding="utf-8").read()
        for what, header in (("another family", "families/halfspace/halfspace.h"),
                             ("the registry above it", "families/registry.h")):
            insert_before(root, f"src/families/{NAME}/{NAME}.c", '#include "base/dpobj.h"',
                          f'#include "{header}"\n')
            rc, bad = structure(root)
            check(f"a family including {what} fails structure.py",
                  rc != 0 and any("another family" in l for l in bad), "; ".join(bad))
            open(src, "w", encoding="utf-8").write(clean)
    for p in PENDING:
        print("# pending: " + p)
    print(f"{checks.PASS} passed, {checks.FAIL} failed")
    return 1 if checks.FAIL else 0


if __name__ == "__main__":
    sys.exit(main())
