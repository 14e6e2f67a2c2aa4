#!/usr/bin/env python3
"""tests/docs/limits.py — the documents stay short and every citation resolves.

Run from the repository root.  Prints "ok"/"not ok" lines and, last, "N passed, M failed".
  1. sizes: Markdown under docs/ <= 250 KB in all, CHANGELOG.md's newest version section
     <= 12 KB, README.md <= 12 KB (growth past a limit needs a decision: cut, or raise the
     limit here in a reviewed commit);
  2. citations: every document that src/, sql/ (but the released scripts), tests/, bench/,
     scripts/, docs/ and README.md cite by name (`docs/PRIVACY.md`, `[USAGE.md](USAGE.md)`,
     `ALGORITHMS.md`) exists in the repository, and every heading cited after it exists in
     that document.  Citation syntax: the document, an optional ")" and ",", then one or
     more quoted headings joined by "," / "and" / "or" — `docs/PRIVACY.md, "Composition"`
     — or a numbered section: `docs/ALGORITHMS.md §4`, `section 4`, `sections 1-2`.
     A quoted heading matches a Markdown heading of the document (any level,
     case-insensitive) whole, without its leading "N. ", or up to " - ", " — ", " (" or ":"
     (REFERENCE.md's "## train - ..." is cited as "train");
  3. links: every relative Markdown link or image in README.md and docs/ names a file.
"""
import glob, os, re, subprocess, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from structure import released_scripts  # noqa: E402  (the released scripts, never changed)

PASS, FAIL = 0, 0
KB = 1000
LIMITS = {"docs": 250 * KB, "changelog_section": 12 * KB, "readme": 12 * KB}
ROOTS = ("src/", "sql/", "tests/", "bench/", "scripts/", "docs/", "README.md")


def check(desc, ok, detail=""):
    global PASS, FAIL
    if ok:
        PASS += 1
        print("ok - " + desc)
    else:
        FAIL += 1
        print("not ok - " + desc + (": " + detail if detail else ""))


def size(path):
    return len(open(path, "rb").read())


def check_sizes():
    docs = {p: size(p) for p in glob.glob("docs/**/*.md", recursive=True)}
    total = sum(docs.values())
    top = ", ".join(f"{p} {n // KB} KB" for p, n in sorted(docs.items(), key=lambda x: -x[1])[:4])
    check(f"docs/ Markdown {total // KB} KB <= {LIMITS['docs'] // KB} KB",
          total <= LIMITS["docs"], top)
    text = open("CHANGELOG.md", encoding="utf-8").read()
    sections = re.split(r"(?m)^(?=## )", text)
    newest = next((s for s in sections if s.startswith("## ")), "")
    n = len(newest.encode("utf-8"))
    check(f"CHANGELOG.md's newest section ({newest.splitlines()[0][3:] if newest else 'none'})"
          f" {n // KB} KB <= {LIMITS['changelog_section'] // KB} KB",
          bool(newest) and n <= LIMITS["changelog_section"])
    n = size("README.md")
    check(f"README.md {n // KB} KB <= {LIMITS['readme'] // KB} KB", n <= LIMITS["readme"])


def files():
    try:
        out = subprocess.check_output(["git", "ls-files"], text=True, stderr=subprocess.DEVNULL)
        return out.split()
    except (subprocess.CalledProcessError, FileNotFoundError):
        return sorted(os.path.relpath(os.path.join(d, f)) for d, _, fs in os.walk(".")
                      if not d.startswith("./.git") for f in fs)


def headings(path):
    """the keys a citation of one heading of path may use"""
    keys = set()
    for line in open(path, encoding="utf-8").read().splitlines():
        m = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not m:
            continue
        h = m.group(1).replace("`", "").replace("*", "").strip().lower()
        keys.add(h)
        num = re.match(r"(\d+)\.\s+(.*)", h)
        if num:
            keys.add("§" + num.group(1))
            h = num.group(2)
            keys.add(h)
        for sep in (" - ", " — ", " (", ":"):
            if sep in h:
                keys.add(h.split(sep)[0].strip())
    return keys


DOC = re.compile(r"(?<![\w.-])((?:\$?\{?[\w.-]+\}?/)*)([A-Z][A-Z0-9_]+\.md)\b")
QUOTED = re.compile(r"""\)?,?\s*((?:"[\w§`*'][^"\n]{0,79}"(?:\s*(?:,|and|or)\s*)?)+)""")
SECTION = re.compile(r"\)?,?\s*(?:§\s*|sections?\s+)(\d+)(?:\s*(?:-|–|and|,)\s*(\d+))?")


def resolve(citing, prefix, name):
    """the repository file a cited document name means, or None: with a path, that path
    (from the root or from the citing file's folder; "$REPO/" is the root); without one,
    the root, docs/ or the citing file's folder"""
    prefix = re.sub(r"^\$?\{?REPO\}?/", "", prefix)
    if prefix:
        cands = [prefix + name, os.path.join(os.path.dirname(citing), prefix + name)]
    else:
        cands = [name, "docs/" + name, os.path.join(os.path.dirname(citing), name)]
    for c in cands:
        c = os.path.normpath(c)
        if not c.startswith("..") and os.path.isfile(c):
            return c
    return None


def locate(orig, text, pos):
    """the line of orig that holds text[pos] (text is orig with some line breaks joined)"""
    key = text[pos:pos + 40]
    i = orig.find(key)
    return orig.count("\n", 0, i) + 1 if i >= 0 else text.count("\n", 0, pos) + 1


def citations(path):
    text = open(path, encoding="utf-8", errors="replace").read()
    orig = text
    # a comment's continuation ("\n *" in C, "\n# " or "\n-- " elsewhere) joins the line it
    # continues; lines[i] is the line of text[i] in the file
    cont = r"\n\s*\*(?!/)\s*" if path.endswith((".c", ".h")) else r"\n\s*(?:--|#)\s*"
    if not path.endswith(".md"):
        text = re.sub(cont, " ", orig)
    for m in DOC.finditer(text):
        prefix, name = m.group(1), m.group(2)
        line = locate(orig, text, m.start())
        # a markdown link [X.md](path): the citation follows the link's ")"
        end = m.end()
        link = re.match(r"\]\([^)]*\)", text[end:])
        if link:
            end += link.end() - 1
        rest = text[end:end + 300]
        heads = []
        q = QUOTED.match(rest)
        if q:
            heads = re.findall(r'"([^"\n]+)"', q.group(1))
        s = SECTION.match(rest)
        if s:
            a, b = int(s.group(1)), int(s.group(2) or s.group(1))
            heads = ["§%d" % k for k in range(a, b + 1)] if b >= a else ["§%d" % a]
        yield line, prefix, name, heads


def check_citations():
    missing_docs, missing_heads, count = [], [], 0
    cache = {}
    frozen = released_scripts(files())
    for f in files():
        if not f.startswith(ROOTS) or f in frozen or "/runs/" in f:
            continue
        if not f.endswith((".c", ".h", ".sql", ".sh", ".py", ".md", ".awk", ".csv", ".gp")):
            continue
        if f == "tests/docs/limits.py":
            continue
        for line, prefix, name, heads in citations(f):
            count += 1
            if name in ("README.md",) and "/" in prefix.strip("./"):
                continue        # a README of another project's folder
            doc = resolve(f, prefix, name)
            if doc is None:
                missing_docs.append(f"{f}:{line} {prefix}{name}")
                continue
            if doc not in cache:
                cache[doc] = headings(doc)
            for h in heads:
                key = h.replace("`", "").replace("*", "").strip().lower()
                if key not in cache[doc]:
                    missing_heads.append(f'{f}:{line} {doc} "{h}"')
    check(f"every cited document is in the repository ({count} citations)", not missing_docs,
          ", ".join(missing_docs[:30]) + (f" (+{len(missing_docs) - 30})" if len(missing_docs) > 30 else ""))
    check("every cited heading exists", not missing_heads,
          "\n  ".join([""] + missing_heads[:60]) + (f"\n  (+{len(missing_heads) - 60})" if len(missing_heads) > 60 else ""))


def check_links():
    """every relative Markdown link and image of README.md and docs/ points at a file"""
    bad = []
    for doc in ["README.md"] + sorted(glob.glob("docs/**/*.md", recursive=True)):
        text = open(doc, encoding="utf-8").read()
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            path = target.split("#")[0]
            if not path or re.match(r"[a-z]+:", path):
                continue
            if not os.path.exists(os.path.normpath(os.path.join(os.path.dirname(doc), path))):
                bad.append(f"{doc}: {target}")
    check("every relative link in README.md and docs/ resolves", not bad, ", ".join(bad))


def check_help_source():
    """docs/REFERENCE.md is compiled into dpobj.help() by src/api/helpgen.awk, which takes
    printable ASCII and tabs only: a stray character would fail the build, not a test."""
    bad = [str(i) for i, line in enumerate(open("docs/REFERENCE.md", "rb").read().split(b"\n"), 1)
           if re.search(rb"[^\t -~]", line)]
    check("docs/REFERENCE.md is printable ASCII (helpgen.awk)", not bad,
          "lines " + ", ".join(bad[:10]))


def main():
    check_sizes()
    check_help_source()
    check_citations()
    check_links()
    print(f"{PASS} passed, {FAIL} failed")
    return 1 if FAIL else 0


if __name__ == "__main__":
    sys.exit(main())
