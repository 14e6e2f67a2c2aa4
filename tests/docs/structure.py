#!/usr/bin/env python3
"""tests/docs/structure.py — checks that the source tree and the documents agree.

Run from the repository root.  Prints "ok"/"not ok" lines and, last, "N passed, M failed".
  1. every path README.md and docs/*.md name (src/…, tests/…, bench/…, sql/…, scripts/…,
     expected/…, docs/…, data/…; globs allowed) exists;
  2. no "issue N" in src/, sql/ (but the released scripts, which never change), docs/,
     bench/, tests/, scripts/ or README.md: comments and docs say what and why;
  3. docs/ARCHITECTURE.md lists every folder of src/ in its layout table and names every
     source file of src/ in its file table;
  4. src/core/ includes no PostgreSQL header, directly or through another header;
  5. no include circle between modules (x.c with x.h; a header of no module passes its
     includes on) and no call circle between files;
  6. every include of a dpobj header names its folder ("state/aggstate.h"), and none runs
     up the layers (LAYERS, bottom first; docs/ARCHITECTURE.md "Layout");
  7. every train() mechanism of the registry (the entries of the families it lists,
     src/families/*/*.h) has a line in the neighbour harness's
     tests/security/mechanisms.txt, every aggregate of the registry a line in the audit's
     tests/audit/audits.txt and (but CITUS_PENDING) a run in tests/citus/run.sh;
  8. no call runs up the layers (a function defined in a higher folder called from a
     lower one);
  9. a family (src/families/<f>/) includes and calls only the layers below it and its own
     folder, never another family nor the registry above them (src/families/registry.c);
     outside src/families/ none is named;
 10. a throwaway family (a copy of the tree with one more family folder, SQL test and
     registry line) passes these checks and is built and tested with no other edit.
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


def check_issue_numbers(files):
    frozen = {"sql/dpobj--0.1.0.sql", "sql/dpobj--0.1.0--0.2.0.sql",
              "sql/dpobj--0.2.0--0.3.0.sql", "sql/dpobj--0.3.0.sql",
          "sql/dpobj--0.3.0--0.4.0.sql", "sql/dpobj--0.4.0.sql",
          "sql/dpobj--0.4.0--0.5.0.sql", "sql/dpobj--0.5.0.sql"}
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
    unnamed = [f for f in files if f.startswith("src/") and f.endswith((".c", ".h"))
               and os.path.basename(f) not in arch]
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
    (src/families/*/*.h), each (name, text of the entry)"""
    texts = [open(f, encoding="utf-8").read() for f in sorted(glob.glob("src/families/*/*.h"))]
    out = []
    for text in texts:
        for e in re.split(r"\{\.name = ", text)[1:]:
            out.append((e.split('"')[1], e[:e.find(".ledger")]))
    return out


def check_registry_lists():
    entries = registry_entries()
    train = [n for n, e in entries if ".evaluate_only = true" not in e]
    listed = {l.split()[1] for l in open("tests/security/mechanisms.txt", encoding="utf-8")
              if l.strip() and not l.startswith("#")}
    missing = [m for m in train if m not in listed]
    check(f"tests/security/mechanisms.txt covers the registry's {len(train)} train() mechanisms",
          train and not missing, ", ".join(missing))
    aggs = sorted({a for _, e in entries for a in re.findall(r'\.aggregate = "([\w.]+)"', e)})
    audits = open("tests/audit/audits.txt", encoding="utf-8").read()
    missing = [a for a in aggs if a + "(" not in audits]
    check(f"tests/audit/audits.txt audits the registry's {len(aggs)} aggregates",
          aggs and not missing, ", ".join(missing))
    citus = open("tests/citus/run.sh", encoding="utf-8").read()
    # on Citus a mechanism with an array form runs that (registry.h, aggregate_arrays)
    aggs = sorted(aggs + [a for _, e in entries for a in re.findall(r'\.aggregate_arrays = "([\w.]+)"', e)])
    missing = [a for a in aggs if a + "(" not in citus and a not in CITUS_PENDING]
    stale = [a for a in sorted(CITUS_PENDING) if a + "(" in citus or a not in aggs]
    check("tests/citus/run.sh runs the registry's aggregates (but CITUS_PENDING)",
          not missing and not stale, ", ".join(missing + [f"{a} (stale)" for a in stale]))


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


def main():
    files = tracked()
    check_registry_lists()
    check_paths(files)
    check_issue_numbers(files)
    check_architecture(files)
    check_core(files)
    check_server_headers(files)
    check_object_names(files)
    check_circles(files)
    check_layers(files)
    check_calls_up(files)
    check_families(files)
    print(f"{PASS} passed, {FAIL} failed")
    return 1 if FAIL else 0


if __name__ == "__main__":
    sys.exit(main())
