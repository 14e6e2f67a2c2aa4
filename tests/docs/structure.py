#!/usr/bin/env python3
"""tests/docs/structure.py — checks that the source tree and the documents agree.

Run from the repository root.  Prints "ok"/"not ok" lines and, last, "N passed, M failed".
  1. every path README.md and docs/*.md name (src/…, tests/…, bench/…, sql/…, scripts/…,
     expected/…, docs/…, data/…; globs allowed) exists;
  2. no "issue N" in src/, sql/ (but the released scripts, which never change), docs/,
     bench/, tests/, scripts/ or README.md: comments and docs say what and why; the
     released scripts (the sql/dpobj--*.sql git tracks) are the release fixtures' copies;
  3. docs/ARCHITECTURE.md lists every folder of src/ in its layout table and names every
     source file of src/ in its file table ("x.[ch]" names x.c and x.h);
  4. src/core/ includes no PostgreSQL header, directly or through another header;
  5. no include circle between modules (x.c with x.h; a header of no module passes its
     includes on) and no call circle between files;
  6. every include of a dpobj header names its folder ("state/aggstate.h"), and none runs
     up the layers (LAYERS, bottom first; docs/ARCHITECTURE.md "Layout");
  7. every family of the registry has its harness lines, tests/families/<f>.txt: a
     [neighbours] line per train() mechanism (the entries of src/families/<f>/*.h), an
     [audit] row per aggregate and (but CITUS_PENDING) a [citus] line or a run in
     tests/citus/run.sh; every sql/families/<f>.sql is a registry family's;
  8. no call runs up the layers (a function defined in a higher folder called from a
     lower one);
  9. a family (src/families/<f>/) includes and calls only the layers below it and its own
     folder, never another family nor the registry above them (src/families/registry.c);
     outside src/families/ none is named;
 10. a throwaway family (a copy of the tree with one more family folder, SQL test and
     registry line) passes these checks and is built and tested with no other edit;
 11. every entry point reaches the sealed path through its one typed entry,
     dp_sealed_run() (src/context/sealedrun.h): no file of src/ builds a call of an SQL
     function by hand (LOCAL_FCINFO, InitFunctionCallInfoData), as a fake train() call did.
"""
import functools, glob, os, re, subprocess, sys

PASS, FAIL = 0, 0

# src/'s folders, bottom layer first: a file includes headers of its own folder and of
# folders below it only
LAYERS = ["core", "base", "ledger", "model", "context", "state", "mechanisms", "families",
          "protected", "jobs", "api"]
# includes up the layers that another change removes, each (file, include); the check
# fails on any other and on an entry that no longer occurs (none now).
PENDING_UP = set()
# registry aggregates the Citus suite does not run yet; fails on any other and on an entry
# that it runs by now
CITUS_PENDING = set()


def check(desc, ok, detail=""):
    global PASS, FAIL
    if ok:
        PASS += 1
        print("ok - " + desc)
    else:
        FAIL += 1
        print("not ok - " + desc + (": " + detail if detail else ""))


@functools.lru_cache(maxsize=None)
def in_git():
    """a git work tree (a release tarball or an exported tree has none)"""
    return subprocess.run(["git", "rev-parse", "--is-inside-work-tree"],
                          capture_output=True).returncode == 0


def gitignore_match(path):
    """path matches a pattern of .gitignore (the check for a tree without git)"""
    import fnmatch
    parts = path.split("/")
    for pat in open(".gitignore", encoding="utf-8").read().split():
        pat = pat.rstrip("/")
        if "/" in pat:
            if fnmatch.fnmatch(path, pat) or path.startswith(pat + "/"):
                return True
        elif any(fnmatch.fnmatch(part, pat) for part in parts):
            return True
    return False


def tracked():
    """the repository's files: git's list, or (no git) every file .gitignore keeps"""
    if in_git():
        return subprocess.check_output(["git", "ls-files"], text=True).split()
    return sorted(os.path.relpath(os.path.join(d, f))
                  for d, dirs, fs in os.walk(".") if not d.startswith("./.git")
                  for f in fs if not gitignore_match(os.path.relpath(os.path.join(d, f))))


def doc_paths():
    """every repository path that README.md and docs/*.md mention"""
    pat = re.compile(r"(?<![\w/.-])((?:src|tests|bench|sql|scripts|expected|docs|data)/[\w./*-]*[\w*])")
    found = {}
    for doc in ["README.md"] + sorted(glob.glob("docs/*.md")):
        for path in pat.findall(open(doc, encoding="utf-8").read()):
            found.setdefault(path.rstrip("."), doc)
    return found


def ignored(path):
    """a path git ignores: an output a benchmark writes, a binary it builds"""
    if not in_git():
        return gitignore_match(path)
    return any(subprocess.run(["git", "check-ignore", "-q", p]).returncode == 0
               for p in (path, path + "/"))


def check_paths(files):
    missing = []
    dirs = {os.path.dirname(f) for f in files}
    for path, doc in sorted(doc_paths().items()):
        p = path.rstrip("/")
        if ignored(p):
            continue
        if any(c in p for c in "*?"):
            if not glob.glob(p):
                missing.append(f"{path} ({doc})")
        elif not (os.path.exists(p) or p in dirs):
            missing.append(f"{path} ({doc})")
    check("every path the docs name exists", not missing, ", ".join(missing))


# an extension script: an install (sql/dpobj--V.sql) or an upgrade (sql/dpobj--V--W.sql)
SCRIPT = re.compile(r"sql/dpobj--([0-9.]+)(?:--([0-9.]+))?\.sql")


def released_scripts(files):
    """the released extension scripts: every one git tracks (the next upgrade script is
    built by the Makefile, not tracked; at a release it is frozen as a file)"""
    return {f for f in files if SCRIPT.fullmatch(f)}


def check_released_scripts(files):
    """a released script never changes: each is the one in every release fixture
    (tests/upgrade/releases/dpobj-<v>.tar.gz, a release's source) holding it; only the
    script of the release being made (to dpobj.control's version) may be in none yet"""
    import tarfile
    current = re.search(r"^default_version = '(.*)'", open("dpobj.control").read(), re.M).group(1)
    seen, changed = {}, []
    for fx in sorted(f for f in files if re.fullmatch(r"tests/upgrade/releases/dpobj-[0-9.]+\.tar\.gz", f)):
        with tarfile.open(fx) as tar:
            for m in tar.getmembers():
                name = m.name.split("/", 1)[-1]
                if m.isfile() and SCRIPT.fullmatch(name):
                    seen.setdefault(name, []).append(fx)
                    if name in files and tar.extractfile(m).read() != open(name, "rb").read():
                        changed.append(f"{name} ({os.path.basename(fx)})")
    check("every released script is as released (the release fixtures' copies)", not changed,
          ", ".join(changed))
    loose = sorted(f for f in released_scripts(files)
                   if f not in seen and (SCRIPT.fullmatch(f).group(2) or SCRIPT.fullmatch(f).group(1)) != current)
    check(f"every released script is in a release fixture but the {current} release's", not loose,
          ", ".join(loose))


def check_issue_numbers(files):
    frozen = released_scripts(files)
    roots = ("src/", "sql/", "docs/", "bench/", "tests/", "scripts/", "README.md")
    hits = []
    for f in files:
        if f in frozen or not f.startswith(roots) or "/runs/" in f:
            continue
        try:
            text = open(f, encoding="utf-8").read()
        except (UnicodeDecodeError, IsADirectoryError):
            continue
        for n, line in enumerate(text.splitlines(), 1):
            if re.search(r"\bissues? [0-9]", line, re.I) and f != "tests/docs/structure.py":
                hits.append(f"{f}:{n}")
    check('no "issue N" outside the released scripts', not hits, ", ".join(hits[:20]))


def check_architecture(files):
    arch = open("docs/ARCHITECTURE.md", encoding="utf-8").read()
    folders = sorted({f.split("/")[1] for f in files if f.startswith("src/") and f.count("/") >= 2})
    loose = [f for f in files if f.startswith("src/") and f.count("/") == 1]
    check("src/ holds folders only", not loose, ", ".join(loose))
    absent = [d for d in folders if f"`src/{d}/`" not in arch]
    check("ARCHITECTURE.md's layout lists every folder of src/", not absent, ", ".join(absent))
    # "x.[ch]" names x.c and x.h
    named = arch + " ".join(f" {m}.c {m}.h" for m in re.findall(r"(\w+)\.\[ch\]", arch))
    unnamed = [f for f in files if f.startswith("src/") and f.endswith((".c", ".h"))
               and os.path.basename(f) not in named]
    check("ARCHITECTURE.md names every source file", not unnamed, ", ".join(unnamed))


def strip_comments(text):
    return re.sub(r"//[^\n]*", "", re.sub(r"/\*.*?\*/", "", text, flags=re.S))


def strip_c(text):
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    return re.sub(r'"(\\.|[^"\\])*"', '""', text)


def includes(files):
    src = [f for f in files if f.startswith("src/") and f.endswith((".c", ".h"))]
    # an include names its folder ("core/additive.h"), so two folders may share a header name
    by_path = {f[len("src/"):]: f for f in src}
    by_name = {os.path.basename(f): f for f in src}

    def resolve(n):
        return by_path.get(n) or by_name.get(os.path.basename(n))
    graph, system = {}, {}
    for f in src:
        names = re.findall(r'#include\s+"([^"]+)"', open(f, encoding="utf-8").read())
        graph[f] = {resolve(n) for n in names if resolve(n) and resolve(n) != f}
        system[f] = [n for n in names if not resolve(n)]
    return graph, system


def check_layers(files):
    """every dpobj include names its folder, and none runs up LAYERS"""
    src = [f for f in files if f.startswith("src/") and f.endswith((".c", ".h"))]
    headers = {f[len("src/"):] for f in src if f.endswith(".h")}
    basenames = {os.path.basename(h) for h in headers}
    folders = sorted({f.split("/")[1] for f in src})
    unranked = [d for d in folders if d not in LAYERS]
    check("every folder of src/ has its place in LAYERS", not unranked, ", ".join(unranked))
    rank = {d: i for i, d in enumerate(LAYERS)}
    bare, up, seen = [], [], set()
    for f in src:
        text = strip_comments(open(f, encoding="utf-8").read())
        for n in re.findall(r'^\s*#\s*include\s+"([^"]+)"', text, re.M):
            if n not in headers:
                if os.path.basename(n) in basenames:
                    bare.append(f"{f}: {n}")
                continue
            target = n.split("/")[0]
            if rank.get(target, -1) > rank.get(f.split("/")[1], len(LAYERS)):
                if (f, n) in PENDING_UP:
                    seen.add((f, n))
                else:
                    up.append(f"{f} -> {n}")
    check("every include of a dpobj header names its folder", not bare, ", ".join(bare[:20]))
    check(f"no include runs up the layers ({len(up)} do)", not up, ", ".join(up[:20]))
    stale = [f"{f} -> {n}" for f, n in sorted(PENDING_UP - seen)]
    check("every pending include up the layers still occurs (else drop it)", not stale,
          ", ".join(stale))


def check_core(files):
    graph, system = includes(files)
    bad = []
    for f in graph:
        if not f.startswith("src/core/"):
            continue
        seen, todo = set(), [f]
        while todo:
            g = todo.pop()
            if g in seen:
                continue
            seen.add(g)
            if not g.startswith("src/core/"):
                bad.append(f"{f} -> {g}")
            if system[g]:
                bad.append(f"{f} -> {g} includes {', '.join(system[g])}")
            todo.extend(graph[g])
    check("src/core/ includes no PostgreSQL header and nothing outside src/core/", not bad,
          "; ".join(bad[:10]))


# server headers that pull in headers of libraries the -dev packages do not depend on
# (ICU's unicode/ucol.h on builds with ICU): a fresh machine with postgresql-server-dev
# alone cannot compile them
UNBUILDABLE = ("utils/pg_locale.h",)


def check_object_names(files):
    """PGXS writes each object's dependencies to .deps/<basename>.Po: two C files with one
    basename would share that file and lose one's header dependencies"""
    seen, dup = {}, []
    for f in files:
        if f.startswith("src/") and f.endswith(".c"):
            b = os.path.basename(f)
            if b in seen:
                dup.append(f"{seen[b]} and {f}")
            seen[b] = f
    check("no two C files under src/ share a file name", not dup, "; ".join(dup))


def check_server_headers(files):
    _, system = includes(files)
    bad = [f"{f}: {n}" for f, names in sorted(system.items()) for n in names
           if n in UNBUILDABLE]
    check("no source includes a server header needing ICU's headers", not bad, ", ".join(bad))


def cycles(graph):
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in list(graph):
        if v not in index:
            visit(v)
    return out


def calls(files):
    src = {f: strip_c(open(f, encoding="utf-8").read()) for f in files
           if f.startswith("src/") and f.endswith(".c")}
    defs = {}
    # a definition: its return type, then its whole name (a static one's line "grow(" is
    # not a definition of "row")
    fn = re.compile(r"^(?!static)[A-Za-z_][\w \t*]*?\n?\b(\w+)\s*\([^;{]*\)\s*\{", re.M)
    for f, text in src.items():
        for name in fn.findall(text):
            defs.setdefault(name, f)
    return {f: {defs[n] for n in set(re.findall(r"\b(\w+)\s*\(", text))
                if n in defs and defs[n] != f}
            for f, text in src.items()}


def check_circles(files):
    # a module is x.c with its x.h; a header without a .c (types and declarations only,
    # like an internal header) is not a module: what it declares is code of other files,
    # which the call graph covers, and what it includes counts for every file including it
    graph, _ = includes(files)
    code = {f.rsplit(".", 1)[0] for f in graph if f.endswith(".c")}

    def reached(f):
        out, seen, todo = set(), set(), list(graph[f])
        while todo:
            t = todo.pop()
            if t not in seen:
                seen.add(t)
                if t.rsplit(".", 1)[0] in code:
                    out.add(t.rsplit(".", 1)[0])
                else:
                    todo.extend(graph.get(t, ()))
        return out
    module = {}
    for f in graph:
        m = f.rsplit(".", 1)[0]
        module.setdefault(m, set()).update(t for t in reached(f) if t != m)
    inc = cycles(module)
    check("no include circle between modules", not inc, "; ".join(" ".join(c) for c in inc))
    cc = cycles(calls(files))
    check("no call circle between files", not cc, "; ".join(" ".join(c) for c in cc))


def registry_entries():
    """the registry's descriptors: the entries its families' headers give
    (src/families/*/*.h), each (family, name, text of the entry)"""
    out = []
    for f in sorted(glob.glob("src/families/*/*.h")):
        text = open(f, encoding="utf-8").read()
        for e in re.split(r"\{\.name = ", text)[1:]:
            out.append((f.split("/")[2], e.split('"')[1], e[:e.find(".ledger")]))
    return out


def registry_families():
    """the families of the registry's DP_FAMILIES line, in its order"""
    text = open("src/families/registry.c", encoding="utf-8").read()
    line = re.search(r"^#define DP_FAMILIES\(X\) (.*)$", text, re.M)
    return re.findall(r"X\((\w+)\)", line.group(1)) if line else []


def family_section(fam, section):
    """the data lines of tests/families/<fam>.txt's [section] (tests/families/README)"""
    out, on = [], False
    for l in open(f"tests/families/{fam}.txt", encoding="utf-8").read().splitlines():
        if re.fullmatch(r"\[[a-z]+\]", l):
            on = l == f"[{section}]"
        elif on and l.strip() and not l.lstrip().startswith("#"):
            out.append(l)
    return out


def check_registry_lists():
    """each family's harness lines (tests/families/<f>.txt) cover its entries"""
    fams = registry_families()
    files = sorted(os.path.basename(f)[:-4] for f in glob.glob("tests/families/*.txt"))
    check(f"tests/families/ has a file for each of the registry's {len(fams)} families, no other",
          fams and sorted(fams) == files, f"registry {sorted(fams)}, files {files}")
    stray = sorted(os.path.basename(f)[:-4] for f in glob.glob("sql/families/*.sql")
                   if os.path.basename(f)[:-4] not in fams)
    check("every sql/families/<f>.sql is a registry family's (the Makefile takes only those)",
          not stray, ", ".join(stray))
    entries = [e for e in registry_entries() if e[0] in files]
    citus_sh = open("tests/citus/run.sh", encoding="utf-8").read()
    missing = {"neighbours": [], "audit": [], "citus": []}
    stale = [a for a in sorted(CITUS_PENDING)
             if not any(f'"{a}"' in t for _, _, t in entries)]
    for fam in files:
        mine = [(n, t) for f, n, t in entries if f == fam]
        listed = {l.split()[1] for l in family_section(fam, "neighbours")}
        missing["neighbours"] += [n for n, t in mine
                                  if ".evaluate_only = true" not in t and n not in listed]
        aggs = sorted({a for _, t in mine for a in re.findall(r'\.aggregate = "([\w.]+)"', t)})
        audit = "\n".join(family_section(fam, "audit"))
        missing["audit"] += [a for a in aggs if a + "(" not in audit]
        # on Citus a mechanism with an array form runs that (family.h, aggregate_arrays);
        # a family's bespoke checks may run it in tests/citus/run.sh instead
        aggs += [a for _, t in mine for a in re.findall(r'\.aggregate_arrays = "([\w.]+)"', t)]
        citus = "\n".join(family_section(fam, "citus"))
        for a in aggs:
            ran = a + "(" in citus or a + "(" in citus_sh
            if not ran and a not in CITUS_PENDING:
                missing["citus"].append(a)
            elif ran and a in CITUS_PENDING:
                stale.append(a)
    n = sum(1 for _, _, t in entries if ".evaluate_only = true" not in t)
    check(f"the families' [neighbours] lines cover the registry's {n} train() mechanisms",
          n and not missing["neighbours"], ", ".join(missing["neighbours"]))
    check("the families' [audit] rows audit every aggregate of the registry",
          entries and not missing["audit"], ", ".join(missing["audit"]))
    check("the families' [citus] lines (or tests/citus/run.sh) run the registry's aggregates "
          "(but CITUS_PENDING)", not missing["citus"] and not stale,
          ", ".join(missing["citus"] + [f"{a} (stale)" for a in stale]))


def floor(f):
    """a source file's layer (its folder under src/)"""
    return f.split("/")[1]


def family(f):
    """the family of a file of src/families/<f>/, else None"""
    parts = f.split("/")
    return parts[2] if len(parts) > 3 and parts[1] == "families" else None


def check_calls_up(files):
    rank = {d: i for i, d in enumerate(LAYERS)}
    up = sorted(f"{f} -> {g}" for f, gs in calls(files).items() for g in gs
                if rank.get(floor(g), -1) > rank.get(floor(f), len(LAYERS)))
    check(f"no call runs up the layers ({len(up)} do)", not up, ", ".join(up[:20]))


def check_families(files):
    """a family includes and calls its own folder and lower layers only (not the registry
    above it); outside src/families/ none is named (the registry, src/families/registry.c,
    is in no family and names none but on its DP_FAMILIES line, not an include or a call)"""
    src = [f for f in files if f.startswith("src/") and f.endswith((".c", ".h"))]
    named = []
    for f in src:
        text = strip_comments(open(f, encoding="utf-8").read())
        named += [(f, n, "src/" + n) for n in
                  re.findall(r'^\s*#\s*include\s+"(families/[^"]+)"', text, re.M)]
    named += [(f, g, g) for f, gs in calls(files).items() for g in gs if family(g)]
    cross, outside = [], []
    for f, what, target in named:
        if family(f):
            if family(f) != family(target):
                cross.append(f"{f} -> {what}")
        elif family(target) is not None:     # not the registry, above the families
            outside.append(f"{f} -> {what}")
    check("no family includes or calls another family or the registry", not cross, ", ".join(cross[:20]))
    check("no file outside a family folder (the registry included) names a family", not outside,
          ", ".join(outside[:20]))


def check_sealed_entry(files):
    """no file of src/ builds an SQL function's call by hand: an entry point states its run
    as a request (DPRunRequest) for dp_sealed_run()"""
    src = [f for f in files if f.startswith("src/") and f.endswith((".c", ".h"))]
    built = [f for f in src if re.search(r"\b(LOCAL_FCINFO|InitFunctionCallInfoData)\b",
                                         strip_c(open(f, encoding="utf-8").read()))]
    check("no file of src/ builds an SQL function's call by hand (one typed entry, "
          "dp_sealed_run())", not built, ", ".join(built))


def check_compat(files):
    """version differences live in src/base/pg_compat.h only: no other file tests
    PG_VERSION_NUM or writes pg_attribute_noreturn() (gone in 18; pg_noreturn is the compat
    header's)"""
    src = [f for f in files if f.startswith("src/") and f.endswith((".c", ".h"))
           and f != "src/base/pg_compat.h"]
    bad = [f for f in src if re.search(r"\b(PG_VERSION_NUM|pg_attribute_noreturn)\b",
                                       strip_c(open(f, encoding="utf-8").read()))]
    check("only src/base/pg_compat.h names the server version or pg_attribute_noreturn()",
          not bad, ", ".join(bad))


def main():
    files = tracked()
    check_registry_lists()
    check_paths(files)
    check_issue_numbers(files)
    check_released_scripts(files)
    check_architecture(files)
    check_core(files)
    check_server_headers(files)
    check_object_names(files)
    check_circles(files)
    check_layers(files)
    check_calls_up(files)
    check_families(files)
    check_sealed_entry(files)
    check_compat(files)
    print(f"{PASS} passed, {FAIL} failed")
    return 1 if FAIL else 0


if __name__ == "__main__":
    sys.exit(main())
